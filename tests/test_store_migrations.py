"""Migrations: from an empty file, re-run, appended, refused when too new or rewritten."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.store import Database, MigrationError, SchemaTooNewError
from bot.store.connection import Connection
from bot.store.migrations import MIGRATIONS, checksum, latest_version

#: The version a migration appended after this code's last one would get.
NEXT = latest_version() + 1
V2 = (NEXT, "CREATE TABLE extra (id INTEGER PRIMARY KEY, note TEXT);")


def versions(path: Path) -> list[tuple[int, str, float]]:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT version, checksum, applied_at FROM schema_version").fetchall()


def tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    return {name for (name,) in rows}


async def pragma(conn: Connection, name: str) -> object:
    row = await conn.fetchone(f"PRAGMA {name}")
    return row[0] if row else None


async def test_empty_file_is_created_with_its_folder_and_migrated(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "sequence.db"
    db = await Database.open(path)
    try:
        assert path.exists()
        assert await db.schema_version() == latest_version()
        assert await db.read(pragma, "journal_mode") == "wal"
        assert await db.read(pragma, "foreign_keys") == 1
    finally:
        await db.close()
    assert {"lobbies", "games", "moves", "snapshots", "results", "timers"} <= tables(path)
    assert [v for v, _, _ in versions(path)] == [v for v, _ in MIGRATIONS]
    assert versions(path)[0][1] == checksum(MIGRATIONS[0][1])


async def test_rerunning_migrations_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    await (await Database.open(path)).close()
    before = versions(path)
    for _ in range(2):
        await (await Database.open(path)).close()
    assert versions(path) == before


async def test_an_appended_migration_is_applied_once(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    await (await Database.open(path)).close()
    first = versions(path)
    db = await Database.open(path, migrations=(*MIGRATIONS, V2))
    await db.close()
    assert versions(path)[: len(first)] == first
    assert [v for v, _, _ in versions(path)] == [*range(1, NEXT + 1)]
    assert "extra" in tables(path)
    await (await Database.open(path, migrations=(*MIGRATIONS, V2))).close()
    assert len(versions(path)) == NEXT


async def test_a_newer_database_is_refused_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    await (await Database.open(path, migrations=(*MIGRATIONS, V2))).close()
    before = versions(path)
    with pytest.raises(SchemaTooNewError) as error:
        await Database.open(path)
    assert error.value.found == NEXT and error.value.supported == latest_version()
    assert str(path) in str(error.value) and "newer" in str(error.value)
    assert versions(path) == before and "extra" in tables(path)


async def test_a_rewritten_applied_migration_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    await (await Database.open(path)).close()
    changed = ((1, MIGRATIONS[0][1] + "\nCREATE TABLE sneaky (id INTEGER);"), *MIGRATIONS[1:])
    with pytest.raises(MigrationError, match="must never change"):
        await Database.open(path, migrations=changed)
    assert "sneaky" not in tables(path)


async def test_a_failing_migration_leaves_nothing_half_applied(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    broken = (NEXT, "CREATE TABLE half (id INTEGER);\nINSERT INTO no_such_table VALUES (1);")
    with pytest.raises(MigrationError, match=f"Migration {NEXT} failed"):
        await Database.open(path, migrations=(*MIGRATIONS, broken))
    assert [v for v, _, _ in versions(path)] == [*range(1, NEXT)]
    assert "half" not in tables(path)


async def test_another_programs_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE customers (id INTEGER)")
    with pytest.raises(MigrationError, match="not one of this bot's"):
        await Database.open(path)
    assert tables(path) == {"customers"}


async def test_migration_versions_must_be_consecutive(tmp_path: Path) -> None:
    skipped = latest_version() + 2
    with pytest.raises(MigrationError, match=r"must be 1, 2, 3, \.\.\. in order"):
        await Database.open(tmp_path / "s.db", migrations=(*MIGRATIONS, (skipped, "SELECT 1;")))
