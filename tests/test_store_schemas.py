"""The SQLite and PostgreSQL schemas agree column for column: the same tables, the same columns,
the same nullability and corresponding types, read from the live databases after migrations
(SQLite's ``PRAGMA table_info``, PostgreSQL's ``information_schema.columns``)."""

from __future__ import annotations

from pathlib import Path

from bot.store.base import Store
from bot.store.connection import Connection
from bot.store.location import open_database

#: A column as both schemas describe it: (type, nullable).
Column = tuple[str, bool]

#: SQLite's declared type (its affinity) for each PostgreSQL type: what the two migrations write
#: for the same column.
TYPES = {
    "integer": "INTEGER",
    "bigint": "INTEGER",
    "smallint": "INTEGER",
    "boolean": "INTEGER",
    "text": "TEXT",
    "double precision": "REAL",
    "real": "REAL",
    "bytea": "BLOB",
}


async def sqlite_columns(conn: Connection) -> dict[str, dict[str, Column]]:
    tables = await conn.fetchall(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    )
    schema: dict[str, dict[str, Column]] = {}
    for (table,) in tables:
        rows = await conn.fetchall(f'PRAGMA table_info("{table}")')
        # (cid, name, type, notnull, default, pk): a primary key column is never null
        schema[table] = {
            name: (kind.upper(), not notnull and not pk)
            for _cid, name, kind, notnull, _default, pk in rows
        }
    return schema


async def postgres_columns(conn: Connection) -> dict[str, dict[str, Column]]:
    rows = await conn.fetchall(
        "SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns "
        "WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position"
    )
    schema: dict[str, dict[str, Column]] = {}
    for table, name, kind, nullable in rows:
        schema.setdefault(table, {})[name] = (TYPES.get(kind, kind), nullable == "YES")
    return schema


async def columns(db: Store) -> dict[str, dict[str, Column]]:
    return await db.read(sqlite_columns if db.dialect == "sqlite" else postgres_columns)


async def test_the_two_schemas_agree_column_for_column(tmp_path: Path, pg_url: str) -> None:
    sqlite, postgres = await open_database(tmp_path / "store.db"), await open_database(pg_url)
    try:
        lite, pg = await columns(sqlite), await columns(postgres)
    finally:
        await sqlite.close()
        await postgres.close()
    assert sorted(lite) == sorted(pg)
    assert len(lite) >= 10 and "moves" in lite  # the tables were read
    assert {kind for table in pg.values() for kind, _ in table.values()} <= set(TYPES.values())
    for table in lite:
        assert list(lite[table].items()) == list(pg[table].items()), table  # in order too
