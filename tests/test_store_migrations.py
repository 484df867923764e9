"""Migrations: from an empty store, re-run, appended, refused when too new or rewritten; on
both backends (``store_location`` of conftest), with several processes starting together."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from bot.store import MigrationError, SchemaTooNewError, SQLiteStore
from bot.store.connection import Connection
from bot.store.location import open_database
from bot.store.migrations import MIGRATIONS, checksum, latest_version
from bot.store.postgres_migrations import POSTGRES_MIGRATIONS
from bot.store.seats import Seat
from bot.store.urls import is_postgres_url
from bot.table.options import TableOptions
from tests.helpers.store import query

#: The version a migration appended after this code's last one would get.
NEXT = latest_version() + 1
V2 = (NEXT, "CREATE TABLE extra (id INTEGER PRIMARY KEY, note TEXT);")


def known(location: str | Path) -> tuple[tuple[int, str], ...]:
    """The migrations of the location's backend."""
    return POSTGRES_MIGRATIONS if is_postgres_url(location) else MIGRATIONS


async def versions(location: str | Path) -> list[tuple[object, ...]]:
    return await query(
        location, "SELECT version, checksum, applied_at FROM schema_version ORDER BY version"
    )


async def tables(location: str | Path) -> set[object]:
    sql = (
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
        if is_postgres_url(location)
        else "SELECT name FROM sqlite_master WHERE type = 'table'"
    )
    return {name for (name,) in await query(location, sql)}


async def pragma(conn: Connection, name: str) -> object:
    row = await conn.fetchone(f"PRAGMA {name}")
    return row[0] if row else None


async def store_options(conn: Connection, game_id: int, options: dict[str, Any]) -> None:
    """Write a game's options column as an older version did (with what it no longer holds)."""
    await conn.execute("UPDATE games SET options = ? WHERE id = ?", (json.dumps(options), game_id))


async def stored_options(conn: Connection, game_id: int) -> Any:
    """A game's options column, as stored."""
    row = await conn.fetchone("SELECT options FROM games WHERE id = ?", (game_id,))
    assert row is not None
    return json.loads(row[0])


async def test_empty_file_is_created_with_its_folder_and_migrated(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "sequence.db"
    db = await SQLiteStore.open(path)
    try:
        assert path.exists()
        assert await db.schema_version() == latest_version()
        assert await db.read(pragma, "journal_mode") == "wal"
        assert await db.read(pragma, "foreign_keys") == 1
    finally:
        await db.close()
    assert {"lobbies", "games", "moves", "snapshots", "results", "timers"} <= await tables(path)
    assert [v for v, _, _ in await versions(path)] == [v for v, _ in MIGRATIONS]
    assert (await versions(path))[0][1] == checksum(MIGRATIONS[0][1])


async def test_rerunning_migrations_changes_nothing(store_location: str | Path) -> None:
    path = store_location
    await (await open_database(path)).close()
    before = await versions(path)
    for _ in range(2):
        await (await open_database(path)).close()
    assert await versions(path) == before


async def test_an_appended_migration_is_applied_once(store_location: str | Path) -> None:
    path = store_location
    await (await open_database(path)).close()
    first = await versions(path)
    db = await open_database(path, migrations=(*known(path), V2))
    await db.close()
    assert (await versions(path))[: len(first)] == first
    assert [v for v, _, _ in await versions(path)] == [*range(1, NEXT + 1)]
    assert "extra" in await tables(path)
    await (await open_database(path, migrations=(*known(path), V2))).close()
    assert len(await versions(path)) == NEXT


async def test_a_newer_database_is_refused_and_left_untouched(store_location: str | Path) -> None:
    path = store_location
    await (await open_database(path, migrations=(*known(path), V2))).close()
    before = await versions(path)
    with pytest.raises(SchemaTooNewError) as error:
        await open_database(path)
    assert error.value.found == NEXT and error.value.supported == latest_version()
    assert str(path) in str(error.value) and "newer" in str(error.value)
    assert await versions(path) == before and "extra" in await tables(path)


async def test_a_rewritten_applied_migration_is_refused(store_location: str | Path) -> None:
    path = store_location
    await (await open_database(path)).close()
    ours = known(path)
    changed = ((1, ours[0][1] + "\nCREATE TABLE sneaky (id INTEGER);"), *ours[1:])
    with pytest.raises(MigrationError, match="must never change"):
        await open_database(path, migrations=changed)
    assert "sneaky" not in await tables(path)


async def test_a_failing_migration_leaves_nothing_half_applied(store_location: str | Path) -> None:
    path = store_location
    broken = (NEXT, "CREATE TABLE half (id INTEGER);\nINSERT INTO no_such_table VALUES (1);")
    with pytest.raises(MigrationError, match=f"Migration {NEXT} failed"):
        await open_database(path, migrations=(*known(path), broken))
    assert [v for v, _, _ in await versions(path)] == [*range(1, NEXT)]
    assert "half" not in await tables(path)


async def test_another_programs_database_is_refused(store_location: str | Path) -> None:
    path = store_location
    await query(path, "CREATE TABLE customers (id INTEGER)")
    with pytest.raises(MigrationError, match="not one of this bot's"):
        await open_database(path)
    assert await tables(path) == {"customers"}


async def test_migration_versions_must_be_consecutive(store_location: str | Path) -> None:
    skipped = latest_version() + 2
    with pytest.raises(MigrationError, match=r"must be 1, 2, 3, \.\.\. in order"):
        await open_database(
            store_location, migrations=(*known(store_location), (skipped, "SELECT 1;"))
        )


async def test_stores_opened_together_migrate_once(store_location: str | Path) -> None:
    """Several processes starting at once on an empty store: each migration runs once."""
    opened = await asyncio.gather(*(open_database(store_location) for _ in range(6)))
    try:
        assert {await db.schema_version() for db in opened} == {latest_version()}
    finally:
        for db in opened:
            await db.close()
    assert [v for v, _, _ in await versions(store_location)] == [v for v, _ in MIGRATIONS]


#: Columns without ``id`` in their name that hold a Discord id or a row id.
SNOWFLAKES_AND_IDS = ("resolved_by", "winner", "entrant_a", "entrant_b")


async def test_postgresql_types_hold_snowflakes_and_exact_times(pg_url: str) -> None:
    db = await open_database(pg_url)
    await db.close()
    columns = await query(
        pg_url,
        "SELECT table_name, column_name, data_type FROM information_schema.columns "
        "WHERE table_schema = current_schema()",
    )
    types = {(table, column): kind for table, column, kind in columns}
    assert "real" not in types.values()
    for (table, column), kind in types.items():
        if column == "id" or column.endswith("_id") or column in SNOWFLAKES_AND_IDS:
            assert kind == "bigint", (table, column, kind)
        if column.endswith("_at") or column in ("deadline",):
            assert kind == "double precision", (table, column, kind)
    assert await tables(pg_url) >= {"lobbies", "games", "moves", "snapshots", "tournaments"}
    assert [c for v, c, _ in await versions(pg_url)] == [
        checksum(sql) for _, sql in POSTGRES_MIGRATIONS
    ]
    assert [v for v, _ in POSTGRES_MIGRATIONS] == [v for v, _ in MIGRATIONS]


async def test_resignation_votes_move_from_the_options_to_their_own_table(
    store_location: str | Path,
) -> None:
    """Version 4: a game saved with its votes in the options loads them as votes, in the
    votes table, and its options no longer hold them."""
    from bot.game import Game, GameSettings
    from bot.store.votes import RESIGN, TeamVote

    path = store_location
    before_votes = tuple(m for m in known(path) if m[0] < 4)
    db = await open_database(path, migrations=before_votes)
    game = Game.new(GameSettings.create(4), 1)
    seats = [Seat(10 + i, f"p{i}") for i in range(4)]
    record = await db.games.create(1, 2, game, seats, TableOptions(), None, now=5.0)
    await db.run(store_options, record.id, {"rated": True, "resign_votes": [0, 1, 2]})
    await db.close()
    db = await open_database(path)
    try:
        loaded = await db.games.load(record.id)
        options = await db.read(stored_options, record.id)
        assert "resign_votes" not in options and options["rated"] is True
        assert loaded.options.rated is True
        assert loaded.votes == {
            (RESIGN, 0): TeamVote(RESIGN, 0, (0, 2), created_at=5.0),
            (RESIGN, 1): TeamVote(RESIGN, 1, (1,), created_at=5.0),
        }
        assert await db.votes.of_game(record.id) == loaded.votes
    finally:
        await db.close()


async def test_games_from_before_version_5_take_their_board_as_shown(
    store_location: str | Path,
) -> None:
    """Version 5: a game stored before the board's move count was kept counts its latest board
    as showing its moves (no board is posted again for it); a new game has none posted yet."""
    import random

    from bot.game import Game, GameSettings
    from bot.game.randomplay import push_random

    path = store_location
    db = await open_database(path, migrations=tuple(m for m in known(path) if m[0] < 5))
    game = Game.new(GameSettings.create(2), 1)
    rng = random.Random(3)
    for _ in range(7):
        push_random(game, rng)
    seats = [Seat(1, "a"), Seat(2, "b")]
    old = await db.games.create(1, 2, game, seats, TableOptions(), None, now=5.0)
    await db.close()
    db = await open_database(path)
    try:
        assert (await db.games.load(old.id)).board_move_count == 7
        game = Game.new(GameSettings.create(2), 2)
        new = await db.games.create(1, 3, game, [], TableOptions(), None, 6.0)
        assert (await db.games.load(new.id)).board_move_count is None
    finally:
        await db.close()


async def test_an_undo_request_moves_from_the_options_to_the_votes_table(
    store_location: str | Path,
) -> None:
    """Version 7: the host's undo request saved in the options loads as a vote (its teams'
    agreements, message and time kept), the options keep the table's options only, and the
    votes already stored survive the table's rebuild."""
    from bot.game import Game, GameSettings
    from bot.store.votes import RESIGN, UNDO, TeamVote

    path = store_location
    db = await open_database(path, migrations=tuple(m for m in known(path) if m[0] < 7))
    game = Game.new(GameSettings.create(6), 1)
    seats = [Seat(10 + i, f"p{i}") for i in range(6)]
    request = {"count": 0, "agreed": [2], "host_team": 0, "at": 7.5, "message": 1234}
    record = await db.games.create(1, 2, game, seats, TableOptions(), None, now=5.0)
    await db.run(store_options, record.id, {"rated": True, "undo_request": request})
    await db.votes.replace(record.id, [TeamVote(RESIGN, 1, (1,), created_at=6.0)])
    await db.close()
    db = await open_database(path)
    try:
        loaded = await db.games.load(record.id)
        assert await db.read(stored_options, record.id) == {"rated": True}
        assert loaded.votes == {
            (RESIGN, 1): TeamVote(RESIGN, 1, (1,), created_at=6.0),
            (UNDO, 0): TeamVote(UNDO, 0, (2,), move_count=0, message_id=1234, created_at=7.5),
        }
    finally:
        await db.close()
