"""What a member asks for with ``/sequence-me away``, checked: the end of the period (a
duration or a date), the server's yearly allowance, another period it would overlap, and the
rules of the games it would cover (a tournament's). Pure: the away service gives the facts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, datetime

from bot.game.echo import echo
from bot.table.away import COMPUTER, COVERS
from bot.table.options import TableOptions, format_duration

from .durations import parse_duration
from .errors import UserError

DAY = 86400
#: ``2026-12-24`` or ``2026-12-24 18:00`` (UTC).
DATE = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{2}))?")

MALFORMED = (
    "{text} is neither a duration (like 3d, 12h or 1d12h) nor a date (like 2026-12-24, or "
    "2026-12-24 18:00 in UTC): nothing was changed."
)
IN_THE_PAST = "That end (<t:{until}:f>) is not in the future: nothing was changed."
BAD_COVER = "Cover must be pause or computer."
FORBIDDEN = "This server does not allow going away (its `away_days` allowance is 0)."
TOO_LONG = (
    "Away for {asked} is more than this server allows: {left} of its {days} days a year are "
    "left for you this year. Nothing was changed."
)
OVERLAP = (
    "You are already away{where} until <t:{until}:f>: use `/sequence-me back` first. Nothing "
    "was changed."
)
NO_AWAY_HERE = (
    "Game #{game} (a tournament match) does not allow going away. Nothing was changed."
)
ONLY_COMPUTER = (
    "Game #{game} (a tournament match) allows going away only with `cover:computer`. Nothing "
    "was changed."
)


def parse_until(text: str, now: float) -> float:
    """When a period asked for at ``now`` ends: ``now`` plus a duration, or a date (at 00:00
    UTC, or the time given, in UTC). A :class:`UserError` for anything else or a past end.

    >>> parse_until("2d", 1000.0) - 1000.0 == 2 * DAY
    True
    >>> parse_until("2030-01-02", 0.0) == datetime(2030, 1, 2, tzinfo=UTC).timestamp()
    True
    """
    cleaned = text.strip()
    date = DATE.fullmatch(cleaned)
    if date is not None:
        year, month, day, hour, minute = (int(p) if p else 0 for p in date.groups())
        try:
            until = datetime(year, month, day, hour, minute, tzinfo=UTC).timestamp()
        except ValueError:
            raise UserError(MALFORMED.format(text=echo(text))) from None
    else:
        try:
            seconds = parse_duration(cleaned)
        except UserError:
            raise UserError(MALFORMED.format(text=echo(text))) from None
        if not seconds:
            raise UserError(MALFORMED.format(text=echo(text)))
        until = now + seconds
    if until <= now:
        raise UserError(IN_THE_PAST.format(until=int(until)))
    return until


def check_cover(cover: str) -> str:
    """The cover asked for, known."""
    if cover not in COVERS:
        raise UserError(BAD_COVER)
    return cover


def year_start(now: float) -> float:
    """The start (UTC) of the calendar year of ``now``: an allowance counts a year's periods."""
    year = datetime.fromtimestamp(now, UTC).year
    return datetime(year, 1, 1, tzinfo=UTC).timestamp()


def check_allowance(days: int, used: float, asked: float) -> None:
    """Refuse a period of ``asked`` seconds when the server allows ``days`` days a year and
    ``used`` seconds of them went already this year.

    >>> check_allowance(10, 3 * DAY, 7 * DAY)
    >>> check_allowance(10, 3 * DAY, 8 * DAY)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    bot.errors.UserError: Away for 8 days is more than this server allows: 7 days of its 10 ...
    """
    if days <= 0:
        raise UserError(FORBIDDEN)
    left = max(days * DAY - used, 0.0)
    if asked > left:
        raise UserError(
            TOO_LONG.format(
                asked=format_duration(asked),
                left=format_duration(left) if left else "nothing",
                days=days,
            )
        )


def allowed(options: TableOptions, cover: str) -> bool:
    """True when a game's rules (a tournament's ``away`` option) allow ``cover``.

    >>> allowed(TableOptions(away_rule="computer"), "pause"), allowed(TableOptions(), "pause")
    (False, True)
    """
    return options.away_rule == "any" or (options.away_rule == COMPUTER and cover == COMPUTER)


def check_rules(games: Iterable[tuple[int, TableOptions]], cover: str) -> None:
    """Refuse a cover that a game's rules (a tournament's ``away`` option) do not allow."""
    for game_id, options in games:
        if not allowed(options, cover):
            refusal = ONLY_COMPUTER if options.away_rule == COMPUTER else NO_AWAY_HERE
            raise UserError(refusal.format(game=game_id))

