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

A handler that Discord refused (rate limited past discord.py's waits, down, a permission
missing) raises :class:`DeliverLater`: the event stays undelivered for that consumer (in the
store too: a restart delivers it again) and is tried again after a growing pause. Meanwhile
that consumer's later events of the game wait behind it, in order, while its lane goes on for
the other consumers and games; a later event for it, or :meth:`Dispatcher.wake`, tries it at
once (a late handler then finds the game moved on and leaves the posting to the later event).
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict, defaultdict, deque
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

from bot.store.connection import in_background
from bot.store.errors import OUTAGES

from .deliver_later import DeliverLater, Held, delivered_late, delivering_late, owner
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

__all__ = ["DeliverLater", "Dispatcher", "Subscriptions", "delivered_late"]


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
    #: Read back from the store (after a restart, or another process's change).
    late: bool = False


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
        #: What Discord refused, by (consumer, game); and the refusals tried on their own.
        self._held: dict[tuple[object, int], Held] = {}
        self._alone: set[Held] = set()
        #: Ids of the events given up until the next start (after the longest wait).
        self.given_up: set[int] = set()
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
        """Hand committed events to their consumers (``id`` None: an event that is not stored)."""
        for event_id, event in events:
            self._enqueue(event_id, event, None)

    def _enqueue(
        self,
        event_id: int | None,
        event: GameEvent,
        only: frozenset[str] | None,
        late: bool = False,
    ) -> None:
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
            self._queues.setdefault(key, deque()).append(_Delivery(event_id, event, mine, late))
            if key not in self._workers:
                self._workers[key] = asyncio.create_task(self._drain(key), context=in_background())

    async def _drain(self, key: tuple[Lane, int]) -> None:
        queue = self._queues[key]
        try:
            while queue:
                delivery = queue.popleft()
                for subscription in delivery.consumers:
                    item = (subscription, delivery.event_id, delivery.event, delivery.late)
                    held = self._held.get((owner(subscription), delivery.event.game_id))
                    if held is not None:  # behind a refusal: in order, and tried at once
                        held.waiting.append(item)
                        held.wake()
                        continue
                    later = await self._call(subscription, delivery.event, delivery.late)
                    if later is not None:
                        self._hold(subscription, item, later)
                    elif delivery.event_id is not None:
                        self._done(delivery.event_id, subscription.name)
        finally:
            self._workers.pop(key, None)
            if not queue:
                self._queues.pop(key, None)

    async def _call(
        self, subscription: Subscription, event: GameEvent, late: bool
    ) -> DeliverLater | None:
        """Run one handler (again while the store is down); what it asked to be tried later."""
        wait = RETRY_FIRST
        while True:
            token = delivering_late.set(late)
            try:
                await subscription.handler(event)
                return None
            except DeliverLater as later:
                return later
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
                return None
            finally:
                delivering_late.reset(token)
            await asyncio.sleep(wait)
            wait = min(2 * wait, RETRY_MOST)

    # ------------------------------------------------------------------ refused for now
    def _hold(
        self,
        subscription: Subscription,
        item: tuple[Subscription, int | None, GameEvent, bool],
        later: DeliverLater,
    ) -> None:
        """Keep a refused delivery to try again (and, ``ordered``, the consumer's later events
        of the game behind it)."""
        event = item[2]
        name, game_id = subscription.name, event.game_id
        log.info("%s of game %d is tried again in %.0f s (%s)", name, game_id, later.first, later)
        first = deque([(*item[:3], True)])  # tried again: late
        held = Held(subscription, event.game_id, first, later.first, later.most)
        if later.ordered:
            self._held[(owner(subscription), event.game_id)] = held
        else:
            self._alone.add(held)
        held.task = asyncio.create_task(self._retry(held), context=in_background())

    async def _retry(self, held: Held) -> None:
        """Try a held consumer's deliveries again, oldest first, after ever longer waits."""
        try:
            while held.waiting:
                timed = not held.woken
                if timed:
                    held.resting.set()
                    try:
                        await asyncio.sleep(held.wait)
                    except asyncio.CancelledError:
                        if not held.woken or self._closed:
                            raise
                        asyncio.current_task().uncancel()  # type: ignore[union-attr]
                        timed = False
                held.woken = False
                held.resting.clear()
                while held.waiting:
                    subscription, event_id, event, late = held.waiting[0]
                    later = await self._call(subscription, event, late)
                    held.waiting[0] = (subscription, event_id, event, True)
                    if later is None:
                        held.waiting.popleft()
                        if event_id is not None:
                            self._done(event_id, subscription.name)
                        continue
                    if not timed:  # woken: the same wait again
                        break
                    if held.wait < held.most:
                        held.wait = min(2 * held.wait, held.most)
                        break
                    held.waiting.popleft()  # refused after the longest wait: given up
                    held.wait = later.first
                    name = subscription.name
                    log.warning("%s of game %d: given up until the next start", name, event.game_id)
                    if event_id is not None:
                        self.given_up.add(event_id)
        finally:
            held.resting.set()
            key = (owner(held.subscription), held.game_id)
            if self._held.get(key) is held:
                del self._held[key]
            self._alone.discard(held)

    def wake(self, game_ids: Iterable[int]) -> None:
        """Try at once what Discord refused of these games (a server's permissions changed)."""
        wanted = set(game_ids)
        for held in [*self._held.values(), *self._alone]:
            if held.game_id in wanted:
                held.wake()

    def delivering(self, game_id: int, lane: Lane = "discord") -> bool:
        """True while events of the game are being handed to the consumers of ``lane``."""
        return (lane, game_id) in self._workers

    def holding(self, game_id: int | None = None) -> list[GameEvent]:
        """The events kept to be tried again (of one game, or of all), oldest first by hold."""
        return [
            event
            for held in [*self._held.values(), *self._alone]
            if game_id is None or held.game_id == game_id
            for _, _, event, _ in held.waiting
        ]

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
            self._flushing = asyncio.create_task(self._flush(), context=in_background())

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
        process's shards: after a restart, and then late, see :func:`delivered_late`), or when
        another process changed our game. ``load``
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
                self._enqueue(row.id, event, row.pending, late=game_id is None)
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
        while True:
            tasks: list[Awaitable[Any]] = [*self._workers.values()]
            if self._flushing is not None and not self._flushing.done():
                tasks.append(self._flushing)
            holds = [*self._held.values(), *self._alone]
            tasks += [held.resting.wait() for held in holds if not held.resting.is_set()]
            if not tasks:
                return
            await asyncio.gather(*tasks, return_exceptions=True)

    async def close(self) -> None:
        """Stop the workers and write what was delivered; what is still queued stays
        undelivered in the store (the next start delivers it)."""
        self._closed = True
        holds = [*self._held.values(), *self._alone]
        tasks = [*self._workers.values(), *(h.task for h in holds if h.task is not None)]
        if self._flushing is not None:
            tasks.append(self._flushing)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._workers.clear()
        self._queues.clear()
        self._held.clear()
        self._alone.clear()
        if self._marks and self.db is not None:
            try:
                await self.db.outbox.mark(self._marks, self.clock())
            except Exception as error:  # delivered again at the next start
                log.warning("What was delivered could not be written at the close (%s)", error)
            self._marks = {}
