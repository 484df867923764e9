"""Ratings per server with openskill's Plackett-Luce model (teams, and three-way games).

Ratings are not stored: they are computed from the server's rated results, oldest first, so they
are deterministic and always agree with the results table. A :class:`RatingService` keeps each
server's book in memory and only applies the results it has not seen yet.

* Winners rank first, every other team shares second place; a draw is a tie between the teams
  still playing at the end (a team that resigned or left before the draw ranks below them).
* Only rated results count. Games with computer players are never rated (the game service marks
  them unrated), and computer seats (negative ids) are left out in any case. Tournament
  forfeits are not games and never touch ratings.
* The rating shown is openskill's ordinal, μ − 3σ: 0 for a newcomer, rising as the bot
  becomes sure a player is strong.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from openskill.models import PlackettLuce

from .locks import KeyedLocks

if TYPE_CHECKING:
    from bot.store.base import Store

MODEL = PlackettLuce()
DEFAULT_MU: float = MODEL.mu
DEFAULT_SIGMA: float = MODEL.sigma
#: More new results than this are rated on a worker thread.
INLINE_UPDATES = 50


class RatedResult(Protocol):
    """What a rating update needs from a result (``bot.store.results.ResultRecord`` fits)."""

    @property
    def game_id(self) -> int: ...
    @property
    def teams(self) -> list[list[int]]: ...
    @property
    def winner_team(self) -> int | None: ...
    @property
    def rated(self) -> bool: ...
    @property
    def summary(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Rating:
    """A player's skill estimate: mean μ and uncertainty σ."""

    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA

    @property
    def ordinal(self) -> float:
        """The conservative rating shown to people: μ − 3σ."""
        return self.mu - 3 * self.sigma


def ranks_for(teams: int, winner: int | None, left: Collection[int] = ()) -> list[int]:
    """Openskill ranks (lower is better): the winner 0, the rest tied at 1; a draw 0 for the
    teams still playing and 1 for those that ``left`` (resigned or left) before it.

    >>> ranks_for(3, 1), ranks_for(2, None), ranks_for(3, None, left=[1])
    ([1, 0, 1], [0, 0], [0, 1, 0])
    """
    if winner is None:
        if set(range(teams)) <= set(left):  # nobody stayed: a tie between all
            return [0] * teams
        return [1 if team in left else 0 for team in range(teams)]
    return [0 if team == winner else 1 for team in range(teams)]


def teams_left(result: RatedResult) -> list[int]:
    """The teams that resigned or left before the end (``summary["left"]``; none in results
    stored before it was kept)."""
    return [int(team) for team in result.summary.get("left", [])]


def result_ranks(result: RatedResult) -> list[int]:
    """The ranks of a result's teams (see :func:`ranks_for`)."""
    return ranks_for(len(result.teams), result.winner_team, teams_left(result))


def rate_game(
    ratings: dict[int, Rating],
    teams: Sequence[Sequence[int]],
    winner: int | None,
    left: Collection[int] = (),
) -> dict[int, Rating]:
    """The new ratings of everyone in one game (``ratings`` gives the old ones; default new)."""
    if len(teams) < 2 or any(not team for team in teams):
        return {}
    before = [[_model_rating(ratings.get(user, Rating())) for user in team] for team in teams]
    ranks = ranks_for(len(teams), winner, left)
    after = MODEL.rate(before, ranks=[float(rank) for rank in ranks])
    return {
        user: Rating(new.mu, new.sigma)
        for team, new_team in zip(teams, after, strict=True)
        for user, new in zip(team, new_team, strict=True)
    }


def _model_rating(rating: Rating) -> Any:
    return MODEL.rating(mu=rating.mu, sigma=rating.sigma)


def human_teams(teams: Iterable[Iterable[int]]) -> list[list[int]]:
    """The teams without computer seats (negative ids)."""
    return [[user for user in team if user > 0] for team in teams]


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
        if not result.rated:
            return
        changed = rate_game(
            self.ratings, human_teams(result.teams), result.winner_team, teams_left(result)
        )
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
    """Each server's :class:`RatingBook`, kept up to date from the results table."""

    def __init__(self, db: Store) -> None:
        self.db = db
        self._books: dict[int, RatingBook] = {}
        self._locks = KeyedLocks()

    async def book(self, guild_id: int) -> RatingBook:
        """The server's ratings now: only results not yet seen are applied."""
        async with self._locks(guild_id):
            return await self._update(guild_id)

    def forget(self, guild_id: int) -> None:
        """Drop a server's book (the bot left it); it is rebuilt from the store if needed."""
        self._books.pop(guild_id, None)

    async def _update(self, guild_id: int) -> RatingBook:
        results = await self.db.results.for_guild(guild_id, rated_only=True)
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
