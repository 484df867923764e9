"""SQLite: another process holds the file's write lock (an admin's ``sqlite3`` shell in
``BEGIN IMMEDIATE``, say) for longer than a player can wait. The player is answered within
Discord's 3 seconds, measured on the wall clock, with the clear "nothing was saved" (before, the
move waited SQLite's 10-second busy timeout and Discord showed "did not respond"); background
work keeps its longer wait. Once the file is free, the same move is made."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from bot.config import Settings
from cogs.common.replies import DATABASE_DOWN

from .conftest import make_settings
from .e2e_helpers import make_table, open_and_start, play_one

#: A player's wait for a busy file is cut to 1.2 s (its statement limit): later than 1 s.
pytestmark = pytest.mark.first_answer_within(2.5)


@pytest.fixture
def bot_settings(tmp_path: Path) -> Settings:
    return make_settings(tmp_path, database_path=tmp_path / "sequence.db")


async def test_a_move_on_a_file_another_process_holds_is_refused_in_time(
    simcord_env, bot_settings
):
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table)
    assert table.bot.db.busy_wait_ms == 10_000  # what background work waits
    holder = sqlite3.connect(bot_settings.database_path, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        started = time.perf_counter()  # the wall clock: SimCord's own clock is virtual
        answer = await play_one(table, record)
        took = time.perf_counter() - started
        holder.execute("ROLLBACK")
    finally:
        holder.close()
    assert answer.ephemeral and answer.response.content == DATABASE_DOWN
    assert 1.0 < took < 2.5, f"answered after {took:.2f} s"
    assert record.game.moves == []

    answer = await play_one(table, record)
    assert answer.ephemeral and len(record.game.moves) == 1, answer.response.content
