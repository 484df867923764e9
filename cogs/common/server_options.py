"""A table's options that a server may choose (``/sequence-admin``), in words, with those that
came from this server's settings marked: for ``/sequence rules``, ``/sequence status`` and the
lobby. Written over the settings list (:func:`table_settings`), so that a table setting added
there shows here by itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.services.server_setting_list import ServerSetting, table_settings
from bot.services.server_settings import SettingView
from bot.table.bank import BANK, BANK_FIELDS, is_bank
from bot.table.options import TableOptions

#: What marks an option that came from this server's settings.
SERVER_MARK = "this server's default"


def option_words(setting: ServerSetting, value: Any, from_server: bool) -> str:
    """``"time limit 2 h (this server's default)"``; unmarked when not ``from_server``."""
    words = f"{setting.name.replace('_', ' ')} {setting.show(value)}"
    return f"{words} ({SERVER_MARK})" if from_server else words


def table_option_words(options: TableOptions) -> list[str]:
    """Every option a server may set, as in force at a table, marked where it came from the
    server's settings."""
    return [
        option_words(setting, getattr(options, field), field in options.server_fields)
        for setting, field in _fields(options)
    ]


def server_option_words(options: TableOptions) -> list[str]:
    """Only the options of a table that came from the server's settings (unmarked: say so
    around them), for a short message such as the lobby's."""
    return [
        option_words(setting, getattr(options, field), False)
        for setting, field in _fields(options)
        if field in options.server_fields
    ]


def _fields(options: TableOptions) -> list[tuple[ServerSetting, str]]:
    """The table settings with the option each fills (that this table has): a bank's at a
    bank table, the time limit per turn at the others."""
    unused = ("turn_time_limit",) if is_bank(options) else BANK_FIELDS
    return [
        (setting, setting.field)
        for setting in table_settings()
        if setting.field is not None
        and hasattr(options, setting.field)
        and setting.field not in unused
    ]


def new_table_option_words(views: Sequence[SettingView]) -> list[str]:
    """The options a new table of a server gets (its :meth:`ServerSettings.view`), marked
    where they are the server's own."""
    bank = any(view.setting.field == "clock" and view.value == BANK for view in views)
    unused = ("turn_time_limit",) if bank else BANK_FIELDS
    return [
        option_words(view.setting, view.value, view.from_server)
        for view in views
        if view.setting.field is not None and view.setting.field not in unused
    ]
