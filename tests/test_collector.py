"""The garbage collector across start-up: only young collections until the overdue timers have
run, then what start-up built is frozen; closing the bot unfreezes it."""

from __future__ import annotations

import gc

from bot.collector import NEVER, StartupCollector


def test_start_up_postpones_full_collections_then_freezes() -> None:
    usual = gc.get_threshold()
    collector = StartupCollector()
    try:
        collector.pause()
        assert gc.get_threshold() == (usual[0], usual[1], NEVER)
        kept = [[n] for n in range(1000)]  # long-lived, built during start-up
        collector.started()
        assert gc.get_threshold() == usual
        assert gc.get_freeze_count() >= len(kept)
    finally:
        collector.close()
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == usual


async def test_the_bot_ends_its_start_up_once_caught_up(simcord_env) -> None:
    await simcord_env.settle()
    assert gc.get_threshold()[2] != NEVER  # start-up is over
    assert gc.get_freeze_count() > 0  # what it built is frozen
