"""Away, the pure parts: the end a member types, the yearly allowance, the rules of a game,
an away entry in a game's options (kept through the store's JSON) and the turn's timers."""

from __future__ import annotations

import doctest
import json
from datetime import UTC, datetime
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.game import Game, GameSettings
from bot.services import away_input
from bot.services.away_input import DAY, allowed, check_allowance, parse_until, year_start
from bot.services.errors import UserError
from bot.services.timing import turn_timers
from bot.store.seats import Seat
from bot.table import away
from bot.table.away import AwaySeat, away_seat, computer_covers, with_away, without_away
from bot.table.options import TableOptions

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC).timestamp()


def test_doctests() -> None:
    assert doctest.testmod(away_input).failed == 0
    assert doctest.testmod(away).failed == 0


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("3d", 3 * DAY), ("1d12h", 1.5 * DAY), (" 90m ", 5400), ("2026-06-03", 1.5 * DAY)],
)
def test_an_end_as_a_duration_or_a_date(text: str, seconds: float) -> None:
    assert parse_until(text, NOW) == NOW + seconds


def test_a_date_with_a_time_is_utc() -> None:
    assert parse_until("2026-06-02 18:30", NOW) == NOW + DAY + 6.5 * 3600


@pytest.mark.parametrize("text", ["soon", "0", "none", "2026-02-30", "3 days", "`@everyone`"])
def test_malformed_ends_are_refused(text: str) -> None:
    with pytest.raises(UserError, match="neither a duration"):
        parse_until(text, NOW)


@pytest.mark.parametrize("text", ["2026-05-31", "2026-06-01 12:00", "2020-01-01"])
def test_past_ends_are_refused(text: str) -> None:
    with pytest.raises(UserError, match="not in the future"):
        parse_until(text, NOW)


@given(st.integers(0, 366), st.floats(0, 400 * DAY), st.floats(1, 400 * DAY))
def test_the_allowance_refuses_exactly_what_does_not_fit(days: int, used: float, asked: float):
    fits = days > 0 and asked <= max(days * DAY - used, 0.0)
    try:
        check_allowance(days, used, asked)
    except UserError:
        assert not fits
    else:
        assert fits


def test_the_year_begins_on_the_first_of_january_utc() -> None:
    assert year_start(NOW) == datetime(2026, 1, 1, tzinfo=UTC).timestamp()


def test_a_tournaments_rule() -> None:
    assert allowed(TableOptions(), "pause") and allowed(TableOptions(), "computer")
    only = TableOptions(away_rule="computer")
    assert allowed(only, "computer") and not allowed(only, "pause")
    none = TableOptions(away_rule="none")
    assert not allowed(none, "computer") and not allowed(none, "pause")
    with pytest.raises(UserError):
        TableOptions(away_rule="sometimes")


def test_an_entry_survives_the_stores_json_and_lapses_at_its_end() -> None:
    options = with_away(TableOptions(), AwaySeat(1, NOW + DAY, "computer"))
    stored = TableOptions.from_dict(json.loads(json.dumps(options.to_dict())))
    assert stored == options  # tuples again: no spurious change of options
    assert computer_covers(stored, 1, NOW) and not computer_covers(stored, 1, NOW + DAY)
    assert away_seat(stored, 0, NOW) is None
    assert without_away(stored, 1).away == ()
    replaced = with_away(stored, AwaySeat(1, NOW + 2 * DAY, "pause"))
    assert away_seat(replaced, 1, NOW) == AwaySeat(1, NOW + 2 * DAY, "pause")


def test_the_turn_timers_of_a_player_away() -> None:
    game = Game.new(GameSettings.create(2), seed=1)
    record = SimpleNamespace(id=7, seats=[Seat(1, "ann"), Seat(2, "bob")])
    plain = TableOptions(turn_time_limit=DAY, reminder_delay=12 * 3600)
    seat = game.turn
    paused = with_away(plain, AwaySeat(seat, NOW + 3 * DAY, "pause"))
    timers = {t.kind: t.due_at for t in turn_timers(record, game, paused, NOW)}
    assert timers == {"reminder": NOW + 3 * DAY + 12 * 3600, "limit": NOW + 4 * DAY}
    covered = with_away(plain, AwaySeat(seat, NOW + 3 * DAY, "computer"))
    assert turn_timers(record, game, covered, NOW) == []
    other = with_away(plain, AwaySeat(1 - seat, NOW + 3 * DAY, "pause"))
    assert {t.kind: t.due_at for t in turn_timers(record, game, other, NOW)} == {
        "reminder": NOW + 12 * 3600,
        "limit": NOW + DAY,
    }
    # Past its end, an entry no longer holds anything.
    assert {t.kind for t in turn_timers(record, game, paused, NOW + 4 * DAY)} == {
        "reminder",
        "limit",
    }
