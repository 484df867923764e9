"""Each server's standings, kept as results are recorded: ratings, rating changes and each
player's totals (``db.standings``).

A result is applied in the transaction that records it (:func:`apply_result`, called by
:meth:`bot.store.results.Results.record`: one place for both backends), in the order results are
recorded: each result of a server gets the next number of that server's sequence
(``results.seq``), never a wall-clock time, so two processes whose clocks disagree still rate in
one order. The reads here are indexed queries whose cost does not grow with the results stored:
a leaderboard page, a player's place, rating, trend and totals, a tournament's seeding.

``ratings`` holds each rated player's μ, σ, ordinal (μ − 3σ, the leaderboard's order) and rated
games; ``rating_changes`` each rated game's ordinal after it and its change, per player;
``player_totals`` each player's games, wins, draws, losses, sequences and jacks; and the per-game
figures of the totals are in ``result_players`` (outcome, sequences, jacks), so that
:func:`rebuild_guild` recomputes every table of a server from the results alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bot.skill import Rating, outcome_for

from .board_rows import BoardRow
from .replay import rate_after_time_away
from .seasons import apply_season_result, rating_rules
from .tallies import Tally

if TYPE_CHECKING:
    from .base import Store
    from .connection import Connection
    from .results import ResultRecord

#: The first key of the PostgreSQL advisory lock that puts a server's results in one order.
STANDINGS_LOCK = 0x5E05
#: The default rating's ordinal (a newcomer's): the "before" of a player's first rated game.
NEWCOMER = Rating().ordinal
#: When the rated player of a ``ratings`` row last played a rated game: the end of the result
#: of their last rating change (two primary-key reads: ``rating_changes`` backwards, then
#: ``results`` by its number), so that the activity window costs the same whatever the history.
LAST_RATED = (
    "(SELECT res.finished_at FROM rating_changes c JOIN results res "
    "ON res.guild_id = c.guild_id AND res.seq = c.seq "
    "WHERE c.guild_id = ratings.guild_id AND c.user_id = ratings.user_id "
    "ORDER BY c.seq DESC LIMIT 1)"
)


def _active(active_since: float | None) -> tuple[str, tuple[Any, ...]]:
    """The condition (``AND ...``) and its parameter that keep the players with a rated game
    since ``active_since`` (None: everyone)."""
    if active_since is None:
        return "", ()
    return f" AND {LAST_RATED} >= ?", (active_since,)


@dataclass(frozen=True)
class PlayerTotals:
    """A player's record in one server."""

    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    sequences: int = 0
    jacks: int = 0


class Standings:
    """The standings repository (``db.standings``): reads of the tables the results keep."""

    def __init__(self, db: Store) -> None:
        self._db = db

    async def rated_players(self, guild_id: int, active_since: float | None = None) -> int:
        """How many players of the server have a rating (a rated game since ``active_since``,
        when given)."""
        active, since = _active(active_since)
        row = await self._db.read(
            _one, f"SELECT count(*) FROM ratings WHERE guild_id = ?{active}", guild_id, *since
        )
        return int(row[0]) if row else 0

    async def board(
        self, guild_id: int, offset: int, limit: int, active_since: float | None = None
    ) -> list[BoardRow]:
        """Leaderboard rows ``offset`` .. ``offset + limit``: best ordinal first, then more
        rated games, then the lower id (only players with a rated game since ``active_since``,
        when given)."""
        active, since = _active(active_since)
        rows = await self._db.read(
            _all,
            f"SELECT user_id, mu, sigma, games FROM ratings WHERE guild_id = ?{active} "
            "ORDER BY ordinal DESC, games DESC, user_id LIMIT ? OFFSET ?",
            guild_id,
            *since,
            limit,
            offset,
        )
        return [
            BoardRow(int(user), Rating(mu, sigma), int(games)) for user, mu, sigma, games in rows
        ]

    async def place(self, guild_id: int, rating: Rating, active_since: float | None = None) -> int:
        """The leaderboard place of a rating: one more than the players rated higher (players
        with the same rating share a place; only those with a rated game since
        ``active_since``, when given)."""
        active, since = _active(active_since)
        row = await self._db.read(
            _one,
            f"SELECT count(*) FROM ratings WHERE guild_id = ? AND ordinal > ?{active}",
            guild_id,
            rating.ordinal,
            *since,
        )
        return 1 + (int(row[0]) if row else 0)

    async def last_rated(self, guild_id: int, user_id: int) -> float | None:
        """When the player's last rated game in the server ended (None: no rated game)."""
        row = await self._db.read(
            _one,
            f"SELECT {LAST_RATED} FROM ratings WHERE guild_id = ? AND user_id = ?",
            guild_id,
            user_id,
        )
        return None if row is None or row[0] is None else float(row[0])

    async def rating(self, guild_id: int, user_id: int) -> tuple[Rating, int] | None:
        """A player's rating and rated games in the server (None: no rated game)."""
        row = await self._db.read(
            _one,
            "SELECT mu, sigma, games FROM ratings WHERE guild_id = ? AND user_id = ?",
            guild_id,
            user_id,
        )
        return None if row is None else (Rating(row[0], row[1]), int(row[2]))

    async def ratings_of(self, guild_id: int, user_ids: list[int]) -> dict[int, Rating]:
        """The ratings of some players (a player without one is left out)."""
        if not user_ids:
            return {}
        marks = ", ".join("?" for _ in user_ids)
        rows = await self._db.read(
            _all,
            f"SELECT user_id, mu, sigma FROM ratings WHERE guild_id = ? AND user_id IN ({marks})",
            guild_id,
            *user_ids,
        )
        return {int(user): Rating(mu, sigma) for user, mu, sigma in rows}

    async def trend(self, guild_id: int, user_id: int, games: int = 10) -> list[float]:
        """The ordinal before and after each of the player's last ``games`` rated games."""
        rows = await self._db.read(
            _all,
            "SELECT ordinal FROM rating_changes WHERE guild_id = ? AND user_id = ? "
            "ORDER BY seq DESC LIMIT ?",
            guild_id,
            user_id,
            games + 1,
        )
        ordinals = [row[0] for row in reversed(rows)]
        if not ordinals:
            return []
        if len(ordinals) <= games:
            return [NEWCOMER, *ordinals]
        return ordinals

    async def changes(self, guild_id: int, user_id: int, game_ids: list[int]) -> dict[int, float]:
        """game_id -> how much that rated game moved the player's rating (of ``game_ids``)."""
        if not game_ids:
            return {}
        marks = ", ".join("?" for _ in game_ids)
        rows = await self._db.read(
            _all,
            "SELECT game_id, delta FROM rating_changes WHERE guild_id = ? AND user_id = ? "
            f"AND seq IN (SELECT seq FROM results WHERE game_id IN ({marks}))",
            guild_id,
            user_id,
            *game_ids,
        )
        return {int(game): change for game, change in rows}

    async def totals(self, guild_id: int, user_id: int) -> PlayerTotals:
        """A player's games, wins, draws, losses, sequences and jacks in the server."""
        row = await self._db.read(
            _one,
            f"SELECT {TOTALS} FROM player_totals WHERE guild_id = ? AND user_id = ?",
            guild_id,
            user_id,
        )
        return PlayerTotals() if row is None else PlayerTotals(*(int(v) for v in row))

    async def guilds(self) -> list[int]:
        """Every server with a result."""
        rows = await self._db.read(_all, "SELECT DISTINCT guild_id FROM results ORDER BY guild_id")
        return [int(row[0]) for row in rows]

    async def tally_problems(self, guild_id: int) -> list[str]:
        """How the server's stored totals differ from the sums of its games (none: equal)."""
        return await self._db.read(tally_problems, guild_id)


#: The columns of a player's totals, in :class:`PlayerTotals`' order.
TOTALS = "games, wins, draws, losses, sequences, jacks"
#: Each person's totals summed from their games (``WHERE`` continues with ``AND``).
SUMMED = (
    "SELECT user_id, guild_id, count(*), "
    "sum(CASE WHEN outcome = 'won' THEN 1 ELSE 0 END), "
    "sum(CASE WHEN outcome = 'draw' THEN 1 ELSE 0 END), "
    "sum(CASE WHEN outcome = 'lost' THEN 1 ELSE 0 END), "
    "sum(sequences), sum(jacks) FROM result_players WHERE user_id > 0"
)


async def _one(conn: Connection, sql: str, *params: Any) -> tuple[Any, ...] | None:
    return await conn.fetchone(sql, params)


async def _all(conn: Connection, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    return await conn.fetchall(sql, params)


async def tally_problems(conn: Connection, guild_id: int) -> list[str]:
    """How the server's stored totals differ from the sums of its games (none: equal)."""
    stored = await conn.fetchall(
        f"SELECT user_id, {TOTALS} FROM player_totals WHERE guild_id = ? ORDER BY user_id",
        (guild_id,),
    )
    summed = await conn.fetchall(
        f"{SUMMED} AND guild_id = ? GROUP BY user_id, guild_id ORDER BY user_id", (guild_id,)
    )
    want = {int(row[0]): tuple(int(v) for v in row[2:]) for row in summed}
    have = {int(row[0]): tuple(int(v) for v in row[1:]) for row in stored}
    return [
        f"server {guild_id}, player {user}: totals {have.get(user)}, games say {want.get(user)}"
        for user in sorted(set(want) | set(have))
        if want.get(user) != have.get(user)
    ]


async def lock_guild(conn: Connection, dialect: str, guild_id: int) -> None:
    """Hold the server's standings until the commit (PostgreSQL: an advisory lock; SQLite's
    ``BEGIN IMMEDIATE`` already holds the whole file)."""
    if dialect == "postgresql":
        await conn.fetchone(
            "SELECT pg_advisory_xact_lock(?, ?)", (STANDINGS_LOCK, guild_id % 2_147_483_647)
        )


async def next_seq(conn: Connection, guild_id: int) -> int:
    """The number of the server's next result (under :func:`lock_guild`)."""
    row = await conn.fetchone(
        "SELECT coalesce(max(seq), 0) + 1 FROM results WHERE guild_id = ?", (guild_id,)
    )
    return int(row[0]) if row else 1


def player_rows(
    record: ResultRecord, seq: int, tallies: Mapping[int, Tally] | None
) -> list[tuple[Any, ...]]:
    """The result's ``result_players`` rows: (game, team, user, guild, seq, outcome, sequences,
    jacks)."""
    rows = []
    for team, members in enumerate(record.teams):
        outcome = outcome_for(record, team)
        for user in members:
            tally = (tallies or {}).get(user, Tally())
            rows.append(
                (
                    record.game_id,
                    team,
                    user,
                    record.guild_id,
                    seq,
                    outcome,
                    tally.sequences,
                    tally.jacks,
                )
            )
    return rows


async def apply_result(conn: Connection, record: ResultRecord, seq: int, players: list) -> None:
    """Add a new result (number ``seq`` of its server) to the server's totals and, if rated,
    its ratings and rating changes (under :func:`lock_guild`)."""
    await conn.executemany(
        "INSERT INTO player_totals (guild_id, user_id, games, wins, draws, losses, sequences, "
        "jacks) VALUES (?, ?, 1, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, user_id) DO UPDATE SET "
        "games = player_totals.games + 1, wins = player_totals.wins + excluded.wins, "
        "draws = player_totals.draws + excluded.draws, "
        "losses = player_totals.losses + excluded.losses, "
        "sequences = player_totals.sequences + excluded.sequences, "
        "jacks = player_totals.jacks + excluded.jacks",
        [
            (
                record.guild_id,
                user,
                int(outcome == "won"),
                int(outcome == "draw"),
                int(outcome == "lost"),
                sequences,
                jacks,
            )
            for _game, _team, user, _guild, _seq, outcome, sequences, jacks in players
            if user > 0
        ],
    )
    users = sorted({user for team in record.teams for user in team if user > 0})
    if not record.rated or not users:
        return
    rules = await rating_rules(conn, record.guild_id)
    marks = ", ".join("?" for _ in users)
    last = "" if not rules.time_away else f", {LAST_RATED}"
    rows = await conn.fetchall(
        f"SELECT user_id, mu, sigma, games{last} FROM ratings "
        f"WHERE guild_id = ? AND user_id IN ({marks})",
        (record.guild_id, *users),
    )
    before = {int(row[0]): Rating(row[1], row[2]) for row in rows}
    games = {int(row[0]): int(row[3]) for row in rows}
    played = {int(row[0]): float(row[4]) for row in rows if len(row) > 4 and row[4] is not None}
    changed = rate_after_time_away(before, played, record, record.finished_at, rules.time_away)
    await write_ratings(conn, record.guild_id, record.game_id, seq, before, games, changed)
    await apply_season_result(conn, record, rules)


async def write_ratings(
    conn: Connection,
    guild_id: int,
    game_id: int,
    seq: int,
    before: Mapping[int, Rating],
    games: Mapping[int, int],
    changed: Mapping[int, Rating],
) -> None:
    """Store the ratings one game changed, and each player's change."""
    if not changed:
        return
    await conn.executemany(
        "INSERT INTO ratings (guild_id, user_id, mu, sigma, ordinal, games) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, user_id) DO UPDATE SET "
        "mu = excluded.mu, sigma = excluded.sigma, ordinal = excluded.ordinal, "
        "games = excluded.games",
        [
            (guild_id, user, new.mu, new.sigma, new.ordinal, games.get(user, 0) + 1)
            for user, new in changed.items()
        ],
    )
    await conn.executemany(
        "INSERT INTO rating_changes (guild_id, user_id, seq, game_id, ordinal, delta) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        [
            (
                guild_id,
                user,
                seq,
                game_id,
                new.ordinal,
                new.ordinal - before.get(user, Rating()).ordinal,
            )
            for user, new in changed.items()
        ],
    )
