"""Players' records, game histories and replays, from the results table and the move logs."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bot.game import GameSettings, Move, Outcome
from bot.skill import Rating, outcome_for
from bot.store.errors import StoreError
from bot.store.seats import Seat
from bot.store.tallies import Tally, seat_tallies

from .errors import UserError
from .pace import median_turn, player_turns
from .ratings import RatingService

if TYPE_CHECKING:
    from bot.store.base import Store
    from bot.store.results import ResultRecord

log = logging.getLogger(__name__)

__all__ = [
    "HistoryEntry",
    "PlayerStats",
    "ReplayInput",
    "StatsService",
    "Tally",
    "outcome_for",
    "provisional",
    "sparkline",
    "tally_game",
]

LEADERBOARD_PAGE = 10
#: A rating from fewer rated games than this is provisional (marked "?").
PROVISIONAL_GAMES = 5


def provisional(rated_games: int) -> bool:
    """Whether a rating from this many rated games is still provisional.

    >>> provisional(4), provisional(5)
    (True, False)
    """
    return rated_games < PROVISIONAL_GAMES


def tally_game(
    settings: GameSettings, seed: int, moves: Sequence[Move], seats: Sequence[Seat]
) -> dict[int, Tally]:
    """Replay a game and count, per user, the sequences their plays completed and the jacks
    they played (a computer seat counts under its negative id)."""
    tallies = seat_tallies(settings, seed, moves)
    return {seat.user_id: tally for seat, tally in zip(seats, tallies, strict=False)}


@dataclass(frozen=True)
class PlayerStats:
    """A player's record in one server."""

    user_id: int
    games: int
    wins: int
    draws: int
    losses: int
    rated_games: int
    sequences: int
    jacks: int
    rating: Rating | None
    #: Place on the server's leaderboard (None: no rated game, or none in its activity window).
    place: int | None
    #: The rating before and after each of the last rated games (see RatingBook.trend).
    trend: list[float]
    #: The median seconds of the player's recent turns in slow games (None: none), and how
    #: many turns that is (:mod:`bot.services.pace`).
    turn_median: float | None = None
    turns_timed: int = 0
    #: False: rated, but with no rated game in the leaderboard's activity window.
    active: bool = True


@dataclass(frozen=True)
class HistoryEntry:
    """One finished game from a player's point of view."""

    result: ResultRecord
    team: int
    outcome: str  # "won", "lost" or "draw"
    partners: list[int]
    opponents: list[list[int]]
    rating_change: float | None
    #: The names of the game's computer players, by their id in it.
    computers: dict[int, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ReplayInput:
    """What the replay renderer needs, and how the game ended (for the replay's alt text)."""

    game_id: int
    settings: GameSettings
    seed: int
    moves: list[Move]
    names: list[str]
    winner: int | None = None
    #: How the game ended (None: it was cancelled).
    outcome: Outcome | None = None


class StatsService:
    """Answers ``/sequence stats``, ``leaderboard``, ``history`` and ``replay`` from the
    standings kept as results are recorded (``db.standings``): indexed reads, whatever the
    history stored."""

    def __init__(self, db: Store, ratings: RatingService) -> None:
        self.db = db
        self.ratings = ratings

    async def player(
        self, guild_id: int, user_id: int, active_since: float | None = None
    ) -> PlayerStats:
        """A player's games, wins, sequences, jacks, rating and pace in one server; their
        place among the players with a rated game since ``active_since`` (when given)."""
        standings = self.db.standings
        totals = await standings.totals(guild_id, user_id)
        rated = await standings.rating(guild_id, user_id)
        rating, rated_games = rated if rated else (None, 0)
        active = True
        if rating is not None and active_since is not None:
            last = await standings.last_rated(guild_id, user_id)
            active = last is not None and last >= active_since
        turns = await player_turns(self.db, guild_id, user_id)
        return PlayerStats(
            user_id=user_id,
            games=totals.games,
            wins=totals.wins,
            draws=totals.draws,
            losses=totals.losses,
            rated_games=rated_games,
            sequences=totals.sequences,
            jacks=totals.jacks,
            rating=rating,
            place=await standings.place(guild_id, rating, active_since)
            if rating and active
            else None,
            trend=await standings.trend(guild_id, user_id),
            turn_median=median_turn(turns),
            turns_timed=len(turns),
            active=active,
        )

    async def leaderboard(
        self, guild_id: int, page: int, active_since: float | None = None
    ) -> tuple[list[tuple[int, int, Rating, int]], int, int]:
        """One page of the server's leaderboard: ([(place, user, rating, games)], page, pages).

        ``page`` counts from 1 and is clamped to the pages there are; players with the same
        rating share a place. With ``active_since``, only the players with a rated game since
        then are ranked (an indexed read per rated player, never a recomputation)."""
        standings = self.db.standings
        rated = await standings.rated_players(guild_id, active_since)
        pages = max(1, -(-rated // LEADERBOARD_PAGE))
        page = min(max(page, 1), pages)
        start = (page - 1) * LEADERBOARD_PAGE
        rows = await standings.board(guild_id, start, LEADERBOARD_PAGE, active_since)
        shown: list[tuple[int, int, Rating, int]] = []
        for index, row in enumerate(rows):
            if index == 0:
                place = await standings.place(guild_id, row.rating, active_since) if start else 1
            elif row.rating.ordinal != rows[index - 1].rating.ordinal:
                place = start + index + 1
            shown.append((place, row.user_id, row.rating, row.games))
        return shown, page, pages

    async def history(
        self, guild_id: int, user_id: int, limit: int = 10
    ) -> tuple[list[HistoryEntry], int]:
        """The player's last ``limit`` finished games here, newest first, and how many in all."""
        shown = await self.db.results.latest_for_user(user_id, guild_id, limit)
        total = (await self.db.standings.totals(guild_id, user_id)).games
        changes = await self.db.standings.changes(guild_id, user_id, [r.game_id for r in shown])
        names = await self.db.games.computer_names(
            [r.game_id for r in shown if any(u < 0 for team in r.teams for u in team)]
        )
        entries = []
        for result in shown:
            team = result.team_of(user_id) or 0
            entries.append(
                HistoryEntry(
                    result=result,
                    team=team,
                    outcome=outcome_for(result, team),
                    partners=[u for u in result.teams[team] if u != user_id],
                    opponents=[m for t, m in enumerate(result.teams) if t != team],
                    rating_change=changes.get(result.game_id),
                    computers=names.get(result.game_id, {}),
                )
            )
        return entries, total

    async def replay(self, guild_id: int, game_id: int) -> ReplayInput:
        """The settings, seed, live moves and names of a finished game of this server."""
        # One answer for a missing game and another server's: it must not tell that one exists.
        missing = UserError(f"There is no game #{game_id} in this server.")
        try:
            record = await self.db.games.load(game_id)
        except StoreError:
            raise missing from None
        if record.guild_id != guild_id:
            raise missing
        if record.status == "active":
            raise UserError(f"Game #{game_id} is still being played: replays come at the end.")
        entries = await self.db.games.log(game_id)
        moves = [entry.move for entry in entries if entry.undone_at is None]
        names = [seat.name for seat in record.seats]
        game = record.game
        return ReplayInput(
            game_id, game.settings, game.seed, moves, names, game.winner, game.outcome
        )


def sparkline(values: Sequence[float]) -> str:
    """A one-line chart: ``▁▂▃▄▅▆▇█``.

    >>> sparkline([0, 1, 2, 3])
    '▁▃▆█'
    """
    if not values:
        return ""
    bars = "▁▂▃▄▅▆▇█"
    low, high = min(values), max(values)
    if high - low < 1e-9:
        return bars[3] * len(values)
    return "".join(bars[round((v - low) / (high - low) * (len(bars) - 1))] for v in values)
