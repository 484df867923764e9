"""Seasons: date windows over a server's results (UTC), from the server's season plan.

A plan is ``"none"``, ``"monthly"``, ``"quarterly"`` or explicit start dates (a tuple of ISO
dates, each season running until the next date; the last one runs on). A season is named by its
window: ``2027-01`` (monthly), ``2027-Q1`` (quarterly), ``2027-01-01`` (a start date). Nothing
here reads a clock or a store: the same plan and time always give the same season, so a
recomputation of season ratings from the results' dates gives what was stored.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

NONE, MONTHLY, QUARTERLY = "none", "monthly", "quarterly"
#: A plan: one of the words above, or start dates (ISO, increasing).
Plan = str | tuple[str, ...]
#: The most start dates a plan may list.
MOST_DATES = 60
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class PlanError(ValueError):
    """A season plan that cannot be used; the message says why, for the admin."""


@dataclass(frozen=True, order=True)
class Season:
    """One season: its name and window ``[start, end)`` in Unix seconds (``end`` None: the last
    season of explicit dates, which runs on)."""

    start: float
    end: float | None
    name: str

    def holds(self, when: float) -> bool:
        """Whether ``when`` is in the season."""
        return self.start <= when and (self.end is None or when < self.end)


def _stamp(day: date) -> float:
    return datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp()


def _day(when: float) -> date:
    # whole seconds first: fromtimestamp rounds to microseconds, which can cross midnight
    return datetime.fromtimestamp(math.floor(when), tz=UTC).date()


def read_plan(text: str) -> Plan:
    """A plan from what an admin typed.

    >>> read_plan("Monthly"), read_plan("2027-04-01, 2027-01-01")
    ('monthly', ('2027-01-01', '2027-04-01'))
    """
    cleaned = text.strip().lower()
    if cleaned in (NONE, "off", "-", ""):
        return NONE
    if cleaned in (MONTHLY, QUARTERLY):
        return cleaned
    parts = [part for part in re.split(r"[\s,;]+", cleaned) if part]
    days: list[date] = []
    for part in parts:
        try:
            if not _DATE.match(part):
                raise ValueError
            days.append(date.fromisoformat(part))
        except ValueError:
            raise PlanError(
                f"`{part[:20]}` is not a date: give none, monthly, quarterly, or start dates "
                "like 2027-01-01, 2027-04-01."
            ) from None
    if len(set(days)) != len(days):
        twice = next(day for day in days if days.count(day) > 1)
        raise PlanError(f"{twice} is given twice: two seasons cannot start on the same day.")
    if len(days) > MOST_DATES:
        raise PlanError(f"A plan lists at most {MOST_DATES} start dates.")
    return tuple(day.isoformat() for day in sorted(days))


def check_new_dates(plan: Plan, before: Any, now: float) -> None:
    """Refuse start dates already past that the plan in force did not have: a season that has
    begun cannot be moved back into the past (its results would change season)."""
    if not isinstance(plan, tuple):
        return
    kept = set(before) if isinstance(before, list | tuple) else set()
    today = _day(now)
    past = [day for day in plan if date.fromisoformat(day) < today and day not in kept]
    if past:
        raise PlanError(
            f"{past[0]} is in the past (today is {today.isoformat()} UTC): a new season "
            "starts today or later."
        )


def show_plan(plan: Any) -> str:
    """A plan in words.

    >>> show_plan(("2027-01-01", "2027-04-01")), show_plan("monthly")
    ('seasons from 2027-01-01, 2027-04-01', 'monthly')
    """
    if isinstance(plan, list | tuple):
        return "seasons from " + ", ".join(plan) if plan else NONE
    return str(plan or NONE)


def stored_plan(value: Any) -> Plan:
    """A plan as stored (JSON gives a list for dates)."""
    if isinstance(value, list | tuple):
        return tuple(str(day) for day in value)
    return str(value) if value in (MONTHLY, QUARTERLY) else NONE


def _month_season(year: int, month: int, months: int) -> Season:
    first = date(year, month, 1)
    index = year * 12 + month - 1 + months
    after = date(index // 12, index % 12 + 1, 1)
    name = f"{year}-{month:02d}" if months == 1 else f"{year}-Q{(month - 1) // 3 + 1}"
    return Season(_stamp(first), _stamp(after), name)


def season_at(plan: Plan, when: float) -> Season | None:
    """The season ``when`` falls in (None: no plan, or before the first start date)."""
    if plan in (MONTHLY, QUARTERLY):
        day = _day(when)
        months = 1 if plan == MONTHLY else 3
        month = day.month if months == 1 else (day.month - 1) // 3 * 3 + 1
        return _month_season(day.year, month, months)
    if not isinstance(plan, tuple):
        return None
    starts = [_stamp(date.fromisoformat(day)) for day in plan]
    for index in range(len(starts) - 1, -1, -1):
        if starts[index] <= when:
            end = starts[index + 1] if index + 1 < len(starts) else None
            return Season(starts[index], end, plan[index])
    return None


def season_before(plan: Plan, season: Season) -> Season | None:
    """The season just before ``season`` (None: it is the first)."""
    return season_at(plan, season.start - 1)


def season_named(plan: Plan, name: str) -> Season | None:
    """The season of the plan called ``name`` (None: the plan has none by that name)."""
    cleaned = name.strip().upper()
    found = re.fullmatch(r"(\d{4})-(?:(\d{2})|Q([1-4]))(?:-(\d{2}))?", cleaned)
    if found is None:
        return None
    year, month, quarter, day = found.groups()
    if isinstance(plan, tuple):
        return season_at(plan, _stamp(date.fromisoformat(cleaned))) if cleaned in plan else None
    if plan == MONTHLY and month and not day and 1 <= int(month) <= 12:
        return _month_season(int(year), int(month), 1)
    if plan == QUARTERLY and quarter:
        return _month_season(int(year), (int(quarter) - 1) * 3 + 1, 3)
    return None


def seasons_begun(plan: Plan, now: float, most: int = 25) -> list[Season]:
    """The seasons that have begun by ``now``, newest first (at most ``most``)."""
    found: list[Season] = []
    season = season_at(plan, now)
    while season is not None and len(found) < most:
        found.append(season)
        season = season_before(plan, season)
    return found


def next_end(plan: Plan, now: float) -> Season | None:
    """The first season that ends after ``now`` (running or still to come): its end is the
    server's next podium (None: no season ends after ``now``)."""
    if isinstance(plan, tuple):
        for index, day in enumerate(plan[:-1]):
            start = _stamp(date.fromisoformat(day))
            end = _stamp(date.fromisoformat(plan[index + 1]))
            if end > now:
                return Season(start, end, day)
        return None
    return season_at(plan, now)


def days_between(earlier: float, later: float) -> float:
    """Days from ``earlier`` to ``later`` (never negative)."""
    return max(0.0, later - earlier) / timedelta(days=1).total_seconds()
