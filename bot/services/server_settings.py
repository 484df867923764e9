"""Each server's own settings, chosen by its admins within the bot's (``/sequence-admin``).

A setting's value is read and refused exactly as ``/sequence new`` reads and refuses it
(:func:`~bot.services.durations.parse_duration`, :class:`~bot.table.options.TableOptions`).
The owner's environment (:class:`~bot.config.Settings`) gives the bot's defaults and limits:
a server that stores nothing has them, and a server's value must stay within them. ``set``
and ``reset`` are one transaction each; of two concurrent changes the later wins.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bot.game.echo import echo
from bot.table.options import TableOptions

from .errors import UserError
from .server_setting_list import SERVER_SETTINGS, ServerSetting

if TYPE_CHECKING:
    from bot.config import Settings
    from bot.store.base import Store


@dataclass(frozen=True)
class ServerRoles:
    """The roles a server gave the bot's jobs (None: no role set)."""

    host: int | None = None
    organiser: int | None = None
    moderator: int | None = None
    looking: int | None = None


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


@dataclass(frozen=True)
class TableDefaults:
    """A server's defaults for new tables, by :class:`TableOptions` field."""

    values: dict[str, Any]
    #: The fields whose default is this server's own (the others are the bot's).
    own: frozenset[str] = frozenset()


def table_options(
    values: dict[str, Any], *, own: Collection[str] = (), **given: Any
) -> TableOptions:
    """The options of a new table: ``given`` (what the host chose, None for not given) over
    ``values`` (the server's defaults by field); hints make a table unrated, as in
    ``/sequence new``, unless the host asked for a rated table and not for hints (the server's
    hints then give way). Validated: a clear :class:`UserError` when they do not fit. The
    table records which of its options are this server's (``own``: the fields the server set)
    in :attr:`TableOptions.server_fields`.

    >>> server = {"hints": True, "rated": True}
    >>> table_options(server).rated, table_options(server, rated=True).hints
    (False, False)
    >>> table_options(server, own=("hints", "rated")).server_fields
    ('hints',)
    """
    chosen = dict(values)
    chosen.update({field: value for field, value in given.items() if value is not None})
    if given.get("rated") and given.get("hints") is None:  # a rated table the host asked for
        chosen["hints"] = False
    if chosen.get("hints"):
        chosen["rated"] = False
    chosen["server_fields"] = tuple(
        field
        for field in values
        if field in own and given.get(field) is None and chosen[field] == values[field]
    )
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

    async def values(self, guild_id: int) -> dict[str, Any]:
        """Every setting's value in force in a server, by setting name."""
        return {view.setting.name: view.value for view in await self.view(guild_id)}

    async def defaults(self, guild_id: int) -> dict[str, Any]:
        """The table defaults in force in a server, by :class:`TableOptions` field."""
        return (await self.table_defaults(guild_id)).values

    async def table_defaults(self, guild_id: int) -> TableDefaults:
        """The table defaults in force in a server, and which of them are its own."""
        views = await self.view(guild_id)
        fields = [(view.setting.field, view) for view in views if view.setting.field is not None]
        return TableDefaults(
            {field: view.value for field, view in fields},
            frozenset(field for field, view in fields if view.from_server),
        )

    async def roles(self, guild_id: int) -> ServerRoles:
        """The roles in force in a server (ids; a role deleted since is still named here: the
        cog finds it missing and ignores it)."""
        values = await self.values(guild_id)
        return ServerRoles(
            values["host_role"],
            values["organiser_role"],
            values["moderator_role"],
            values["looking_role"],
        )

    async def set(self, guild_id: int, name: str, text: str, by: int) -> SettingChange:
        """Set a server's value from what an admin typed (one transaction); refused, changing
        nothing, when the setting is unknown or the value is one /sequence new refuses."""
        setting = setting_named(name)
        value = setting.parse(text)
        if setting.field is not None:
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
        """Refuse a table default as /sequence new would: the options it makes must be valid."""
        assert setting.field is not None
        table_options(defaults, **{setting.field: value})
