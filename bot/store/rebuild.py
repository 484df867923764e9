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
from typing import TYPE_CHECKING, Any

from bot.skill import Rating, outcome_for

from .codec import loads
from .games.loading import load_games
from .replay import StoredResult, replay_ratings, results_in_order
from .seasons import RatingRules, rating_rules, rebuild_seasons, season_problems
from .standings import SUMMED, tally_problems, write_ratings
from .tallies import seat_tallies

if TYPE_CHECKING:
    from .connection import Connection

log = logging.getLogger(__name__)

#: Games replayed for their tallies at a time (migration 8).
BATCH = 500
#: The finished games with ids in a range (the games a batch of results belong to).
_FINISHED_BETWEEN = "g.id >= ? AND g.id <= ? AND g.status = 'finished'"


async def rebuild_guild(conn: Connection, guild_id: int, *, seasons: bool = True) -> None:
    """Compute a server's totals and ratings again from its results (in the open transaction);
    ``seasons`` False: a schema from before settings and seasons (migration 8), rated without
    either."""
    await conn.execute("DELETE FROM player_totals WHERE guild_id = ?", (guild_id,))
    await conn.execute(
        "INSERT INTO player_totals (user_id, guild_id, games, wins, draws, losses, sequences, "
        f"jacks) {SUMMED} AND guild_id = ? GROUP BY user_id, guild_id",
        (guild_id,),
    )
    await conn.execute("DELETE FROM rating_changes WHERE guild_id = ?", (guild_id,))
    await conn.execute("DELETE FROM ratings WHERE guild_id = ?", (guild_id,))
    results = await results_in_order(conn, guild_id, rated_only=True)
    rules = await rating_rules(conn, guild_id) if seasons else RatingRules()
    replayed = await asyncio.to_thread(replay_ratings, results, rules.time_away)
    for game_id, seq, before, counts, changed in replayed.steps:
        await write_ratings(conn, guild_id, game_id, seq, before, counts, changed)
    if seasons:
        await rebuild_seasons(conn, guild_id, results, rules)


async def stored_problems(conn: Connection, guild_id: int, *, seasons: bool = True) -> list[str]:
    """How the server's stored ratings (all-time and per season) and totals differ from its
    results replayed."""
    results = await results_in_order(conn, guild_id, rated_only=True)
    rules = await rating_rules(conn, guild_id) if seasons else RatingRules()
    replayed = await asyncio.to_thread(replay_ratings, results, rules.time_away)
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
    if seasons:
        problems += await season_problems(conn, guild_id, results, rules)
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
        await rebuild_guild(conn, guild_id, seasons=False)
        problems += await stored_problems(conn, guild_id, seasons=False)
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
