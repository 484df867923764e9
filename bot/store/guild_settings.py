"""Each server's own settings: a JSON value by (server, name), who changed it and when."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .codec import dumps, loads

if TYPE_CHECKING:
    from .base import Store
    from .connection import Connection


@dataclass(frozen=True)
class GuildSetting:
    """One stored setting of a server."""

    name: str
    value: Any
    changed_by: int
    changed_at: float


class GuildSettings:
    """The server settings repository (``db.guild_settings``)."""

    def __init__(self, db: Store) -> None:
        self._db = db

    async def all(self, guild_id: int) -> dict[str, GuildSetting]:
        """Every setting a server has stored, by name."""
        rows = await self._db.read(_all, guild_id)
        return {row[0]: GuildSetting(row[0], loads(row[1]), row[2], row[3]) for row in rows}

    async def put(
        self, guild_id: int, name: str, value: Any, changed_by: int, changed_at: float
    ) -> Any:
        """Store a value in one transaction; the value it replaced (None if there was none).
        Two changes of a server's settings at once take turns (the server's lock, in every
        process): the later one reads the value the earlier one stored, and wins."""
        async with self._db.transaction() as conn:
            await self._db.lock_keys(guild_id)
            return await _put(conn, guild_id, name, dumps(value), changed_by, changed_at)

    async def remove(self, guild_id: int, name: str) -> Any:
        """Forget a setting in one transaction (under the server's lock, as :meth:`put`); the
        value it had (None if there was none)."""
        async with self._db.transaction() as conn:
            await self._db.lock_keys(guild_id)
            return await _remove(conn, guild_id, name)

    async def servers(self) -> set[int]:
        """The servers of this process's shards that have a setting stored."""
        mine, params = self._db.on_my_shards("guild_id")
        return {row[0] for row in await self._db.read(_servers, mine, params)}

    async def forget_server(self, guild_id: int) -> None:
        """Forget every setting of a server (the bot left it)."""
        await self._db.run(_forget_server, guild_id)


async def _all(conn: Connection, guild_id: int) -> list[tuple[str, str, int, float]]:
    return await conn.fetchall(
        "SELECT name, value, changed_by, changed_at FROM guild_settings "
        "WHERE guild_id = ? ORDER BY name",
        (guild_id,),
    )


async def _servers(conn: Connection, mine: str, params: tuple[object, ...]) -> list[tuple[int]]:
    return await conn.fetchall(f"SELECT DISTINCT guild_id FROM guild_settings WHERE {mine}", params)


async def _previous(conn: Connection, guild_id: int, name: str) -> Any:
    row = await conn.fetchone(
        "SELECT value FROM guild_settings WHERE guild_id = ? AND name = ?", (guild_id, name)
    )
    return loads(row[0]) if row else None


async def _put(
    conn: Connection, guild_id: int, name: str, value: str, changed_by: int, changed_at: float
) -> Any:
    previous = await _previous(conn, guild_id, name)
    await conn.execute(
        "INSERT INTO guild_settings (guild_id, name, value, changed_by, changed_at) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT (guild_id, name) DO UPDATE SET "
        "value = excluded.value, changed_by = excluded.changed_by, "
        "changed_at = excluded.changed_at",
        (guild_id, name, value, changed_by, changed_at),
    )
    return previous


async def _remove(conn: Connection, guild_id: int, name: str) -> Any:
    previous = await _previous(conn, guild_id, name)
    await conn.execute(
        "DELETE FROM guild_settings WHERE guild_id = ? AND name = ?", (guild_id, name)
    )
    return previous


async def _forget_server(conn: Connection, guild_id: int) -> None:
    await conn.execute("DELETE FROM guild_settings WHERE guild_id = ?", (guild_id,))
