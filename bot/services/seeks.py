"""Find a game (``/sequence find``): people who look for the same game are seated together.

A seek says how many players (2, 3, 4 or 6), the speed (``live``: a turn clock of minutes,
the seek waits :data:`LIVE_WAIT`; ``slow``: a day a turn, the seek waits :data:`SLOW_WAIT`),
rated or not, and whether a computer opponent may be offered when a live seek's wait runs out.
Every change runs under the server's queue lock (in the process, and :meth:`Store.lock_keys`
across a cluster) in one transaction: two seekers who complete the same table at once seat one
table, and a cancel that races a match either cancels the seek or finds it matched.

A match is recorded first (its seeks ``matched``, in the transaction that finds it), then its
table opened where the server's tables open (:meth:`SeekService.seat`, once a thread of its
own exists when one is wanted): a table Discord did not let open puts the seeks back in the
queue (:meth:`SeekService.unmatch`). The match's step in the outbox (:mod:`.seek_steps`) is
done in either's transaction: one a crash left undone is done at the next start.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from bot.game.settings import MAX_PLAYERS
from bot.store.seeks import CANCELLED, DROPPED, EXPIRED, MATCHED, OFFERED, OPEN, SeekRecord

from .caps import CapReached
from .errors import UserError
from .locks import KeyedLocks
from .seek_matching import pick_group, queue_place, same_game
from .seek_steps import Match, SeekEnd, record_end, record_match, step_done, undelivered
from .seek_tables import seated_for_seekers

if TYPE_CHECKING:
    from bot.store.base import Store
    from bot.store.lobbies import LobbyRecord
    from bot.table.options import TableOptions

    from .caps import Caps
    from .lobbies import LobbyService

#: The table sizes one may seek.
PLAYER_COUNTS = (2, 3, 4, 6)
#: The speeds one may seek, each with its turn clock (seconds a turn).
TURN_LIMITS = {"live": 10 * 60, "slow": 24 * 3600}
#: How long a live seek waits for other players, and a slow one.
LIVE_WAIT = 15 * 60.0
SLOW_WAIT = 3 * 24 * 3600.0
#: The level of a computer opponent offered when a live seek's wait runs out.
COMPUTER_LEVEL = "medium"


@dataclass(frozen=True)
class SeekRequest:
    """What a person asks ``/sequence find game`` for, where."""

    guild_id: int
    user_id: int
    name: str
    players: int
    speed: str
    rated: bool
    computer_after: bool
    channel_id: int


@dataclass(frozen=True)
class SeekAnswer:
    """What a seek did: ``cancelled``, the seek it replaced (asking again cancels); else
    ``seek``, seated in ``match`` or waiting at ``place`` in its queue (``match`` then, if
    any, a table of others that had waited complete)."""

    @property
    def seated(self) -> bool:
        """Whether the seek found its table."""
        return self.match is not None and self.seek in self.match.seeks

    seek: SeekRecord | None = None
    place: int = 0
    match: Match | None = None
    cancelled: SeekRecord | None = None
    #: Why a complete group was not seated yet (a server cap), if so.
    held: str | None = None


def queue_key(guild_id: int) -> int:
    """The key of a server's queue in :meth:`Store.lock_keys` (never a person's or server's)."""
    return -guild_id


class SeekService:
    """The seeks of each server, kept in the store."""

    def __init__(
        self,
        db: Store,
        clock: Callable[[], float],
        lobbies: LobbyService,
        caps: Caps | None = None,
    ) -> None:
        self.db = db
        self.clock = clock
        self.lobbies = lobbies
        self.caps = caps
        self._locks = KeyedLocks()

    async def seek(self, request: SeekRequest) -> SeekAnswer:
        """Seek a game; seeking again while seeking cancels (the answer says which). The seek
        is matched at once when the seekers of its game complete a table."""
        if request.players not in PLAYER_COUNTS:
            raise UserError("Seek a table of 2, 3, 4 or 6 players.")
        if request.speed not in TURN_LIMITS:
            raise UserError("Choose the speed: live or slow.")
        async with self._locks(request.guild_id), self.db.transaction():
            await self.db.lock_keys(queue_key(request.guild_id))
            mine = await self.db.seeks.open_of(request.guild_id, request.user_id)
            if mine is not None:
                await self.db.seeks.set_status([mine.id], CANCELLED)
                return SeekAnswer(cancelled=mine)
            if self.caps is not None:
                await self.caps.may_take_seat(request.user_id, request.guild_id)
            now = self.clock()
            wait = LIVE_WAIT if request.speed == "live" else SLOW_WAIT
            seek = await self.db.seeks.create(
                SeekRecord(
                    0,
                    request.guild_id,
                    request.user_id,
                    request.name,
                    request.players,
                    request.speed,
                    request.rated,
                    request.computer_after,
                    await self._rating(request.guild_id, request.user_id),
                    request.channel_id,
                    now,
                    now + wait,
                )
            )
            queue = same_game(seek, await self.db.seeks.open_in(request.guild_id))
            match, held = await self._match(seek, queue)
            if match is not None:  # those seated leave the queue (the newest, or others)
                queue = [s for s in queue if s not in match.seeks]
            return SeekAnswer(seek, queue_place(seek, queue), match, held=held)

    async def _rating(self, guild_id: int, user_id: int) -> float:
        found = await self.db.standings.rating(guild_id, user_id)
        return 0.0 if found is None else found[0].ordinal

    async def _match(
        self, newest: SeekRecord, queue: list[SeekRecord]
    ) -> tuple[Match | None, str | None]:
        """Seat the group of ``newest`` if the queue completes one (each of them still under
        their caps, the newest's table under the server's); in the open transaction."""
        candidates = []
        for seek in queue:
            try:
                if self.caps is not None and seek.id != newest.id:
                    await self.caps.may_take_seat(seek.user_id, seek.guild_id)
            except CapReached:
                continue  # seated elsewhere meanwhile: they wait for a later table
            candidates.append(seek)
        # The table of the seek that waited longest: in the newest seek's group (the queue
        # held no complete table before it came), unless a table waited complete (it could
        # not open, or a cap held it back), which goes first: none is kept waiting.
        anchors = sorted(candidates, key=lambda seek: seek.id)
        group = next(
            (found for anchor in anchors if (found := pick_group(anchor, candidates))), None
        )
        if group is None:
            return None, None
        if self.caps is not None:
            try:
                await self.caps.may_open_lobby(newest.guild_id, group[0].user_id)
            except CapReached as reached:
                return None, str(reached)
        changed = await self.db.seeks.set_status([s.id for s in group], MATCHED)
        assert changed == len(group)  # under the queue's lock, nothing changed them meanwhile
        match = Match(newest.guild_id, tuple(group), group[-1].channel_id)
        return await record_match(self.db, match, self.clock()), None

    async def cancel(self, guild_id: int, user_id: int) -> SeekRecord:
        """Stop seeking: the person's open seek is cancelled."""
        async with self._locks(guild_id), self.db.transaction():
            await self.db.lock_keys(queue_key(guild_id))
            mine = await self.db.seeks.open_of(guild_id, user_id)
            if mine is None:
                raise UserError(
                    "You are not looking for a game here (a seek that found its table is over: "
                    "leave the table instead)."
                )
            await self.db.seeks.set_status([mine.id], CANCELLED)
            return mine

    async def expire(self, seek_id: int) -> SeekEnd | None:
        """A seek's wait ran out: it ends (``offered``: a live seek that may be offered a
        computer opponent, else ``expired``), its seeker to be told; None if it ended
        otherwise already."""
        seek = await self.db.seeks.get(seek_id)
        if seek is None:
            return None
        async with self._locks(seek.guild_id), self.db.transaction():
            await self.db.lock_keys(queue_key(seek.guild_id))
            seek = await self.db.seeks.get(seek_id)
            if seek is None or seek.status != OPEN or seek.expires_at > self.clock():
                return None
            offered = seek.speed == "live" and seek.computer_after
            status = OFFERED if offered else EXPIRED
            await self.db.seeks.set_status([seek.id], status)
            return await record_end(self.db, replace(seek, status=status), self.clock())

    async def told(self, end: SeekEnd) -> None:
        """The seeker was told their seek ended (or Discord refused for good): done."""
        await step_done(self.db, end.step, self.clock())

    async def undelivered(self) -> list[Match | SeekEnd]:
        """The tables to open and the ends to tell that a crash or a restart left undone."""
        return await undelivered(self.db)

    async def accept_computer(self, seek_id: int, user_id: int) -> Match:
        """The seeker takes the computer opponent their ended live seek offered: a table of
        them and computers, to open as any match."""
        seek = await self.db.seeks.get(seek_id)
        if seek is None or seek.user_id != user_id:
            raise UserError("This offer is for someone else.")
        async with self._locks(seek.guild_id), self.db.transaction():
            await self.db.lock_keys(queue_key(seek.guild_id))
            seek = await self.db.seeks.get(seek_id)
            if seek is None or seek.status != OFFERED:
                raise UserError("This offer was taken already.")
            if self.caps is not None:
                await self.caps.may_open_lobby(seek.guild_id, user_id)
            await self.db.seeks.set_status([seek.id], MATCHED, was=OFFERED)
            computers = max(1, min(seek.players, MAX_PLAYERS) - 1)
            match = Match(seek.guild_id, (seek,), seek.channel_id, computers)
            return await record_match(self.db, match, self.clock())

    async def seat(
        self, match: Match, channel_id: int, options: TableOptions, *, looking: bool = False
    ) -> LobbyRecord:
        """Open the table of ``match`` in ``channel_id`` (each person to press Ready there),
        in one transaction with its seeks' link to it."""
        people = [(seek.user_id, seek.name) for seek in match.seeks]
        seats = seated_for_seekers(people, match.computers, COMPUTER_LEVEL)
        async with self._locks(match.guild_id), self.db.transaction():
            for seek in match.seeks:
                current = await self.db.seeks.get(seek.id)
                if current is None or current.status != MATCHED or current.lobby_id is not None:
                    raise UserError("This table was opened already, or its seekers wait again.")
            lobby = await self.lobbies.open_seated(
                match.guild_id, channel_id, seats, options, looking=looking
            )
            ids = [seek.id for seek in match.seeks]
            linked = await self.db.seeks.set_status(ids, MATCHED, was=MATCHED, lobby_id=lobby.id)
            if linked != len(ids):
                raise UserError("These seeks were put back in the queue meanwhile.")
            await step_done(self.db, match.step, self.clock())
            return lobby

    async def unmatch(self, match: Match, gone: frozenset[int] = frozenset()) -> None:
        """A match whose table could not open: its people's seeks wait again (with their place
        in the queue; an offer taken goes back to being offered), but for the seeks of the
        people ``gone`` from the server, which are dropped."""
        async with self._locks(match.guild_id), self.db.transaction():
            await self.db.lock_keys(queue_key(match.guild_id))
            back = OFFERED if match.computers and len(match.seeks) == 1 else OPEN
            for seek in match.seeks:
                current = await self.db.seeks.get(seek.id)
                if current is None or current.lobby_id is not None:
                    continue  # seated at its table after all (another try opened it)
                if seek.user_id in gone:
                    await self.db.seeks.set_status([seek.id], DROPPED, was=MATCHED)
                elif await self.db.seeks.open_of(seek.guild_id, seek.user_id) is None:
                    await self.db.seeks.set_status([seek.id], back, was=MATCHED)
                else:  # seeking anew meanwhile: that seek stands
                    await self.db.seeks.set_status([seek.id], CANCELLED, was=MATCHED)
            await step_done(self.db, match.step, self.clock())

    async def drop(self, guild_id: int, user_id: int) -> SeekRecord | None:
        """The person left the server or was banned: their open seek ends (None: none)."""
        async with self._locks(guild_id), self.db.transaction():
            await self.db.lock_keys(queue_key(guild_id))
            mine = await self.db.seeks.open_of(guild_id, user_id)
            if mine is not None:
                await self.db.seeks.set_status([mine.id], DROPPED)
            return mine

    async def queue(self, guild_id: int) -> list[SeekRecord]:
        """A server's open seeks, oldest first."""
        return await self.db.seeks.open_in(guild_id)
