"""A server's standings computed again from its results alone, and the check that the kept ones
equal that: for a replaced result, the ``sequence-bot standings`` command and migration 8,
which fills the standings of a database from before them.

The ratings are replayed in the order the results were recorded (``results.seq``) with the same
model as the live update (:func:`bot.skill.rate_result`); the totals are the sums of each
player's games (``result_players``). Never on a command's read path.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bot.skill import Rating, outcome_for, rate_result

from .codec import loads
from .games.loading import load_games
from .standings import SUMMED, tally_problems, write_ratings
from .tallies import seat_tallies

if TYPE_CHECKING:
    from .connection import Connection

log = logging.getLogger(__name__)

#: Games replayed for their tallies at a time (migration 8).
BATCH = 500
#: The finished games with ids in a range (the games a batch of results belong to).
_FINISHED_BETWEEN = "g.id >= ? AND g.id <= ? AND g.status = 'finished'"


@dataclass(frozen=True, slots=True)
class StoredResult:
    """A result as the replay needs it (fits :class:`bot.skill.RatedResult`)."""

    game_id: int
    seq: int
    teams: list[list[int]]
    winner_team: int | None
    rated: bool
    summary: dict[str, Any]


async def results_in_order(
    conn: Connection, guild_id: int, *, rated_only: bool
) -> list[StoredResult]:
    """A server's results in the order they were recorded."""
    rows = await conn.fetchall(
        "SELECT game_id, seq, teams, winner_team, rated, summary FROM results "
        "WHERE guild_id = ? AND (? = 0 OR rated = 1) ORDER BY seq",
        (guild_id, int(rated_only)),
    )
    return [
        StoredResult(game, seq, loads(teams), winner, bool(rated), loads(summary))
        for game, seq, teams, winner, rated, summary in rows
    ]


@dataclass
class Replayed:
    """Ratings replayed from results: the last rating and rated games of each player, and each
    game's (game, seq, ratings before, games before, ratings after)."""

    ratings: dict[int, Rating]
    games: dict[int, int]
    steps: list[tuple[int, int, dict[int, Rating], dict[int, int], dict[int, Rating]]]


def replay_ratings(results: list[StoredResult]) -> Replayed:
    """Apply rated results in order, as :func:`.standings.apply_result` does one at a time."""
    ratings: dict[int, Rating] = {}
    games: dict[int, int] = {}
    steps = []
    for result in results:
        changed = rate_result(ratings, result)
        if not changed:
            continue
        before = {user: ratings[user] for user in changed if user in ratings}
        counts = {user: games.get(user, 0) for user in changed}
        steps.append((result.game_id, result.seq, before, counts, changed))
        ratings.update(changed)
        for user in changed:
            games[user] = games.get(user, 0) + 1
    return Replayed(ratings, games, steps)


async def rebuild_guild(conn: Connection, guild_id: int) -> None:
    """Compute a server's totals and ratings again from its results (in the open transaction)."""
    await conn.execute("DELETE FROM player_totals WHERE guild_id = ?", (guild_id,))
    await conn.execute(
        "INSERT INTO player_totals (user_id, guild_id, games, wins, draws, losses, sequences, "
        f"jacks) {SUMMED} AND guild_id = ? GROUP BY user_id, guild_id",
        (guild_id,),
    )
    await conn.execute("DELETE FROM rating_changes WHERE guild_id = ?", (guild_id,))
    await conn.execute("DELETE FROM ratings WHERE guild_id = ?", (guild_id,))
    results = await results_in_order(conn, guild_id, rated_only=True)
    replayed = await asyncio.to_thread(replay_ratings, results)
    for game_id, seq, before, counts, changed in replayed.steps:
        await write_ratings(conn, guild_id, game_id, seq, before, counts, changed)


async def stored_problems(conn: Connection, guild_id: int) -> list[str]:
    """How the server's stored ratings and totals differ from its results replayed."""
    results = await results_in_order(conn, guild_id, rated_only=True)
    replayed = await asyncio.to_thread(replay_ratings, results)
    rows = await conn.fetchall(
        "SELECT user_id, mu, sigma, games FROM ratings WHERE guild_id = ?", (guild_id,)
    )
    stored = {int(user): (Rating(mu, sigma), int(games)) for user, mu, sigma, games in rows}
    want = {user: (rating, replayed.games[user]) for user, rating in replayed.ratings.items()}
    problems = [
        f"server {guild_id}, player {user}: rating stored {stored.get(user)}, replayed "
        f"{want.get(user)}"
        for user in sorted(set(stored) | set(want))
        if stored.get(user) != want.get(user)
    ]
    row = await conn.fetchone("SELECT count(*) FROM rating_changes WHERE guild_id = ?", (guild_id,))
    if row is None or int(row[0]) != sum(replayed.games.values()):
        problems.append(f"server {guild_id}: {row and row[0]} rating changes stored")
    return problems + await tally_problems(conn, guild_id)


async def guilds_with_results(conn: Connection) -> list[int]:
    """Every server with a result."""
    return [int(r[0]) for r in await conn.fetchall("SELECT DISTINCT guild_id FROM results")]


async def fill_standings(conn: Connection) -> None:
    """Migration 8's second step, after its SQL numbered the results: each game's outcome,
    sequences and jacks per player (its log replayed, as ``/sequence stats`` counted them),
    then every server's standings, checked against a replay. Raises ``ValueError`` with the
    differences."""
    rows = await conn.fetchall("SELECT game_id, teams, winner_team, summary FROM results")
    outcomes = []
    for game_id, teams, winner, summary in rows:
        result = StoredResult(game_id, 0, loads(teams), winner, False, loads(summary))
        outcomes += [
            (outcome_for(result, team), game_id, team) for team in range(len(result.teams))
        ]
    await conn.executemany(
        "UPDATE result_players SET outcome = ? WHERE game_id = ? AND team = ?", outcomes
    )
    await _fill_tallies(conn)
    problems: list[str] = []
    for guild_id in await guilds_with_results(conn):
        await rebuild_guild(conn, guild_id)
        problems += await stored_problems(conn, guild_id)
    if problems:
        raise ValueError("; ".join(problems[:5]))


async def _fill_tallies(conn: Connection) -> None:
    """Each finished game's sequences and jacks per player, from its replayed log."""
    last = 0
    while True:
        ids = [
            int(row[0])
            for row in await conn.fetchall(
                "SELECT game_id FROM results WHERE game_id > ? ORDER BY game_id LIMIT ?",
                (last, BATCH),
            )
        ]
        if not ids:
            return
        loaded = await load_games(  # at migration 8: no games.paused yet
            conn, _FINISHED_BETWEEN, (ids[0], ids[-1]), False, False, lazy=True, paused=False
        )
        jobs = [(record.id, record.seats, record.game) for record, _ in loaded]
        rows = await asyncio.to_thread(_tally_rows, jobs)
        await conn.executemany(
            "UPDATE result_players SET sequences = ?, jacks = ? WHERE game_id = ? AND user_id = ?",
            rows,
        )
        last = ids[-1]


def _tally_rows(jobs: list[tuple[int, Any, Any]]) -> list[tuple[int, int, int, int]]:
    rows = []
    for game_id, seats, game in jobs:
        try:
            tallies = seat_tallies(game.settings, game.seed, game.moves)
        except Exception:
            log.exception("Game %d cannot be replayed for statistics; counted as none", game_id)
            continue
        rows += [
            (tally.sequences, tally.jacks, game_id, seat.user_id)
            for seat, tally in zip(seats, tallies, strict=False)
        ]
    return rows
