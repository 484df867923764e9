"""A server's rated results replayed in the order they were recorded: the recomputation that
the stored ratings (all-time and per season) must equal (:mod:`.rebuild`, :mod:`.seasons`).

The model is the live update's (:func:`bot.skill.rate_result`); with the server's time away
(``rating_time_away`` days, 0: off) each player's σ first grows with the days since their
previous rated game of the same run (:func:`bot.skill.grown`), from the results' own dates.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bot.seasons import days_between
from bot.skill import Rating, grown, rate_result

from .codec import loads

if TYPE_CHECKING:
    from bot.skill import RatedResult

    from .connection import Connection


@dataclass(frozen=True, slots=True)
class StoredResult:
    """A result as the replay needs it (fits :class:`bot.skill.RatedResult`)."""

    game_id: int
    seq: int
    teams: list[list[int]]
    winner_team: int | None
    rated: bool
    summary: dict[str, Any]
    finished_at: float = 0.0


async def results_in_order(
    conn: Connection, guild_id: int, *, rated_only: bool
) -> list[StoredResult]:
    """A server's results in the order they were recorded."""
    rows = await conn.fetchall(
        "SELECT game_id, seq, teams, winner_team, rated, summary, finished_at FROM results "
        "WHERE guild_id = ? AND (? = 0 OR rated = 1) ORDER BY seq",
        (guild_id, int(rated_only)),
    )
    return [
        StoredResult(game, seq, loads(teams), winner, bool(rated), loads(summary), at)
        for game, seq, teams, winner, rated, summary, at in rows
    ]


def rate_after_time_away(
    before: Mapping[int, Rating],
    last_played: Mapping[int, float],
    result: RatedResult,
    finished_at: float,
    time_away: int,
) -> dict[int, Rating]:
    """The new ratings one result gives, each player's σ first grown with their time away
    since ``last_played`` (their previous rated game's end) when ``time_away`` is on."""
    if time_away <= 0:
        return rate_result(dict(before), result)
    aged = {
        user: grown(
            rating, days_between(last_played.get(user, finished_at), finished_at), time_away
        )
        for user, rating in before.items()
    }
    return rate_result(aged, result)


@dataclass
class Replayed:
    """Ratings replayed from results: the last rating, rated games and last rated game's end of
    each player, and each game's (game, seq, ratings before, games before, ratings after)."""

    ratings: dict[int, Rating]
    games: dict[int, int]
    steps: list[tuple[int, int, dict[int, Rating], dict[int, int], dict[int, Rating]]]
    last_played: dict[int, float]


def replay_ratings(results: Iterable[StoredResult], time_away: int = 0) -> Replayed:
    """Apply rated results in order, as :func:`.standings.apply_result` does one at a time."""
    ratings: dict[int, Rating] = {}
    games: dict[int, int] = {}
    last: dict[int, float] = {}
    steps = []
    for result in results:
        changed = rate_after_time_away(ratings, last, result, result.finished_at, time_away)
        if not changed:
            continue
        before = {user: ratings[user] for user in changed if user in ratings}
        counts = {user: games.get(user, 0) for user in changed}
        steps.append((result.game_id, result.seq, before, counts, changed))
        ratings.update(changed)
        for user in changed:
            games[user] = games.get(user, 0) + 1
            last[user] = result.finished_at
    return Replayed(ratings, games, steps, last)
