"""The random soak (tests/chaos.py) on a fixed seed, for a bounded number of steps: nothing it
checks after each step may go wrong. ``python bench/chaos.py --seeds ... --steps ...`` runs it
longer, on many seeds."""

from __future__ import annotations

import pytest

from bot.app import create_bot
from bot.config import Settings

from .chaos import LogCapture, Soak
from .conftest import make_settings


@pytest.fixture
def bot_settings(tmp_path) -> Settings:
    return make_settings(tmp_path, create_rate_limit=(100, 600))


async def test_a_random_soak_finds_nothing_wrong(simcord_env, bot_settings):
    with LogCapture() as logs:
        soak = Soak(
            simcord_env, lambda: create_bot(bot_settings), 7, logs, levels=("easy", "medium")
        )
        soak.setup()
        await soak.run(60)
        await soak.play_out()
    wrong = [f for f in soak.findings if not f.expected]
    assert not wrong, "\n".join(map(str, wrong))
    assert simcord_env.errors is not None  # seen: every exception was a finding already
