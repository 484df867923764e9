"""The scheduler: keyed deadlines, run in order, moved, cancelled, and isolated from failures."""

from __future__ import annotations

import asyncio
import time

from bot.services.scheduler import Scheduler


def recorder(log: list[str], name: str, *, fail: bool = False):
    async def callback() -> None:
        log.append(name)
        if fail:
            raise RuntimeError(name)

    return callback


async def test_deadlines_run_in_order_once_each() -> None:
    scheduler = Scheduler(time.monotonic)
    log: list[str] = []
    now = time.monotonic()
    scheduler.at("c", now + 0.06, recorder(log, "c"))
    scheduler.at("a", now + 0.02, recorder(log, "a"))
    scheduler.at("b", now + 0.04, recorder(log, "b"))
    assert len(scheduler) == 3
    await asyncio.sleep(0.1)
    assert log == ["a", "b", "c"] and len(scheduler) == 0


async def test_setting_a_key_again_moves_it_and_cancel_drops_it() -> None:
    scheduler = Scheduler(time.monotonic)
    log: list[str] = []
    now = time.monotonic()
    scheduler.at("moved", now + 0.01, recorder(log, "early"))
    scheduler.at("moved", now + 0.05, recorder(log, "late"))
    scheduler.at("dropped", now + 0.02, recorder(log, "dropped"))
    scheduler.cancel("dropped")
    assert "dropped" not in scheduler and "moved" in scheduler
    await asyncio.sleep(0.03)
    assert log == []
    await asyncio.sleep(0.05)
    assert log == ["late"]


async def test_a_failing_callback_does_not_stop_the_others(caplog) -> None:
    scheduler = Scheduler(time.monotonic)
    log: list[str] = []
    now = time.monotonic()
    scheduler.at("bad", now, recorder(log, "bad", fail=True))
    scheduler.at("good", now + 0.01, recorder(log, "good"))
    await asyncio.sleep(0.05)
    assert log == ["bad", "good"]
    assert "The timer 'bad' failed" in caplog.text


async def test_close_stops_everything() -> None:
    scheduler = Scheduler(time.monotonic)
    log: list[str] = []
    scheduler.at("x", time.monotonic() + 0.01, recorder(log, "x"))
    scheduler.close()
    await asyncio.sleep(0.03)
    assert log == [] and len(scheduler) == 0
