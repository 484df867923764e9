"""The outbox's dispatcher on a real store (both backends): each consumer is told of each event
once, in commit order, even when the process stops between two consumers of one event."""

from __future__ import annotations

import asyncio
import time

from bot.services.dispatch import DeliverLater, Dispatcher, delivered_late
from bot.services.events import GameStarted, TurnStarted
from bot.services.games import GameService
from bot.store.location import open_database
from bot.store.seats import Seat
from bot.table.options import TableOptions
from tests.store_util import new_game

SEATS = [Seat(1, "ada"), Seat(2, "bob")]


class Recorder:
    """A consumer that records what it is told; ``stuck`` blocks it (a process about to die).
    A consumer's stored name is its handlers' qualified name: each subclass is another one."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, int]] = []
        self.stuck: asyncio.Event | None = None

    def subscriptions(self):
        return [(GameStarted, self.started), (TurnStarted, self.turn)]

    async def started(self, event: GameStarted) -> None:
        await self._see("started", event)

    async def turn(self, event: TurnStarted) -> None:
        await self._see("turn", event)

    async def _see(self, what: str, event) -> None:
        if self.stuck is not None:
            await self.stuck.wait()
        self.seen.append((what, event.game_id))


class First(Recorder):
    async def started(self, event: GameStarted) -> None:
        await self._see("started", event)

    async def turn(self, event: TurnStarted) -> None:
        await self._see("turn", event)


class Second(Recorder):
    async def started(self, event: GameStarted) -> None:
        await self._see("started", event)

    async def turn(self, event: TurnStarted) -> None:
        await self._see("turn", event)


async def started_game(games: GameService, channel_id: int = 56) -> int:
    db = games.db
    async with db.transaction():
        record = await db.games.create(1, channel_id, new_game(7), SEATS, TableOptions(), None, 1.0)
        events = await games.begin(record, [])
    games.started(record, events)
    return record.id


async def test_a_consumer_cut_short_is_told_once_after_a_restart(store_location):
    db = await open_database(store_location)
    first, second = First(), Second()
    games = GameService(db, time.time, Dispatcher(time.time))
    games.bus.register(first)
    games.bus.register(second)
    second.stuck = asyncio.Event()  # never set: the process stops while it is told
    game_id = await started_game(games)
    # The first consumer is told of the start (and the store knows it); the second is stuck.
    while not first.seen or len((await db.outbox.undelivered(game_id))[0].pending) > 1:
        await asyncio.sleep(0.01)
    await games.bus.close()  # the process stops: the second was never told
    assert first.seen == [("started", game_id)]
    assert second.seen == []
    await db.close()

    db = await open_database(store_location)
    again_first, again_second = First(), Second()  # the same consumers, in a new process
    games = GameService(db, time.time, Dispatcher(time.time))
    games.bus.register(again_first)
    games.bus.register(again_second)
    await games.load_active()
    await games.reconcile()
    await games.bus.idle()
    assert again_first.seen == [("turn", game_id)]  # the start was told before: not again
    assert again_second.seen == [("started", game_id), ("turn", game_id)]  # once, in order
    assert await db.outbox.undelivered(game_id) == []
    kept = await db.outbox.delivered(game_id)
    assert [row.kind for row in kept] == ["GameStarted", "TurnStarted"]  # kept for an audit
    await games.bus.close()
    await db.close()


async def test_events_of_a_change_that_rolls_back_are_never_delivered(store_location):
    db = await open_database(store_location)
    seen = First()
    games = GameService(db, time.time, Dispatcher(time.time))
    games.bus.register(seen)

    class Refused(Exception):
        pass

    try:
        async with db.transaction():
            record = await db.games.create(1, 56, new_game(7), SEATS, TableOptions(), None, 1.0)
            await games.begin(record, [])
            raise Refused
    except Refused:
        pass
    assert await db.outbox.undelivered() == []
    await games.reconcile()
    await games.bus.idle()
    assert seen.seen == []
    await games.bus.close()
    await db.close()


class Refusing(Recorder):
    """A consumer that Discord refuses ``refusals`` times on the game's start (then answers),
    with pauses of ``first`` seconds doubled up to ``most``."""

    def __init__(self, refusals: int, first: float = 0.05, most: float = 0.2) -> None:
        super().__init__()
        self.refusals, self.first, self.most = refusals, first, most
        self.tries = 0

    async def started(self, event: GameStarted) -> None:
        self.tries += 1
        if self.tries <= self.refusals:
            raise DeliverLater("HTTP 503", first=self.first, most=self.most)
        await self._see("started", event)

    async def turn(self, event: TurnStarted) -> None:
        await self._see("turn", event)


async def test_a_refused_handler_is_tried_again_and_its_later_events_wait_behind_it(
    store_location,
):
    """The consumer Discord refused is tried again after a pause and told of the game's later
    events after it, in order; another consumer of the same lane is not held up."""
    db = await open_database(store_location)
    refusing, other = Refusing(refusals=2), First()
    games = GameService(db, time.time, Dispatcher(time.time))
    games.bus.register(refusing)
    games.bus.register(other)
    game_id = await started_game(games)
    await asyncio.sleep(0.01)
    assert other.seen == [("started", game_id), ("turn", game_id)]
    assert refusing.seen == [] and len(games.bus.holding(game_id)) == 2
    for _ in range(100):
        if refusing.seen == [("started", game_id), ("turn", game_id)]:
            break
        await asyncio.sleep(0.02)
    assert refusing.seen == [("started", game_id), ("turn", game_id)]
    assert refusing.tries == 3 and games.bus.holding() == []
    await games.bus.idle()
    assert await db.outbox.undelivered(game_id) == []
    await games.bus.close()
    await db.close()


async def test_a_refused_handler_is_told_after_a_restart_and_is_given_up_only_until_then(
    store_location,
):
    """Discord refuses the handler past the longest pause: it is given up (the game's later
    events go on), but stays undelivered in the store, and the next start tells it once."""
    db = await open_database(store_location)
    refusing = Refusing(refusals=1000, first=0.01, most=0.02)
    games = GameService(db, time.time, Dispatcher(time.time))
    games.bus.register(refusing)
    game_id = await started_game(games)
    for _ in range(100):
        if games.bus.given_up:
            break
        await asyncio.sleep(0.02)
    await games.bus.idle()
    assert refusing.tries == 4  # at once, when the turn came, after 0.01 and 0.02 s: given up
    assert refusing.seen == [("turn", game_id)] and games.bus.holding() == []
    (row,) = await db.outbox.undelivered(game_id)
    assert row.kind == "GameStarted" and games.bus.given_up == {row.id}
    await games.bus.close()
    await db.close()

    db = await open_database(store_location)
    again = Refusing(refusals=0)  # the same consumer in a new process: Discord answers
    games = GameService(db, time.time, Dispatcher(time.time))
    games.bus.register(again)
    await games.load_active()
    await games.reconcile()
    await games.bus.idle()
    assert again.seen == [("started", game_id)]
    assert await db.outbox.undelivered(game_id) == []
    await games.bus.close()
    await db.close()


async def test_a_refused_handler_is_tried_at_once_when_woken(store_location):
    """A long pause is cut short by :meth:`Dispatcher.wake` (a server's permissions changed)."""
    db = await open_database(store_location)
    refusing = Refusing(refusals=2, first=3600.0, most=3600.0)
    games = GameService(db, time.time, Dispatcher(time.time))
    games.bus.register(refusing)
    game_id = await started_game(games)
    await asyncio.sleep(0.01)
    assert refusing.seen == [] and refusing.tries == 2  # at once, and when the turn came
    games.bus.wake([game_id])
    await asyncio.sleep(0)
    await games.bus.idle()
    assert refusing.seen == [("started", game_id), ("turn", game_id)]
    await games.bus.close()
    await db.close()


class Asking(Recorder):
    """Records, for each event, whether it comes late (``delivered_late``)."""

    async def _see(self, what: str, event) -> None:
        if self.stuck is not None:
            await self.stuck.wait()
        self.seen.append((what, delivered_late()))


async def test_a_handler_knows_an_event_read_back_from_the_store(store_location):
    """Handed over at the commit: not late. Read back after the process stopped while the
    handler ran (it may have acted on it): late, so it can check what it did."""
    db = await open_database(store_location)
    asking = Asking()
    games = GameService(db, time.time, Dispatcher(time.time))
    games.bus.register(asking)
    await started_game(games)
    await games.bus.idle()
    assert asking.seen == [("started", False), ("turn", False)]
    asking.stuck = asyncio.Event()  # the next game's first event: the process stops in it
    await started_game(games, channel_id=57)
    await asyncio.sleep(0.05)
    await games.bus.close()
    await db.close()

    db = await open_database(store_location)
    again = Asking()
    games = GameService(db, time.time, Dispatcher(time.time))
    games.bus.register(again)
    await games.load_active()
    await games.reconcile()
    await games.bus.idle()
    assert again.seen == [("started", True), ("turn", True)]
    assert not delivered_late()  # outside a handler
    await games.bus.close()
    await db.close()
