"""The settings a server's admins may choose (``/sequence-admin``), each with its kind.

A **table** setting fills a :class:`~bot.table.options.TableOptions` field of new tables; a
**role**, **channel** or **channels** setting names roles or channels of the server (kept by
id); a **limit** caps what may be open at once. The owner's environment
(:class:`~bot.config.Settings`) gives each its bot default and, where it has one, its limit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bot.table.options import MAX_TURN_TIMER, POLICIES, format_duration

from .durations import parse_duration
from .setting_values import (
    parse_bool,
    parse_channel,
    parse_choice,
    parse_role,
    show_bool,
    show_channel,
    show_duration,
    show_role,
)

if TYPE_CHECKING:
    from bot.config import Settings

#: The kinds of setting (what ``/sequence-admin settings`` groups them by).
KINDS = ("table", "role", "channel", "channels", "limit")


@dataclass(frozen=True)
class ServerSetting:
    """A setting a server may choose: its name, kind, and (for a table setting) the
    :class:`TableOptions` field it fills."""

    name: str
    description: str
    kind: str
    parse: Callable[[str], Any]
    show: Callable[[Any], str]
    #: The bot's default (from the owner's settings).
    bot_default: Callable[[Settings], Any]
    #: The :class:`TableOptions` field of a table setting (None for the other kinds).
    field: str | None = None
    #: The owner's limit, in words (None: only the values /sequence new accepts).
    limit: str | None = None


def _table(
    name: str,
    description: str,
    field: str,
    parse: Callable[[str], Any],
    show: Callable[[Any], str],
    bot_default: Callable[[Settings], Any],
    limit: str | None = None,
) -> ServerSetting:
    return ServerSetting(name, description, "table", parse, show, bot_default, field, limit)


def _role(name: str, description: str) -> ServerSetting:
    return ServerSetting(name, description, "role", parse_role, show_role, lambda s: None)


_MAX = f"at most {format_duration(MAX_TURN_TIMER)}"

#: The settings a server may set, by name (the names ``/sequence-admin set`` completes).
SERVER_SETTINGS: dict[str, ServerSetting] = {
    each.name: each
    for each in (
        _table(
            "time_limit",
            "Time per turn (like 10m, 12h, 2d, or none)",
            "turn_time_limit",
            parse_duration,
            show_duration,
            lambda s: s.turn_time_limit,
            _MAX,
        ),
        _table(
            "on_timeout",
            "What happens when a turn's time runs out",
            "time_limit_policy",
            parse_choice(POLICIES),
            str,
            lambda s: s.time_limit_policy,
        ),
        _table(
            "reminder",
            "Remind the player to move after this long (or none)",
            "reminder_delay",
            parse_duration,
            show_duration,
            lambda s: s.reminder_delay,
            _MAX,
        ),
        _table(
            "rated",
            "Whether games count for ratings",
            "rated",
            parse_bool,
            show_bool,
            lambda s: True,
        ),
        _table(
            "hints",
            "Allow /sequence hint (makes the game unrated)",
            "hints",
            parse_bool,
            show_bool,
            lambda s: False,
        ),
        _table(
            "endless_guard",
            "A draw when the deck is reshuffled twice with no new sequence",
            "endless_play_guard",
            parse_bool,
            show_bool,
            lambda s: True,
        ),
        _table(
            "preset",
            "classic (official rules) or convoy",
            "preset",
            parse_choice(("classic", "convoy")),
            str,
            lambda s: "classic",
        ),
        _role("host_role", "Who may open a lobby (none: every member)"),
        _role(
            "organiser_role",
            "Who may create and run tournaments (none: Manage Server, or whom Discord allows)",
        ),
        _role(
            "moderator_role",
            "Who may rule on table talk and cancel games and tournaments (besides Manage Channels)",
        ),
        _role("looking_role", "A looking-for-game role a lobby short of players may ping"),
        # Where each change of these settings is announced (cogs/common/audit_log.py)
        ServerSetting(
            "log_channel",
            "Where each settings change is announced (none: the channel where it is made)",
            "channel",
            parse_channel,
            show_channel,
            lambda s: None,
        ),
    )
}


def table_settings() -> list[ServerSetting]:
    """The settings that fill a table option, in order."""
    return [each for each in SERVER_SETTINGS.values() if each.field is not None]
