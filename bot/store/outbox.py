"""The outbox (``db.outbox``): the events a change causes, written in the change's transaction.

A row is one event of one game: its kind, its payload (JSON), and the consumers still to be told
(``pending``, space-separated names). The dispatcher of the process that serves the game delivers
each row to those consumers, in the order of the rows, and writes what is left to tell; a row
with nobody left is delivered. A tournament step's row (``tournament_id`` instead of
``game_id``: :meth:`Outbox.add_step`) waits for the tournament tables, which show it; a seek's
step (``seek_id``: :meth:`Outbox.add_seek_step`) waits for ``/sequence find``; a season end's
step (``season_end_id``: :meth:`Outbox.add_season_step`) waits for its podium. Delivered
rows are kept a while (an audit of what followed a change) and then pruned.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .codec import dumps, loads

if TYPE_CHECKING:
    from .base import Store
    from .connection import Connection


@dataclass(frozen=True, slots=True)
class EventRow:
    """One stored event, as written by its change."""

    id: int
    game_id: int
    kind: str
    payload: dict[str, Any]
    pending: frozenset[str]
    created_at: float


#: The consumer a tournament step waits for (the tournament tables, which show it).
STEP_CONSUMER = "tournament"


@dataclass(frozen=True, slots=True)
class StepRow:
    """One stored tournament step: what it did, for its consumer to show."""

    id: int
    tournament_id: int
    kind: str
    payload: dict[str, Any]
    created_at: float


#: The consumer a seek's step waits for (``/sequence find``, which opens its table or tells it).
SEEK_CONSUMER = "seeks"


@dataclass(frozen=True, slots=True)
class SeekStepRow:
    """One stored step of a seek: what followed its change, for its consumer to do."""

    id: int
    seek_id: int
    kind: str
    payload: dict[str, Any]
    created_at: float


#: The consumer a season end's step waits for (the season's podium).
SEASON_CONSUMER = "seasons"


@dataclass(frozen=True, slots=True)
class SeasonStepRow:
    """One stored step of a season's end (its server and season, from the end's row)."""

    id: int
    season_end_id: int
    guild_id: int
    season: str
    kind: str
    payload: dict[str, Any]
    created_at: float


class Outbox:
    """The events repository (``db.outbox``)."""

    def __init__(self, db: Store) -> None:
        self._db = db

    async def add(
        self, game_id: int, kind: str, payload: dict[str, Any], pending: Iterable[str], now: float
    ) -> int:
        """Write one event (in the open transaction); its id. With nobody to tell, it is
        written as delivered (it stays for the audit)."""
        names = " ".join(sorted(pending))
        return await self._db.run(_add, game_id, kind, dumps(payload), names, now)

    async def add_step(
        self, tournament_id: int, kind: str, payload: dict[str, Any], now: float
    ) -> int:
        """Write one tournament step's event (in the step's open transaction); its id."""
        return await self._db.run(
            _add_step, "tournament_id", tournament_id, kind, dumps(payload), now
        )

    async def add_seek_step(
        self, seek_id: int, kind: str, payload: dict[str, Any], now: float
    ) -> int:
        """Write one seek's step (in the change's open transaction); its id."""
        return await self._db.run(_add_step, "seek_id", seek_id, kind, dumps(payload), now)

    async def add_season_step(
        self, season_end_id: int, kind: str, payload: dict[str, Any], now: float
    ) -> int:
        """Write one season end's step (in the end's open transaction); its id."""
        return await self._db.run(
            _add_step, "season_end_id", season_end_id, kind, dumps(payload), now
        )

    async def undelivered_season_steps(
        self, season_end_id: int | None = None
    ) -> list[SeasonStepRow]:
        """The season ends' steps still to do, oldest first, of this process's shards (one
        end's, or every end's)."""
        mine, params = self._db.on_my_shards("s.guild_id")
        if season_end_id is not None:
            mine, params = f"e.season_end_id = ? AND {mine}", (season_end_id, *params)
        return await self._db.read(_select_season_steps, mine, params)

    async def undelivered_seek_steps(self) -> list[SeekStepRow]:
        """The seeks' steps still to do, oldest first, of this process's shards."""
        mine, params = self._db.on_my_shards("p.guild_id")
        rows = await self._db.read(_select_owned, "seek_id", "seeks", mine, params)
        return [SeekStepRow(*row) for row in rows]

    async def undelivered_steps(self) -> list[StepRow]:
        """The tournament steps still to show, oldest first, of this process's shards."""
        mine, params = self._db.on_my_shards("p.guild_id")
        rows = await self._db.read(_select_owned, "tournament_id", "tournaments", mine, params)
        return [StepRow(*row) for row in rows]

    async def undelivered(self, game_id: int | None = None) -> list[EventRow]:
        """The events still to deliver, oldest first: one game's, or (``None``) those of every
        game of this process's shards."""
        if game_id is not None:
            return await self._db.read(_select, "e.game_id = ?", (game_id,))
        mine, params = self._db.on_my_shards("g.guild_id")
        return await self._db.read(_select, mine, params)

    async def mark(self, left: dict[int, frozenset[str]], now: float) -> None:
        """Record, for each event id, the consumers still to be told (none: delivered)."""
        rows = [
            (" ".join(sorted(names)), None if names else now, event_id)
            for event_id, names in left.items()
        ]
        await self._db.run(_mark, rows)

    async def prune(self, before: float, keep: int = 1000) -> int:
        """Delete the events delivered before ``before``, beyond the newest ``keep`` of each
        game, tournament, seek or season end (what an audit of a recent one reads); how many
        went."""
        return await self._db.run(_prune, before, keep)

    async def delivered(self, game_id: int) -> list[EventRow]:
        """A game's delivered events still kept, oldest first (audits and tests)."""
        return await self._db.read(_select_delivered, game_id)


async def _add(
    conn: Connection, game_id: int, kind: str, payload: str, pending: str, now: float
) -> int:
    row = await conn.fetchone(
        "INSERT INTO events (game_id, kind, payload, pending, created_at, delivered_at) "
        "VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
        (game_id, kind, payload, pending, now, None if pending else now),
    )
    assert row is not None
    return int(row[0])


async def _add_step(
    conn: Connection, owner: str, owner_id: int, kind: str, payload: str, now: float
) -> int:
    """A step of a tournament, a seek or a season's end: ``owner`` names its column (a
    constant of this module), and its consumer follows from it."""
    consumer = {
        "tournament_id": STEP_CONSUMER,
        "seek_id": SEEK_CONSUMER,
        "season_end_id": SEASON_CONSUMER,
    }[owner]
    row = await conn.fetchone(
        f"INSERT INTO events ({owner}, kind, payload, pending, created_at) "
        "VALUES (?, ?, ?, ?, ?) RETURNING id",
        (owner_id, kind, payload, consumer, now),
    )
    assert row is not None
    return int(row[0])


async def _select_season_steps(
    conn: Connection, where: str, params: tuple[Any, ...]
) -> list[SeasonStepRow]:
    # ``where`` is a constant of this module; values go in ``params``.
    rows = await conn.fetchall(
        "SELECT e.id, e.season_end_id, s.guild_id, s.season, e.kind, e.payload, e.created_at "
        "FROM events e JOIN season_ends s ON s.id = e.season_end_id "
        f"WHERE e.delivered_at IS NULL AND {where} ORDER BY e.id",
        params,
    )
    return [
        SeasonStepRow(int(i), int(s), int(g), str(n), k, loads(p), float(c))
        for i, s, g, n, k, p, c in rows
    ]


async def _select_owned(
    conn: Connection, owner: str, parent: str, where: str, params: tuple[Any, ...]
) -> list[tuple[int, int, str, dict[str, Any], float]]:
    """The undelivered steps of a tournament or a seek: ``owner`` their column, ``parent``
    (aliased ``p``) the table it points to, whose ``guild_id`` ``where`` may test."""
    # ``owner``, ``parent`` and ``where`` are constants of this module; values go in ``params``.
    rows = await conn.fetchall(
        f"SELECT e.id, e.{owner}, e.kind, e.payload, e.created_at FROM events e "
        f"JOIN {parent} p ON p.id = e.{owner} "
        f"WHERE e.delivered_at IS NULL AND {where} ORDER BY e.id",
        params,
    )
    return [(int(i), int(o), k, loads(p), float(c)) for i, o, k, p, c in rows]


async def _mark(conn: Connection, rows: list[tuple[str, float | None, int]]) -> None:
    await conn.executemany("UPDATE events SET pending = ?, delivered_at = ? WHERE id = ?", rows)


async def _prune(conn: Connection, before: float, keep: int) -> int:
    return await conn.execute(
        "DELETE FROM events WHERE delivered_at IS NOT NULL AND delivered_at < ? AND id NOT IN "
        "(SELECT id FROM (SELECT id, ROW_NUMBER() OVER "
        "(PARTITION BY game_id, tournament_id, seek_id, season_end_id ORDER BY id DESC) "
        "AS newest "
        "FROM events WHERE delivered_at IS NOT NULL) kept WHERE newest <= ?)",
        (before, keep),
    )


_COLUMNS = "e.id, e.game_id, e.kind, e.payload, e.pending, e.created_at"


async def _select(conn: Connection, where: str, params: tuple[Any, ...]) -> list[EventRow]:
    # ``where`` is a constant of this module; values go in ``params``.
    rows = await conn.fetchall(
        f"SELECT {_COLUMNS} FROM events e JOIN games g ON g.id = e.game_id "
        f"WHERE e.delivered_at IS NULL AND {where} ORDER BY e.id",
        params,
    )
    return [_row(row) for row in rows]


async def _select_delivered(conn: Connection, game_id: int) -> list[EventRow]:
    rows = await conn.fetchall(
        f"SELECT {_COLUMNS} FROM events e WHERE e.game_id = ? AND e.delivered_at IS NOT NULL "
        "ORDER BY e.id",
        (game_id,),
    )
    return [_row(row) for row in rows]


def _row(row: tuple[Any, ...]) -> EventRow:
    event_id, game_id, kind, payload, pending, created_at = row
    names = frozenset(str(pending).split())
    return EventRow(int(event_id), int(game_id), kind, loads(payload), names, float(created_at))
