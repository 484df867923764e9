"""PostgreSQL hangs instead of refusing: a lock a move needs is held by another session, or the
whole server is paused (``SIGSTOP``, as a network black hole looks from the bot). The player is
answered within Discord's 3 seconds, measured on the wall clock, with the clear "nothing was
saved"; nothing of the change is saved; once the hang ends the same move is made. Before, the
bot waited for the database for ever and the player saw "The application did not respond"."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bot.config import Settings
from bot.store.connection import INTERACTIVE, Connection, Patience, waiting
from bot.store.errors import DatabaseUnavailableError
from bot.store.location import open_database
from cogs.common.replies import DATABASE_DOWN

from . import pg_server
from .conftest import make_settings
from .e2e_helpers import make_table, open_and_start, play_one

#: A player waits for a hanging store at most its time limits (1 s for a connection, 1.2 s a
#: statement): the answer comes inside Discord's 3 s, later than the 1 s other tests keep.
pytestmark = [pytest.mark.slow, pytest.mark.first_answer_within(2.5)]

_SCHEMAS = itertools.count(1)
#: What a player may wait, on the wall clock, for the answer (Discord's limit is 3 s).
ANSWERED_WITHIN = 2.5


@pytest.fixture
def store_url(own_server: pg_server.Server, own_database_url: str) -> Iterator[str]:
    url = pg_server.create_schema_now(own_database_url, f"hang_{next(_SCHEMAS)}")
    yield url
    own_server.resume()  # a test that failed while the server was paused


@pytest.fixture
def bot_settings(store_url: str, tmp_path: Path) -> Settings:
    return make_settings(tmp_path, database_url=store_url)


async def _stored(url: str, game_id: int) -> tuple[int, int]:
    """The game's moves and events as stored (read on a connection of the test's own)."""
    conn = await asyncpg.connect(url)
    try:
        moves = await conn.fetchval("SELECT count(*) FROM moves WHERE game_id = $1", game_id)
        events = await conn.fetchval("SELECT count(*) FROM events WHERE game_id = $1", game_id)
    finally:
        await conn.close()
    return moves, events


async def _timed_play(table: Any, record: Any) -> tuple[Any, float]:
    started = time.perf_counter()  # the wall clock: SimCord's own clock is virtual
    answer = await play_one(table, record)
    return answer, time.perf_counter() - started


async def _refused_in_time(table: Any, record: Any) -> None:
    answer, took = await _timed_play(table, record)
    assert answer.ephemeral and answer.response.content == DATABASE_DOWN
    assert took < ANSWERED_WITHIN, f"answered after {took:.2f} s"
    assert record.game.moves == []


async def _played_once_it_is_over(table: Any, record: Any, store_url: str) -> None:
    await table.env.advance_time(60)
    answer, _ = await _timed_play(table, record)
    assert answer.ephemeral and len(record.game.moves) == 1, answer.response.content
    assert "played" in table.channel.last_message.embeds[0].description
    assert (await _stored(store_url, record.id))[0] == 1


async def test_a_move_waiting_on_a_lock_is_refused_in_time_and_nothing_is_half_saved(
    simcord_env, store_url
):
    """Another session holds the events table (``LOCK TABLE events IN EXCLUSIVE MODE``, reads
    still allowed): the move's transaction writes the move and then waits to record its
    events. It is cut short and rolled back whole."""
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table)
    posted = len(list(table.channel.history()))
    before = await _stored(store_url, record.id)
    holder = await asyncpg.connect(store_url)
    try:
        await holder.execute("BEGIN")
        await holder.execute("LOCK TABLE events IN EXCLUSIVE MODE")
        await _refused_in_time(table, record)
        assert len(list(table.channel.history())) == posted
    finally:
        await holder.execute("ROLLBACK")
        await holder.close()
    assert await _stored(store_url, record.id) == before  # neither the move nor an event
    await _played_once_it_is_over(table, record, store_url)


async def _write_a_preference(conn: Connection, user_id: int = 1) -> None:
    await conn.execute(
        "INSERT INTO preferences (user_id, key, value) VALUES (?, 'k', 'v')", (user_id,)
    )


async def _preferences(conn: Connection) -> list[tuple[Any, ...]]:
    return await conn.fetchall("SELECT user_id FROM preferences ORDER BY user_id")


async def test_a_transaction_on_a_paused_server_gives_up_in_time_and_saves_nothing(
    own_server, store_url
):
    """Every process of the server stopped (``SIGSTOP``) half way through a player's
    transaction: connections stay open and nothing answers, as behind a network black hole.
    The store gives up within a player's patience and the transaction's first write is not
    saved; after ``SIGCONT`` the store works again, without being opened again.

    Outside SimCord: its virtual clock fires a timer that waits on real input only through
    ``advance_time`` (the interaction would never settle), so a wait on a server that does not
    answer is measured here on the event loop's real clock."""
    db = await open_database(store_url)
    try:
        with waiting(INTERACTIVE):
            started = time.perf_counter()
            with pytest.raises(DatabaseUnavailableError, match="did not answer"):
                async with db.transaction() as conn:
                    await _write_a_preference(conn, 1)
                    own_server.pause()
                    started = time.perf_counter()
                    await _write_a_preference(conn, 2)
            took = time.perf_counter() - started
            own_server.resume()
            assert took < ANSWERED_WITHIN, f"gave up after {took:.2f} s"
            assert await db.read(_preferences) == []
            await db.run(_write_a_preference, 3)
        assert await db.read(_preferences) == [(3,)]
        assert await db.alive()
    finally:
        own_server.resume()
        await db.close()


async def test_background_work_waiting_on_a_lock_times_out_as_an_outage(store_url):
    """Work nobody waits on has a limit too (longer than a player's): a statement that waits
    past it raises the outage the scheduler and the dispatcher already try again after, and
    the store works when the lock is released."""
    db = await open_database(store_url)
    holder = await asyncpg.connect(store_url)
    try:
        await holder.execute("BEGIN")
        await holder.execute("LOCK TABLE preferences IN EXCLUSIVE MODE")
        started = time.perf_counter()
        with (
            waiting(Patience(acquire=1.0, statement=0.5)),
            pytest.raises(DatabaseUnavailableError, match="statement timeout"),
        ):
            await db.run(_write_a_preference)
        assert time.perf_counter() - started < 2.0
        await holder.execute("ROLLBACK")
        await db.run(_write_a_preference)
        assert await db.read(_preferences) == [(1,)]
    finally:
        await holder.close()
        await db.close()


async def test_an_autocomplete_waiting_on_a_lock_gives_up_in_time(simcord_env, store_url):
    """The lobby's table is locked whole (``ACCESS EXCLUSIVE``, as ``ALTER TABLE`` takes it):
    the computer players offered by ``/sequence kick``'s autocomplete are read within a
    player's patience, so the autocomplete ends (without choices) in time. Before, it waited
    for the server's limit of background work (30 s)."""
    table = await make_table(simcord_env, ["alice"])
    (alice,) = table.players
    await alice.slash(table.channel, "sequence new")
    await alice.slash(table.channel, "sequence addbot", level="easy")
    holder = await asyncpg.connect(store_url)
    try:
        await holder.execute("BEGIN")
        await holder.execute("LOCK TABLE lobbies IN ACCESS EXCLUSIVE MODE")
        started = time.perf_counter()
        choices = await alice.autocomplete(table.channel, "sequence kick", "computer", "")
        took = time.perf_counter() - started
    finally:
        await holder.execute("ROLLBACK")
        await holder.close()
    assert choices == [] and took < ANSWERED_WITHIN, f"after {took:.2f} s: {choices}"
    offered = await alice.autocomplete(table.channel, "sequence kick", "computer", "")
    assert len(offered) == 1
