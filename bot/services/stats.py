"""Players' records, game histories and replays, from the results table and the move logs."""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bot.game import Game, GameSettings, Move, Outcome
from bot.game.cards import is_jack
from bot.game.moves import PLAY
from bot.store.errors import StoreError
from bot.store.seats import Seat

from .errors import UserError
from .ratings import Rating, RatingBook, RatingService, places, result_ranks

if TYPE_CHECKING:
    from bot.store.base import Store
    from bot.store.results import ResultRecord

log = logging.getLogger(__name__)

LEADERBOARD_PAGE = 10
#: Finished games whose tallies are kept (the least recently asked for go first past it).
KEEP_TALLIES = 10_000


@dataclass(frozen=True)
class Tally:
    """What one player did in one game."""

    sequences: int = 0
    jacks: int = 0


def tally_game(
    settings: GameSettings, seed: int, moves: Sequence[Move], seats: Sequence[Seat]
) -> dict[int, Tally]:
    """Replay a game and count, per user, the sequences their plays completed and the jacks
    they played (a computer seat counts under its negative id)."""
    game = Game.new(settings, seed)
    sequences: dict[int, int] = defaultdict(int)
    jacks: dict[int, int] = defaultdict(int)
    for move in moves:
        before = len(game.sequences)
        game.push(move)
        if move.kind == PLAY and move.seat >= 0:
            sequences[move.seat] += len(game.sequences) - before
            jacks[move.seat] += is_jack(move.card or "")
    return {
        seat.user_id: Tally(sequences[index], jacks[index])
        for index, seat in enumerate(seats)
    }


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
    #: Place on the server's leaderboard (None: no rated game).
    place: int | None
    #: The rating before and after each of the last rated games (see RatingBook.trend).
    trend: list[float]


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


def outcome_for(result: ResultRecord, team: int) -> str:
    """ "won", "lost" or "draw" for one team of a result (a team that resigned or left before
    the others drew lost)."""
    if result.winner_team is None:
        return "lost" if result_ranks(result)[team] else "draw"
    return "won" if result.winner_team == team else "lost"


class StatsService:
    """Answers ``/sequence stats``, ``leaderboard``, ``history`` and ``replay``."""

    def __init__(self, db: Store, ratings: RatingService) -> None:
        self.db = db
        self.ratings = ratings
        self._tallies: dict[int, dict[int, Tally]] = {}

    async def player(self, guild_id: int, user_id: int) -> PlayerStats:
        """A player's games, wins, sequences, jacks and rating in one server."""
        results = await self.db.results.for_user(user_id, guild_id=guild_id)
        tallies = await self.tallies([result.game_id for result in results])
        outcomes = [outcome_for(r, r.team_of(user_id) or 0) for r in results]
        book = await self.ratings.book(guild_id)
        mine = [tallies.get(r.game_id, {}).get(user_id, Tally()) for r in results]
        rated = len(book.history.get(user_id, []))
        rows = book.leaderboard()
        place = next(
            (n for n, (user, _, _) in zip(places(rows), rows, strict=True) if user == user_id),
            None,
        )
        return PlayerStats(
            user_id=user_id,
            games=len(results),
            wins=outcomes.count("won"),
            draws=outcomes.count("draw"),
            losses=outcomes.count("lost"),
            rated_games=rated,
            sequences=sum(t.sequences for t in mine),
            jacks=sum(t.jacks for t in mine),
            rating=book.rating(user_id) if rated else None,
            place=place,
            trend=book.trend(user_id),
        )

    async def leaderboard(
        self, guild_id: int, page: int
    ) -> tuple[list[tuple[int, int, Rating, int]], int, int]:
        """One page of the server's leaderboard: ([(place, user, rating, games)], page, pages).

        ``page`` counts from 1 and is clamped to the pages there are; players with the same
        rating share a place."""
        rows = (await self.ratings.book(guild_id)).leaderboard()
        pages = max(1, -(-len(rows) // LEADERBOARD_PAGE))
        page = min(max(page, 1), pages)
        start = (page - 1) * LEADERBOARD_PAGE
        shown = [
            (place, user, rating, games)
            for place, (user, rating, games) in list(zip(places(rows), rows, strict=True))[
                start : start + LEADERBOARD_PAGE
            ]
        ]
        return shown, page, pages

    async def history(
        self, guild_id: int, user_id: int, limit: int = 10
    ) -> tuple[list[HistoryEntry], int]:
        """The player's last ``limit`` finished games here, newest first, and how many in all."""
        results = await self.db.results.for_user(user_id, guild_id=guild_id)
        book: RatingBook = await self.ratings.book(guild_id)
        changes = _rating_changes(book, user_id)
        shown = results[-limit:]
        names = await self.db.games.computer_names(
            [r.game_id for r in shown if any(u < 0 for team in r.teams for u in team)]
        )
        entries = []
        for result in reversed(shown):
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
        return entries, len(results)

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

    async def tallies(self, game_ids: Sequence[int]) -> dict[int, dict[int, Tally]]:
        """Per-game tallies, replayed once per game (finished games never change) while among
        the :data:`KEEP_TALLIES` most recently asked for."""
        for game_id in game_ids:  # asked for again: the most recent now
            if game_id in self._tallies:
                self._tallies[game_id] = self._tallies.pop(game_id)
        missing = [game_id for game_id in game_ids if game_id not in self._tallies]
        jobs = []
        for game_id in missing:
            try:
                record = await self.db.games.load(game_id)
            except StoreError:
                log.warning("Game %d cannot be loaded for statistics; skipped", game_id)
                self._tallies[game_id] = {}
                continue
            game = record.game
            jobs.append((game_id, game.settings, game.seed, list(game.moves), record.seats))
        if jobs:
            done = await asyncio.to_thread(_tally_all, jobs)
            self._tallies.update(done)
        asked = {game_id: self._tallies.get(game_id, {}) for game_id in game_ids}
        for game_id in list(self._tallies)[: max(0, len(self._tallies) - KEEP_TALLIES)]:
            del self._tallies[game_id]
        return asked


def _tally_all(jobs: list[tuple[int, GameSettings, int, list[Move], Any]]) -> dict[int, Any]:
    done = {}
    for game_id, settings, seed, moves, seats in jobs:
        try:
            done[game_id] = tally_game(settings, seed, moves, seats)
        except Exception:
            log.exception("Game %d cannot be replayed for statistics; skipped", game_id)
            done[game_id] = {}
    return done


def _rating_changes(book: RatingBook, user_id: int) -> dict[int, float]:
    """game_id -> how much that rated game moved the player's rating."""
    changes = {}
    previous = Rating().ordinal
    for game_id, ordinal in book.history.get(user_id, []):
        changes[game_id] = ordinal - previous
        previous = ordinal
    return changes


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
