"""Players' pace in slow games (issue #39 item 5): the turn times a move log gives, the median
kept from a player's latest results, and a table's estimated length."""

from __future__ import annotations

import dataclasses
import doctest

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.game import Game, GameSettings, Move
from bot.game.moves import RESIGN, SKIP
from bot.services import pace, stats
from bot.services.pace import (
    PACE_TURNS,
    SUMMARY_KEY,
    by_team,
    estimate,
    median_turn,
    recent_turns,
    turn_seconds,
)
from bot.store.games.records import LogEntry
from bot.store.results import ResultRecord
from cogs import stats as stats_cog
from cogs.common import lobby_message

from .engine_helpers import playable

START = 1_000.0


@pytest.mark.parametrize("module", [pace, stats, stats_cog, lobby_message])
def test_doctests(module) -> None:
    """The examples in the docstrings: the median, a table's length in words, the pace shown."""
    assert doctest.testmod(module).failed == 0


def logged(settings: GameSettings, seed: int, steps: list[tuple[str, float]]) -> list[LogEntry]:
    """A move log: each step the seat on turn plays a normal card ("play"), or its time runs out
    ("skip"), ``after`` seconds after the previous step."""
    game = Game.new(settings, seed)
    entries, at = [], START
    for kind, after in steps:
        at += after
        if kind == "play":
            seat, card, space = playable(game)
            move = Move.play(seat, card, space)
        else:
            move = Move(SKIP, game.turn)
        game.push(move)
        entries.append(LogEntry(len(entries), move, move.seat, None, at, None))
    return entries


def test_each_turn_counts_from_the_move_that_passed_it_to_its_players_move() -> None:
    settings = GameSettings.create(2)
    game = Game.new(settings, 1)
    first = game.turn
    log = logged(settings, 1, [("play", 30), ("play", 600), ("skip", 7200), ("play", 90)])
    times = turn_seconds(settings, 1, START, log)
    # a turn that ran out of time counts its whole time: it held the table that long
    assert times[first] == [30, 7200] and times[1 - first] == [600, 90]


def test_an_undo_starts_the_turn_again_and_a_resignation_is_no_turn() -> None:
    settings = GameSettings.create(2)
    log = logged(settings, 1, [("play", 30), ("play", 600)])
    undone = dataclasses.replace(log[1], undone_at=START + 1_000)  # taken back 370 s later
    again = LogEntry(2, undone.move, undone.seat, None, START + 1_100, None)
    mover = log[0].seat  # on turn again: they resign (their team is their seat's, of two)
    resign = LogEntry(3, Move(RESIGN, mover, team=mover), mover, None, START + 5_000, None)
    times = turn_seconds(settings, 1, START, [log[0], undone, again, resign])
    assert times[undone.seat] == [100]  # from the undo, not from the first play
    assert times[log[0].seat] == [30]  # the resignation ended the game, not a turn of theirs


def test_turn_times_are_kept_as_the_result_lists_its_players_computers_aside() -> None:
    # four seats, two teams: team 0 is seats 0 and 2, team 1 seats 1 and 3; seat 3 a computer
    kept = by_team([[1], [2], [3], [4]], 2, computers=[3])
    assert kept == [[[1], [3]], [[2], []]]


def result(game_id: int, teams: list[list[int]], turns: list | None) -> ResultRecord:
    summary = {SUMMARY_KEY: turns} if turns is not None else {}
    return ResultRecord(game_id, 1, teams, 0, True, summary, float(game_id))


def test_a_players_pace_is_the_median_of_their_newest_turns_in_slow_games() -> None:
    newest_first = [
        result(3, [[5], [7]], [[[100, 200]], [[9, 9]]]),
        result(2, [[7], [5]], None),  # not a slow game: nothing kept
        result(1, [[8, 5], [7, 9]], [[[1], [300, 400, 500]], [[9], [9]]]),
    ]
    turns = recent_turns(newest_first, 5)
    assert turns == [200, 100, 500, 400, 300]
    assert median_turn(turns) == 300
    assert recent_turns(newest_first, 6) == []
    many = [result(n, [[5], [7]], [[[60] * 150], [[1]]]) for n in range(3, 0, -1)]
    assert len(recent_turns(many, 5)) == PACE_TURNS


@given(st.lists(st.integers(min_value=0, max_value=10**6), min_size=1, max_size=60))
def test_the_median_splits_the_turns_in_half(turns: list[int]) -> None:
    middle = median_turn(turns)
    assert middle is not None
    assert sum(t < middle for t in turns) <= len(turns) // 2
    assert sum(t > middle for t in turns) <= len(turns) // 2


def test_a_tables_length_from_its_clock_and_its_players_pace() -> None:
    assert estimate(2, 0, [None, None]) is None  # no time limit: no estimate
    clock_only = estimate(4, 3600, [None] * 4)
    assert clock_only is not None and clock_only.likely is None
    assert clock_only.longest == clock_only.turns * 3600
    # a pace past the limit counts as the limit; a computer's seat moves at once
    paced = estimate(2, 3600, [9_999])
    assert paced is not None and paced.likely == paced.turns * 3600 / 2 and paced.known == 1
