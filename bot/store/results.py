"""Finished-game results, the input of ratings and tournaments."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .codec import dumps, loads
from .errors import IntegrityError, NotFoundError

if TYPE_CHECKING:
    from .base import Store
    from .connection import Connection


@dataclass(frozen=True, slots=True)
class ResultRecord:
    """One finished game: its teams (user ids per team), the winning team (None for a draw)."""

    game_id: int
    guild_id: int
    teams: list[list[int]]
    winner_team: int | None
    rated: bool
    summary: dict[str, Any]
    finished_at: float

    def team_of(self, user_id: int) -> int | None:
        """The team the user played in, or None."""
        for team, members in enumerate(self.teams):
            if user_id in members:
                return team
        return None


_COLUMNS = "r.game_id, r.guild_id, r.teams, r.winner_team, r.rated, r.summary, r.finished_at"


class Results:
    """The results repository (``db.results``). Queries return results oldest first."""

    def __init__(self, db: Store) -> None:
        self._db = db

    async def record(
        self,
        game_id: int,
        guild_id: int,
        teams: list[list[int]],
        winner_team: int | None,
        rated: bool,
        summary: dict[str, Any],
        now: float,
    ) -> ResultRecord:
        """Store (or replace) the result of a game."""
        if winner_team is not None and not 0 <= winner_team < len(teams):
            raise ValueError(f"winner_team {winner_team} is not one of the {len(teams)} teams.")
        record = ResultRecord(
            game_id,
            guild_id,
            [[int(user) for user in team] for team in teams],
            winner_team,
            bool(rated),
            dict(summary),
            now,
        )
        await self._db.run(_record, record, dumps(record.teams), dumps(record.summary))
        return record

    async def get(self, game_id: int) -> ResultRecord | None:
        """The result of one game."""
        rows = await self._db.read(_select, "WHERE r.game_id = ?", (game_id,))
        return rows[0] if rows else None

    async def for_guild(
        self, guild_id: int, *, rated_only: bool = False, since: float | None = None
    ) -> list[ResultRecord]:
        """A guild's results, optionally only rated ones, optionally since a time."""
        where = (
            "WHERE r.guild_id = ? AND r.finished_at >= coalesce(?, r.finished_at) "
            "AND (? = 0 OR r.rated = 1)"
        )
        params = (guild_id, since, int(rated_only))
        return await self._db.read(_select, where, params)

    async def for_user(
        self, user_id: int, *, guild_id: int | None = None, rated_only: bool = False
    ) -> list[ResultRecord]:
        """The results of the games a user played in (one guild or all)."""
        where = (
            "WHERE r.game_id IN (SELECT game_id FROM result_players WHERE user_id = ?) "
            "AND r.guild_id = coalesce(?, r.guild_id) AND (? = 0 OR r.rated = 1)"
        )
        params = (user_id, guild_id, int(rated_only))
        return await self._db.read(_select, where, params)


async def _record(conn: Connection, record: ResultRecord, teams: str, summary: str) -> None:
    try:
        await conn.execute(
            "INSERT INTO results (game_id, guild_id, teams, winner_team, rated, summary, "
            "finished_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (game_id) DO UPDATE SET "
            "guild_id = excluded.guild_id, teams = excluded.teams, "
            "winner_team = excluded.winner_team, rated = excluded.rated, "
            "summary = excluded.summary, finished_at = excluded.finished_at",
            (
                record.game_id,
                record.guild_id,
                teams,
                record.winner_team,
                int(record.rated),
                summary,
                record.finished_at,
            ),
        )
    except IntegrityError as error:
        raise NotFoundError(f"There is no game {record.game_id}.") from error
    await conn.execute("DELETE FROM result_players WHERE game_id = ?", (record.game_id,))
    await conn.executemany(
        "INSERT INTO result_players (game_id, team, user_id) VALUES (?, ?, ?) "
        "ON CONFLICT DO NOTHING",
        [
            (record.game_id, team, user)
            for team, members in enumerate(record.teams)
            for user in members
        ],
    )


async def _select(conn: Connection, where: str, params: tuple[Any, ...]) -> list[ResultRecord]:
    # ``where`` is a constant of this module; values go in ``params``.
    rows = await conn.fetchall(
        f"SELECT {_COLUMNS} FROM results r {where} ORDER BY r.finished_at, r.game_id", params
    )
    return [
        ResultRecord(game_id, guild, loads(teams), winner, bool(rated), loads(summary), at)
        for game_id, guild, teams, winner, rated, summary, at in rows
    ]
