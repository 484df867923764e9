"""The games this process serves: in memory, found by id, by channel and by player.

:class:`GameRegistry` is the base of :class:`~bot.services.games.service.GameService`: it holds
what every part of the service shares (the store, the clock, the outbox's dispatcher, the games'
locks) and the served games, with the games that ended lately kept a while for the consumers
of their last events.
"""

from __future__ import annotations

from collections import OrderedDict, defaultdict
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..dispatch import Dispatcher
from ..errors import UserError
from ..locks import KeyedLocks
from .seats import seat_of

if TYPE_CHECKING:
    from bot.store.base import Store
    from bot.store.games.records import GameRecord

#: Games that ended lately, still looked up by the consumers of their last events.
ENDED_KEPT = 512


class GameRegistry:
    """The active games, served from memory, and the ones that ended lately."""

    def __init__(
        self, db: Store, clock: Callable[[], float], bus: Dispatcher | None = None
    ) -> None:
        self.db = db
        self.clock = clock
        self.bus = bus or Dispatcher(clock)
        self.bus.db = db
        self.records: dict[int, GameRecord] = {}
        self._ended: OrderedDict[int, GameRecord] = OrderedDict()
        self._by_channel: dict[int, int] = {}
        self._by_player: defaultdict[int, set[int]] = defaultdict(set)
        self.locks = KeyedLocks()
        #: One write of a channel's pause at a time (see ``GameService.set_pause``).
        self.pause_locks = KeyedLocks()

    async def load_active(self) -> list[GameRecord]:
        """Load every active game from the store (at start-up)."""
        for record in await self.db.games.active():
            self.add(record)
        return list(self.records.values())

    def live(self, game_id: int) -> GameRecord | None:
        """The game as this process serves it now (one that ended lately too): what its
        latest board shows, where its events' consumers read it rather than the event's copy."""
        return self.records.get(game_id) or self._ended.get(game_id)

    def _keep_ended(self, record: GameRecord) -> None:
        self._ended[record.id] = record
        while len(self._ended) > ENDED_KEPT:
            self._ended.popitem(last=False)

    def add(self, record: GameRecord) -> None:
        """Start serving a game."""
        self.records[record.id] = record
        self._by_channel[record.channel_id] = record.id
        for seat in record.seats:
            self._by_player[seat.user_id].add(record.id)

    def _forget(self, record: GameRecord) -> None:
        self.records.pop(record.id, None)
        self._keep_ended(record)
        if self._by_channel.get(record.channel_id) == record.id:
            del self._by_channel[record.channel_id]
        for seat in record.seats:
            games = self._by_player.get(seat.user_id)
            if games is not None:
                games.discard(record.id)
                if not games:
                    del self._by_player[seat.user_id]

    def drop_ended_of(self, user_id: int) -> None:
        """Let go of the games that ended lately with ``user_id`` at the table (that member
        was forgotten: their name must not come back from memory)."""
        for game_id, record in list(self._ended.items()):
            if any(seat.user_id == user_id for seat in record.seats):
                del self._ended[game_id]

    def get(self, game_id: int) -> GameRecord:
        """An active game of this process by id, or a clear error."""
        record = self.records.get(game_id)
        if record is None:
            raise UserError(f"There is no active game #{game_id}.")
        return record

    def for_channel(self, channel_id: int) -> GameRecord:
        """The active game of a channel, or a clear error."""
        record = self.find_in_channel(channel_id)
        if record is None:
            raise UserError(
                "There is no game in this channel now: a game begins when the host of a lobby "
                "here presses **Start** (`/sequence new` opens a lobby)."
            )
        return record

    def find_in_channel(self, channel_id: int) -> GameRecord | None:
        """The active game of a channel, if any."""
        game_id = self._by_channel.get(channel_id)
        return None if game_id is None else self.records.get(game_id)

    def games_of(self, user_id: int, guild_id: int | None = None) -> list[GameRecord]:
        """The active games a user plays in (in one server, or everywhere)."""
        found = (self.records[g] for g in self._by_player.get(user_id, ()) if g in self.records)
        return [r for r in found if guild_id is None or r.guild_id == guild_id]

    def require_seat(self, record: GameRecord, user_id: int) -> int:
        """The seat of ``user_id`` in a game, or a clear error."""
        seat = seat_of(record, user_id)
        if seat is None:
            raise UserError("You are not playing in this game.")
        return seat
