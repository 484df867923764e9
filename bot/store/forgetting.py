"""A member forgotten (``/sequence-me forget-me``): every row that names them, rewritten in
one transaction.

The member's Discord id becomes a pseudonymous id (:mod:`bot.pseudonyms`) in every column and
JSON value that held it, and their name at every table (a seat's, a tournament entrant's)
becomes the pseudonym's label; their preferences are deleted. The pseudonym is one id in place
of another, in place, so each result keeps its players, each rating its games and each total its
sum: everyone else's ratings, totals, histories and tournament standings stay as they were
(``sequence-bot standings`` still finds them equal to a replay), and the forgotten member's own
numbers stay under the pseudonym, unlinked from their account.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .codec import dumps, loads

if TYPE_CHECKING:
    from .connection import Connection

#: Integer columns that hold a person's id: ``(table, column)``.
ID_COLUMNS: tuple[tuple[str, str], ...] = (
    ("moves", "actor_id"),
    ("tabletalk_reports", "reporter_id"),
    ("tabletalk_reports", "resolved_by"),
    ("result_players", "user_id"),
    ("ratings", "user_id"),
    ("season_ratings", "user_id"),
    ("rating_changes", "user_id"),
    ("player_totals", "user_id"),
    ("tournament_players", "user_id"),
    ("tournaments", "organiser_id"),
    ("lobbies", "host_id"),
    ("guild_settings", "changed_by"),
    ("away_periods", "user_id"),
    ("seeks", "user_id"),
)

#: JSON columns that may hold a person's id (and name): ``(table, key column, column)``.
JSON_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("games", "id", "seats"),
    ("games", "id", "options"),
    ("lobbies", "id", "seats"),
    ("lobbies", "id", "options"),
    ("results", "game_id", "teams"),
    ("tournament_entrants", "id", "members"),
    ("tournament_matches", "id", "checkins"),
    ("events", "id", "payload"),
)


@dataclass(frozen=True, slots=True)
class Forgotten:
    """What a forget-me changed: the rows per table (``"games.seats"``, ``"ratings"``, ...)
    and the preferences deleted."""

    changed: dict[str, int]
    preferences: int

    def count(self, what: str) -> int:
        """The rows of ``what`` changed (0 when none)."""
        return self.changed.get(what, 0)


def substituted(value: Any, user_id: int, pseudonym: int, name: str) -> Any:
    """``value`` (parsed JSON) with ``user_id`` replaced by ``pseudonym`` wherever it is (a
    number, a key), and the ``name`` of each object whose ``user_id`` it is.

    >>> substituted({"user_id": 5, "name": "ann", "team": 5, "x": [5, 6]}, 5, 9, "P")
    {'user_id': 9, 'name': 'P', 'team': 9, 'x': [9, 6]}

    (Small ids for the example: the bot's are Discord ids, which no other number equals.)
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return pseudonym if value == user_id else value
    if isinstance(value, list):
        return [substituted(item, user_id, pseudonym, name) for item in value]
    if isinstance(value, dict):
        key_of = {str(user_id): str(pseudonym)}
        out = {
            key_of.get(key, key): substituted(item, user_id, pseudonym, name)
            for key, item in value.items()
        }
        if value.get("user_id") == user_id and "name" in value:
            out["name"] = name
        return out
    return value


async def anonymise(conn: Connection, user_id: int, pseudonym: int, name: str) -> Forgotten:
    """Rewrite every row that names ``user_id`` (see the module), in ``conn``'s transaction."""
    changed: dict[str, int] = {}
    for table, column in ID_COLUMNS:
        count = await conn.execute(
            f"UPDATE {table} SET {column} = ? WHERE {column} = ?", (pseudonym, user_id)
        )
        if count:
            changed[table] = changed.get(table, 0) + count
    for table, key, column in JSON_COLUMNS:
        rows = await conn.fetchall(
            f"SELECT {key}, {column} FROM {table} WHERE {column} LIKE ?", (f"%{user_id}%",)
        )
        updates = await asyncio.to_thread(_rewritten, rows, user_id, pseudonym, name)
        if updates:
            await conn.executemany(f"UPDATE {table} SET {column} = ? WHERE {key} = ?", updates)
            changed[f"{table}.{column}"] = len(updates)
            if table == "tournament_entrants":
                await _rename_entrants(conn, [row_key for _, row_key in updates])
    # A seek's name is its seeker's (their id became the pseudonym above); an open one ends.
    await conn.execute("UPDATE seeks SET name = ? WHERE user_id = ?", (name, pseudonym))
    await conn.execute(
        "UPDATE seeks SET status = 'dropped' WHERE user_id = ? AND status = 'open'", (pseudonym,)
    )
    preferences = await conn.execute("DELETE FROM preferences WHERE user_id = ?", (user_id,))
    return Forgotten(changed, preferences)


async def _rename_entrants(conn: Connection, entrant_ids: list[int]) -> None:
    """An entrant's name is its members' names (``"ann & ben"``): named again."""
    for entrant_id in entrant_ids:
        row = await conn.fetchone(
            "SELECT members FROM tournament_entrants WHERE id = ?", (entrant_id,)
        )
        if row is None:
            continue
        members = loads(row[0])
        await conn.execute(
            "UPDATE tournament_entrants SET name = ? WHERE id = ?",
            (" & ".join(str(m.get("name", "?")) for m in members), entrant_id),
        )


async def holds_anything(conn: Connection, user_id: int) -> bool:
    """True when a row still names ``user_id`` (its preferences included)."""
    if await conn.fetchone("SELECT 1 FROM preferences WHERE user_id = ?", (user_id,)):
        return True
    for table, column in ID_COLUMNS:
        if await conn.fetchone(f"SELECT 1 FROM {table} WHERE {column} = ? LIMIT 1", (user_id,)):
            return True
    for table, _, column in JSON_COLUMNS:
        rows = await conn.fetchall(
            f"SELECT {column} FROM {table} WHERE {column} LIKE ?", (f"%{user_id}%",)
        )
        if rows and await asyncio.to_thread(_rewritten, rows, user_id, user_id + 1, ""):
            return True
    return False


def _rewritten(
    rows: list[tuple[Any, ...]], user_id: int, pseudonym: int, name: str
) -> list[tuple[str, Any]]:
    """``(new text, key)`` of each ``(key, text)`` row that :func:`substituted` changes (off
    the event loop: a long history is many rows)."""
    updates = []
    for row in rows:
        value = loads(row[-1])
        new = substituted(value, user_id, pseudonym, name)
        if new != value:
            updates.append((dumps(new), row[0]))
    return updates
