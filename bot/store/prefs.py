"""Per-user preferences: JSON values by (user, key)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .codec import dumps, loads

if TYPE_CHECKING:
    from .base import Store
    from .connection import Connection


class Prefs:
    """The preferences repository (``db.prefs``)."""

    def __init__(self, db: Store) -> None:
        self._db = db

    async def get(self, user_id: int, key: str, default: Any = None) -> Any:
        """The stored value, or ``default``."""
        text = await self._db.read(_get, user_id, key)
        return default if text is None else loads(text)

    async def set(self, user_id: int, key: str, value: Any) -> None:
        """Store a JSON-compatible value (replacing any earlier one)."""
        await self._db.run(_set, user_id, key, dumps(value))

    async def delete(self, user_id: int, key: str) -> bool:
        """Forget a value; False if there was none."""
        return await self._db.run(_delete, user_id, key)

    async def all(self, user_id: int) -> dict[str, Any]:
        """Every preference of a user."""
        rows = await self._db.read(_all, user_id)
        return {key: loads(text) for key, text in rows}


async def _get(conn: Connection, user_id: int, key: str) -> str | None:
    row = await conn.fetchone(
        "SELECT value FROM preferences WHERE user_id = ? AND key = ?", (user_id, key)
    )
    return row[0] if row else None


async def _set(conn: Connection, user_id: int, key: str, value: str) -> None:
    await conn.execute(
        "INSERT INTO preferences (user_id, key, value) VALUES (?, ?, ?) "
        "ON CONFLICT (user_id, key) DO UPDATE SET value = excluded.value",
        (user_id, key, value),
    )


async def _delete(conn: Connection, user_id: int, key: str) -> bool:
    cursor = await conn.execute(
        "DELETE FROM preferences WHERE user_id = ? AND key = ?", (user_id, key)
    )
    return cursor == 1


async def _all(conn: Connection, user_id: int) -> list[tuple[str, str]]:
    return await conn.fetchall(
        "SELECT key, value FROM preferences WHERE user_id = ? ORDER BY key", (user_id,)
    )
