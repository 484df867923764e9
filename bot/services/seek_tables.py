"""Tables ``/sequence find`` seats: a lobby opened with its seekers in their seats, which
starts when each of them has pressed **Ready** (:class:`~bot.store.lobbies.SeekCall`, kept with
the lobby's stored options, so that Ready works after a restart). A seat freed meanwhile may be
taken by anyone (who must press Ready too); nobody joins a full one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from bot.store.lobbies import LookingCall, SeekCall
from bot.store.seats import Seat

from .errors import UserError
from .lobby_seating import computer_name

if TYPE_CHECKING:
    from bot.store.base import Store
    from bot.store.lobbies import LobbyRecord
    from bot.table.options import TableOptions

    from .locks import KeyedLocks


def not_ready(lobby: LobbyRecord) -> list[int]:
    """The people seated at a seekers' table who have not pressed Ready."""
    if lobby.seek is None:
        return []
    seated = {seat.user_id for seat in lobby.seats}
    return [user for user in lobby.seek.waiting if user in seated]


def require_ready(lobby: LobbyRecord) -> None:
    """Refuse to start a seekers' table while someone seated there has not pressed Ready."""
    waiting = not_ready(lobby)
    if waiting:
        names = ", ".join(f"<@{user}>" for user in waiting)
        raise UserError(f"Not everyone is ready: waiting for {names} to press **Ready**.")


def seated_for_seekers(people: list[tuple[int, str]], computers: int, level: str) -> list[Seat]:
    """The seats of a seekers' table: the people, then ``computers`` computer players."""
    seats = [Seat(user_id, name, None) for user_id, name in people]
    for number in range(1, computers + 1):
        seats.append(Seat(-number, f"{computer_name(number)} ({level} bot)", None, level))
    return seats


class SeekTables:
    """The lobby service's tables for seekers (a base of
    :class:`~bot.services.lobbies.LobbyService`: its store, clock and per-channel locks)."""

    db: Store
    clock: Callable[[], float]
    _locks: KeyedLocks

    async def open_seated(
        self,
        guild_id: int,
        channel_id: int,
        seats: list[Seat],
        options: TableOptions,
        *,
        looking: bool = False,
    ) -> LobbyRecord:
        """Open a lobby in ``channel_id`` with ``seats`` taken (the first person hosts), each
        person to press Ready; in the transaction the caller has open (the match's). The
        caller checked the caps; a channel with a lobby or game is refused."""
        people = tuple(seat.user_id for seat in seats if not seat.is_computer)
        async with self._locks(channel_id), self.db.transaction():
            if await self.db.lobbies.get_for_channel(channel_id) is not None:
                raise UserError("A lobby is already open there.")
            if await self.db.games.active_for_channel(channel_id) is not None:
                raise UserError("A game is being played there.")
            return await self.db.lobbies.create(
                guild_id,
                channel_id,
                people[0],
                options,
                now=self.clock(),
                seats=seats,
                looking=LookingCall() if looking else None,
                seek=SeekCall(people, len(seats)),
            )

    async def ready(self, channel_id: int, lobby_id: int, user_id: int) -> tuple[LobbyRecord, bool]:
        """A seeker seated at ``lobby_id`` is ready; the lobby, and whether this made the table
        full and everyone at it ready (then, and only then, the caller starts the game: two
        last clicks at once start it once)."""
        async with self._locks(channel_id), self.db.transaction():
            lobby = await self.db.lobbies.get_for_channel(channel_id)
            if lobby is None or lobby.id != lobby_id:
                raise UserError("This table is closed.")
            if lobby.seek is None:
                raise UserError("This table was not seated by `/sequence find`.")
            if all(seat.user_id != user_id for seat in lobby.seats):
                raise UserError("You have no seat at this table.")
            if user_id not in lobby.seek.waiting:
                raise UserError("You are ready already: the game starts when everyone is.")
            waiting = tuple(user for user in lobby.seek.waiting if user != user_id)
            lobby.seek = SeekCall(waiting, lobby.seek.players)
            await self.db.lobbies.save(lobby)
            full = len(lobby.seats) >= lobby.seek.players
            return lobby, full and not not_ready(lobby)
