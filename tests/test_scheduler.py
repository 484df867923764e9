"""The scheduler: keyed deadlines, run in order, moved, cancelled, isolated from failures, and a
backlog worked through in batches. Time is driven by the test (an injected clock and sleep)."""

from __future__ import annotations

import asyncio

from bot.services.scheduler import Scheduler
from bot.store.connection import BACKGROUND, INTERACTIVE, Patience, patience, waiting


class FakeTime:
    """A clock and a ``sleep`` that only move when the test calls :meth:`advance`."""

    def __init__(self) -> None:
        self.now = 1_000.0
        self.sleepers: list[tuple[float, asyncio.Future[None]]] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, delay: float) -> None:
        future = asyncio.get_running_loop().create_future()
        self.sleepers.append((self.now + delay, future))
        await future

    async def advance(self, seconds: float) -> None:
        """Move the clock, wake the sleepers that are due, and let every task run."""
        self.now += seconds
        for wake, future in self.sleepers:
            if wake <= self.now and not future.done():
                future.set_result(None)
        self.sleepers = [(w, f) for w, f in self.sleepers if not f.done()]
        await settle()


async def settle(rounds: int = 200) -> None:
    """Let every ready task run (the scheduler yields between batches)."""
    for _ in range(rounds):
        await asyncio.sleep(0)


def recorder(log: list[str], name: str, *, fail: bool = False):
    async def callback() -> None:
        log.append(name)
        if fail:
            raise RuntimeError(name)

    return callback


def scheduler_on(fake: FakeTime, **options: int) -> Scheduler:
    return Scheduler(fake.clock, fake.sleep, **options)


async def test_deadlines_run_in_order_once_each() -> None:
    fake = FakeTime()
    scheduler = scheduler_on(fake)
    log: list[str] = []
    scheduler.at("c", fake.now + 30, recorder(log, "c"))
    scheduler.at("a", fake.now + 10, recorder(log, "a"))
    scheduler.at("b", fake.now + 20, recorder(log, "b"))
    assert len(scheduler) == 3 and "a" in scheduler
    await fake.advance(9)
    assert log == []
    await fake.advance(1)
    assert log == ["a"] and len(scheduler) == 2 and "a" not in scheduler
    await fake.advance(25)
    assert log == ["a", "b", "c"] and len(scheduler) == 0
    await fake.advance(100)
    assert log == ["a", "b", "c"]


async def test_setting_a_key_again_moves_it_and_cancel_drops_it() -> None:
    fake = FakeTime()
    scheduler = scheduler_on(fake)
    log: list[str] = []
    scheduler.at("moved", fake.now + 10, recorder(log, "early"))
    scheduler.at("moved", fake.now + 50, recorder(log, "late"))
    scheduler.at("dropped", fake.now + 20, recorder(log, "dropped"))
    scheduler.cancel("dropped")
    scheduler.cancel("never set")
    assert "dropped" not in scheduler and "moved" in scheduler
    await fake.advance(30)
    assert log == []
    await fake.advance(20)
    assert log == ["late"]


async def test_an_earlier_deadline_wakes_the_sleeping_scheduler() -> None:
    fake = FakeTime()
    scheduler = scheduler_on(fake)
    log: list[str] = []
    scheduler.at("late", fake.now + 3600, recorder(log, "late"))
    await settle()  # the scheduler now sleeps towards the late deadline
    scheduler.at("soon", fake.now + 5, recorder(log, "soon"))
    await fake.advance(5)
    assert log == ["soon"]
    await fake.advance(3600)
    assert log == ["soon", "late"]


async def test_a_timer_set_by_a_callback_runs_too() -> None:
    fake = FakeTime()
    scheduler = scheduler_on(fake)
    log: list[str] = []

    async def again() -> None:
        log.append("first")
        scheduler.at("next", fake.now + 60, recorder(log, "second"))

    scheduler.at("first", fake.now + 1, again)
    await fake.advance(1)
    assert log == ["first"] and "next" in scheduler
    await fake.advance(60)
    assert log == ["first", "second"]


async def test_a_failing_callback_does_not_stop_the_others(caplog) -> None:
    fake = FakeTime()
    scheduler = scheduler_on(fake)
    log: list[str] = []
    scheduler.at("bad", fake.now, recorder(log, "bad", fail=True))
    scheduler.at("good", fake.now + 1, recorder(log, "good"))
    await fake.advance(1)
    assert log == ["bad", "good"]
    assert "The timer 'bad' failed" in caplog.text


async def test_close_stops_everything() -> None:
    fake = FakeTime()
    scheduler = scheduler_on(fake)
    log: list[str] = []
    scheduler.at("x", fake.now + 1, recorder(log, "x"))
    scheduler.close()
    await fake.advance(10)
    assert log == [] and len(scheduler) == 0


async def test_a_backlog_runs_in_batches_and_never_too_many_at_once() -> None:
    """After a long downtime: every overdue timer runs, in deadline order; other tasks get the
    event loop between batches; at most ``concurrency`` callbacks are in flight."""
    fake = FakeTime()
    scheduler = scheduler_on(fake, batch=10, concurrency=25)
    started: list[int] = []
    running = peak = 0
    release = asyncio.Event()

    def work(number: int):
        async def callback() -> None:
            nonlocal running, peak
            started.append(number)
            running += 1
            peak = max(peak, running)
            await release.wait()
            running -= 1

        return callback

    seen_by_others: list[int] = []

    async def another_task() -> None:
        seen_by_others.append(len(started))

    for number in reversed(range(300)):
        scheduler.at(number, fake.now - 86400 + number, work(number))
    other = asyncio.create_task(another_task())
    await settle()
    await other
    assert seen_by_others[0] <= 10  # the bot ran before the first batch was through
    assert len(started) == 25 and peak == 25  # waiting for free slots
    release.set()
    await settle(2000)
    assert started == list(range(300))
    assert peak == 25 and running == 0 and len(scheduler) == 0


async def test_a_timer_cancelled_while_waiting_for_a_free_slot_never_runs() -> None:
    fake = FakeTime()
    scheduler = scheduler_on(fake, concurrency=1)
    log: list[str] = []
    release = asyncio.Event()

    async def slow() -> None:
        log.append("slow")
        await release.wait()

    scheduler.at("slow", fake.now - 10, slow)
    scheduler.at("dropped", fake.now - 5, recorder(log, "dropped"))
    scheduler.at("kept", fake.now - 1, recorder(log, "kept"))
    await settle()
    assert log == ["slow"]
    scheduler.cancel("dropped")
    release.set()
    await settle()
    assert log == ["slow", "kept"]


async def test_caught_up_once_the_overdue_timers_have_run() -> None:
    """``caught_up`` waits until no timer is due and none is running; later ones do not count."""
    fake = FakeTime()
    scheduler = scheduler_on(fake, batch=5, concurrency=3)
    await scheduler.caught_up()  # nothing pending: at once
    release = asyncio.Event()
    done: list[int] = []

    def work(number: int):
        async def callback() -> None:
            await release.wait()
            done.append(number)

        return callback

    for number in range(20):
        scheduler.at(number, fake.now - 100 + number, work(number))
    scheduler.at("tomorrow", fake.now + 86400, recorder([], "tomorrow"))
    waiting = asyncio.create_task(scheduler.caught_up())
    await settle()
    assert not waiting.done()
    release.set()
    await settle(2000)
    assert waiting.done() and len(done) == 20 and "tomorrow" in scheduler


async def test_close_ends_a_wait_for_catching_up() -> None:
    fake = FakeTime()
    scheduler = scheduler_on(fake, concurrency=1)
    scheduler.at("stuck", fake.now - 1, asyncio.Event().wait)
    waiting = asyncio.create_task(scheduler.caught_up())
    await settle()
    scheduler.close()
    await settle()
    assert waiting.cancelled()


async def test_a_timer_set_while_closing_never_runs() -> None:
    """A callback cancelled by ``close`` may set a timer on its way out (a computer player's
    turn, woken again in its ``finally``): it ran later anyway, after the bot had closed its
    store ("Cannot operate on a closed database", seen when SIGTERM stopped the demo)."""
    fake = FakeTime()
    scheduler = scheduler_on(fake)
    log: list[str] = []

    async def thinking() -> None:
        try:
            await asyncio.sleep(3600)
        finally:
            scheduler.at("again", fake.now, recorder(log, "again"))

    scheduler.at("think", fake.now, thinking)
    await settle()
    scheduler.close()
    await fake.advance(60)
    assert log == [] and len(scheduler) == 0


async def test_a_timer_set_while_answering_a_player_waits_for_the_store_as_background_work():
    """A player's store calls give up within Discord's deadline; a timer set while answering
    one (a turn clock armed by a move) runs later, when nobody waits: it waits as background
    work does (and is tried again after a timeout, as after an outage)."""
    fake = FakeTime()
    scheduler = scheduler_on(fake)
    seen: list[Patience] = []

    async def callback() -> None:
        seen.append(patience.get())

    with waiting(INTERACTIVE):
        scheduler.at("turn", fake.now + 10, callback)
    await fake.advance(11)
    assert seen == [BACKGROUND]
