"""The bank clock's arithmetic (issue #39): a turn spends its bank, the increment is added after
it, up to the cap; the options that set it are validated; a bank is shown in a few characters
that read back as the same duration."""

from __future__ import annotations

import doctest
import re
from types import ModuleType, SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

import bot.table.bank
import bot.table.options
from bot.errors import UserError
from bot.game import Game, GameSettings
from bot.services.durations import parse_duration
from bot.services.pace import time_per_turn, typical_turns
from bot.services.timing import turn_timers
from bot.store.seats import Seat
from bot.table.bank import MAX_BANK, after_turn, bank_cap, bank_of, settled
from bot.table.options import MAX_TURN_TIMER, TableOptions, format_duration

DAY = 86400


@pytest.mark.parametrize("module", [bot.table.bank, bot.table.options])
def test_the_examples_in_the_docstrings_hold(module: ModuleType) -> None:
    assert doctest.testmod(module).failed == 0

seconds = st.integers(min_value=60, max_value=MAX_TURN_TIMER)
increments = st.integers(min_value=0, max_value=MAX_TURN_TIMER)


@st.composite
def bank_options(draw: st.DrawFn) -> TableOptions:
    start = draw(seconds)
    cap = draw(st.one_of(st.just(0), st.integers(min_value=start, max_value=MAX_TURN_TIMER)))
    increment = draw(increments)
    return TableOptions(clock="bank", bank_start=start, bank_increment=increment, bank_cap=cap)


@given(
    left=st.floats(min_value=-10 * DAY, max_value=30 * DAY, allow_nan=False),
    increment=increments,
    cap=seconds,
)
def test_a_settled_bank_is_what_was_left_plus_the_increment_within_0_and_the_cap(
    left: float, increment: int, cap: int
) -> None:
    bank = settled(left, increment, cap)
    assert 0 <= bank <= cap
    assert bank == min(cap, max(0, round(left)) + increment)
    if left <= 0:
        assert bank == min(cap, increment)  # a time-out leaves the increment alone


@given(
    options=bank_options(),
    turns=st.lists(
        st.tuples(st.integers(min_value=0, max_value=3), st.floats(min_value=0, max_value=1)),
        max_size=40,
    ),
)
def test_banks_over_a_game_stay_within_the_cap_and_only_the_movers_changes(
    options: TableOptions, turns: list[tuple[int, float]]
) -> None:
    """Each turn spends a share of the mover's bank (1.0: all of it, a time-out); the others'
    banks never change, no bank passes its cap, and what a seat spent in all is at most its
    start plus an increment a turn."""
    spent = [0.0] * 4
    played = [0] * 4
    for seat, share in turns:
        bank = bank_of(options, seat)
        used = round(bank * share)
        banks = after_turn(options, 4, seat, bank - used)
        assert all(banks[o] == bank_of(options, o) for o in range(4) if o != seat)
        assert all(0 <= each <= bank_cap(options) for each in banks)
        spent[seat] += used
        played[seat] += 1
        options = options.but(banks=banks)
    for seat in range(4):
        assert spent[seat] <= options.bank_start + options.bank_increment * played[seat]


def test_a_table_with_no_cap_holds_at_most_14_days() -> None:
    options = TableOptions(clock="bank", bank_start=13 * DAY, bank_increment=3 * DAY)
    assert after_turn(options, 2, 0, 13 * DAY) == (MAX_BANK, 13 * DAY)


@pytest.mark.parametrize(
    ("changes", "refusal"),
    [
        ({"clock": "hourglass"}, "The clock must be turn"),
        ({"bank_start": 30}, "A bank must start with 1 minute to 14 days."),
        ({"bank_start": 15 * DAY}, "A bank must start with 1 minute to 14 days."),
        ({"bank_increment": -1}, "must be 0 to 14 days"),
        ({"bank_cap": 15 * DAY}, "A bank's cap must be 1 minute to 14 days (or none)."),
        ({"bank_start": 3 * DAY, "bank_cap": DAY}, "cannot be below its start"),
    ],
)
def test_bank_options_out_of_range_or_inconsistent_are_refused(
    changes: dict[str, object], refusal: str
) -> None:
    with pytest.raises(UserError, match=re.escape(refusal)):
        TableOptions(**{"clock": "bank", **changes})  # type: ignore[arg-type]


def test_the_banks_are_stored_with_the_options_and_read_back() -> None:
    options = TableOptions(clock="bank", banks=(60, 7200))
    again = TableOptions.from_dict(options.to_dict())
    assert again.banks == (60, 7200) and bank_of(again, 1) == 7200 and bank_of(again, 2) == 3 * DAY


def test_a_turns_time_limit_is_its_seats_bank() -> None:
    game = Game.new(GameSettings.create(2), seed=1)
    record = SimpleNamespace(id=7, seats=[Seat(1, "ann"), Seat(2, "bob")])
    options = TableOptions(clock="bank", reminder_delay=0, banks=(5000, 900))
    (limit,) = turn_timers(record, game, options, 100.0)  # type: ignore[arg-type]
    assert (limit.kind, limit.due_at) == ("limit", 100.0 + bank_of(options, game.turn))
    empty = options.but(banks=(0, 0))
    (due_now,) = turn_timers(record, game, empty, 100.0)  # type: ignore[arg-type]
    assert due_now.due_at == 100.0  # an empty bank runs out at once


@given(
    days=st.integers(min_value=0, max_value=14),
    hours=st.integers(min_value=0, max_value=23),
)
def test_a_bank_shown_short_reads_back_as_the_same_duration(days: int, hours: int) -> None:
    bank = days * DAY + hours * 3600
    shown = format_duration(bank, compact=True)
    assert len(shown) <= 7
    assert parse_duration(shown) == bank or (bank == 0 and shown == "0s")


@given(options=bank_options(), players=st.sampled_from([2, 3, 4, 6, 8, 9, 10, 12]))
def test_the_length_of_a_bank_table_counts_each_bank_and_its_increments(
    options: TableOptions, players: int
) -> None:
    own_turns = max(1, typical_turns(players) // players)
    per_turn = time_per_turn(options, players)
    assert per_turn * own_turns == pytest.approx(
        options.bank_start + options.bank_increment * (own_turns - 1)
    )
    assert per_turn > 0
