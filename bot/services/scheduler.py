"""One task that sleeps until the earliest deadline: thousands of pending timers cost one task.

Deadlines are Unix times read from the bot's clock; each is keyed, so setting a key again moves
its deadline and cancelling drops it. Due callbacks run as their own tasks, so a slow or failing
one never delays the others. Arming a timer is a heap push: the sleeping task is woken only when
the new deadline comes before the one it sleeps towards. After a long downtime, overdue timers
are started in batches with a yield to the event loop between them, and at most ``concurrency``
callbacks run at once, so a backlog of thousands never stalls the bot. A callback that finds
the store unusable (a database down, a file locked) runs again :data:`RETRY` seconds later, until
the store answers: a timer that falls due during an outage is late, never lost.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
from collections.abc import Awaitable, Callable, Hashable

from bot.store.connection import in_background
from bot.store.errors import OUTAGES

log = logging.getLogger(__name__)

Callback = Callable[[], Awaitable[None]]
#: ``sleep(seconds)``: waits that long on the scheduler's clock (``asyncio.sleep`` by default).
Sleep = Callable[[float], Awaitable[object]]

#: Due callbacks started before the scheduler yields to the event loop.
BATCH = 50
#: Callbacks running at once; the next due one starts when one of them ends.
CONCURRENCY = 100
#: Seconds before a callback that found the store unusable (down, locked, full) runs again.
RETRY = 30.0


class Scheduler:
    """Runs keyed callbacks at their deadlines."""

    def __init__(
        self,
        clock: Callable[[], float],
        sleep: Sleep = asyncio.sleep,
        *,
        batch: int = BATCH,
        concurrency: int = CONCURRENCY,
    ) -> None:
        self.clock = clock
        self._sleep = sleep
        self._batch = batch
        self._entries: dict[Hashable, tuple[float, int, Callback]] = {}
        self._heap: list[tuple[float, int, Hashable]] = []
        self._order = itertools.count()
        self._sleeper: asyncio.Task[None] | None = None
        self._sleeping_until = float("inf")
        self._napping = self._woken = False
        self._slots = asyncio.Semaphore(concurrency)
        self._running: set[asyncio.Task[None]] = set()
        self._catching_up: list[asyncio.Future[None]] = []
        self._closed = False

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._entries

    def at(self, key: Hashable, due: float, callback: Callback) -> None:
        """Run ``callback`` at ``due`` (replacing any earlier deadline of ``key``); nothing once
        closed (a callback that ``close`` cancelled may set a timer on its way out)."""
        if self._closed:
            return
        order = next(self._order)
        self._entries[key] = (due, order, callback)
        heapq.heappush(self._heap, (due, order, key))
        if due < self._sleeping_until:
            self._sleeping_until = due
            if self._sleeper is None:
                self._sleeper = asyncio.create_task(self._work(), context=in_background())
            elif self._napping and not self._woken:
                self._woken = True  # wake it: it sleeps towards a later deadline
                self._sleeper.cancel()

    async def caught_up(self) -> None:
        """Wait until no timer is due and no callback is running: the backlog of overdue
        timers (after a downtime) has been worked through."""
        if self._quiet():
            return
        waiter = asyncio.get_running_loop().create_future()
        self._catching_up.append(waiter)
        await waiter

    def _quiet(self) -> bool:
        if self._running:
            return False
        upcoming = self._next()
        return upcoming is None or upcoming[0] > self.clock()

    def _tell_caught_up(self) -> None:
        if self._catching_up and self._quiet():
            waiters, self._catching_up = self._catching_up, []
            for waiter in waiters:
                if not waiter.done():
                    waiter.set_result(None)

    def cancel(self, key: Hashable) -> None:
        """Forget the deadline of ``key`` (if any)."""
        self._entries.pop(key, None)

    def close(self) -> None:
        """Stop: nothing pending runs any more, nor anything set later."""
        self._closed = True
        self._entries.clear()
        self._heap.clear()
        self._woken = False  # a cancellation now is a real one
        if self._sleeper is not None:
            self._sleeper.cancel()
            self._sleeper = None
        self._sleeping_until = float("inf")
        for task in self._running:
            task.cancel()
        for waiter in self._catching_up:
            waiter.cancel()
        self._catching_up = []

    def _next(self) -> tuple[float, Hashable] | None:
        """The earliest live deadline (stale heap entries are dropped)."""
        while self._heap:
            due, order, key = self._heap[0]
            entry = self._entries.get(key)
            if entry is not None and entry[1] == order:
                return due, key
            heapq.heappop(self._heap)
        return None

    async def _work(self) -> None:
        """Sleep until the earliest deadline, start what is due, and again until none is left."""
        started = 0
        while (upcoming := self._next()) is not None:
            due, key = upcoming
            delay = due - self.clock()
            if delay > 0:
                self._sleeping_until = due
                self._tell_caught_up()
                await self._nap(delay)
                continue  # look again: the heap may have changed while sleeping
            self._sleeping_until = float("-inf")  # busy: `at` need not wake this task
            if self._slots.locked():
                await self._slots.acquire()  # wait for a running callback to end
                self._slots.release()
                continue  # look again: a timer may have been moved or cancelled meanwhile
            await self._slots.acquire()
            heapq.heappop(self._heap)
            _, _, callback = self._entries.pop(key)
            task = asyncio.create_task(self._run(key, callback), context=in_background())
            self._running.add(task)
            task.add_done_callback(self._finished)
            started += 1
            if started % self._batch == 0:
                await asyncio.sleep(0)  # let the started callbacks and the rest of the bot run
        self._sleeping_until = float("inf")
        self._sleeper = None
        self._tell_caught_up()

    async def _nap(self, delay: float) -> None:
        """Sleep ``delay`` seconds, or less if ``at`` sets an earlier deadline meanwhile."""
        self._napping, self._woken = True, False
        try:
            await self._sleep(delay)  # a plain sleep: test clocks (SimCord's) recognise it
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if not self._woken or task is None:
                raise
            task.uncancel()  # woken by `at`, not stopped by `close`
        finally:
            self._napping = self._woken = False

    def _finished(self, task: asyncio.Task[None]) -> None:
        self._running.discard(task)
        self._slots.release()
        self._tell_caught_up()

    async def _run(self, key: Hashable, callback: Callback) -> None:
        try:
            await callback()
        except OUTAGES as error:  # nothing was saved: the same change, once the store is back
            if key not in self._entries:  # unless set again meanwhile (a move, a new deadline)
                log.warning(
                    "The timer %r waits for the store (%s); again in %.0f s", key, error, RETRY
                )
                self.at(key, self.clock() + RETRY, callback)
        except Exception:
            log.exception("The timer %r failed", key)
