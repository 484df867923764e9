"""Reading durations typed by people: ``90s``, ``10m``, ``2h``, ``1d``, ``1h30m`` or ``none``."""

from __future__ import annotations

import re

from .errors import UserError

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_PART = re.compile(r"(\d+)\s*([smhd])")


def parse_duration(text: str) -> int:
    """Seconds in ``text``; ``none``, ``off`` or ``0`` mean 0. A clear error otherwise.

    >>> parse_duration("1h30m"), parse_duration("45"), parse_duration("none")
    (5400, 2700, 0)
    """
    cleaned = text.strip().lower().replace(" ", "")
    if cleaned in ("", "none", "off", "0", "no"):
        return 0
    if cleaned.isdigit():
        return int(cleaned) * 60
    parts = _PART.findall(cleaned)
    if not parts or "".join(f"{n}{u}" for n, u in parts) != cleaned:
        raise UserError(
            f"{text!r} is not a duration: write it like 90s, 10m, 2h, 1d or 1h30m (or none)."
        )
    return sum(int(number) * _UNITS[unit] for number, unit in parts)
