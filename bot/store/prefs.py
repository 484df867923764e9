"""Per-user preferences: JSON values by (user, key)."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Any

from .codec import dumps, loads

if TYPE_CHECKING:
    from .database import Database


class Prefs:
    """The preferences repository (``db.prefs``)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def get(self, user_id: int, key: str, default: Any = None) -> Any:
        """The stored value, or ``default``."""
        text = await self._db.run(_get, user_id, key)
        return default if text is None else loads(text)

    async def set(self, user_id: int, key: str, value: Any) -> None:
        """Store a JSON-compatible value (replacing any earlier one)."""
        await self._db.run(_set, user_id, key, dumps(value))

    async def delete(self, user_id: int, key: str) -> bool:
        """Forget a value; False if there was none."""
        return await self._db.run(_delete, user_id, key)

    async def all(self, user_id: int) -> dict[str, Any]:
        """Every preference of a user."""
        rows = await self._db.run(_all, user_id)
        return {key: loads(text) for key, text in rows}


def _get(conn: sqlite3.Connection, user_id: int, key: str) -> str | None:
    row = conn.execute(
        "SELECT value FROM preferences WHERE user_id = ? AND key = ?", (user_id, key)
    ).fetchone()
    return row[0] if row else None


def _set(conn: sqlite3.Connection, user_id: int, key: str, value: str) -> None:
    conn.execute(
        "INSERT INTO preferences (user_id, key, value) VALUES (?, ?, ?) "
        "ON CONFLICT (user_id, key) DO UPDATE SET value = excluded.value",
        (user_id, key, value),
    )


def _delete(conn: sqlite3.Connection, user_id: int, key: str) -> bool:
    cursor = conn.execute("DELETE FROM preferences WHERE user_id = ? AND key = ?", (user_id, key))
    return cursor.rowcount == 1


def _all(conn: sqlite3.Connection, user_id: int) -> list[tuple[str, str]]:
    return conn.execute(
        "SELECT key, value FROM preferences WHERE user_id = ? ORDER BY key", (user_id,)
    ).fetchall()
