"""Shared fixtures: the real bot (``create_bot``) on SimCord's in-memory Discord."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.app import create_bot
from bot.config import Settings


def make_settings(tmp_path: Path, **overrides: object) -> Settings:
    """Test settings: a database in ``tmp_path``, computers that move without a pause."""
    base = Settings(
        database_path=tmp_path / "sequence.db",
        computer_move_delay=0.0,
        computer_budget_ms=20,
    )
    return base.with_overrides(**overrides)


@pytest.fixture
def bot_settings(tmp_path: Path) -> Settings:
    """The settings the bot under test runs with (override the fixture to change them)."""
    return make_settings(tmp_path)


@pytest.fixture
def simcord_bot(bot_settings: Settings):
    """The real bot, as ``python -m bot`` builds it."""
    return create_bot(bot_settings)


@pytest.fixture
async def simcord_env(simcord_env):
    """SimCord's environment, with the bot closed at the end (SimCord never closes it), so
    the database's worker thread ends even when a test fails."""
    yield simcord_env
    if not simcord_env.bot.is_closed():
        await simcord_env.bot.close()
