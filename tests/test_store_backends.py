"""What each backend must do the same: transactions that join and roll back together, errors that
never quote a row; and the PostgreSQL connection's own translations."""

from __future__ import annotations

import asyncio
import io
import logging
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.logs import PAYLOAD_LOGGERS, configure_logging
from bot.store import ChannelBusyError, NotFoundError, Store, StoreError
from bot.store.connection import Connection
from bot.store.errors import IntegrityError
from bot.store.location import open_database
from bot.store.postgres import placeholders, rowcount
from bot.store.timers import TimerRecord
from bot.table.options import TableOptions
from tests.store_util import create_game, play, push_random


def test_placeholders_are_numbered_outside_quotes() -> None:
    assert placeholders("SELECT ? , '?', \"a?\" FROM t WHERE x = ? AND y = 'it''s ?' OR z = ?") == (
        "SELECT $1 , '?', \"a?\" FROM t WHERE x = $2 AND y = 'it''s ?' OR z = $3"
    )
    assert placeholders("SELECT 1") == "SELECT 1"


def test_rowcounts_come_from_the_command_status() -> None:
    assert [rowcount(s) for s in ("UPDATE 3", "INSERT 0 1", "DELETE 0", "CREATE TABLE", "")] == [
        3,
        1,
        0,
        0,
        0,
    ]


async def test_a_transaction_commits_every_repository_together_or_nothing(db: Store) -> None:
    record = await create_game(db, 1)
    game = record.game.copy()
    move = push_random(game, random.Random(1))
    with pytest.raises(RuntimeError):
        async with db.transaction():
            await db.games.append_moves(record.id, 0, [(move, 100)], game, 5.0)
            await db.timers.replace(record.id, [TimerRecord(record.id, "turn", 60.0, {})])
            await db.prefs.set(100, "theme", "dark")
            raise RuntimeError("the service failed after the writes")
    loaded = await db.games.load(record.id, verify=True)
    assert loaded.game.moves == [] and await db.timers.all() == []
    assert await db.prefs.get(100, "theme") is None
    async with db.transaction():
        await db.games.append_moves(record.id, 0, [(move, 100)], game, 5.0)
        await db.timers.replace(record.id, [TimerRecord(record.id, "turn", 60.0, {})])
        # Inside the transaction its own writes are visible, through reads too.
        assert (await db.games.load(record.id)).game == game
    assert (await db.games.load(record.id, verify=True)).game == game
    assert [t.kind for t in await db.timers.all()] == ["turn"]


async def test_other_tasks_do_not_join_a_transaction(db: Store) -> None:
    """A concurrent task runs in its own transaction: it never sees uncommitted rows, and
    the open transaction's rollback does not take the other task's commit with it."""
    record = await create_game(db, 1)
    entered, release = asyncio.Event(), asyncio.Event()

    async def holder() -> None:
        with pytest.raises(RuntimeError):
            async with db.transaction():
                await db.timers.set(record.id, "turn", 10.0)
                entered.set()
                await release.wait()
                raise RuntimeError("rolled back")

    async def other() -> list[TimerRecord]:
        await entered.wait()
        await db.prefs.set(7, "k", 1)  # commits on its own
        seen = await db.timers.all()
        release.set()
        return seen

    if db.dialect == "sqlite":  # one connection: the other task waits for the whole transaction
        task = asyncio.create_task(holder())
        await entered.wait()
        release.set()
        await task
        await other()
    else:
        _, seen = await asyncio.gather(holder(), other())
        assert seen == []  # the holder's timer was never visible outside it
    assert await db.timers.all() == [] and await db.prefs.get(7, "k") == 1


async def test_a_task_created_inside_a_transaction_runs_in_its_own(db: Store) -> None:
    """One rule on both backends: a transaction belongs to the task that opened it. A child task
    created inside it (which inherits the context, the open transaction's included) does not
    join it: it never sees the uncommitted rows, its write commits by itself, and the open
    transaction's rollback does not take it back. PostgreSQL runs the child on another
    connection at once; SQLite's one connection makes it wait for the transaction to end."""
    record = await create_game(db, 1)
    started = asyncio.Event()

    async def child() -> list[TimerRecord]:
        started.set()
        await db.prefs.set(7, "k", 1)
        return await db.timers.all()

    with pytest.raises(RuntimeError):
        async with db.transaction():
            await db.timers.set(record.id, "turn", 10.0)
            task = asyncio.create_task(child())
            await started.wait()
            if db.dialect == "postgresql":
                await task  # on a connection of its own, done while this one is open
            else:  # the one connection: it waits for this transaction to end
                await asyncio.wait({task}, timeout=0.2)
                assert not task.done()
            assert [t.kind for t in await db.timers.all()] == ["turn"]  # the opener joins
            raise RuntimeError("rolled back")
    assert await task == []  # the child never saw the uncommitted timer
    assert await db.timers.all() == [] and await db.prefs.get(7, "k") == 1


@pytest.fixture
def debug_log() -> Iterator[io.StringIO]:
    """The bot's logging at DEBUG into a buffer, as ``LOG_LEVEL=DEBUG`` sets it up; restored."""
    loggers = [logging.getLogger(), *map(logging.getLogger, PAYLOAD_LOGGERS)]
    handlers, levels = list(loggers[0].handlers), [logger.level for logger in loggers]
    stream = io.StringIO()
    configure_logging("DEBUG", stream=stream)
    yield stream
    loggers[0].handlers[:] = handlers
    for logger, level in zip(loggers, levels, strict=True):
        logger.setLevel(level)


async def test_an_error_never_quotes_the_row(db: Store, debug_log: io.StringIO) -> None:
    record = await create_game(db, 1)
    await play(db, record, 3, random.Random(2))
    secret = '{"hand":["QS","JD"],"secret":"SECRET-HAND"}'

    async def break_a_rule(conn: Connection) -> None:  # move_count must not be negative
        await conn.execute(
            "UPDATE snapshots SET move_count = -1, state = ? WHERE game_id = ?", (secret, record.id)
        )

    with pytest.raises(IntegrityError) as caught:
        await db.run(break_a_rule)
    assert "SECRET-HAND" not in str(caught.value) and "SECRET-HAND" not in debug_log.getvalue()
    with pytest.raises(NotFoundError):
        await db.tabletalk.create(9999, 1, 0, 1.0)  # the foreign key, as our error
    with pytest.raises(StoreError):  # not a constraint: a plain store error
        await db.read(_bad_sql)
    assert (await db.games.load(record.id, verify=True)).game == record.game


async def _bad_sql(conn: Connection) -> None:
    await conn.fetchall("SELECT no_such_column FROM games")


async def blocked(db: Store) -> None:
    """Until another connection waits on a lock (PostgreSQL); SQLite: a moment, as its waiter
    sits in ``BEGIN IMMEDIATE`` where nothing shows it."""
    if db.dialect == "sqlite":
        await asyncio.sleep(0.1)
        return
    async with asyncio.timeout(30):
        while not await db.read(_lock_waiters):
            await asyncio.sleep(0.01)


async def _lock_waiters(conn: Connection) -> int:
    row = await conn.fetchone(
        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
        "AND datname = current_database()"
    )
    return int(row[0]) if row else 0


async def test_a_channel_taken_by_another_process_meanwhile_is_busy(
    store_location: str | Path,
) -> None:
    """Two processes open a lobby in one channel; the second checked before the first committed
    (PostgreSQL lets it; SQLite's write lock makes it wait): it still gets ChannelBusyError."""
    one, two = await open_database(store_location), await open_database(store_location)
    try:
        inserted = asyncio.Event()
        commit = asyncio.Event()

        async def first() -> None:
            async with one.transaction():
                await one.lobbies.create(1, 5, 100, TableOptions(), 1.0)
                inserted.set()
                await commit.wait()

        async def second() -> None:
            await inserted.wait()
            create = asyncio.create_task(two.lobbies.create(1, 5, 101, TableOptions(), 2.0))
            await blocked(one)  # it checked, found no lobby, and waits on the unique index
            commit.set()
            with pytest.raises(ChannelBusyError, match="open lobby"):
                await create

        await asyncio.gather(first(), second())
        assert [lobby.host_id for lobby in await two.lobbies.list_all()] == [100]
    finally:
        await one.close()
        await two.close()


async def test_a_task_started_inside_a_postgresql_transaction_has_its_own(pg_url: str) -> None:
    """Only the task that opened a transaction joins it (an asyncpg connection runs one
    statement at a time): a task it starts reads committed rows on another connection."""
    db = await open_database(pg_url)
    try:
        async with db.transaction():
            await db.prefs.set(1, "k", "inside")
            seen = await asyncio.create_task(db.prefs.get(1, "k"))
            assert await db.prefs.get(1, "k") == "inside"
        assert seen is None
        assert await db.prefs.get(1, "k") == "inside"
    finally:
        await db.close()
