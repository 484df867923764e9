"""One task that sleeps until the earliest deadline: thousands of pending timers cost one task.

Deadlines are Unix times read from the bot's clock; each is keyed, so setting a key again moves
its deadline and cancelling drops it. Due callbacks run as their own tasks, so a slow or failing
one never delays the others.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
from collections.abc import Awaitable, Callable, Hashable

log = logging.getLogger(__name__)

Callback = Callable[[], Awaitable[None]]


class Scheduler:
    """Runs keyed callbacks at their deadlines."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self._entries: dict[Hashable, tuple[float, int, Callback]] = {}
        self._heap: list[tuple[float, int, Hashable]] = []
        self._order = itertools.count()
        self._sleeper: asyncio.Task[None] | None = None
        self._sleeping_until = float("inf")
        self._running: set[asyncio.Task[None]] = set()

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._entries

    def at(self, key: Hashable, due: float, callback: Callback) -> None:
        """Run ``callback`` at ``due`` (replacing any earlier deadline of ``key``)."""
        order = next(self._order)
        self._entries[key] = (due, order, callback)
        heapq.heappush(self._heap, (due, order, key))
        if due < self._sleeping_until:
            self._restart()

    def cancel(self, key: Hashable) -> None:
        """Forget the deadline of ``key`` (if any)."""
        self._entries.pop(key, None)

    def close(self) -> None:
        """Stop: nothing pending runs any more."""
        self._entries.clear()
        self._heap.clear()
        if self._sleeper is not None:
            self._sleeper.cancel()
        for task in self._running:
            task.cancel()

    def _restart(self) -> None:
        if self._sleeper is not None:
            self._sleeper.cancel()
        self._sleeper = asyncio.create_task(self._sleep_and_run())

    def _next(self) -> tuple[float, Hashable] | None:
        """The earliest live deadline (stale heap entries are dropped)."""
        while self._heap:
            due, order, key = self._heap[0]
            entry = self._entries.get(key)
            if entry is not None and entry[1] == order:
                return due, key
            heapq.heappop(self._heap)
        return None

    async def _sleep_and_run(self) -> None:
        while (upcoming := self._next()) is not None:
            due, key = upcoming
            self._sleeping_until = due
            delay = due - self.clock()
            if delay > 0:
                await asyncio.sleep(delay)
                continue  # look again: the heap may have changed while sleeping
            heapq.heappop(self._heap)
            _, _, callback = self._entries.pop(key)
            task = asyncio.create_task(self._run(key, callback))
            self._running.add(task)
            task.add_done_callback(self._running.discard)
        self._sleeping_until = float("inf")
        self._sleeper = None

    @staticmethod
    async def _run(key: Hashable, callback: Callback) -> None:
        try:
            await callback()
        except Exception:
            log.exception("The timer %r failed", key)
