"""How a server setting's value is read from what an admin typed, and shown back.

Each reader refuses what it cannot read with a :class:`UserError` naming the text; a role or a
channel is kept by its id (a mention, ``<@&id>`` or ``<#id>``, or the bare id), so that a role or
channel renamed since stays the same setting, and one deleted since is shown as deleted and
ignored (the cog knows which exist; the service does not).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from bot.game.echo import echo
from bot.seasons import Plan, PlanError, read_plan, show_plan
from bot.table.options import format_duration

from .errors import UserError

_YES = ("yes", "y", "true", "on", "1")
_NO = ("no", "n", "false", "off", "0")
#: What an admin types to clear a role or channel setting.
NONE_WORDS = ("none", "nobody", "anywhere", "off", "-")
_ROLE = re.compile(r"^\s*(?:<@&(\d{15,20})>|(\d{15,20}))\s*$")
_CHANNEL = re.compile(r"<#(\d{15,20})>|\b(\d{15,20})\b")


def parse_bool(text: str) -> bool:
    """``yes``/``no`` (and the usual spellings) as a bool."""
    cleaned = text.strip().lower()
    if cleaned in _YES:
        return True
    if cleaned in _NO:
        return False
    raise UserError(f"{echo(text)} is not yes or no.")


def parse_choice(choices: tuple[str, ...]) -> Callable[[str], str]:
    """A reader that accepts one of ``choices`` (any case)."""

    def parse(text: str) -> str:
        cleaned = text.strip().lower()
        if cleaned not in choices:
            raise UserError(f"{echo(text)} is not one of: {', '.join(choices)}.")
        return cleaned

    return parse


def parse_role(text: str) -> int | None:
    """A role, by mention or id (``none`` for no role).

    >>> parse_role("<@&123456789012345678>"), parse_role("none")
    (123456789012345678, None)
    """
    if text.strip().lower() in NONE_WORDS:
        return None
    found = _ROLE.match(text)
    if found is None:
        raise UserError(
            f"{echo(text)} is not a role: mention it (type @ and pick the role), or say none."
        )
    return int(found.group(1) or found.group(2))


def parse_channel(text: str) -> int | None:
    """One channel, by mention or id (``none`` for no channel).

    >>> parse_channel("<#123456789012345678>"), parse_channel("none")
    (123456789012345678, None)
    """
    try:
        channels = parse_channels(text)
    except UserError:
        raise UserError(
            f"{echo(text)} is not a channel: mention it (type # and pick it), or say none."
        ) from None
    if len(channels) > 1:
        raise UserError("Name one channel only.")
    return channels[0] if channels else None


def parse_channels(text: str) -> tuple[int, ...]:
    """Channels or categories, by mention or id, in the order given (``none``: no channel).

    >>> parse_channels("<#123456789012345678> <#223456789012345678>")
    (123456789012345678, 223456789012345678)
    """
    if text.strip().lower() in NONE_WORDS:
        return ()
    found = [int(a or b) for a, b in _CHANNEL.findall(text)]
    rest = _CHANNEL.sub("", text).replace(",", " ").strip()
    if not found or rest:
        raise UserError(
            f"{echo(text)} is not a list of channels: mention them (type # and pick each), "
            "or say none."
        )
    return tuple(dict.fromkeys(found))


def show_duration(value: Any) -> str:
    """A duration in words; ``none`` for 0."""
    return format_duration(value) if value else "none"


def show_bool(value: Any) -> str:
    """``yes`` or ``no``."""
    return "yes" if value else "no"


def show_role(value: Any) -> str:
    """A role's mention; ``none``."""
    return f"<@&{value}>" if value else "none"


def show_channels(value: Any) -> str:
    """Channels' mentions; ``anywhere`` when there are none."""
    return " ".join(f"<#{each}>" for each in value) if value else "anywhere"


def show_channel(value: Any) -> str:
    """A channel's mention; ``none``."""
    return f"<#{value}>" if value else "none"


#: What an admin types for "no limit of this server's own" (a limit) or "automatic".
_UNSET_WORDS = ("none", "no limit", "unlimited", "off", "0", "-")
_AUTOMATIC_WORDS = ("auto", "automatic", "default", "none", "-")
#: The largest count a limit takes (far above any sensible one).
_MOST_COUNT = 10_000


def parse_count(text: str) -> int:
    """A limit: a whole number from 1, or ``none`` (0: no limit of the server's own).

    >>> parse_count(" 5 "), parse_count("none")
    (5, 0)
    """
    cleaned = text.strip().lower()
    if cleaned in _UNSET_WORDS:
        return 0
    if not cleaned.isascii() or not cleaned.isdigit() or not 1 <= int(cleaned) <= _MOST_COUNT:
        raise UserError(f"{echo(text)} is not a limit: give a whole number like 5, or none.")
    return int(cleaned)


def show_count(value: Any) -> str:
    """A limit; ``no limit`` for 0."""
    return str(value) if value else "no limit"


def parse_sequences(text: str) -> int | None:
    """Sequences to win, 1 to 4, or ``automatic`` (None: the preset's and the teams' number).

    >>> parse_sequences("3"), parse_sequences("automatic")
    (3, None)
    """
    cleaned = text.strip().lower()
    if cleaned in _AUTOMATIC_WORDS:
        return None
    if cleaned not in ("1", "2", "3", "4"):
        raise UserError(f"{echo(text)} is not 1, 2, 3, 4 or automatic.")
    return int(cleaned)


def show_sequences(value: Any) -> str:
    """Sequences to win; ``automatic`` for None."""
    return "automatic" if value is None else str(value)


#: The most days a leaderboard's activity window takes (ten years).
_MOST_DAYS = 3650


def parse_days(text: str) -> int:
    """A number of days, or ``0``/``none``/``everyone`` for no window (0).

    >>> parse_days("60"), parse_days("everyone")
    (60, 0)
    """
    cleaned = text.strip().lower().removesuffix("days").removesuffix("d").strip()
    if cleaned in (*_UNSET_WORDS, "everyone", "all"):
        return 0
    if not cleaned.isascii() or not cleaned.isdigit() or not 1 <= int(cleaned) <= _MOST_DAYS:
        raise UserError(
            f"{echo(text)} is not a number of days: give a whole number from 1 to {_MOST_DAYS}, "
            "or 0 for everyone."
        )
    return int(cleaned)


def show_days(value: Any) -> str:
    """A number of days; ``everyone`` for 0."""
    return f"{value} days" if value else "everyone"


def parse_away_days(text: str) -> int:
    """Days a year a member may be away, 0 (none: away is not allowed) to 366.

    >>> parse_away_days("30 days"), parse_away_days("none")
    (30, 0)
    """
    cleaned = text.strip().lower().removesuffix("days").removesuffix("d").strip()
    if cleaned in _UNSET_WORDS:
        return 0
    if not cleaned.isascii() or not cleaned.isdigit() or not 0 <= int(cleaned) <= 366:
        raise UserError(
            f"{echo(text)} is not a number of days: give a whole number from 0 (away not "
            "allowed) to 366."
        )
    return int(cleaned)


def show_away_days(value: Any) -> str:
    """Days a year away; ``not allowed`` for 0."""
    return f"{value} days a year" if value else "not allowed"


def parse_season_plan(text: str) -> Plan:
    """A season plan: none, monthly, quarterly, or start dates (``2027-01-01, 2027-04-01``).

    >>> parse_season_plan("quarterly"), parse_season_plan("2027-04-01 2027-01-01")
    ('quarterly', ('2027-01-01', '2027-04-01'))
    """
    try:
        return read_plan(text)
    except PlanError as error:
        raise UserError(str(error)) from None


def show_season_plan(value: Any) -> str:
    """A season plan in words."""
    return show_plan(value)


def show_days_away(value: Any) -> str:
    """Days of time away; ``off`` for 0."""
    return f"{value} days" if value else "off"
