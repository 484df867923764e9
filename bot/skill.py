"""The rating model: openskill's Plackett-Luce, teams, draws and the ranks of a result.

Pure (no store, no clock): the store applies it to each rated result in the transaction that
records it (:mod:`bot.store.standings`), and :mod:`bot.services.ratings` replays it over a
server's results to check the stored ratings.

* Winners rank first, every other team shares second place; a draw is a tie between the teams
  still playing at the end (a team that resigned or left before the draw ranks below them).
* Computer seats (negative ids) are left out.
* The rating shown is openskill's ordinal, μ − 3σ: 0 for a newcomer, rising as the bot
  becomes sure a player is strong.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
DEFAULT_MU: float = MODEL.mu
DEFAULT_SIGMA: float = MODEL.sigma


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


def outcome_for(result: RatedResult, team: int) -> str:
    """ "won", "lost" or "draw" for one team of a result (a team that resigned or left before
    the others drew lost)."""
    if result.winner_team is None:
        return "lost" if result_ranks(result)[team] else "draw"
    return "won" if result.winner_team == team else "lost"


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


def rate_result(ratings: dict[int, Rating], result: RatedResult) -> dict[int, Rating]:
    """The new ratings one result gives (none for an unrated one)."""
    if not result.rated:
        return {}
    return rate_game(ratings, human_teams(result.teams), result.winner_team, teams_left(result))


def _model_rating(rating: Rating) -> Any:
    return MODEL.rating(mu=rating.mu, sigma=rating.sigma)


def human_teams(teams: Iterable[Iterable[int]]) -> list[list[int]]:
    """The teams without computer seats (negative ids)."""
    return [[user for user in team if user > 0] for team in teams]


def grown(rating: Rating, days_away: float, full_days: int) -> Rating:
    """A rating whose uncertainty grew with ``days_away`` since the player's previous rated
    game: σ² gains a newcomer's σ² over ``full_days`` days, up to a newcomer's σ (μ stays).
    ``full_days`` 0: no growth.

    >>> grown(Rating(30.0, 2.0), 0, 365) == Rating(30.0, 2.0), grown(Rating(30.0, 2.0), 3650, 365)
    (True, Rating(mu=30.0, sigma=8.333333333333334))
    """
    if full_days <= 0 or days_away <= 0:
        return rating
    sigma = (rating.sigma**2 + DEFAULT_SIGMA**2 * days_away / full_days) ** 0.5
    return Rating(rating.mu, min(max(rating.sigma, DEFAULT_SIGMA), sigma))
