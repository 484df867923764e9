"""Quiet hours' arithmetic (issue #39): when a window that ``now`` falls in ends, in the zone's
wall-clock time, across daylight-saving changes; and the checks of the player's input."""

from __future__ import annotations

import doctest
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.services import quiet_hours as module
from bot.services.errors import UserError
from bot.services.quiet_hours import QuietHours, matching_zones, quiet_hours

ZONES = ["UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata"]


def test_doctests() -> None:
    assert doctest.testmod(module).failed == 0


def at(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp()


def test_a_window_within_a_day_and_one_across_midnight() -> None:
    lunch = QuietHours(13 * 60, 14 * 60, "UTC")
    assert lunch.ends_after(at("2026-05-01T12:59")) is None
    assert lunch.ends_after(at("2026-05-01T13:00")) == at("2026-05-01T14:00")
    assert lunch.ends_after(at("2026-05-01T14:00")) is None
    night = QuietHours(22 * 60, 7 * 60, "UTC")
    assert night.ends_after(at("2026-05-01T23:00")) == at("2026-05-02T07:00")
    assert night.ends_after(at("2026-05-02T03:00")) == at("2026-05-02T07:00")
    assert night.ends_after(at("2026-05-02T12:00")) is None


def test_the_spring_change_shortens_the_night() -> None:
    """Berlin, 29 March 2026: 02:00 becomes 03:00; 22:00 to 07:30 lasts 8.5 h of real time."""
    night = QuietHours(22 * 60, 7 * 60 + 30, "Europe/Berlin")
    start = at("2026-03-28T21:00")  # 22:00 CET
    assert night.ends_after(start) == at("2026-03-29T05:30")  # 07:30 CEST


@given(
    st.integers(0, 1439),
    st.integers(0, 1439),
    st.sampled_from(ZONES),
    st.floats(at("2026-01-01T00:00"), at("2027-12-31T00:00")),
)
def test_an_end_is_later_within_a_day_and_out_of_the_window(start, end, zone, now) -> None:
    if start == end:
        return
    hours = QuietHours(start, end, zone)
    ends = hours.ends_after(now)
    if ends is not None:
        assert now < ends <= now + 25 * 3600
        assert hours.ends_after(ends) is None


@pytest.mark.parametrize(
    ("start", "end", "zone"),
    [
        ("22:00", "07:30", "Mars/Olympus"),
        ("24:00", "1:00", "UTC"),
        ("9:5", "10", "UTC"),
        ("x", "10", "UTC"),
        ("10:00", "10", "UTC"),
        ("", "10", "UTC"),
    ],
)
def test_bad_input_is_refused(start, end, zone) -> None:
    with pytest.raises(UserError):
        quiet_hours(start, end, zone)


def test_zones_offered_as_typed() -> None:
    assert matching_zones("new york") == ["America/New_York"]
    assert len(matching_zones("")) == 25
