"""Timers: one per (game, kind), resumed at start-up: a turn's reminder and time limit, a turn
another process began (the kinds are the services'). Timers only: what follows a change and
Discord refused is retried by the outbox (:mod:`bot.services.dispatch`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .codec import dumps, loads
from .errors import IntegrityError, NotFoundError

if TYPE_CHECKING:
    from .base import Store
    from .connection import Connection

@dataclass(frozen=True, slots=True)
class TimerRecord:
    """A pending timer: due at ``due_at`` (Unix seconds), with a JSON payload."""

    game_id: int
    kind: str
    due_at: float
    payload: dict[str, Any]


class Timers:
    """The timers repository (``db.timers``). Finishing a game clears its timers."""

    def __init__(self, db: Store) -> None:
        self._db = db

    async def set(
        self, game_id: int, kind: str, due_at: float, payload: dict[str, Any] | None = None
    ) -> TimerRecord:
        """Create or replace the game's timer of this kind."""
        record = TimerRecord(game_id, kind, due_at, dict(payload or {}))
        await self._db.run(_set, game_id, kind, due_at, dumps(record.payload))
        return record

    async def replace(self, game_id: int, timers: list[TimerRecord]) -> None:
        """The game's timers become exactly ``timers`` (the new turn's)."""
        rows = [(t.kind, t.due_at, dumps(t.payload)) for t in timers]
        replace = _replace_in_one if self._db.dialect == "postgresql" else _replace
        await self._db.run(replace, game_id, rows)

    async def get(self, game_id: int, kind: str) -> TimerRecord | None:
        """The game's timer of this kind, if set."""
        rows = await self._db.read(_select, "WHERE game_id = ? AND kind = ?", (game_id, kind))
        return rows[0] if rows else None

    async def of_game(self, game_id: int) -> list[TimerRecord]:
        """Every timer of one game, soonest first."""
        return await self._db.read(_select, "WHERE game_id = ?", (game_id,))

    async def clear(self, game_id: int, kind: str) -> bool:
        """Remove one timer; False if it was not set."""
        return bool(await self._db.run(_clear, game_id, kind))

    async def clear_game(self, game_id: int) -> int:
        """Remove all timers of a game; returns how many."""
        return await self._db.run(_clear, game_id, None)

    async def all(self, *kinds: str) -> list[TimerRecord]:
        """Every timer of the games of this process's shards (of the ``kinds`` given, if any),
        soonest first (to resume them at start-up)."""
        mine, params = self._db.on_my_shards("g.guild_id")
        where = f"WHERE game_id IN (SELECT g.id FROM games g WHERE {mine})"
        if kinds:
            where += f" AND kind IN ({', '.join('?' * len(kinds))})"
            params = (*params, *kinds)
        return await self._db.read(_select, where, params)


async def _set(conn: Connection, game_id: int, kind: str, due_at: float, payload: str) -> None:
    try:
        await conn.execute(
            "INSERT INTO timers (game_id, kind, due_at, payload) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (game_id, kind) DO UPDATE SET due_at = excluded.due_at, "
            "payload = excluded.payload",
            (game_id, kind, due_at, payload),
        )
    except IntegrityError as error:
        raise NotFoundError(f"There is no game {game_id}.") from error


async def _replace(conn: Connection, game_id: int, rows: list[tuple[str, float, str]]) -> None:
    await conn.execute("DELETE FROM timers WHERE game_id = ?", (game_id,))
    if rows:
        await conn.executemany(
            "INSERT INTO timers (game_id, kind, due_at, payload) VALUES (?, ?, ?, ?)",
            [(game_id, *row) for row in rows],
        )


async def _clear(conn: Connection, game_id: int, kind: str | None) -> int:
    if kind is None:
        return await conn.execute("DELETE FROM timers WHERE game_id = ?", (game_id,))
    cursor = await conn.execute(
        "DELETE FROM timers WHERE game_id = ? AND kind = ?", (game_id, kind)
    )
    return cursor


async def clear_game(conn: Connection, game_id: int) -> int:
    """Delete a game's timers in the transaction open on ``conn`` (a finished game's); how
    many."""
    return await _clear(conn, game_id, None)


async def _select(conn: Connection, where: str, params: tuple[Any, ...]) -> list[TimerRecord]:
    # ``where`` is a constant of this module; values go in ``params``.
    rows = await conn.fetchall(
        f"SELECT game_id, kind, due_at, payload FROM timers {where} ORDER BY due_at, game_id",
        params,
    )
    return [TimerRecord(game_id, kind, due, loads(text)) for game_id, kind, due, text in rows]


async def _replace_in_one(
    conn: Connection, game_id: int, rows: list[tuple[str, float, str]]
) -> None:
    """:func:`_replace` in one statement (PostgreSQL: one round trip instead of two): the kinds
    not given are deleted, the given ones inserted or updated (disjoint rows)."""
    kinds = [row[0] for row in rows]
    await conn.execute(
        "WITH gone AS (DELETE FROM timers WHERE game_id = ? AND NOT (kind = ANY(?::text[]))) "
        "INSERT INTO timers (game_id, kind, due_at, payload) "
        "SELECT ?, t.kind, t.due_at, t.payload "
        "FROM unnest(?::text[], ?::double precision[], ?::text[]) AS t(kind, due_at, payload) "
        "ON CONFLICT (game_id, kind) DO UPDATE SET due_at = excluded.due_at, "
        "payload = excluded.payload",
        (game_id, kinds, game_id, kinds, [row[1] for row in rows], [row[2] for row in rows]),
    )
