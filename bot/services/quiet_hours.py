"""Quiet hours for turn DMs: a daily window, in the player's own time zone (an IANA name, read
with :mod:`zoneinfo`), in which no turn DM is sent; one that falls in it waits for its end. The
clock of the game is not changed. Pure: the window's arithmetic and the checks of the input.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from .errors import UserError

#: ``22:00``, ``7:30`` or ``22``.
CLOCK_TIME = re.compile(r"(?P<hour>\d{1,2})(?::(?P<minute>\d{2}))?")
#: The words that clear the quiet hours.
CLEAR = ("off", "none")

BAD_TIME = "`{text}` is not a time of day: give it as HH:MM on a 24-hour clock, like 22:00 or 7:30."
WHOLE_DAY = (
    "Quiet hours from {start} to {start} would cover the whole day: give two different times."
)
BAD_ZONE = (
    "`{text}` is not a time zone I know: pick one from the list, an IANA name like "
    "Europe/Berlin or America/New_York."
)
BOTH = "Give both ends of the quiet hours: `quiet_from` and `quiet_to` (like 22:00 and 07:30)."


@dataclass(frozen=True)
class QuietHours:
    """From ``start`` to ``end`` (minutes after midnight, local time), every day, in ``zone``."""

    start: int
    end: int
    zone: str

    def as_pref(self) -> dict[str, object]:
        """The stored form (a player preference)."""
        return {"from": self.start, "to": self.end, "zone": self.zone}

    @classmethod
    def from_pref(cls, value: object) -> QuietHours | None:
        """Read back :meth:`as_pref` (None when unset or unreadable)."""
        if not isinstance(value, dict):
            return None
        try:
            return cls(int(value["from"]), int(value["to"]), str(value["zone"]))
        except (KeyError, TypeError, ValueError):
            return None

    def describe(self) -> str:
        """``22:00–07:30 (Europe/Berlin)``."""
        return f"{clock_text(self.start)}–{clock_text(self.end)} ({self.zone})"

    def ends_after(self, now: float) -> float | None:
        """When the quiet hours that ``now`` (Unix seconds) falls in end, or None when ``now``
        is not in them. Wall-clock times of the zone: across a daylight-saving change, the
        window ends at its local time (an end the spring change skips, like 02:30, comes an hour
        later: 03:30).

        >>> berlin = QuietHours(22 * 60, 7 * 60 + 30, "Europe/Berlin")
        >>> start = datetime(2026, 10, 24, 23, 0, tzinfo=ZoneInfo("Europe/Berlin")).timestamp()
        >>> (berlin.ends_after(start) - start) / 3600  # the clocks go back at 03:00
        9.5
        >>> berlin.ends_after(start + 10 * 3600) is None
        True
        """
        zone = ZoneInfo(self.zone)
        local = datetime.fromtimestamp(now, zone)
        minute = local.hour * 60 + local.minute
        wraps = self.start > self.end
        inside = (
            (minute >= self.start or minute < self.end)
            if wraps
            else self.start <= minute < self.end
        )
        if not inside:
            return None
        day = local.date()
        if wraps and minute >= self.start:
            day += timedelta(days=1)
        end = datetime(day.year, day.month, day.day, self.end // 60, self.end % 60, tzinfo=zone)
        return end.timestamp()


def clock_text(minutes: int) -> str:
    """``450`` -> ``"07:30"``."""
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def parse_clock_time(text: str) -> int:
    """Minutes after midnight of ``text`` (``22:00``, ``7:30``, ``22``), or a clear error."""
    match = CLOCK_TIME.fullmatch(text.strip())
    hour = int(match["hour"]) if match else 99
    minute = int(match["minute"] or 0) if match else 99
    if hour > 23 or minute > 59:
        raise UserError(BAD_TIME.format(text=text.strip()[:20]))
    return hour * 60 + minute


def check_zone(text: str) -> str:
    """The IANA time zone named ``text``, or a clear error."""
    name = text.strip()
    if name not in zone_names():
        raise UserError(BAD_ZONE.format(text=name[:40]))
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise UserError(BAD_ZONE.format(text=name[:40])) from None
    return name


def quiet_hours(start: str, end: str, zone: str) -> QuietHours:
    """Quiet hours from the player's input, checked; a :class:`UserError` for bad input."""
    first, last = parse_clock_time(start), parse_clock_time(end)
    if first == last:
        raise UserError(WHOLE_DAY.format(start=clock_text(first)))
    return QuietHours(first, last, check_zone(zone))


@cache
def zone_names() -> tuple[str, ...]:
    """Every IANA time zone name this system knows, sorted."""
    return tuple(sorted(available_timezones()))


def matching_zones(typed: str, most: int = 25) -> list[str]:
    """Up to ``most`` zone names containing ``typed`` (case-insensitive; ``_`` for a space),
    those that begin with it first."""
    wanted = typed.strip().lower().replace(" ", "_")
    names = zone_names()
    found = [n for n in names if wanted in n.lower()]
    found.sort(key=lambda n: (not n.lower().startswith(wanted), "/" not in n, n))
    return found[:most]
