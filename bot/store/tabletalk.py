"""Table-talk reports: a player reports a team; the report is pending until upheld or dismissed.

The forfeits an upheld report imposes live in the engine (a ``tabletalk`` move, then
``game.owed_forfeits`` in the snapshot); this table keeps the reports and their outcome.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from .errors import IntegrityError, NotFoundError, StoreError

if TYPE_CHECKING:
    from .base import Store
    from .connection import Connection

PENDING = "pending"
UPHELD = "upheld"
DISMISSED = "dismissed"
Outcome = Literal["upheld", "dismissed"]


@dataclass(frozen=True, slots=True)
class ReportRecord:
    """One table-talk report."""

    id: int
    game_id: int
    reporter_id: int
    team: int
    status: str
    message_id: int | None
    created_at: float
    resolved_at: float | None
    resolved_by: int | None


_COLUMNS = (
    "id, game_id, reporter_id, team, status, message_id, created_at, resolved_at, resolved_by"
)


class TableTalk:
    """The table-talk reports repository (``db.tabletalk``)."""

    def __init__(self, db: Store) -> None:
        self._db = db

    async def create(
        self,
        game_id: int,
        reporter_id: int,
        team: int,
        now: float,
        message_id: int | None = None,
    ) -> ReportRecord:
        """File a pending report against ``team``."""
        report_id = await self._db.run(_create, game_id, reporter_id, team, message_id, now)
        return ReportRecord(
            report_id, game_id, reporter_id, team, PENDING, message_id, now, None, None
        )

    async def get(self, report_id: int) -> ReportRecord | None:
        """A report by id."""
        rows = await self._db.read(_select, "WHERE id = ?", (report_id,))
        return rows[0] if rows else None

    async def pending(self, game_id: int | None = None) -> list[ReportRecord]:
        """Pending reports, of one game or of all this process's shards' games (for start-up),
        oldest first."""
        if game_id is None:
            mine, params = self._db.on_my_shards("g.guild_id")
            where = (
                f"WHERE status = 'pending' AND game_id IN (SELECT g.id FROM games g WHERE {mine})"
            )
            return await self._db.read(_select, where, params)
        return await self._db.read(_select, "WHERE status = 'pending' AND game_id = ?", (game_id,))

    async def for_game(self, game_id: int) -> list[ReportRecord]:
        """Every report of a game, oldest first."""
        return await self._db.read(_select, "WHERE game_id = ?", (game_id,))

    async def set_message(self, report_id: int, message_id: int | None) -> None:
        """Remember the message that shows the report."""
        await self._db.run(_set_message, report_id, message_id)

    async def resolve(
        self, report_id: int, status: Outcome, now: float, resolved_by: int | None = None
    ) -> ReportRecord:
        """Uphold or dismiss a pending report; :class:`StoreError` if it was already resolved."""
        if status not in (UPHELD, DISMISSED):
            raise ValueError("A report is resolved as 'upheld' or 'dismissed'.")
        rows = await self._db.run(_resolve, report_id, status, now, resolved_by)
        return rows[0]


async def _create(
    conn: Connection,
    game_id: int,
    reporter_id: int,
    team: int,
    message_id: int | None,
    now: float,
) -> int:
    try:
        row = await conn.fetchone(
            "INSERT INTO tabletalk_reports (game_id, reporter_id, team, message_id, created_at) "
            "VALUES (?, ?, ?, ?, ?) RETURNING id",
            (game_id, reporter_id, team, message_id, now),
        )
    except IntegrityError as error:
        raise NotFoundError(f"There is no game {game_id}.") from error
    assert row is not None
    return int(row[0])


async def _select(conn: Connection, where: str, params: tuple[Any, ...]) -> list[ReportRecord]:
    # ``where`` is a constant of this module; values go in ``params``.
    rows = await conn.fetchall(
        f"SELECT {_COLUMNS} FROM tabletalk_reports {where} ORDER BY id", params
    )
    return [ReportRecord(*row) for row in rows]


async def _set_message(conn: Connection, report_id: int, message_id: int | None) -> None:
    cursor = await conn.execute(
        "UPDATE tabletalk_reports SET message_id = ? WHERE id = ?", (message_id, report_id)
    )
    if cursor != 1:
        raise NotFoundError(f"There is no table-talk report {report_id}.")


async def _resolve(
    conn: Connection, report_id: int, status: str, now: float, by: int | None
) -> list[ReportRecord]:
    cursor = await conn.execute(
        "UPDATE tabletalk_reports SET status = ?, resolved_at = ?, resolved_by = ? "
        "WHERE id = ? AND status = 'pending'",
        (status, now, by, report_id),
    )
    rows = await _select(conn, "WHERE id = ?", (report_id,))
    if not rows:
        raise NotFoundError(f"There is no table-talk report {report_id}.")
    if cursor != 1:
        raise StoreError(f"Table-talk report {report_id} was already {rows[0].status}.")
    return rows
