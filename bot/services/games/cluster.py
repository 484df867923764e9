"""The games of a cluster: whose a game is, another process's game loaded for a change, and
catching up with the changes other processes made to ours.

In a cluster (``SHARD_IDS``) a process serves the games of its shards' guilds. A change to
another process's game (a move made from a DM, which reaches shard 0's process) is made on a
copy loaded from the store (:meth:`ClusterGames.fetch`), and the owner is told in the same
transaction (``NOTIFY`` on :data:`GAMES_CHANNEL`); the owner takes the stored game in and
delivers the events that change wrote to the outbox (:meth:`ClusterGames.heard`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from bot.store.connection import in_background
from bot.store.errors import OUTAGES, NotFoundError

from ..errors import UserError
from .registry import GameRegistry

if TYPE_CHECKING:
    from bot.store.base import Store
    from bot.store.games.records import GameRecord

    from ..dispatch import Dispatcher
    from ..events import GameEvent

log = logging.getLogger(__name__)

#: Seconds before a game is read back again from a store that cannot be used; doubled up to
#: the most (as the dispatcher's retries).
RETRY_FIRST, RETRY_MOST = 1.0, 60.0
#: The channel on which a process tells the others it changed a game they serve.
GAMES_CHANNEL = "sequence_games"


class ClusterGames(GameRegistry):
    """The served games, and the games of the other processes of a cluster."""

    def __init__(
        self, db: Store, clock: Callable[[], float], bus: Dispatcher | None = None
    ) -> None:
        super().__init__(db, clock, bus)
        #: The tasks taking in games that other processes changed.
        self._catching_up: set[asyncio.Task[None]] = set()

    def owns(self, guild_id: int) -> bool:
        """True when this process serves the games of ``guild_id`` (always, in one process)."""
        shards = self.db.shards
        return shards is None or shards.owns(guild_id)

    async def fetch(self, game_id: int) -> GameRecord:
        """An active game by id: this process's from memory, another process's (in a cluster)
        freshly loaded from the store; else a clear error."""
        record = self.records.get(game_id)
        if record is not None:
            return record
        return await self._foreign(game_id)

    async def _foreign(self, game_id: int) -> GameRecord:
        missing = UserError(f"There is no active game #{game_id}.")
        try:
            record = await self.db.games.load(game_id)
        except NotFoundError:
            raise missing from None
        if record.status != "active":  # it ended while the change waited for the game
            raise UserError(f"Game #{game_id} has ended.")
        if self.owns(record.guild_id):
            raise missing  # ours and so already forgotten: it ended
        return record

    async def stored(self, game_id: int) -> GameRecord | None:
        """A game as the store holds it, for the delivery of its events: ours in memory, an
        ended one loaded (and kept a while for its consumers); None if it is not ours."""
        record = self.live(game_id)
        if record is not None:
            return record
        try:
            record = await self.db.games.load(game_id)
        except NotFoundError:
            return None
        if not self.owns(record.guild_id):
            return None
        if record.status == "active":
            self.add(record)
        else:
            self._keep_ended(record)
        return record

    def heard(self, payload: str) -> None:
        """A notification on :data:`GAMES_CHANNEL`: another process changed game ``payload``
        (an empty payload: the listener reconnected, any game may have moved). Each game of
        ours that moved is taken in from the store, and the events its changes wrote are
        delivered."""
        if payload and not payload.isdigit():
            return
        ids = [int(payload)] if payload else list(self.records)
        for game_id in ids:
            if game_id in self.records:
                task = asyncio.create_task(self.catch_up(game_id))
                self._catching_up.add(task)
                task.add_done_callback(self._catching_up.discard)

    async def catch_up(self, game_id: int, *, until_done: bool = False) -> None:
        """Take one of our games in from the store and deliver what other processes did (or a
        commit whose answer was lost: ``until_done`` tries again, after a growing pause, while
        the store cannot be used)."""
        pause = RETRY_FIRST
        while True:
            async with self.locks(game_id):
                record = self.records.get(game_id)
                if record is None:
                    return
                try:
                    await self._take_in(record)
                    await self.bus.recover(self.stored, game_id)
                    return
                except OUTAGES as error:
                    if not until_done:
                        log.warning("Game %d could not be reloaded: %s", game_id, error)
                        return
                except Exception:
                    log.exception("Game %d could not be reloaded from the store", game_id)
                    return
            await asyncio.sleep(pause)
            pause = min(pause * 2, RETRY_MOST)

    def catch_up_later(self, game_id: int) -> None:
        """Read one of our games back from the store once it answers (a commit whose answer
        was lost may have saved a change: its events are then delivered)."""
        task = asyncio.create_task(self.catch_up(game_id, until_done=True), context=in_background())
        self._catching_up.add(task)
        task.add_done_callback(self._catching_up.discard)

    async def record_events(
        self, events: Sequence[GameEvent], now: float
    ) -> list[tuple[int | None, GameEvent]]:
        """In the open transaction of a change that is not a game's (a member's period away):
        write the events it causes to games to the outbox, and tell the owners of other
        processes' games at the commit. What this process delivers once it has committed
        (:meth:`publish`): its own games' events."""
        ids = await self.bus.record(events, now)
        for game_id in sorted({e.game_id for e in events if e.game_id not in self.records}):
            await self.db.notify(GAMES_CHANNEL, str(game_id))
        return [(i, e) for i, e in zip(ids, events, strict=True) if e.game_id in self.records]

    def publish(self, events: list[tuple[int | None, GameEvent]]) -> None:
        """Deliver what :meth:`record_events` wrote, once its transaction has committed (a
        crash before: the outbox delivers it at the next start)."""
        self.bus.deliver(events)

    async def _take_in(self, record: GameRecord) -> None:
        """Under the game's lock: serve the game as the store holds it (another process
        changed it); the events of that change come from the outbox."""
        stored = await self.db.games.load(record.id)
        record.game, record.options, record.votes = stored.game, stored.options, stored.votes
        record.taken_back = stored.taken_back
        if stored.status != "active":
            record.status, record.finished_at = stored.status, stored.finished_at
            self._forget(record)
