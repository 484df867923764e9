"""A tournament's entrants (a user or a fixed team) and the players they stand for.

A user plays for at most one entrant per tournament (the ``tournament_players`` key).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..codec import dumps, loads
from ..errors import IntegrityError, NotFoundError
from .records import AlreadyEnteredError, EntrantRecord

if TYPE_CHECKING:
    from ..base import Store
    from ..connection import Connection

_E_COLUMNS = "id, tournament_id, name, members, seed, joined_at, dropped_at"


class Entrants:
    """A tournament's entrants (part of ``db.tournaments``)."""

    def __init__(self, db: Store) -> None:
        self._db = db

    async def add_entrant(
        self, tournament_id: int, name: str, members: list[dict[str, Any]], now: float
    ) -> EntrantRecord:
        """Sign up an entrant; :class:`AlreadyEnteredError` if any member is already in."""
        record = EntrantRecord(0, tournament_id, name, [dict(m) for m in members], None, now)
        record.id = await self._db.run(_add_entrant, record, dumps(record.members))
        return record

    async def remove_entrant(self, entrant_id: int) -> bool:
        """Withdraw an entrant before the start (its members may sign up again)."""
        return await self._db.run(_remove_entrant, entrant_id)

    async def entrants(self, tournament_id: int) -> list[EntrantRecord]:
        """The entrants in sign-up order."""
        return await self._db.read(_select_e, "WHERE tournament_id = ?", (tournament_id,))

    async def entrant_of(self, tournament_id: int, user_id: int) -> EntrantRecord | None:
        """The entrant a user plays for, if any."""
        rows = await self._db.read(
            _select_e,
            "WHERE id = (SELECT entrant_id FROM tournament_players "
            "WHERE tournament_id = ? AND user_id = ?)",
            (tournament_id, user_id),
        )
        return rows[0] if rows else None

    async def set_seeds(self, seeds: dict[int, int]) -> None:
        """Fix the seeds (entrant id -> seed, 1 the top seed)."""
        await self._db.run(_set_seeds, seeds)

    async def drop(self, entrant_id: int, now: float) -> None:
        """Mark an entrant dropped: it is paired no more."""
        await self._db.run(_drop, entrant_id, now)


async def _add_entrant(conn: Connection, record: EntrantRecord, members: str) -> int:
    for user_id in record.user_ids:
        if await conn.fetchone(
            "SELECT 1 FROM tournament_players WHERE tournament_id = ? AND user_id = ?",
            (record.tournament_id, user_id),
        ):
            raise AlreadyEnteredError(user_id)
    try:
        row = await conn.fetchone(
            "INSERT INTO tournament_entrants (tournament_id, name, members, joined_at) "
            "VALUES (?, ?, ?, ?) RETURNING id",
            (record.tournament_id, record.name, members, record.joined_at),
        )
    except IntegrityError as error:
        raise NotFoundError(f"There is no tournament {record.tournament_id}.") from error
    assert row is not None
    entrant_id = int(row[0])
    await conn.executemany(
        "INSERT INTO tournament_players (tournament_id, user_id, entrant_id) VALUES (?, ?, ?)",
        [(record.tournament_id, user_id, entrant_id) for user_id in record.user_ids],
    )
    return entrant_id


async def _remove_entrant(conn: Connection, entrant_id: int) -> bool:
    await conn.execute("DELETE FROM tournament_players WHERE entrant_id = ?", (entrant_id,))
    removed = await conn.execute("DELETE FROM tournament_entrants WHERE id = ?", (entrant_id,))
    return removed == 1


async def _select_e(conn: Connection, where: str, params: tuple[Any, ...]) -> list[EntrantRecord]:
    # ``where`` is a constant of this module; values go in ``params``.
    rows = await conn.fetchall(
        f"SELECT {_E_COLUMNS} FROM tournament_entrants {where} ORDER BY id", params
    )
    return [
        EntrantRecord(row[0], row[1], row[2], loads(row[3]), row[4], row[5], row[6]) for row in rows
    ]


async def _set_seeds(conn: Connection, seeds: dict[int, int]) -> None:
    await conn.executemany(
        "UPDATE tournament_entrants SET seed = ? WHERE id = ?",
        [(seed, entrant_id) for entrant_id, seed in seeds.items()],
    )


async def _drop(conn: Connection, entrant_id: int, now: float) -> None:
    updated = await conn.execute(
        "UPDATE tournament_entrants SET dropped_at = coalesce(dropped_at, ?) WHERE id = ?",
        (now, entrant_id),
    )
    if updated != 1:
        raise NotFoundError(f"There is no entrant {entrant_id}.")
