"""Versioned schema migrations, applied in order at start-up.

Add a migration by appending ``(next_version, sql)`` to :data:`MIGRATIONS` (SQLite's, in
:mod:`bot.store.sqlite_migrations`; PostgreSQL's in :mod:`bot.store.postgres_migrations`).
Never edit or remove an applied one: its checksum is stored, and a database whose applied
migrations differ from the code is refused. Each migration runs in its own transaction together
with its ``schema_version`` row, so a crash leaves either all of it or none. (SQLite ignores
``PRAGMA foreign_keys`` inside a transaction: a migration that rebuilds a table must keep the
foreign keys valid itself.)
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from typing import TYPE_CHECKING

from .errors import MigrationError, SchemaTooNewError, StoreError
from .rebuild import fill_standings
from .sqlite_migrations import MIGRATIONS

if TYPE_CHECKING:
    from .base import Store
    from .connection import Connection

#: The table of applied migrations, per dialect (``Store.dialect``).
_VERSION_TABLE = {
    "sqlite": """
CREATE TABLE IF NOT EXISTS schema_version (
    version     INTEGER PRIMARY KEY,
    checksum    TEXT NOT NULL,
    applied_at  REAL NOT NULL
)
""",
    "postgresql": """
CREATE TABLE IF NOT EXISTS schema_version (
    version     INTEGER PRIMARY KEY,
    checksum    TEXT NOT NULL,
    applied_at  DOUBLE PRECISION NOT NULL
)
""",
}

#: Every table of the database, per dialect (PostgreSQL: in the schema the bot connects to).
_TABLES = {
    "sqlite": "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
    "postgresql": "SELECT table_name FROM information_schema.tables "
    "WHERE table_schema = current_schema()",
}

#: The second step of a migration, computed in Python after its SQL (in its transaction).
FILLS = {8: fill_standings}

#: The key of the PostgreSQL advisory lock that serialises migrations across processes.
MIGRATION_LOCK = 0x5E0_0E1CE


def latest_version(migrations: tuple[tuple[int, str], ...] = MIGRATIONS) -> int:
    """The schema version this code writes."""
    return migrations[-1][0] if migrations else 0


def stored_version(conn: sqlite3.Connection) -> int | None:
    """The schema version of a SQLite file opened with :mod:`sqlite3` (for the command line's
    checks and backups, outside the bot's store): None when it has no ``schema_version`` table,
    so is not this bot's database (or is empty)."""
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    if "schema_version" not in tables:
        return None
    return int(conn.execute("SELECT coalesce(max(version), 0) FROM schema_version").fetchone()[0])


def checksum(sql: str) -> str:
    """A digest of a migration's text, insensitive to whitespace changes."""
    return hashlib.sha256(" ".join(sql.split()).encode()).hexdigest()


def statements(sql: str) -> list[str]:
    """Split a script into complete statements (triggers with inner ``;`` stay whole)."""
    result: list[str] = []
    buffer = ""
    for line in sql.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            result.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        raise MigrationError(f"Incomplete SQL statement in a migration: {buffer.strip()[:80]!r}")
    return result


async def migrate(db: Store, migrations: tuple[tuple[int, str], ...] = MIGRATIONS) -> int:
    """Bring the schema up to date, each migration in its own transaction.

    ``migrations`` must be in the database's dialect. Returns the schema version. Raises
    :class:`SchemaTooNewError` for a database from a newer bot, and :class:`MigrationError` for
    one that is not ours or whose history differs. Several processes may start together: on
    PostgreSQL each step holds an advisory lock and checks again under it (on SQLite, the write
    lock of ``BEGIN IMMEDIATE`` does the same).
    """
    _check_sequence(migrations)
    known = dict(migrations)
    supported = latest_version(migrations)
    dialect, where = db.dialect, db.location
    tables = await db.read(_tables, dialect)
    if "schema_version" not in tables:
        await db.run(_create_version_table, dialect, where)
    applied = await db.read(_applied)
    _check_applied(applied, known, supported, where)
    for version, sql in migrations:
        if version not in applied:
            await db.run(_apply, dialect, version, sql)
    return supported


async def _lock(conn: Connection, dialect: str) -> None:
    """Wait for the other processes' migration steps (PostgreSQL; held until the commit)."""
    if dialect == "postgresql":
        await conn.fetchone("SELECT pg_advisory_xact_lock(?)", (MIGRATION_LOCK,))


async def _create_version_table(conn: Connection, dialect: str, where: str) -> None:
    await _lock(conn, dialect)
    tables = await _tables(conn, dialect)
    if "schema_version" in tables:
        return  # another process made it meanwhile
    if tables:
        kind = "a SQLite" if dialect == "sqlite" else "a PostgreSQL"
        target = "another file" if dialect == "sqlite" else "another (empty) database"
        raise MigrationError(
            f"{where} is {kind} database, but not one of this bot's (it has tables and no "
            f"schema_version table). Point the bot at {target}."
        )
    await conn.execute(_VERSION_TABLE[dialect])


async def _apply(conn: Connection, dialect: str, version: int, sql: str) -> None:
    await _lock(conn, dialect)
    # Re-read under the lock: another process may have just applied it.
    if await conn.fetchone("SELECT 1 FROM schema_version WHERE version = ?", (version,)):
        return
    try:
        for statement in statements(sql):
            await conn.execute(statement)
        fill = FILLS.get(version)
        if fill is not None:
            await fill(conn)
    except (sqlite3.OperationalError, StoreError, ValueError) as error:
        raise MigrationError(f"Migration {version} failed: {error}") from error
    await conn.execute(
        "INSERT INTO schema_version (version, checksum, applied_at) VALUES (?, ?, ?)",
        (version, checksum(sql), time.time()),
    )


async def _tables(conn: Connection, dialect: str) -> set[str]:
    return {str(row[0]) for row in await conn.fetchall(_TABLES[dialect])}


async def current_version(conn: Connection) -> int:
    """The highest applied version (0 for an empty database)."""
    return max(await _applied(conn), default=0)


async def _applied(conn: Connection) -> dict[int, str]:
    return dict(await conn.fetchall("SELECT version, checksum FROM schema_version"))


def _check_sequence(migrations: tuple[tuple[int, str], ...]) -> None:
    versions = [version for version, _ in migrations]
    if versions != list(range(1, len(versions) + 1)):
        raise MigrationError(f"Migration versions must be 1, 2, 3, ... in order, not {versions}.")


def _check_applied(
    applied: dict[int, str], known: dict[int, str], supported: int, where: str
) -> None:
    newest = max(applied, default=0)
    if newest > supported:
        raise SchemaTooNewError(where, newest, supported)
    for version, digest in sorted(applied.items()):
        if digest != checksum(known[version]):
            raise MigrationError(
                f"Migration {version} in the code differs from the one applied to {where}. An "
                "applied migration must never change: restore it and add a new migration instead."
            )
