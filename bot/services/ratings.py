"""Ratings per server with openskill's Plackett-Luce model (the model: :mod:`bot.skill`).

Ratings are stored: each rated result updates them in the transaction that records it, in the
order results are recorded (:mod:`bot.store.standings`), and the leaderboard, a player's
place and a tournament's seeding read them from there. This module replays a server's results
in that order into a :class:`RatingBook`, for tests that compare it with the stored ratings;
the check of a database (``sequence-bot standings``) is :func:`bot.store.rebuild.stored_problems`.
Never a read path of a command.

* Only rated results count. Games with computer players are never rated (the game service marks
  them unrated), and computer seats (negative ids) are left out in any case. Tournament
  forfeits are not games and never touch ratings.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bot.skill import (
    DEFAULT_MU,
    DEFAULT_SIGMA,
    MODEL,
    RatedResult,
    Rating,
    human_teams,
    ranks_for,
    rate_game,
    rate_result,
    result_ranks,
    teams_left,
)

from .locks import KeyedLocks

if TYPE_CHECKING:
    from bot.store.base import Store

__all__ = [
    "DEFAULT_MU",
    "DEFAULT_SIGMA",
    "MODEL",
    "RatedResult",
    "Rating",
    "RatingBook",
    "RatingService",
    "build_book",
    "human_teams",
    "places",
    "ranks_for",
    "rate_game",
    "result_ranks",
    "teams_left",
]

#: More new results than this are rated on a worker thread.
INLINE_UPDATES = 50


@dataclass
class RatingBook:
    """The ratings of one server after a run of results, with each player's history."""

    ratings: dict[int, Rating] = field(default_factory=dict)
    #: user -> [(game_id, ordinal after that game)], oldest first.
    history: dict[int, list[tuple[int, float]]] = field(default_factory=dict)
    #: The game ids applied, in order.
    applied: list[int] = field(default_factory=list)

    def apply(self, result: RatedResult) -> None:
        """Apply one result (unrated ones are remembered as applied but change nothing)."""
        self.applied.append(result.game_id)
        changed = rate_result(self.ratings, result)
        for user, rating in changed.items():
            self.ratings[user] = rating
            self.history.setdefault(user, []).append((result.game_id, rating.ordinal))

    def rating(self, user_id: int) -> Rating:
        """A player's rating (a newcomer's default when they have no rated game)."""
        return self.ratings.get(user_id, Rating())

    def trend(self, user_id: int, games: int = 10) -> list[float]:
        """The ordinal before and after each of the player's last ``games`` rated games."""
        history = self.history.get(user_id, [])
        recent = history[-games:]
        if not recent:
            return []
        start = len(history) - len(recent)
        before = history[start - 1][1] if start else Rating().ordinal
        return [before, *(ordinal for _, ordinal in recent)]

    def leaderboard(self) -> list[tuple[int, Rating, int]]:
        """(user, rating, rated games) for everyone rated, best ordinal first."""
        rows = [
            (user, rating, len(self.history.get(user, []))) for user, rating in self.ratings.items()
        ]
        rows.sort(key=lambda row: (-row[1].ordinal, -row[2], row[0]))
        return rows


def places(rows: Sequence[tuple[int, Rating, int]]) -> list[int]:
    """The place of each leaderboard row: players with the same rating share a place, and the
    next place counts them all.

    >>> places([(1, Rating(30, 5), 2), (2, Rating(30, 5), 2), (3, Rating(), 1)])
    [1, 1, 3]
    """
    shown: list[int] = []
    for index, (_, rating, _) in enumerate(rows):
        tied = index > 0 and rating.ordinal == rows[index - 1][1].ordinal
        shown.append(shown[-1] if tied else index + 1)
    return shown


def build_book(results: Iterable[RatedResult]) -> RatingBook:
    """Ratings from results in the order given (oldest first)."""
    book = RatingBook()
    for result in results:
        book.apply(result)
    return book


class RatingService:
    """Each server's :class:`RatingBook` replayed from the results table (the recomputation)."""

    def __init__(self, db: Store) -> None:
        self.db = db
        self._books: dict[int, RatingBook] = {}
        self._locks = KeyedLocks()

    async def book(self, guild_id: int) -> RatingBook:
        """The server's ratings replayed from its results (only results not yet seen are
        applied to a book already built)."""
        async with self._locks(guild_id):
            return await self._update(guild_id)

    def forget(self, guild_id: int) -> None:
        """Drop a server's book (the bot left it); it is rebuilt from the store if needed."""
        self._books.pop(guild_id, None)

    def forget_all(self) -> None:
        """Drop every book (a member was forgotten: the books name them); each is rebuilt from
        the store when next needed."""
        self._books.clear()

    async def _update(self, guild_id: int) -> RatingBook:
        results = await self.db.results.in_order(guild_id, rated_only=True)
        book = self._books.get(guild_id)
        ids = [result.game_id for result in results]
        if book is None or ids[: len(book.applied)] != book.applied:
            book = RatingBook()  # first use, or an older result changed: start again
        fresh = results[len(book.applied) :]
        if len(fresh) > INLINE_UPDATES:
            await asyncio.to_thread(_apply_all, book, fresh)  # a long history: off the loop
        else:
            _apply_all(book, fresh)
        self._books[guild_id] = book
        return book


def _apply_all(book: RatingBook, results: Iterable[RatedResult]) -> None:
    for result in results:
        book.apply(result)
