"""Finished-game results, the input of ratings, stats and tournaments.

Recording a result also adds it to its server's standings, in the same transaction
(:mod:`.standings`): its number in the server's order, its players' totals and, if rated,
their ratings."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .codec import dumps, loads
from .errors import IntegrityError, NotFoundError
from .rebuild import rebuild_guild
from .standings import apply_result, lock_guild, next_seq, player_rows
from .tallies import Tally

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
#: Oldest first by the time each game ended, or in the order results were recorded.
BY_TIME = "ORDER BY r.finished_at, r.game_id"
IN_ORDER = "ORDER BY r.seq"


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
        *,
        tallies: Mapping[int, Tally] | None = None,
    ) -> ResultRecord:
        """Store (or replace) the result of a game, with what each player did in it
        (``tallies``, by user id: none counted as nothing), and update its server's standings.

        A new result is applied to them as the server's next; a replaced one makes the server's
        standings computed again from its results (:func:`.rebuild.rebuild_guild`)."""
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
        await self._db.run(
            _record, self._db.dialect, record, dumps(record.teams), dumps(record.summary), tallies
        )
        return record

    async def get(self, game_id: int) -> ResultRecord | None:
        """The result of one game."""
        rows = await self._db.read(_select, "WHERE r.game_id = ?", (game_id,), BY_TIME)
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
        return await self._db.read(_select, where, params, BY_TIME)

    async def in_order(self, guild_id: int, *, rated_only: bool = False) -> list[ResultRecord]:
        """A guild's results in the order they were recorded (the order ratings apply them)."""
        where = "WHERE r.guild_id = ? AND (? = 0 OR r.rated = 1)"
        return await self._db.read(_select, where, (guild_id, int(rated_only)), IN_ORDER)

    async def latest_for_user(self, user_id: int, guild_id: int, limit: int) -> list[ResultRecord]:
        """The last ``limit`` results of a user's games in a guild, newest first (by the order
        they were recorded: an index read, whatever the history)."""
        return await self._db.read(_latest, user_id, guild_id, limit)

    async def for_user(
        self, user_id: int, *, guild_id: int | None = None, rated_only: bool = False
    ) -> list[ResultRecord]:
        """The results of the games a user played in (one guild or all)."""
        where = (
            "WHERE r.game_id IN (SELECT game_id FROM result_players WHERE user_id = ?) "
            "AND r.guild_id = coalesce(?, r.guild_id) AND (? = 0 OR r.rated = 1)"
        )
        params = (user_id, guild_id, int(rated_only))
        return await self._db.read(_select, where, params, BY_TIME)


async def _record(
    conn: Connection,
    dialect: str,
    record: ResultRecord,
    teams: str,
    summary: str,
    tallies: Mapping[int, Tally] | None,
) -> None:
    earlier = await conn.fetchone(
        "SELECT guild_id, seq FROM results WHERE game_id = ?", (record.game_id,)
    )
    guilds = sorted({record.guild_id, *([earlier[0]] if earlier else [])})
    for guild in guilds:  # in one order, so that two processes never wait for each other
        await lock_guild(conn, dialect, guild)
    if earlier is not None and earlier[0] == record.guild_id:
        seq = int(earlier[1])  # replaced in place: it keeps its number
    else:
        seq = await next_seq(conn, record.guild_id)
    try:
        await conn.execute(
            "INSERT INTO results (game_id, guild_id, teams, winner_team, rated, summary, "
            "finished_at, seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (game_id) DO UPDATE SET "
            "guild_id = excluded.guild_id, teams = excluded.teams, "
            "winner_team = excluded.winner_team, rated = excluded.rated, "
            "summary = excluded.summary, finished_at = excluded.finished_at, seq = excluded.seq",
            (
                record.game_id,
                record.guild_id,
                teams,
                record.winner_team,
                int(record.rated),
                summary,
                record.finished_at,
                seq,
            ),
        )
    except IntegrityError as error:
        raise NotFoundError(f"There is no game {record.game_id}.") from error
    await conn.execute("DELETE FROM result_players WHERE game_id = ?", (record.game_id,))
    players = player_rows(record, seq, tallies)
    await conn.executemany(
        "INSERT INTO result_players (game_id, team, user_id, guild_id, seq, outcome, sequences, "
        "jacks) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
        players,
    )
    if earlier is None:
        await apply_result(conn, record, seq, players)
    else:  # a result replaced: its servers' standings are computed again
        for guild in guilds:
            await rebuild_guild(conn, guild)


async def _select(
    conn: Connection, where: str, params: tuple[Any, ...], order: str
) -> list[ResultRecord]:
    # ``where`` and ``order`` are constants of this module; values go in ``params``.
    rows = await conn.fetchall(f"SELECT {_COLUMNS} FROM results r {where} {order}", params)
    return _records(rows)


async def _latest(conn: Connection, user_id: int, guild_id: int, limit: int) -> list[ResultRecord]:
    rows = await conn.fetchall(
        f"SELECT {_COLUMNS} FROM result_players p JOIN results r ON r.game_id = p.game_id "
        "WHERE p.user_id = ? AND p.guild_id = ? ORDER BY p.seq DESC LIMIT ?",
        (user_id, guild_id, limit),
    )
    return _records(rows)


def _records(rows: list[tuple[Any, ...]]) -> list[ResultRecord]:
    return [
        ResultRecord(game_id, guild, loads(teams), winner, bool(rated), loads(summary), at)
        for game_id, guild, teams, winner, rated, summary, at in rows
    ]
