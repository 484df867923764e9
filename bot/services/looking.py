"""A lobby's call for players: its host pings the server's looking-for-game role, once per lobby.

A lobby opened while the server has a looking-for-game role (``/sequence-admin set
looking_role``) is offered the call (:class:`~bot.store.lobbies.LookingCall`, kept with the
lobby's stored options, so that it survives a restart). The call is recorded before it is
posted, under the lobby's lock in one transaction, so that two clicks at once ping once; a post
Discord refuses gives it back. Whether the role exists and may be pinged is Discord's to say:
the cog checks that first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from bot.game.settings import ALLOWED_PLAYER_COUNTS
from bot.store.lobbies import LookingCall

from .errors import UserError

if TYPE_CHECKING:
    from bot.store.base import Store
    from bot.store.lobbies import LobbyRecord

    from .locks import KeyedLocks


def players_wanted(lobby: LobbyRecord) -> int | None:
    """How many more players the lobby needs for the next table size its options allow (the
    preset's player counts, the teams chosen); None when no more can sit.

    >>> from bot.store.lobbies import LobbyRecord
    >>> from bot.store.seats import Seat
    >>> from bot.table.options import TableOptions
    >>> players_wanted(LobbyRecord(1, 1, 1, 7, TableOptions(teams=3), [Seat(7, "ann", None)]))
    2
    """
    seated = len(lobby.seats)
    for size in ALLOWED_PLAYER_COUNTS[lobby.options.preset]:
        if size <= seated:
            continue
        try:
            lobby.options.game_settings(size)
        except UserError:  # not with the teams or house rules chosen
            continue
        return size - seated
    return None


def make_call(lobby: LobbyRecord, actor_id: int, now: float) -> int:
    """Record the host's call on ``lobby`` (not yet stored); how many more players it wants.
    Refused, changing nothing, when the lobby was offered no call, the actor is not its host,
    the call was made already, or the lobby is full."""
    call = lobby.looking
    if call is None:
        raise UserError(
            "This lobby opened when no looking-for-game role was set: it cannot ping one."
        )
    if actor_id != lobby.host_id:
        raise UserError(f"Only the host (<@{lobby.host_id}>) can ping the looking-for-game role.")
    if call.made:
        when = f" <t:{int(call.pinged_at)}:R>" if call.pinged_at is not None else ""
        raise UserError(
            f"The looking-for-game role was already pinged for this lobby (by "
            f"<@{call.pinged_by}>{when}): once per lobby."
        )
    wanted = players_wanted(lobby)
    if wanted is None:
        raise UserError("The lobby is full: nobody else can sit at this table.")
    lobby.looking = LookingCall(actor_id, now)
    return wanted


class LookingCalls:
    """The lobby service's calls to the looking-for-game role (a base of
    :class:`~bot.services.lobbies.LobbyService`: its store, clock and per-channel locks)."""

    db: Store
    clock: Callable[[], float]
    _locks: KeyedLocks

    async def call_for_players(
        self, channel_id: int, lobby_id: int, actor_id: int
    ) -> tuple[LobbyRecord, int]:
        """The host calls for players on the lobby ``lobby_id`` (a message's button): recorded
        in one transaction before it is posted (:func:`make_call`). The lobby as recorded and
        how many more players it wants."""
        async with self._locks(channel_id), self.db.transaction():
            lobby = await self.db.lobbies.get_for_channel(channel_id)
            if lobby is None or lobby.id != lobby_id:
                raise UserError("This lobby is closed.")
            wanted = make_call(lobby, actor_id, self.clock())
            await self.db.lobbies.save(lobby)
            return lobby, wanted

    async def call_not_posted(self, lobby: LobbyRecord) -> None:
        """Forget a call Discord refused to post (nobody was pinged): the host may call again."""
        async with self._locks(lobby.channel_id), self.db.transaction():
            current = await self.db.lobbies.get(lobby.id)
            if current is not None and current.looking is not None:
                current.looking = LookingCall()
                await self.db.lobbies.save(current)
