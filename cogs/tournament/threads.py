"""Match threads opened one by one, in the background: Discord limits thread creation per channel
for minutes at a time (a 429 with a retry_after of 219-280 s is reported), and that wait must
delay only the threads, never the command that paired the round, the other matches or their
show-up clocks (a match's clock starts when its thread opens).

Each tournament has one queue, worked by one task, in order. What it works comes from the
outbox (the :data:`~bot.services.tournament.steps.THREADS` event a pairing step writes); that
event is marked delivered once all of its matches have their thread (or no longer need one),
so a crash or a restart meanwhile opens the rest. A refusal for now (429, 5xx, the store
down) is tried again after a wait that doubles up to :data:`MOST_WAIT`."""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable

from ..common.threads import ARCHIVE_AFTER as ARCHIVE_AFTER  # match threads archive as tables do

log = logging.getLogger(__name__)

#: Seconds before a refused thread is tried again, then twice as long each time, up to the most.
FIRST_WAIT = 5.0
MOST_WAIT = 900.0


class TryLater(Exception):
    """Opening a thread was refused for now (rate limited, Discord or the store down)."""


#: Opens the thread of one match of a tournament (ids), or raises :class:`TryLater`.
OpenOne = Callable[[int, int], Awaitable[None]]
#: Marks an outbox event delivered (its id).
Delivered = Callable[[int], Awaitable[None]]


class ThreadQueue:
    """The matches waiting for their thread, per tournament, opened one by one in order."""

    def __init__(self, open_one: OpenOne, delivered: Delivered) -> None:
        self._open_one = open_one
        self._delivered = delivered
        self._queues: dict[int, deque[tuple[list[int], int | None]]] = {}
        self._tasks: dict[int, asyncio.Task[None]] = {}
        #: The outbox events queued (an event read back twice is worked once).
        self._events: set[int] = set()

    def enqueue(self, tournament_id: int, match_ids: list[int], event_id: int | None) -> None:
        """Open the threads of ``match_ids`` after those queued before; then mark the outbox
        event ``event_id`` (if any) delivered. Returns at once."""
        if not match_ids or event_id in self._events:
            return
        if event_id is not None:
            self._events.add(event_id)
        self._queues.setdefault(tournament_id, deque()).append((list(match_ids), event_id))
        task = self._tasks.get(tournament_id)
        if task is None or task.done():
            self._tasks[tournament_id] = asyncio.create_task(self._work(tournament_id))

    def pending(self, tournament_id: int) -> int:
        """How many matches of the tournament wait for their thread (or are being opened)."""
        return sum(len(ids) for ids, _ in self._queues.get(tournament_id, ()))

    def stop(self) -> None:
        """Stop every queue (the cog unloads; the outbox keeps what was not opened)."""
        for task in self._tasks.values():
            task.cancel()
        self._tasks.clear()
        self._queues.clear()
        self._events.clear()

    async def _work(self, tournament_id: int) -> None:
        queue = self._queues[tournament_id]
        try:
            while queue:
                match_ids, event_id = queue[0]
                while match_ids:
                    await self._open_patiently(tournament_id, match_ids[0])
                    match_ids.pop(0)
                if event_id is not None:
                    await self._mark(event_id)
                    self._events.discard(event_id)
                queue.popleft()
        finally:
            if not queue and self._queues.get(tournament_id) is queue:
                del self._queues[tournament_id]
                self._tasks.pop(tournament_id, None)

    async def _open_patiently(self, tournament_id: int, match_id: int) -> None:
        wait = FIRST_WAIT
        while True:
            try:
                await self._open_one(tournament_id, match_id)
                return
            except TryLater as why:
                log.info("The thread of match %d waits %.0f s: %s", match_id, wait, why)
            except Exception:  # a bug: the other matches still get their threads
                log.exception("Opening the thread of match %d failed", match_id)
                return
            await asyncio.sleep(wait)
            wait = min(wait * 2, MOST_WAIT)

    async def _mark(self, event_id: int) -> None:
        try:
            await self._delivered(event_id)
        except Exception as error:  # read back at the next start: threads open only once
            log.warning("Could not mark the threads of event %d opened: %s", event_id, error)
