"""The outbox's dispatcher: delivers what each change caused to the consumers of its events.

A change writes its events in its own transaction (:meth:`Dispatcher.record`); once it has
committed, the same events are handed over in memory (:meth:`Dispatcher.deliver`). Whatever a
crash, a restart or another process kept from being delivered is read back from the store
(:meth:`Dispatcher.recover`). Delivery is at least once, so every handler is idempotent.

Consumers subscribe by event kind, each in a *lane*. Within a lane, the events of one game reach
their consumers one at a time, in the order they were committed, and each event's consumers in
the order they subscribed (``bot/app.py`` registers them in one documented order). The lanes run
side by side: ``quick`` (timers, computer players) is never held up by the Discord posts of the
``discord`` lane. A handler that fails because the store is unreachable is tried again after a
growing pause (it holds its lane for that game meanwhile); one that fails otherwise is logged
and counts as delivered (one bad event never blocks a game for ever).
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections import OrderedDict, defaultdict, deque
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

from bot.store.errors import OUTAGES

from .event_codec import STORED, decode, encode
from .events import GameEvent

if TYPE_CHECKING:
    from bot.store.base import Store
    from bot.store.games.records import GameRecord
    from bot.store.outbox import EventRow

log = logging.getLogger(__name__)

E = TypeVar("E", bound=GameEvent)
Handler = Callable[[Any], Awaitable[None]]
#: What a consumer answers: each kind of event with its handler.
Subscriptions = list[tuple[type[Any], Handler]]
Lane = Literal["quick", "discord"]
LANES: tuple[Lane, ...] = ("quick", "discord")

#: Seconds before a handler the store's outage stopped is tried again; doubled up to the most.
RETRY_FIRST, RETRY_MOST = 1.0, 60.0
#: Delivered events are kept this long (an audit of what followed a change), then pruned.
KEEP_DELIVERED = 7 * 24 * 3600.0
#: Ids of events delivered by this process lately, never delivered again by a recovery.
_RECENT = 20_000


#: True while a handler is told of an event read back from the store (see :func:`redelivered`).
_REDELIVERED: contextvars.ContextVar[bool] = contextvars.ContextVar("redelivered", default=False)


def redelivered() -> bool:
    """Whether the handler running now is told of an event read back from the store (after a
    crash, a restart or another process's change): it may have acted on it before it died (a
    post sent, not yet recorded), so one that cannot simply do it again checks first."""
    return _REDELIVERED.get()


class Consumer(Protocol):
    """Something that acts on events: it declares what it answers, each with its handler."""

    def subscriptions(self) -> Subscriptions:
        """The kinds of event it answers, each with its handler, in the order to call them."""
        ...


@dataclass(frozen=True)
class Subscription:
    """A consumer of one kind of event: its stable name (stored with undelivered events)."""

    kind: type[GameEvent]
    handler: Handler
    lane: Lane
    name: str


@dataclass
class _Delivery:
    """One event on its way to the consumers of one lane (``event_id`` None: not stored)."""

    event_id: int | None
    event: GameEvent
    consumers: list[Subscription]
    #: Read back from the store (:meth:`Dispatcher.recover`), not handed over at the commit.
    recovered: bool = False


class Dispatcher:
    """Delivers committed events to their consumers, per game, lane and commit order."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.db: Store | None = None
        self._subscriptions: list[Subscription] = []
        self._queues: dict[tuple[Lane, int], deque[_Delivery]] = {}
        self._workers: dict[tuple[Lane, int], asyncio.Task[None]] = {}
        #: Stored events on their way: id -> the consumers still to be told.
        self._left: dict[int, set[str]] = {}
        self._marks: dict[int, frozenset[str]] = {}
        self._flushing: asyncio.Task[None] | None = None
        self._recent: OrderedDict[int, None] = OrderedDict()
        self._closed = False

    # ------------------------------------------------------------------ wiring
    def subscribe(
        self, kind: type[E], handler: Callable[[E], Awaitable[None]], *, lane: Lane = "discord"
    ) -> None:
        """Call ``handler`` with every event of ``kind`` (and of its subclasses)."""
        name = getattr(handler, "__qualname__", repr(handler))
        self._subscriptions.append(Subscription(kind, handler, lane, name))

    def register(self, consumer: Consumer, *, lane: Lane = "discord") -> None:
        """Subscribe each of ``consumer``'s :meth:`~Consumer.subscriptions`, in its order."""
        for kind, handler in consumer.subscriptions():
            self.subscribe(kind, handler, lane=lane)

    def unregister(self, consumer: Consumer) -> None:
        """Undo :meth:`register` (a cog being unloaded)."""
        for kind, handler in consumer.subscriptions():
            self.unsubscribe(kind, handler)

    def unsubscribe(self, kind: type[E], handler: Callable[[E], Awaitable[None]]) -> None:
        """Stop calling ``handler`` (a cog being unloaded)."""
        self._subscriptions = [
            s for s in self._subscriptions if not (s.kind is kind and s.handler == handler)
        ]

    def subscribed(self) -> list[Subscription]:
        """Every subscription, in the order they were made."""
        return list(self._subscriptions)

    def consumers(self, event: GameEvent) -> list[Subscription]:
        """The subscriptions ``event`` reaches, in the order they were made."""
        return [s for s in self._subscriptions if isinstance(event, s.kind)]

    # ------------------------------------------------------------------ writing
    async def record(self, events: Iterable[GameEvent], now: float) -> list[int | None]:
        """In the change's open transaction: write ``events`` to the outbox; their ids (None
        for an event of a kind that is not stored)."""
        assert self.db is not None
        ids: list[int | None] = []
        for event in events:
            if type(event).__name__ not in STORED:
                ids.append(None)
                continue
            names = {s.name for s in self.consumers(event)}
            kind = type(event).__name__
            ids.append(await self.db.outbox.add(event.game_id, kind, encode(event), names, now))
        return ids

    # ------------------------------------------------------------------ delivering
    def deliver(self, events: Iterable[tuple[int | None, GameEvent]]) -> None:
        """Hand committed events to their consumers (``id`` None: an event that is not stored,
        such as the table's own retry of a board)."""
        for event_id, event in events:
            self._enqueue(event_id, event, None)

    def publish(self, *events: GameEvent) -> None:
        """Deliver events that are not stored (they follow no change: a retry, a wake-up)."""
        self.deliver((None, event) for event in events)

    def _enqueue(self, event_id: int | None, event: GameEvent, only: frozenset[str] | None) -> None:
        if self._closed:
            return
        consumers = [s for s in self.consumers(event) if only is None or s.name in only]
        if event_id is not None:
            if event_id in self._left or event_id in self._recent:
                return  # already on its way (or delivered) in this process
            self._left[event_id] = {s.name for s in consumers}
            if not consumers:
                self._done(event_id, None)
                return
        for lane in LANES:
            mine = [s for s in consumers if s.lane == lane]
            if not mine:
                continue
            key = (lane, event.game_id)
            delivery = _Delivery(event_id, event, mine, recovered=only is not None)
            self._queues.setdefault(key, deque()).append(delivery)
            if key not in self._workers:
                self._workers[key] = asyncio.create_task(self._drain(key))

    async def _drain(self, key: tuple[Lane, int]) -> None:
        queue = self._queues[key]
        try:
            while queue:
                delivery = queue.popleft()
                for subscription in delivery.consumers:
                    told = _REDELIVERED.set(delivery.recovered)
                    try:
                        await self._call(subscription, delivery.event)
                    finally:
                        _REDELIVERED.reset(told)
                    if delivery.event_id is not None:
                        self._done(delivery.event_id, subscription.name)
        finally:
            self._workers.pop(key, None)
            if not queue:
                self._queues.pop(key, None)

    async def _call(self, subscription: Subscription, event: GameEvent) -> None:
        wait = RETRY_FIRST
        while True:
            try:
                await subscription.handler(event)
                return
            except OUTAGES as error:
                log.warning(
                    "%s of game %d waits for the store (%s): tried again in %.0f s",
                    subscription.name,
                    event.game_id,
                    error,
                    wait,
                )
            except Exception:
                log.exception("%s failed on %s", subscription.name, type(event).__name__)
                return
            await asyncio.sleep(wait)
            wait = min(2 * wait, RETRY_MOST)

    def _done(self, event_id: int, name: str | None) -> None:
        left = self._left.get(event_id)
        if left is None:
            return
        left.discard(name or "")
        self._marks[event_id] = frozenset(left)
        if not left:
            del self._left[event_id]
            self._recent[event_id] = None
            while len(self._recent) > _RECENT:
                self._recent.popitem(last=False)
        if self._flushing is None or self._flushing.done():
            self._flushing = asyncio.create_task(self._flush())

    async def _flush(self) -> None:
        """Write what was delivered, a batch at a time (a crash before it: delivered again)."""
        await asyncio.sleep(0)
        while self._marks and self.db is not None and not self._closed:
            marks, self._marks = self._marks, {}
            try:
                await self.db.outbox.mark(marks, self.clock())
            except Exception as error:
                log.warning("What was delivered waits to be written (%s)", error)
                self._marks = {**marks, **self._marks}
                await asyncio.sleep(RETRY_FIRST)

    # ------------------------------------------------------------------ recovering
    async def recover(
        self, load: Callable[[int], Awaitable[GameRecord | None]], game_id: int | None = None
    ) -> int:
        """Deliver the stored events not yet delivered (of one game, or of every game of this
        process's shards): after a restart, or when another process changed our game. ``load``
        gives a game as the store holds it now (None: no longer ours). How many were queued."""
        assert self.db is not None
        rows = await self.db.outbox.undelivered(game_id)
        loaded: dict[int, GameRecord | None] = {}
        queued = 0
        by_game: defaultdict[int, list[EventRow]] = defaultdict(list)
        for row in rows:
            by_game[row.game_id].append(row)
        for gid, game_rows in by_game.items():
            if gid not in loaded:
                loaded[gid] = await load(gid)
            stored = loaded[gid]
            if stored is None:
                continue
            for row in game_rows:
                if row.id in self._left or row.id in self._recent:
                    continue
                event = decode(row, stored)
                if event is None:
                    log.warning("Event %d (%s) is of no known kind: skipped", row.id, row.kind)
                    self._left[row.id] = set()
                    self._done(row.id, None)
                    continue
                self._enqueue(row.id, event, row.pending)
                queued += 1
        return queued

    async def prune(self) -> int:
        """Delete delivered events older than :data:`KEEP_DELIVERED`; how many went."""
        assert self.db is not None
        return await self.db.outbox.prune(self.clock() - KEEP_DELIVERED)

    # ------------------------------------------------------------------ life
    async def idle(self) -> None:
        """Wait until every queued event was handled and its delivery written (tests,
        shutdown)."""
        while self._workers or (self._flushing is not None and not self._flushing.done()):
            tasks = [*self._workers.values()]
            if self._flushing is not None:
                tasks.append(self._flushing)
            await asyncio.gather(*tasks, return_exceptions=True)

    async def close(self) -> None:
        """Stop the workers and write what was delivered; what is still queued stays
        undelivered in the store (the next start delivers it)."""
        self._closed = True
        tasks = [*self._workers.values()]
        if self._flushing is not None:
            tasks.append(self._flushing)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._workers.clear()
        self._queues.clear()
        if self._marks and self.db is not None:
            try:
                await self.db.outbox.mark(self._marks, self.clock())
            except Exception as error:  # delivered again at the next start
                log.warning("What was delivered could not be written at the close (%s)", error)
            self._marks = {}
