"""Each server's own settings, chosen by its admins within the bot's (``/sequence-admin``).

A setting's value is read and refused exactly as ``/sequence new`` reads and refuses it
(:func:`~bot.services.durations.parse_duration`, :class:`~bot.table.options.TableOptions`).
The owner's environment (:class:`~bot.config.Settings`) gives the bot's defaults and limits:
a server that stores nothing has them, and a server's value must stay within them. ``set``
and ``reset`` are one transaction each; of two concurrent changes the later wins.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bot.game.echo import echo
from bot.seasons import Plan, PlanError, check_new_dates, stored_plan
from bot.store.seasons import SEASON_PLAN, TIME_AWAY
from bot.table.bank import BANK, BANK_FIELDS, MAX_BANK, is_bank
from bot.table.options import TableOptions

from .caps import CapSettings
from .errors import UserError
from .server_setting_list import SERVER_SETTINGS, ServerSetting, table_ceilings

#: The settings that decide how results are rated: a change recomputes the ratings.
RATING_RULES = (SEASON_PLAN, TIME_AWAY)

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
class TablePlaces:
    """Where a server lets tables be opened: channels or categories (ids; none: anywhere; one
    deleted since is still named here, and the cog ignores it), and whether a new table opens
    in a thread of its own."""

    channels: tuple[int, ...] = ()
    threads: bool = False


@dataclass(frozen=True)
class SettingView:
    """One setting as ``/sequence-admin settings`` shows it."""

    setting: ServerSetting
    value: Any
    #: True: this server's value; False: the bot's default.
    from_server: bool
    #: The limit on the value, in words (the owner's ceiling, or a fixed range; None: none).
    limit: str | None = None


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
    if chosen.get("clock") == BANK:  # a bank table has no time limit per turn
        chosen["turn_time_limit"] = 0
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


def check_clock(clock: str, given: dict[str, Any]) -> None:
    """What a host gave for a new table fits its clock: no time limit per turn with a bank
    clock, no bank options with a clock per turn."""
    if clock == BANK and given.get("turn_time_limit") is not None:
        raise UserError(
            "A bank clock has no time limit per turn: leave out time_limit, or choose clock:turn."
        )
    if clock != BANK and any(given.get(field) is not None for field in BANK_FIELDS):
        raise UserError(
            "bank_start, bank_increment and bank_cap are for a bank clock: add clock:bank."
        )


@dataclass(frozen=True)
class ServerConfig:
    """A server's settings in force, read once from the store: all a command needs of them
    (who may act, where tables open, a new table's options) from that one read."""

    views: tuple[SettingView, ...]
    #: The owner's settings (the ceilings).
    settings: Settings

    def value(self, name: str) -> Any:
        """The value in force of the setting called ``name``."""
        return next(view.value for view in self.views if view.setting.name == name)

    @property
    def roles(self) -> ServerRoles:
        """The roles in force (ids; a role deleted since is still named here: the cog finds
        it missing and ignores it)."""
        return ServerRoles(
            self.value("host_role"),
            self.value("organiser_role"),
            self.value("moderator_role"),
            self.value("looking_role"),
        )

    @property
    def places(self) -> TablePlaces:
        """Where tables may be opened, and whether each opens a thread."""
        return TablePlaces(tuple(self.value("table_channels")), bool(self.value("thread_tables")))

    @property
    def table_defaults(self) -> TableDefaults:
        """The defaults for new tables, and which of them are this server's own."""
        fields = [(v.setting.field, v) for v in self.views if v.setting.field is not None]
        return TableDefaults(
            {field: view.value for field, view in fields},
            frozenset(field for field, view in fields if view.from_server),
        )

    def new_table_options(self, **given: Any) -> TableOptions:
        """The options of a new table: what the host gave (None: not given) over the
        server's defaults (:func:`table_options`). A value the host gave past the owner's
        ceiling is refused, naming it; a server default stored before the owner lowered a
        ceiling is held to it."""
        defaults = self.table_defaults
        values = dict(defaults.values)
        check_clock(given.get("clock") or values.get("clock", "turn"), given)
        capped = table_ceilings()
        for field, ceiling in capped:
            values[field] = ceiling.clamp(values[field], self.settings)
        options = table_options(values, own=defaults.own, **given)
        for field, ceiling in capped:
            if given.get(field) is not None:
                ceiling.check(getattr(options, field), self.settings)
        most = self.settings.max_turn_time_limit
        if is_bank(options) and not options.bank_cap and most < MAX_BANK:
            options = options.but(bank_cap=most)  # no bank holds more than the owner allows
        return options


class ServerSettings:
    """Reads and changes servers' table defaults (``bot.server_settings``)."""

    def __init__(self, db: Store, settings: Settings, clock: Callable[[], float]) -> None:
        self._db = db
        self._settings = settings
        self._clock = clock
        self._watchers: list[Callable[[int, str], Awaitable[None]]] = []

    async def view(self, guild_id: int) -> list[SettingView]:
        """Every setting with its value in force and where it comes from."""
        stored = await self._db.guild_settings.all(guild_id)
        settings = self._settings
        return [
            SettingView(each, stored[name].value, True, each.limit_words(settings))
            if name in stored
            else SettingView(each, each.bot_default(settings), False, each.limit_words(settings))
            for name, each in SERVER_SETTINGS.items()
        ]

    async def values(self, guild_id: int) -> dict[str, Any]:
        """Every setting's value in force in a server, by setting name."""
        return {view.setting.name: view.value for view in await self.view(guild_id)}

    async def defaults(self, guild_id: int) -> dict[str, Any]:
        """The table defaults in force in a server, by :class:`TableOptions` field."""
        return (await self.table_defaults(guild_id)).values

    async def of(self, guild_id: int) -> ServerConfig:
        """A server's settings in force, read once (:class:`ServerConfig`)."""
        return ServerConfig(tuple(await self.view(guild_id)), self._settings)

    async def table_defaults(self, guild_id: int) -> TableDefaults:
        """The table defaults in force in a server, and which of them are its own."""
        return (await self.of(guild_id)).table_defaults

    async def new_table_options(self, guild_id: int, **given: Any) -> TableOptions:
        """The options of a new table of a server (:meth:`ServerConfig.new_table_options`)."""
        return (await self.of(guild_id)).new_table_options(**given)

    def check_ceilings(self, options: TableOptions) -> None:
        """Refuse options past the owner's ceilings (a tournament's tables), naming the one (a
        bank's only with a bank clock)."""
        for field, ceiling in table_ceilings():
            if field not in BANK_FIELDS or is_bank(options):
                ceiling.check(getattr(options, field), self._settings)

    async def caps(self, guild_id: int) -> CapSettings:
        """The limits a server set of its own (0: none; then only the owner's caps apply).
        Its per-person limits count in this server only (:class:`~bot.services.caps.Caps`)."""
        stored = await self._db.guild_settings.all(guild_id)

        def own(name: str) -> int:
            return int(stored[name].value) if name in stored else 0

        return CapSettings(
            lobbies_per_user=own("lobbies_per_person"),
            lobbies_per_server=own("lobbies_per_server"),
            games_per_user=own("games_per_person"),
            tournaments_per_user=own("tournaments_per_person"),
            tournaments_per_server=own("tournaments_per_server"),
        )

    async def roles(self, guild_id: int) -> ServerRoles:
        """The roles in force in a server (:attr:`ServerConfig.roles`)."""
        return (await self.of(guild_id)).roles

    async def places(self, guild_id: int) -> TablePlaces:
        """Where tables may be opened in a server (:attr:`ServerConfig.places`)."""
        return (await self.of(guild_id)).places

    async def leaderboard_days(self, guild_id: int) -> int:
        """The leaderboard's activity window in a server, in days (0: everyone is ranked)."""
        return int((await self.values(guild_id))["leaderboard_active_days"])

    async def away_days(self, guild_id: int) -> int:
        """The days a year a member may be away in a server (0: away is not allowed)."""
        return int((await self.values(guild_id))["away_days"])

    async def set(self, guild_id: int, name: str, text: str, by: int) -> SettingChange:
        """Set a server's value from what an admin typed (one transaction); refused, changing
        nothing, when the setting is unknown, the value is one /sequence new refuses, or it is
        past the owner's ceiling."""
        setting = setting_named(name)
        value = setting.parse(text)
        if setting.field is not None:
            self._check(setting, value, await self.defaults(guild_id))
        if setting.ceiling is not None:
            setting.ceiling.check(value, self._settings)
        now = self._clock()
        if setting.name in RATING_RULES:
            if setting.name == SEASON_PLAN:
                stored = await self._db.guild_settings.all(guild_id)
                earlier = stored[SEASON_PLAN].value if SEASON_PLAN in stored else None
                try:
                    check_new_dates(value, earlier, now)
                except PlanError as error:
                    raise UserError(str(error)) from None
            before = await self._db.season_ends.replan(guild_id, setting.name, value, by, now)
        else:
            before = await self._db.guild_settings.put(guild_id, setting.name, value, by, now)
        await self._changed(guild_id, setting.name)
        return SettingChange(setting, self._or_default(setting, before), value)

    async def reset(self, guild_id: int, name: str) -> SettingChange:
        """Go back to the bot's default (one transaction)."""
        setting = setting_named(name)
        if setting.name in RATING_RULES:
            before = await self._db.season_ends.replan(
                guild_id, setting.name, None, 0, self._clock(), remove=True
            )
        else:
            before = await self._db.guild_settings.remove(guild_id, setting.name)
        await self._changed(guild_id, setting.name)
        return SettingChange(
            setting, self._or_default(setting, before), setting.bot_default(self._settings)
        )

    def watch(self, watcher: Callable[[int, str], Awaitable[None]]) -> None:
        """Call ``watcher(guild_id, setting name)`` after each change (the season clock)."""
        self._watchers.append(watcher)

    async def _changed(self, guild_id: int, name: str) -> None:
        for watcher in self._watchers:
            await watcher(guild_id, name)

    async def season_plan(self, guild_id: int) -> Plan:
        """The server's season plan in force."""
        return stored_plan((await self.values(guild_id))[SEASON_PLAN])

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
