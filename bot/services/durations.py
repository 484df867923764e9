"""Reading durations typed by people: ``90s``, ``10m``, ``2h``, ``1d``, ``1h30m`` or ``none``."""

from __future__ import annotations

import re

from bot.game.echo import echo

from .errors import UserError

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
#: ASCII digits only: ``²`` or ``٣`` are digits to ``str.isdigit`` but not durations.
_PART = re.compile(r"([0-9]+)([smhd])")
_NUMBER = re.compile(r"[0-9]+")
#: Longer input is not a duration (``1d 23h 59m 59s`` is 14 characters).
MAX_DURATION_TEXT = 32


def parse_duration(text: str) -> int:
    """Seconds in ``text``; ``none``, ``off`` or ``0`` mean 0. A clear error otherwise.

    A bare number is minutes.

    >>> parse_duration("1h30m"), parse_duration("45"), parse_duration("none")
    (5400, 2700, 0)
    >>> parse_duration("²")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    bot.errors.UserError: '²' is not a duration: write it like 90s, ...
    """
    cleaned = text.strip().lower().replace(" ", "")
    if len(cleaned) > MAX_DURATION_TEXT:
        raise _not_a_duration(text)
    if cleaned in ("", "none", "off", "0", "no"):
        return 0
    if _NUMBER.fullmatch(cleaned):
        return int(cleaned) * 60
    parts = _PART.findall(cleaned)
    if not parts or "".join(f"{n}{u}" for n, u in parts) != cleaned:
        raise _not_a_duration(text)
    return sum(int(number) * _UNITS[unit] for number, unit in parts)


def _not_a_duration(text: str) -> UserError:
    return UserError(
        f"{echo(text)} is not a duration: write it like 90s, 10m, 2h, 1d or 1h30m (or none)."
    )
