"""Ratings with openskill's Plackett-Luce model: directions, draws, teams, three-way games,
unrated and computer games, determinism, and the service's incremental book."""

from __future__ import annotations

import doctest
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bot.services import ratings
from bot.services.ratings import (
    DEFAULT_MU,
    DEFAULT_SIGMA,
    Rating,
    RatingService,
    build_book,
    ranks_for,
    rate_game,
)
from bot.store.location import open_database

from .store_util import create_game


@dataclass
class Result:
    game_id: int
    teams: list[list[int]]
    winner_team: int | None
    rated: bool = True
    summary: dict = field(default_factory=dict)


def test_doctests() -> None:
    assert doctest.testmod(ratings).failed == 0


def test_a_newcomer() -> None:
    assert Rating() == Rating(DEFAULT_MU, DEFAULT_SIGMA)
    assert Rating().ordinal == pytest.approx(0.0)


def test_a_win_moves_both_sides_the_right_way() -> None:
    after = rate_game({}, [[1], [2]], winner=0)
    assert after[1].mu > DEFAULT_MU > after[2].mu
    assert after[1].mu - DEFAULT_MU == pytest.approx(DEFAULT_MU - after[2].mu)
    assert after[1].sigma < DEFAULT_SIGMA and after[2].sigma < DEFAULT_SIGMA  # surer of both


def test_an_upset_moves_more_than_an_expected_win() -> None:
    strong, weak = Rating(30.0, 4.0), Rating(20.0, 4.0)
    expected = rate_game({1: strong, 2: weak}, [[1], [2]], winner=0)
    upset = rate_game({1: strong, 2: weak}, [[1], [2]], winner=1)
    assert upset[2].mu - weak.mu > expected[1].mu - strong.mu > 0


def test_a_draw_between_equals_moves_nobody() -> None:
    after = rate_game({}, [[1], [2]], winner=None)
    assert after[1].mu == pytest.approx(DEFAULT_MU) == after[2].mu
    assert ranks_for(2, None) == [0, 0]


def test_teams_share_the_result() -> None:
    after = rate_game({}, [[1, 3], [2, 4]], winner=1)
    assert after[2].mu == after[4].mu > DEFAULT_MU > after[1].mu == after[3].mu


def test_three_way_game_the_winner_gains_the_others_share_the_loss() -> None:
    after = rate_game({}, [[1], [2], [3]], winner=2)
    assert ranks_for(3, 2) == [1, 1, 0]
    assert after[3].mu > DEFAULT_MU > after[1].mu == after[2].mu


def test_a_team_that_left_before_a_draw_ranks_below_the_teams_that_drew() -> None:
    book = build_book([Result(1, [[1], [2], [3]], None, summary={"left": [1]})])
    assert book.rating(2).mu < DEFAULT_MU < book.rating(1).mu == book.rating(3).mu
    assert ranks_for(3, None, left=[0, 1, 2]) == [0, 0, 0]  # everybody left: a tie


def test_unrated_and_computer_games_change_nothing() -> None:
    book = build_book(
        [
            Result(1, [[1], [2]], 0, rated=False),  # a casual game
            Result(2, [[1, -1], [-2, -3]], 0, rated=False),  # computers: never rated
        ]
    )
    assert book.ratings == {} and book.applied == [1, 2]
    assert book.rating(1) == Rating() and book.trend(1) == []
    # computer seats are left out even if a result were marked rated
    book = build_book([Result(3, [[1, -1], [2, -2]], 1)])
    assert set(book.ratings) == {1, 2}


def test_the_book_is_deterministic_and_ordered() -> None:
    results = [
        Result(1, [[1], [2]], 0),
        Result(2, [[2], [3]], 0),
        Result(3, [[1], [3]], None),
        Result(4, [[3], [1]], 0),
    ]
    first, second = build_book(results), build_book(results)
    assert first.ratings == second.ratings
    board = first.leaderboard()
    assert [user for user, _, _ in board] == sorted(
        first.ratings, key=lambda u: -first.ratings[u].ordinal
    )
    assert {user: games for user, _, games in board} == {1: 3, 2: 2, 3: 3}
    trend = first.trend(1)
    assert len(trend) == 4 and trend[0] == pytest.approx(0.0)
    assert trend[-1] == pytest.approx(first.ratings[1].ordinal)
    assert first.trend(1, games=2) == trend[-3:]


async def test_the_service_applies_only_new_results(store_location: str | Path) -> None:
    db = await open_database(store_location)
    try:
        service = RatingService(db)
        games = [await create_game(db, channel_id=100 + n) for n in range(3)]
        await db.results.record(games[0].id, 1, [[10], [20]], 0, True, {}, now=1.0)
        book = await service.book(1)
        assert book.rating(10).mu > DEFAULT_MU > book.rating(20).mu
        assert await service.book(2) is not book and (await service.book(2)).ratings == {}
        await db.results.record(games[1].id, 1, [[10], [20]], 1, False, {}, now=2.0)
        await db.results.record(games[2].id, 1, [[10], [20]], 1, True, {}, now=3.0)
        again = await service.book(1)
        assert again is book and again.applied == [games[0].id, games[2].id]
        fresh = build_book(await db.results.for_guild(1, rated_only=True))
        assert again.ratings == fresh.ratings
    finally:
        await db.close()


async def test_a_forgotten_book_is_rebuilt_from_the_store(store_location: str | Path) -> None:
    """The bot leaves a server: its book is dropped; if the bot is added again, the book is
    rebuilt from the server's results, those recorded meanwhile included."""
    db = await open_database(store_location)
    try:
        service = RatingService(db)
        games = [await create_game(db, channel_id=100 + n) for n in range(2)]
        await db.results.record(games[0].id, 1, [[10], [20]], 0, True, {}, now=1.0)
        book = await service.book(1)
        service.forget(1)
        service.forget(2)  # a server without a book
        await db.results.record(games[1].id, 1, [[10], [20]], 1, True, {}, now=2.0)
        again = await service.book(1)
        assert again is not book and again.applied == [games[0].id, games[1].id]
        assert again.ratings == build_book(await db.results.for_guild(1, rated_only=True)).ratings
    finally:
        await db.close()
