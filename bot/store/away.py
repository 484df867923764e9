"""Periods players are away (``db.away``): who, for which server (None: everywhere), from when
until when, covered how, and when it ended (see :mod:`bot.store.away_schema`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .base import Store
    from .connection import Connection

_COLUMNS = "id, user_id, guild_id, from_at, until_at, cover, ended_at"


@dataclass(frozen=True, slots=True)
class AwayPeriod:
    """One period away; ``ended_at`` is None while it lasts."""

    id: int
    user_id: int
    guild_id: int | None
    from_at: float
    until_at: float
    cover: str
    ended_at: float | None = None

    def covers(self, guild_id: int) -> bool:
        """True when the period is for ``guild_id``'s games (its own, or everywhere)."""
        return self.guild_id is None or self.guild_id == guild_id

    def meets(self, guild_id: int | None) -> bool:
        """True when this period and one for ``guild_id`` (None: everywhere) share a server."""
        return self.guild_id is None or guild_id is None or self.guild_id == guild_id

    @property
    def lasted_until(self) -> float:
        """When it ends (or ended, if early)."""
        return self.until_at if self.ended_at is None else min(self.ended_at, self.until_at)


class AwayPeriods:
    """The away repository (``db.away``)."""

    def __init__(self, db: Store) -> None:
        self._db = db

    async def add(
        self, user_id: int, guild_id: int | None, from_at: float, until_at: float, cover: str
    ) -> AwayPeriod:
        """Store a new period (the caller checked it against the member's others)."""
        period_id = await self._db.run(_insert, user_id, guild_id, from_at, until_at, cover)
        return AwayPeriod(period_id, user_id, guild_id, from_at, until_at, cover)

    async def lasting(self, user_id: int | None = None) -> list[AwayPeriod]:
        """The periods not ended yet (of one member, or everyone's), soonest end first."""
        if user_id is None:
            return await self._db.read(_select, "WHERE ended_at IS NULL", ())
        return await self._db.read(_select, "WHERE ended_at IS NULL AND user_id = ?", (user_id,))

    async def since(self, user_id: int, since: float) -> list[AwayPeriod]:
        """The member's periods that began at ``since`` or later (the allowance's year)."""
        return await self._db.read(_select, "WHERE user_id = ? AND from_at >= ?", (user_id, since))

    async def end(self, period_id: int, at: float) -> bool:
        """End a lasting period at ``at``; False when it had ended already (once only)."""
        return await self._db.run(_end, period_id, at)


async def _insert(
    conn: Connection,
    user_id: int,
    guild_id: int | None,
    from_at: float,
    until_at: float,
    cover: str,
) -> int:
    row = await conn.fetchone(
        "INSERT INTO away_periods (user_id, guild_id, from_at, until_at, cover) "
        "VALUES (?, ?, ?, ?, ?) RETURNING id",
        (user_id, guild_id, from_at, until_at, cover),
    )
    assert row is not None
    return int(row[0])


async def _end(conn: Connection, period_id: int, at: float) -> bool:
    changed = await conn.execute(
        "UPDATE away_periods SET ended_at = ? WHERE id = ? AND ended_at IS NULL", (at, period_id)
    )
    return changed == 1


async def _select(conn: Connection, where: str, params: tuple[Any, ...]) -> list[AwayPeriod]:
    # ``where`` is a constant of this module; values go in ``params``.
    rows = await conn.fetchall(
        f"SELECT {_COLUMNS} FROM away_periods {where} ORDER BY until_at, id", params
    )
    return [
        AwayPeriod(
            int(pid), int(user), None if guild is None else int(guild), float(f), float(u),
            str(cover), None if ended is None else float(ended),
        )
        for pid, user, guild, f, u, cover, ended in rows
    ]
