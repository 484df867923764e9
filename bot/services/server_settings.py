"""Each server's own table defaults, chosen by its admins within the bot's (``/sequence-admin``).

A setting's value is read and refused exactly as ``/sequence new`` reads and refuses it
(:func:`~bot.services.durations.parse_duration`, :class:`~bot.table.options.TableOptions`).
The owner's environment (:class:`~bot.config.Settings`) gives the bot's defaults and limits:
a server that stores nothing has them, and a server's value must stay within them. ``set``
and ``reset`` are one transaction each; of two concurrent changes the later wins.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bot.game.echo import echo
from bot.table.options import MAX_TURN_TIMER, POLICIES, TableOptions, format_duration

from .durations import parse_duration
from .errors import UserError

if TYPE_CHECKING:
    from bot.config import Settings
    from bot.store.base import Store

_YES = ("yes", "y", "true", "on", "1")
_NO = ("no", "n", "false", "off", "0")


def _parse_bool(text: str) -> bool:
    cleaned = text.strip().lower()
    if cleaned in _YES:
        return True
    if cleaned in _NO:
        return False
    raise UserError(f"{echo(text)} is not yes or no.")


def _parse_choice(choices: tuple[str, ...]) -> Callable[[str], str]:
    def parse(text: str) -> str:
        cleaned = text.strip().lower()
        if cleaned not in choices:
            raise UserError(f"{echo(text)} is not one of: {', '.join(choices)}.")
        return cleaned

    return parse


def _show_duration(value: Any) -> str:
    return format_duration(value) if value else "none"


def _show_bool(value: Any) -> str:
    return "yes" if value else "no"


@dataclass(frozen=True)
class ServerSetting:
    """A table default a server may set: its name, the :class:`TableOptions` field it fills."""

    name: str
    description: str
    field: str
    parse: Callable[[str], Any]
    show: Callable[[Any], str]
    #: The bot's default (from the owner's settings).
    bot_default: Callable[[Settings], Any]
    #: The owner's limit, in words (None: only the values /sequence new accepts).
    limit: str | None = None


#: The settings a server may set, by name (the names ``/sequence-admin set`` completes).
SERVER_SETTINGS: dict[str, ServerSetting] = {
    each.name: each
    for each in (
        ServerSetting(
            "time_limit",
            "Time per turn (like 10m, 12h, 2d, or none)",
            "turn_time_limit",
            parse_duration,
            _show_duration,
            lambda s: s.turn_time_limit,
            f"at most {format_duration(MAX_TURN_TIMER)}",
        ),
        ServerSetting(
            "on_timeout",
            "What happens when a turn's time runs out",
            "time_limit_policy",
            _parse_choice(POLICIES),
            str,
            lambda s: s.time_limit_policy,
        ),
        ServerSetting(
            "reminder",
            "Remind the player to move after this long (or none)",
            "reminder_delay",
            parse_duration,
            _show_duration,
            lambda s: s.reminder_delay,
            f"at most {format_duration(MAX_TURN_TIMER)}",
        ),
        ServerSetting(
            "rated",
            "Whether games count for ratings",
            "rated",
            _parse_bool,
            _show_bool,
            lambda s: True,
        ),
        ServerSetting(
            "hints",
            "Allow /sequence hint (makes the game unrated)",
            "hints",
            _parse_bool,
            _show_bool,
            lambda s: False,
        ),
        ServerSetting(
            "endless_guard",
            "A draw when the deck is reshuffled twice with no new sequence",
            "endless_play_guard",
            _parse_bool,
            _show_bool,
            lambda s: True,
        ),
        ServerSetting(
            "preset",
            "classic (official rules) or convoy",
            "preset",
            _parse_choice(("classic", "convoy")),
            str,
            lambda s: "classic",
        ),
    )
}


@dataclass(frozen=True)
class SettingView:
    """One setting as ``/sequence-admin settings`` shows it."""

    setting: ServerSetting
    value: Any
    #: True: this server's value; False: the bot's default.
    from_server: bool


@dataclass(frozen=True)
class SettingChange:
    """What a ``set`` or ``reset`` did, for its audit line."""

    setting: ServerSetting
    before: Any
    after: Any


def setting_named(name: str) -> ServerSetting:
    """The setting called ``name``; a clear error naming the known ones otherwise."""
    setting = SERVER_SETTINGS.get(name.strip().lower())
    if setting is None:
        known = ", ".join(SERVER_SETTINGS)
        raise UserError(f"There is no setting {echo(name)}. The settings are: {known}.")
    return setting


def table_options(values: dict[str, Any], **given: Any) -> TableOptions:
    """The options of a new table: ``given`` (what the host chose, None for not given) over
    ``values`` (the server's defaults by field); hints make a table unrated, as in
    ``/sequence new``, unless the host asked for a rated table and not for hints (the server's
    hints then give way). Validated: a clear :class:`UserError` when they do not fit.

    >>> server = {"hints": True, "rated": True}
    >>> table_options(server).rated, table_options(server, rated=True).hints
    (False, False)
    """
    chosen = dict(values)
    chosen.update({field: value for field, value in given.items() if value is not None})
    if given.get("rated") and given.get("hints") is None:  # a rated table the host asked for
        chosen["hints"] = False
    if chosen.get("hints"):
        chosen["rated"] = False
    return TableOptions(**chosen)


class ServerSettings:
    """Reads and changes servers' table defaults (``bot.server_settings``)."""

    def __init__(self, db: Store, settings: Settings, clock: Callable[[], float]) -> None:
        self._db = db
        self._settings = settings
        self._clock = clock

    async def view(self, guild_id: int) -> list[SettingView]:
        """Every setting with its value in force and where it comes from."""
        stored = await self._db.guild_settings.all(guild_id)
        return [
            SettingView(each, stored[name].value, True)
            if name in stored
            else SettingView(each, each.bot_default(self._settings), False)
            for name, each in SERVER_SETTINGS.items()
        ]

    async def defaults(self, guild_id: int) -> dict[str, Any]:
        """The table defaults in force in a server, by :class:`TableOptions` field."""
        return {view.setting.field: view.value for view in await self.view(guild_id)}

    async def set(self, guild_id: int, name: str, text: str, by: int) -> SettingChange:
        """Set a server's value from what an admin typed (one transaction); refused, changing
        nothing, when the setting is unknown or the value is one /sequence new refuses."""
        setting = setting_named(name)
        value = setting.parse(text)
        self._check(setting, value, await self.defaults(guild_id))
        before = await self._db.guild_settings.put(guild_id, setting.name, value, by, self._clock())
        return SettingChange(setting, self._or_default(setting, before), value)

    async def reset(self, guild_id: int, name: str) -> SettingChange:
        """Go back to the bot's default (one transaction)."""
        setting = setting_named(name)
        before = await self._db.guild_settings.remove(guild_id, setting.name)
        return SettingChange(
            setting, self._or_default(setting, before), setting.bot_default(self._settings)
        )

    async def configured_servers(self) -> frozenset[int]:
        """The servers (of this process's shards) with a setting of their own."""
        return frozenset(await self._db.guild_settings.servers())

    async def forget_server(self, guild_id: int) -> None:
        """The bot left a server: its settings go with its other data."""
        await self._db.guild_settings.forget_server(guild_id)

    def names(self) -> Iterable[str]:
        """The settings' names, in order."""
        return SERVER_SETTINGS.keys()

    def _or_default(self, setting: ServerSetting, stored: Any) -> Any:
        return setting.bot_default(self._settings) if stored is None else stored

    @staticmethod
    def _check(setting: ServerSetting, value: Any, defaults: dict[str, Any]) -> None:
        """Refuse a value as /sequence new would: the table options it makes must be valid."""
        table_options(defaults, **{setting.field: value})
