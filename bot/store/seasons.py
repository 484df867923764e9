"""Each season's ratings, kept like the all-time ones (``db.seasons``).

A rated result is applied to the season it ended in (:func:`apply_season_result`, called by
:func:`.standings.apply_result` in the transaction that records the result), read from the
server's plan in that transaction, so a season leaderboard is an indexed query. A season starts
everyone fresh. A new plan (or time away) recomputes the server's season ratings from its
results in the transaction that stores it (:func:`rebuild_seasons`), and
:func:`season_problems` checks the stored ones against that recomputation.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bot.seasons import Plan, season_at, stored_plan
from bot.skill import Rating

from .board_rows import BoardRow
from .codec import loads
from .replay import StoredResult, rate_after_time_away, replay_ratings

if TYPE_CHECKING:
    from .base import Store
    from .connection import Connection
    from .results import ResultRecord

#: The server settings that decide how results are rated (bot/services/server_setting_list.py).
SEASON_PLAN, TIME_AWAY = "season_plan", "rating_time_away"


@dataclass(frozen=True)
class RatingRules:
    """How a server's results are rated: its season plan and its time away (days for σ to
    grow back to a newcomer's; 0: off)."""

    plan: Plan = "none"
    time_away: int = 0


async def rating_rules(conn: Connection, guild_id: int) -> RatingRules:
    """The server's rating rules, read in the open transaction."""
    rows = await conn.fetchall(
        "SELECT name, value FROM guild_settings WHERE guild_id = ? AND name IN (?, ?)",
        (guild_id, SEASON_PLAN, TIME_AWAY),
    )
    values = {name: loads(value) for name, value in rows}
    return RatingRules(stored_plan(values.get(SEASON_PLAN)), int(values.get(TIME_AWAY) or 0))


async def apply_season_result(conn: Connection, record: ResultRecord, rules: RatingRules) -> None:
    """Add a new rated result to the ratings of the season it ended in (if any)."""
    season = season_at(rules.plan, record.finished_at)
    users = sorted({user for team in record.teams for user in team if user > 0})
    if season is None or not record.rated or not users:
        return
    marks = ", ".join("?" for _ in users)
    rows = await conn.fetchall(
        "SELECT user_id, mu, sigma, games, last_at FROM season_ratings "
        f"WHERE guild_id = ? AND season = ? AND user_id IN ({marks})",
        (record.guild_id, season.name, *users),
    )
    before = {int(user): Rating(mu, sigma) for user, mu, sigma, _, _ in rows}
    games = {int(user): int(count) for user, _, _, count, _ in rows}
    last = {int(user): float(at) for user, _, _, _, at in rows}
    changed = rate_after_time_away(before, last, record, record.finished_at, rules.time_away)
    await _write(
        conn,
        record.guild_id,
        season.name,
        [(user, new, games.get(user, 0) + 1, record.finished_at) for user, new in changed.items()],
    )


async def _write(
    conn: Connection, guild_id: int, season: str, rows: Iterable[tuple[int, Rating, int, float]]
) -> None:
    await conn.executemany(
        "INSERT INTO season_ratings (guild_id, season, user_id, mu, sigma, ordinal, games, "
        "last_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, season, user_id) "
        "DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma, ordinal = excluded.ordinal, "
        "games = excluded.games, last_at = excluded.last_at",
        [
            (guild_id, season, user, new.mu, new.sigma, new.ordinal, count, at)
            for user, new, count, at in rows
        ],
    )


def replay_seasons(
    results: Iterable[StoredResult], rules: RatingRules
) -> dict[str, list[tuple[int, Rating, int, float]]]:
    """Each season's ratings recomputed from the rated results (in the order recorded): season
    -> [(user, rating, rated games, last rated game's end)]."""
    by_season: dict[str, list[StoredResult]] = {}
    for result in results:
        season = season_at(rules.plan, result.finished_at)
        if season is not None and result.rated:
            by_season.setdefault(season.name, []).append(result)
    seasons = {}
    for name, window in by_season.items():
        replayed = replay_ratings(window, rules.time_away)
        seasons[name] = [
            (user, rating, replayed.games[user], replayed.last_played[user])
            for user, rating in sorted(replayed.ratings.items())
        ]
    return seasons


async def rebuild_seasons(
    conn: Connection,
    guild_id: int,
    results: list[StoredResult],
    rules: RatingRules,
    replayed: dict[str, list[tuple[int, Rating, int, float]]] | None = None,
) -> None:
    """Replace the server's season ratings with their recomputation (in the open transaction;
    ``replayed``: :func:`replay_seasons` of these results and rules, made before it)."""
    await conn.execute("DELETE FROM season_ratings WHERE guild_id = ?", (guild_id,))
    if replayed is None:  # a long history: off the loop
        replayed = await asyncio.to_thread(replay_seasons, results, rules)
    for season, rows in replayed.items():
        await _write(conn, guild_id, season, rows)


async def season_problems(
    conn: Connection, guild_id: int, results: list[StoredResult], rules: RatingRules
) -> list[str]:
    """How the server's stored season ratings differ from their recomputation (none: equal)."""
    rows = await conn.fetchall(
        "SELECT season, user_id, mu, sigma, games FROM season_ratings WHERE guild_id = ?",
        (guild_id,),
    )
    stored = {(s, int(u)): (Rating(mu, sigma), int(g)) for s, u, mu, sigma, g in rows}
    replayed = await asyncio.to_thread(replay_seasons, results, rules)
    want = {
        (season, user): (rating, games)
        for season, found in replayed.items()
        for user, rating, games, _ in found
    }
    return [
        f"server {guild_id}, season {season}, player {user}: stored {stored.get((season, user))}, "
        f"replayed {want.get((season, user))}"
        for season, user in sorted(set(stored) | set(want))
        if stored.get((season, user)) != want.get((season, user))
    ]


class Seasons:
    """The season ratings repository (``db.seasons``): indexed reads."""

    def __init__(self, db: Store) -> None:
        self._db = db

    async def rated_players(self, guild_id: int, season: str) -> int:
        """How many players have a rating in the season."""
        row = await self._db.read(
            _one,
            "SELECT count(*) FROM season_ratings WHERE guild_id = ? AND season = ?",
            guild_id,
            season,
        )
        return int(row[0]) if row else 0

    async def board(self, guild_id: int, season: str, offset: int, limit: int) -> list[BoardRow]:
        """``limit`` rows of the season's leaderboard from ``offset``, best first."""
        rows = await self._db.read(
            _all,
            "SELECT user_id, mu, sigma, games FROM season_ratings WHERE guild_id = ? "
            "AND season = ? ORDER BY ordinal DESC, games DESC, user_id LIMIT ? OFFSET ?",
            guild_id,
            season,
            limit,
            offset,
        )
        return [BoardRow(int(u), Rating(mu, sigma), int(g)) for u, mu, sigma, g in rows]

    async def place(self, guild_id: int, season: str, rating: Rating) -> int:
        """The season leaderboard place of a rating (the same rating shares a place)."""
        row = await self._db.read(
            _one,
            "SELECT count(*) FROM season_ratings WHERE guild_id = ? AND season = ? AND ordinal > ?",
            guild_id,
            season,
            rating.ordinal,
        )
        return 1 + (int(row[0]) if row else 0)

    async def of_member(self, user_id: int) -> list[tuple[int, str, Rating, int]]:
        """Every season rating of a member (an export): server, season, rating and games."""
        rows = await self._db.read(
            _all,
            "SELECT guild_id, season, mu, sigma, games FROM season_ratings WHERE user_id = ? "
            "ORDER BY guild_id, season",
            user_id,
        )
        return [(int(g), str(s), Rating(mu, sigma), int(n)) for g, s, mu, sigma, n in rows]

    async def ratings_of(
        self, guild_id: int, season: str, user_ids: list[int]
    ) -> dict[int, Rating]:
        """The season ratings of some players (a player without one is left out)."""
        if not user_ids:
            return {}
        marks = ", ".join("?" for _ in user_ids)
        rows = await self._db.read(
            _all,
            "SELECT user_id, mu, sigma FROM season_ratings WHERE guild_id = ? AND season = ? "
            f"AND user_id IN ({marks})",
            guild_id,
            season,
            *user_ids,
        )
        return {int(user): Rating(mu, sigma) for user, mu, sigma in rows}


async def _one(conn: Connection, sql: str, *params: Any) -> tuple[Any, ...] | None:
    return await conn.fetchone(sql, params)


async def _all(conn: Connection, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    return await conn.fetchall(sql, params)
