"""The settings a server's admins may choose (``/sequence-admin``), each with its kind.

A **table** setting fills a :class:`~bot.table.options.TableOptions` field of new tables; a
**role**, **channel** or **channels** setting names roles or channels of the server (kept by
id); a **limit** caps what may be open at once; a **leaderboard** setting decides who
``/sequence leaderboard`` ranks. The owner's environment
(:class:`~bot.config.Settings`) gives each its bot default and, where it has one, its ceiling
(:mod:`bot.services.ceilings`).

A server's **per-person** limits count what a person has in that server only (what an admin
means by "in our server"); the owner's per-person caps (``MAX_*_PER_USER``) count everywhere the
bot is, and both apply. A server's per-server limit applies with the owner's, the tighter one
winning; a server that sets none has the owner's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bot.store.seasons import SEASON_PLAN, TIME_AWAY
from bot.table.bank import CLOCKS
from bot.table.options import POLICIES, TableOptions, format_duration

from .ceilings import Ceiling
from .durations import parse_duration
from .setting_values import (
    parse_away_days,
    parse_bool,
    parse_channel,
    parse_channels,
    parse_choice,
    parse_count,
    parse_days,
    parse_role,
    parse_season_plan,
    parse_sequences,
    show_away_days,
    show_bool,
    show_channel,
    show_channels,
    show_count,
    show_days,
    show_days_away,
    show_duration,
    show_role,
    show_season_plan,
    show_sequences,
)

if TYPE_CHECKING:
    from bot.config import Settings

#: The kinds of setting (what ``/sequence-admin settings`` groups them by).
KINDS = ("table", "role", "channel", "channels", "limit", "leaderboard")
#: The leaderboard's activity window by default (days; 0: everyone).
LEADERBOARD_ACTIVE_DAYS = 60


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
    #: A fixed range, in words (None: only the values /sequence new accepts).
    limit: str | None = None
    #: The owner's most (a value past it is refused, naming it).
    ceiling: Ceiling | None = None

    def limit_words(self, settings: Settings) -> str | None:
        """The limit the settings view shows: the owner's ceiling, else the fixed range."""
        if self.ceiling is not None:
            return self.ceiling.words(settings)
        return self.limit


def _table(
    name: str,
    description: str,
    field: str,
    parse: Callable[[str], Any],
    show: Callable[[Any], str],
    bot_default: Callable[[Settings], Any],
    limit: str | None = None,
    ceiling: Ceiling | None = None,
) -> ServerSetting:
    return ServerSetting(
        name, description, "table", parse, show, bot_default, field, limit, ceiling
    )


def _role(name: str, description: str) -> ServerSetting:
    return ServerSetting(name, description, "role", parse_role, show_role, lambda s: None)


def _limit(
    name: str, description: str, owner_cap: Callable[[Settings], int], what: str
) -> ServerSetting:
    """A limit: its bot default is the owner's cap, which is also its ceiling."""
    refusal = what + ": this bot allows at most {most} (its owner's limit)."
    ceiling = Ceiling(owner_cap, refusal, show_count, zero_is_unlimited=True)
    return ServerSetting(
        name, description, "limit", parse_count, show_count, owner_cap, ceiling=ceiling
    )


def _bool(name: str, description: str, field: str) -> ServerSetting:
    """A house rule that is off unless the server (or the host) turns it on."""
    return _table(name, description, field, parse_bool, show_bool, lambda s: False)


_TIME_LIMIT = Ceiling(
    lambda s: s.max_turn_time_limit,
    "A turn's time limit on this bot is at most {most} (its owner's limit).",
    format_duration,
)
_REMINDER = Ceiling(
    lambda s: s.max_reminder_delay,
    "A reminder on this bot comes at most {most} after the turn starts (its owner's limit).",
    format_duration,
)
_TIMERS = "1 min to 14 days"
#: A new table's options as the bot sets them (the bank clock's defaults).
_NEW_TABLE = TableOptions()
#: A bank holds at most the longest time the owner allows a turn (its start and its cap).
_BANK = Ceiling(
    lambda s: s.max_turn_time_limit,
    "A bank on this bot holds at most {most} (its owner's limit on a turn's time).",
    format_duration,
)

#: Where tables may be opened, and whether each opens in a thread of its own (a table default
#: that fills no :class:`TableOptions` field: it decides where the lobby opens).
_PLACES = (
    ServerSetting(
        "table_channels",
        "Channels or categories where tables may be opened (none: anywhere)",
        "channels",
        parse_channels,
        show_channels,
        lambda s: (),
    ),
    ServerSetting(
        "thread_tables",
        "Open each new table in a thread of its own (/sequence new thread:)",
        "table",
        parse_bool,
        show_bool,
        lambda s: False,
    ),
)

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
            ceiling=_TIME_LIMIT,
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
            ceiling=_REMINDER,
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
        # House rules and the table's timers (issue #38's limits block).
        _table(
            "sequences_to_win",
            "House rule: sequences needed to win, 1 to 4 (automatic: 2 with 2 teams, 1 with 3)",
            "sequences_to_win",
            parse_sequences,
            show_sequences,
            lambda s: None,
        ),
        _bool(
            "bot_picks_five",
            "House rule: in a line of 6+, the bot picks the five",
            "engine_chooses_five",
        ),
        _bool(
            "manual_draw",
            "House rule: draw by hand, and lose the draw if you forget",
            "manual_draw",
        ),
        _bool("small_hands", "House rule: 2 cards each with 10 or 12 players", "small_hands"),
        _bool(
            "tabletalk_stands",
            "House rule: a table-talk call stands without confirmation",
            "tabletalk_stands",
        ),
        _table(
            "lobby_expiry",
            "How long a lobby waits to be started before it closes",
            "lobby_expiry",
            parse_duration,
            show_duration,
            lambda s: s.lobby_expiry,
            _TIMERS,
        ),
        _table(
            "ruling_timeout",
            "How long a table-talk call only a moderator could rule on waits, then stands "
            "(none: never)",
            "table_talk_ruling_timeout",
            parse_duration,
            show_duration,
            lambda s: s.table_talk_ruling_timeout,
            "none, or up to 14 days",
        ),
        _table(
            "draw_offer_timeout",
            "How long a draw offer stays open (and computers wait for an answer)",
            "draw_offer_timeout",
            parse_duration,
            show_duration,
            lambda s: s.draw_offer_timeout,
            _TIMERS,
        ),
        # The bank clock (issue #39): its options count only with clock bank.
        _table(
            "clock",
            "The turn clock: turn (the time limit per turn) or bank (a bank of time per player)",
            "clock",
            parse_choice(CLOCKS),
            str,
            lambda s: _NEW_TABLE.clock,
        ),
        _table(
            "bank_start",
            "Bank clock: the time each player starts with",
            "bank_start",
            parse_duration,
            show_duration,
            lambda s: _NEW_TABLE.bank_start,
            ceiling=_BANK,
        ),
        _table(
            "bank_increment",
            "Bank clock: the time added to a player's bank after each of their turns",
            "bank_increment",
            parse_duration,
            show_duration,
            lambda s: _NEW_TABLE.bank_increment,
            "0 to 14 days",
        ),
        _table(
            "bank_cap",
            "Bank clock: the most a bank holds (none: 14 days)",
            "bank_cap",
            parse_duration,
            show_duration,
            lambda s: _NEW_TABLE.bank_cap,
            ceiling=_BANK,
        ),
        _limit(
            "lobbies_per_server",
            "Open lobbies in this server at once (none: the bot's cap)",
            lambda s: s.max_lobbies_per_server,
            "Open lobbies per server",
        ),
        _limit(
            "lobbies_per_person",
            "Open lobbies one person may host in this server at once",
            lambda s: s.max_lobbies_per_user,
            "Open lobbies per person",
        ),
        _limit(
            "games_per_person",
            "Games (and lobbies sat in) one person may be in here at once",
            lambda s: s.max_games_per_user,
            "Games per person",
        ),
        _limit(
            "tournaments_per_server",
            "Open tournaments in this server at once (none: the bot's cap)",
            lambda s: s.max_tournaments_per_server,
            "Open tournaments per server",
        ),
        _limit(
            "tournaments_per_person",
            "Open tournaments one person may organise in this server at once",
            lambda s: s.max_tournaments_per_user,
            "Open tournaments per person",
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
        *_PLACES,
        ServerSetting(
            "leaderboard_active_days",
            "The leaderboard ranks players with a rated game in this many days (0: everyone)",
            "leaderboard",
            parse_days,
            show_days,
            lambda s: LEADERBOARD_ACTIVE_DAYS,
            limit="0 to 3650 days",
        ),
        ServerSetting(
            "away_days",
            "Days a year a member may be away from their games (/sequence-me away; 0: never)",
            "limit",
            parse_away_days,
            show_away_days,
            lambda s: s.away_days,
            limit="0 to 366 days",
        ),
        # Where each change of these settings is announced (cogs/common/audit_log.py)
        ServerSetting(
            "log_channel",
            "Where each settings change is announced (none: the channel where it is made)",
            "channel",
            parse_channel,
            show_channel,
            lambda s: None,
        ),
        # Seasons (bot/seasons.py): date windows over the results, each with its own ratings
        ServerSetting(
            SEASON_PLAN,
            "Seasons: none, monthly, quarterly, or start dates like 2027-01-01, 2027-04-01",
            "leaderboard",
            parse_season_plan,
            show_season_plan,
            lambda s: "none",
        ),
        ServerSetting(
            "season_channel",
            "Where the podium of each season that ends is posted (none: no podium)",
            "channel",
            parse_channel,
            show_channel,
            lambda s: None,
        ),
        _role("champion_role", "A role given to each season's champion (none: no role)"),
        ServerSetting(
            TIME_AWAY,
            "Uncertainty grows with time away: days without a rated game for a rating to be "
            "as uncertain as a newcomer's (0: off)",
            "leaderboard",
            parse_days,
            show_days_away,
            lambda s: 0,
            limit="0 to 3650 days",
        ),
    )
}


def table_settings() -> list[ServerSetting]:
    """The settings that fill a table option, in order."""
    return [each for each in SERVER_SETTINGS.values() if each.field is not None]


def table_ceilings() -> list[tuple[str, Ceiling]]:
    """The table settings the owner puts a ceiling on: each one's field and ceiling."""
    return [
        (each.field, each.ceiling)
        for each in SERVER_SETTINGS.values()
        if each.field is not None and each.ceiling is not None
    ]
