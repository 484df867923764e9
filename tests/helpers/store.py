"""Reading a store past the bot (either backend), and guild ids on a chosen shard."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

import asyncpg

from bot.store.shards import shard_of
from bot.store.urls import is_postgres_url

#: The shard count of :func:`guild_on`.
SHARD_COUNT = 4


def guild_on(shard: int, n: int = 1) -> int:
    """A guild id (a real snowflake's size) on ``shard`` of :data:`SHARD_COUNT`."""
    guild = ((1_400_000_000_000 + n * SHARD_COUNT + shard) << 22) | n
    assert shard_of(guild, SHARD_COUNT) == shard
    return guild


async def query(location: str | Path, sql: str) -> list[tuple[object, ...]]:
    """Rows of ``sql``, read past the store (sqlite3 or asyncpg)."""
    if is_postgres_url(location):
        conn = await asyncpg.connect(str(location))
        try:
            return [tuple(row) for row in await conn.fetch(sql)]
        finally:
            await conn.close()
    with contextlib.closing(sqlite3.connect(location)) as conn, conn:
        return conn.execute(sql).fetchall()
