"""Settings from the environment and ``.env``, validated at start-up with clear errors."""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from bot.store.shards import Shards
from bot.store.urls import is_postgres_url, redact, url_problem, url_scheme
from bot.table.options import MAX_TURN_TIMER, format_duration

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
TIME_LIMIT_POLICIES = ("skip", "computer", "remove")
#: Every setting's environment variable (``.env.example`` and the README list them too).
SETTING_NAMES = (
    "DISCORD_TOKEN",
    "SEQUENCE_DATABASE",
    "LOG_LEVEL",
    "DEV_GUILD_ID",
    "SHARD_COUNT",
    "SHARD_IDS",
    "TURN_TIME_LIMIT",
    "MAX_TURN_TIME_LIMIT",
    "TIME_LIMIT_POLICY",
    "REMINDER_DELAY",
    "MAX_REMINDER_DELAY",
    "LOBBY_EXPIRY",
    "COMPUTER_MOVE_DELAY",
    "COMPUTER_BUDGET_MS",
    "USER_RATE_LIMIT",
    "CHANNEL_RATE_LIMIT",
    "CREATE_RATE_LIMIT",
    "MAX_LOBBIES_PER_USER",
    "MAX_LOBBIES_PER_SERVER",
    "MAX_GAMES_PER_USER",
    "MAX_TOURNAMENTS_PER_USER",
    "MAX_TOURNAMENTS_PER_SERVER",
    "MAX_TOURNAMENT_ENTRANTS",
    "TABLE_TALK_RULING_TIMEOUT",
    "DRAW_OFFER_TIMEOUT",
    "AWAY_DAYS",
)
#: A bot token: three dot-separated parts of URL-safe base64.
_TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+")


class ConfigError(ValueError):
    """A setting that cannot be used; the message names it and says how to fix it."""


@dataclass(frozen=True)
class Settings:
    """Every setting of the bot. ``.env.example`` documents each one with its default."""

    #: The bot token (``DISCORD_TOKEN``); only ``run`` needs it. Never logged or shown.
    discord_token: str | None = field(default=None, repr=False)
    #: The SQLite file (``SEQUENCE_DATABASE`` when it is a path).
    database_path: Path = Path("data/sequence.db")
    #: The PostgreSQL database (``SEQUENCE_DATABASE=postgresql://...``), used instead of
    #: ``database_path`` when set. It may hold a password: never logged or shown whole.
    database_url: str | None = field(default=None, repr=False)
    #: ``LOG_LEVEL``: DEBUG, INFO, WARNING, ERROR or CRITICAL.
    log_level: str = "INFO"
    #: ``DEV_GUILD_ID``: sync slash commands to this server only (instant), not globally.
    dev_guild_id: int | None = None
    #: ``SHARD_COUNT``: run as an AutoShardedBot with this many shards (none: one connection).
    shard_count: int | None = None
    #: ``SHARD_IDS``: the shards this process runs (``0-3`` or ``4,5,6,7``), out of
    #: ``SHARD_COUNT``; none: all of them. A process serves only the guilds on its shards.
    shard_ids: tuple[int, ...] | None = None
    #: ``TURN_TIME_LIMIT``: default seconds a player has for a turn (0: no limit).
    turn_time_limit: int = 0
    #: ``MAX_TURN_TIME_LIMIT``: the longest time per turn a server or a host may choose.
    max_turn_time_limit: int = MAX_TURN_TIMER
    #: ``TIME_LIMIT_POLICY``: what happens when the time runs out: skip, computer or remove.
    time_limit_policy: str = "skip"
    #: ``REMINDER_DELAY``: default seconds before the player to move is reminded.
    reminder_delay: int = 12 * 3600
    #: ``MAX_REMINDER_DELAY``: the longest reminder delay a server or a host may choose.
    max_reminder_delay: int = MAX_TURN_TIMER
    #: ``LOBBY_EXPIRY``: seconds after which an unstarted lobby is closed.
    lobby_expiry: int = 24 * 3600
    #: ``COMPUTER_MOVE_DELAY``: seconds a computer player pauses before it moves.
    computer_move_delay: float = 2.0
    #: ``COMPUTER_BUDGET_MS``: the time budget of the hard computer player per move.
    computer_budget_ms: int = 2000
    #: ``USER_RATE_LIMIT``: how often one person may use each command that posts a message or
    #: draws an image (board, status, replay, table-talk calls...) or thinks (hints), as
    #: ``uses/seconds``.
    user_rate_limit: tuple[int, int] = (4, 60)
    #: ``CHANNEL_RATE_LIMIT``: the same, for everyone in one channel together.
    channel_rate_limit: tuple[int, int] = (10, 60)
    #: ``CREATE_RATE_LIMIT``: how often one person may open a lobby or a tournament.
    create_rate_limit: tuple[int, int] = (3, 600)
    #: ``MAX_LOBBIES_PER_USER``: open lobbies one person may host at once (0: no cap).
    max_lobbies_per_user: int = 2
    #: ``MAX_LOBBIES_PER_SERVER``: open lobbies in one server at once (0: no cap); a
    #: tournament's match lobbies count against no lobby cap.
    max_lobbies_per_server: int = 25
    #: ``MAX_GAMES_PER_USER``: games one person may play at once, lobbies they sit in counted
    #: (0: no cap).
    max_games_per_user: int = 10
    #: ``MAX_TOURNAMENTS_PER_USER``: open tournaments one person may organise (0: no cap).
    max_tournaments_per_user: int = 1
    #: ``MAX_TOURNAMENTS_PER_SERVER``: open tournaments in one server at once (0: no cap).
    max_tournaments_per_server: int = 3
    #: ``MAX_TOURNAMENT_ENTRANTS``: entrants (players or teams) one tournament may have; an
    #: organiser may set fewer (0: no cap).
    max_tournament_entrants: int = 128
    #: ``TABLE_TALK_RULING_TIMEOUT``: seconds after which a table-talk call that nobody may
    #: rule on stands, unless the caller withdrew it (0: never).
    table_talk_ruling_timeout: int = 600
    #: ``DRAW_OFFER_TIMEOUT``: seconds a draw offer stays open if the game does not move on.
    draw_offer_timeout: int = 3600
    #: ``AWAY_DAYS``: days a year a member may be away from their games (``/sequence-me
    #: away``) in a server that sets no allowance of its own (0: away is not allowed).
    away_days: int = 30

    @classmethod
    def from_env(
        cls, environ: Mapping[str, str] | None = None, env_file: str | Path | None = ".env"
    ) -> Settings:
        """Read settings from ``environ`` (default ``os.environ``) over an optional ``.env``."""
        values: dict[str, str] = {}
        if env_file is not None and Path(env_file).is_file():
            values.update(read_env_file(Path(env_file)))
        values.update(os.environ if environ is None else environ)
        return cls.from_mapping(values)

    @classmethod
    def from_mapping(cls, values: Mapping[str, str]) -> Settings:
        """Validate raw strings (environment variable names) into settings."""
        parsed: dict[str, Any] = {}
        token = values.get("DISCORD_TOKEN", "").strip()
        parsed["discord_token"] = token or None
        if "SEQUENCE_DATABASE" in values:
            location = values["SEQUENCE_DATABASE"].strip()
            if not location:
                raise ConfigError(
                    "SEQUENCE_DATABASE is empty: give a file path like data/sequence.db or a "
                    "URL like postgresql://user:password@host/dbname."
                )
            if is_postgres_url(location):
                parsed["database_url"] = _postgres_url(location)
            elif scheme := url_scheme(location):
                raise ConfigError(
                    f"SEQUENCE_DATABASE is a {scheme}:// URL, which this bot cannot use: give "
                    "a file path like data/sequence.db or a URL like "
                    "postgresql://user:password@host/dbname."
                )
            else:
                parsed["database_path"] = Path(location)
        level = values.get("LOG_LEVEL", "INFO").strip().upper()
        if level not in LOG_LEVELS:
            raise ConfigError(
                f"LOG_LEVEL={level!r} is not a level: use one of {', '.join(LOG_LEVELS)}."
            )
        parsed["log_level"] = level
        parsed["dev_guild_id"] = _optional_int(values, "DEV_GUILD_ID", minimum=1)
        parsed["shard_count"] = _optional_int(values, "SHARD_COUNT", minimum=1)
        parsed["shard_ids"] = _shard_ids(values, parsed["shard_count"])
        if (
            parsed["shard_ids"] is not None
            and len(set(parsed["shard_ids"])) < parsed["shard_count"]
            and "database_url" not in parsed
        ):
            raise ConfigError(
                f"SHARD_IDS={values['SHARD_IDS'].strip()!r} makes this process one of a cluster, "
                "whose processes share one PostgreSQL database: set "
                "SEQUENCE_DATABASE=postgresql://user:password@host/dbname."
            )
        parsed["turn_time_limit"] = _int(
            values, "TURN_TIME_LIMIT", 0, minimum=0, maximum=MAX_TURN_TIMER
        )
        if 0 < parsed["turn_time_limit"] < 60:
            raise ConfigError(
                f"TURN_TIME_LIMIT={parsed['turn_time_limit']} is too short: "
                "it must be 0 (no limit) or at least 60 seconds."
            )
        policy = values.get("TIME_LIMIT_POLICY", "skip").strip().lower()
        if policy not in TIME_LIMIT_POLICIES:
            raise ConfigError(
                f"TIME_LIMIT_POLICY={policy!r} is not a policy: use skip, computer or remove."
            )
        parsed["time_limit_policy"] = policy
        parsed["reminder_delay"] = _int(
            values, "REMINDER_DELAY", 12 * 3600, minimum=600, maximum=MAX_TURN_TIMER
        )
        parsed["max_turn_time_limit"] = _int(
            values, "MAX_TURN_TIME_LIMIT", MAX_TURN_TIMER, minimum=60, maximum=MAX_TURN_TIMER
        )
        parsed["max_reminder_delay"] = _int(
            values, "MAX_REMINDER_DELAY", MAX_TURN_TIMER, minimum=600, maximum=MAX_TURN_TIMER
        )
        _within("TURN_TIME_LIMIT", parsed["turn_time_limit"], parsed["max_turn_time_limit"])
        _within("REMINDER_DELAY", parsed["reminder_delay"], parsed["max_reminder_delay"])
        parsed["lobby_expiry"] = _int(
            values, "LOBBY_EXPIRY", 24 * 3600, minimum=60, maximum=MAX_TURN_TIMER
        )
        parsed["computer_move_delay"] = _float(values, "COMPUTER_MOVE_DELAY", 2.0)
        parsed["computer_budget_ms"] = _int(values, "COMPUTER_BUDGET_MS", 2000, minimum=1)
        parsed["user_rate_limit"] = _rate(values, "USER_RATE_LIMIT", (4, 60))
        parsed["channel_rate_limit"] = _rate(values, "CHANNEL_RATE_LIMIT", (10, 60))
        parsed["create_rate_limit"] = _rate(values, "CREATE_RATE_LIMIT", (3, 600))
        parsed["max_lobbies_per_user"] = _int(values, "MAX_LOBBIES_PER_USER", 2, minimum=0)
        parsed["max_lobbies_per_server"] = _int(values, "MAX_LOBBIES_PER_SERVER", 25, minimum=0)
        parsed["max_games_per_user"] = _int(values, "MAX_GAMES_PER_USER", 10, minimum=0)
        parsed["max_tournaments_per_user"] = _int(values, "MAX_TOURNAMENTS_PER_USER", 1, minimum=0)
        parsed["max_tournaments_per_server"] = _int(
            values, "MAX_TOURNAMENTS_PER_SERVER", 3, minimum=0
        )
        parsed["max_tournament_entrants"] = _int(values, "MAX_TOURNAMENT_ENTRANTS", 128, minimum=0)
        parsed["table_talk_ruling_timeout"] = _int(
            values, "TABLE_TALK_RULING_TIMEOUT", 600, minimum=0, maximum=MAX_TURN_TIMER
        )
        parsed["draw_offer_timeout"] = _int(
            values, "DRAW_OFFER_TIMEOUT", 3600, minimum=60, maximum=MAX_TURN_TIMER
        )
        parsed["away_days"] = _int(values, "AWAY_DAYS", 30, minimum=0, maximum=366)
        return cls(**parsed)

    def database_location(self) -> str | Path:
        """Where the store is: the PostgreSQL URL if set, else the SQLite file."""
        return self.database_url or self.database_path

    def database_label(self) -> str:
        """The store's location for messages and logs (a URL without its password)."""
        return redact(self.database_url) if self.database_url else str(self.database_path)

    def shards(self) -> Shards | None:
        """The shards this process serves, or None for every guild (one process, or all the
        shards in this one)."""
        if not self.shard_count or self.shard_ids is None:
            return None
        return Shards(self.shard_count, self.shard_ids)

    def with_overrides(self, **changes: Any) -> Settings:
        """A copy with some settings changed (tests and the demo use this)."""
        return replace(self, **changes)


def token_problem(token: str) -> str | None:
    """What is wrong with the shape of a bot token, or None (the token itself is never shown).

    >>> token_problem("MTIz.abc.def") is None
    True
    >>> token_problem("Bot MTIz.abc.def")
    'DISCORD_TOKEN starts with "Bot ": give the token alone, without that prefix.'
    """
    if token[:1] in "'\"" or token[-1:] in "'\"":
        return "DISCORD_TOKEN is wrapped in quotes: write the token without them."
    if token.lower().startswith("bot "):
        return 'DISCORD_TOKEN starts with "Bot ": give the token alone, without that prefix.'
    if not _TOKEN_SHAPE.fullmatch(token):
        return (
            "DISCORD_TOKEN does not look like a bot token (three parts separated by dots): "
            "copy it again from the Developer Portal (your application > Bot > Reset Token)."
        )
    return None


def unknown_settings(environ: Iterable[str], env_file: Iterable[str] = ()) -> list[str]:
    """Warnings for names that look like settings but are not (a typo is otherwise ignored).

    In the environment: names that start with ``SEQUENCE_`` or are close to a setting's name.
    In the ``.env`` file: every name that is not a setting.

    >>> unknown_settings(["TURN_TIME_LIMT", "PATH", "LOG_LEVEL"])
    ['TURN_TIME_LIMT is not a setting (did you mean TURN_TIME_LIMIT?); it is ignored.']
    """
    warnings = []
    sources = [(name, "") for name in environ] + [(name, " in .env") for name in env_file]
    seen = set(SETTING_NAMES)
    for name, where in sources:
        if name in seen:
            continue
        seen.add(name)
        close = difflib.get_close_matches(name.upper(), SETTING_NAMES, n=1, cutoff=0.85)
        if not (close or where or name.upper().startswith("SEQUENCE_")):
            continue
        hint = f" (did you mean {close[0]}?)" if close else ""
        warnings.append(f"{name}{where} is not a setting{hint}; it is ignored.")
    return warnings


def read_env_file(path: Path) -> dict[str, str]:
    """Parse a ``.env`` file: ``KEY=value`` lines, ``#`` comments, optional quotes.

    UTF-8, with or without the byte order mark Windows editors write first.
    """
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ConfigError(
            f"{path} is not UTF-8 text: save it as UTF-8 (in Notepad: Save as, Encoding UTF-8)."
        ) from None
    values: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("export "):
            line = line[len("export ") :]
        key, sep, value = line.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"{path}:{number}: expected KEY=value.")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        values[key.strip()] = value
    return values


def _postgres_url(url: str) -> str:
    """A usable ``postgresql://`` URL, else :class:`ConfigError` (naming it without password)."""
    reason = url_problem(url)
    if reason:
        raise ConfigError(
            f"SEQUENCE_DATABASE={redact(url)} is not a valid PostgreSQL URL ({reason}): use "
            "postgresql://user:password@host:5432/dbname."
        )
    return url


def _int(
    values: Mapping[str, str],
    name: str,
    default: int,
    *,
    minimum: int,
    maximum: int | None = None,
) -> int:
    raw = values.get(name, "").strip()
    if not raw:
        return default
    try:
        number = int(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not a whole number.") from None
    if number < minimum:
        raise ConfigError(f"{name}={number} is too small: it must be at least {minimum}.")
    if maximum is not None and number > maximum:
        raise ConfigError(
            f"{name}={number} is too long: it must be at most {maximum} seconds "
            f"({format_duration(maximum)})."
        )
    return number


def _within(name: str, default: int, most: int) -> None:
    """The bot's default for tables must be one a server may choose (``MAX_`` + ``name``)."""
    if default > most:
        raise ConfigError(
            f"{name}={default} is longer than MAX_{name}={most}: the default must be within "
            "the longest a server may choose."
        )


def _optional_int(values: Mapping[str, str], name: str, *, minimum: int) -> int | None:
    if not values.get(name, "").strip():
        return None
    return _int(values, name, 0, minimum=minimum)


def _shard_ids(values: Mapping[str, str], count: int | None) -> tuple[int, ...] | None:
    """``SHARD_IDS`` such as ``0-3`` or ``4,5,6,7`` (or both, ``0-1,6``): the shards of this
    process, each below ``SHARD_COUNT``, none twice."""
    raw = values.get("SHARD_IDS", "").strip()
    if not raw:
        return None
    if count is None:
        raise ConfigError(
            f"SHARD_IDS={raw!r} needs SHARD_COUNT: set the total number of shards of the whole "
            "bot (all its processes), like SHARD_COUNT=4 with SHARD_IDS=0-1 here."
        )
    ids: list[int] = []
    for part in raw.split(","):
        first, dash, last = part.strip().partition("-")
        try:
            low, high = int(first), int(last if dash else first)
        except ValueError:
            raise ConfigError(
                f"SHARD_IDS={raw!r} is not a list of shards: write a range like 0-3 or numbers "
                "separated by commas like 4,5,6,7."
            ) from None
        if low > high:
            raise ConfigError(f"SHARD_IDS={raw!r}: the range {part.strip()} runs backwards.")
        ids.extend(range(low, high + 1))
    outside = sorted({i for i in ids if not 0 <= i < count})
    if outside:
        raise ConfigError(
            f"SHARD_IDS={raw!r} names shard {outside[0]}, but SHARD_COUNT={count} has shards "
            f"0 to {count - 1} only."
        )
    if len(set(ids)) != len(ids):
        raise ConfigError(f"SHARD_IDS={raw!r} names a shard twice.")
    return tuple(ids)


def _float(values: Mapping[str, str], name: str, default: float) -> float:
    raw = values.get(name, "").strip()
    if not raw:
        return default
    try:
        number = float(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not a number.") from None
    if not 0 <= number <= 60:
        raise ConfigError(f"{name}={number} must be between 0 and 60 seconds.")
    return number


def _rate(values: Mapping[str, str], name: str, default: tuple[int, int]) -> tuple[int, int]:
    """``uses/seconds`` such as ``4/60``: at most 4 uses in any 60 seconds."""
    raw = values.get(name, "").strip()
    if not raw:
        return default
    uses, sep, seconds = raw.partition("/")
    try:
        rate = (int(uses), int(seconds))
    except ValueError:
        rate = (0, 0)
    if not sep or rate[0] < 1 or rate[1] < 1:
        raise ConfigError(
            f"{name}={raw!r} is not a rate: write uses/seconds with whole numbers of at least 1, "
            "like 4/60."
        )
    return rate
