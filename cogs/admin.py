"""``/sequence-admin``: a server's admins choose its table defaults (Manage Server).

A top-level command of its own, so that a server can hand it to a role in Discord's
Integrations page: Discord decides who may use it (Manage Server unless the server says
otherwise), so the cog does not check a permission itself. The service decides; this presents.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.services.server_setting_list import SERVER_SETTINGS, ServerSetting
from bot.services.server_settings import SettingChange, SettingView
from bot.services.setting_values import parse_channels
from bot.table.bank import BANK_FIELDS

from .base import server_id
from .common.answering import answer_errors
from .common.audit_log import LOG_CHANNEL, post_audit_line, require_log_channel
from .common.champion import season_check_lines
from .common.replies import reply, reply_lines
from .common.table_channels import check_report, require_listable

if TYPE_CHECKING:
    from bot.app import SequenceBot


#: Settings are offered in this order of their kinds when nothing is typed (Discord shows 25 at
#: most): the limits and a bank clock's options, set least often, last (typing ``bank`` or
#: ``per`` finds them); a kind not named here comes before them.
_LAST = ("limit",)


def settings_matching(typed: str) -> list[ServerSetting]:
    """The settings whose name holds ``typed``, then those whose description does; with nothing
    typed, every setting, the limits and the bank's options last.

    >>> [each.name for each in settings_matching("thread")]
    ['thread_tables']
    >>> settings_matching("")[-1].kind
    'limit'
    """
    wanted = typed.strip().lower()
    ordered = sorted(
        SERVER_SETTINGS.values(), key=lambda each: each.kind in _LAST or each.field in BANK_FIELDS
    )
    by_name = [each for each in ordered if wanted in each.name]
    return by_name + [
        each for each in ordered if each not in by_name and wanted in each.description.lower()
    ]


def shown(guild: discord.Guild | None, view: SettingView) -> str:
    """A setting's value for the settings view: a role or channel deleted since it was set is
    shown as deleted (and is ignored wherever the setting is used)."""
    kind, value = view.setting.kind, view.value
    if guild is not None and kind == "role" and value and guild.get_role(value) is None:
        return "deleted role (ignored)"
    if guild is not None and kind in ("channel", "channels") and value:
        ids = value if kind == "channels" else (value,)
        return " ".join(
            f"<#{each}>" if guild.get_channel(each) else "deleted channel (ignored)" for each in ids
        )
    return view.setting.show(value)


def audit_line(user: discord.abc.User, change: SettingChange) -> str:
    """Who changed what from what to what, for the channel."""
    show = change.setting.show
    scope = " for new tables" if change.setting.kind == "table" else ""
    return (
        f"⚙️ {user.mention} changed **{change.setting.name}**{scope}: "
        f"{show(change.before)} → {show(change.after)}."
    )


@app_commands.guild_only()
@app_commands.default_permissions(manage_guild=True)
class ServerAdmin(
    commands.GroupCog,
    group_name="sequence-admin",
    group_description="This server's Sequence settings (server admins)",
):
    """``/sequence-admin`` (its failures answered by :mod:`cogs.common.answering`)."""

    def __init__(self, bot: SequenceBot) -> None:
        self.bot = bot
        super().__init__()
        answer_errors(*self.walk_app_commands())

    @app_commands.command(name="settings", description="Every setting, its value and its source")
    async def settings(self, interaction: discord.Interaction[SequenceBot]) -> None:
        views = await self.bot.server_settings.view(server_id(interaction))
        guild = interaction.guild
        lines = ["**This server's settings** (table defaults apply to new tables)"]
        for view in views:
            source = "this server" if view.from_server else "the bot's default"
            limit = f"; limit: {view.limit}" if view.limit else ""
            lines.append(f"• `{view.setting.name}`: **{shown(guild, view)}** ({source}{limit})")
        await reply_lines(interaction, lines)  # in as many messages as it takes

    @app_commands.command(name="set", description="Set a default for this server's new tables")
    @app_commands.describe(
        setting="The setting's name", value="Its value, as /sequence new takes it"
    )
    async def set_(
        self, interaction: discord.Interaction[SequenceBot], setting: str, value: str
    ) -> None:
        known = SERVER_SETTINGS.get(setting.strip().lower())
        if known is not None and known.kind == "channels":  # of this server, where tables go
            require_listable(interaction.guild, parse_channels(value))
        if setting.strip().lower() == LOG_CHANNEL:
            require_log_channel(interaction.guild, SERVER_SETTINGS[LOG_CHANNEL].parse(value))
        log_to = await self._log_channel(interaction)
        change = await self.bot.server_settings.set(
            server_id(interaction), setting, value, interaction.user.id
        )
        await post_audit_line(interaction, audit_line(interaction.user, change), log_to)

    @app_commands.command(name="reset", description="Go back to the bot's default")
    @app_commands.describe(setting="The setting's name")
    async def reset(self, interaction: discord.Interaction[SequenceBot], setting: str) -> None:
        log_to = await self._log_channel(interaction)
        change = await self.bot.server_settings.reset(server_id(interaction), setting)
        await post_audit_line(interaction, audit_line(interaction.user, change), log_to)

    @app_commands.command(
        name="check", description="Which permissions I lack where tables may be opened"
    )
    async def check(self, interaction: discord.Interaction[SequenceBot]) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)  # grows with the server
        config = await self.bot.server_settings.of(server_id(interaction))
        assert interaction.guild is not None  # a server-only command
        report = check_report(interaction.guild, config.places.channels)
        seasons = season_check_lines(
            interaction.guild, config.value("season_channel"), config.value("champion_role")
        )
        await reply(interaction, "\n".join([report, *seasons]))

    @set_.autocomplete("setting")
    @reset.autocomplete("setting")
    async def setting_choices(
        self, interaction: discord.Interaction[SequenceBot], current: str
    ) -> list[app_commands.Choice[str]]:
        return [
            app_commands.Choice(name=f"{each.name}: {each.description}"[:100], value=each.name)
            for each in settings_matching(current)
        ][:25]

    async def _log_channel(self, interaction: discord.Interaction[SequenceBot]) -> int | None:
        """Where the audit line of a change goes: the log channel in force as it is made (a
        change of the log channel itself is announced where the old one said)."""
        values = await self.bot.server_settings.values(server_id(interaction))
        log_to: int | None = values[LOG_CHANNEL]
        return log_to


async def setup(bot: SequenceBot) -> None:
    """Load the cog."""
    await bot.add_cog(ServerAdmin(bot))


__all__ = ["ServerAdmin", "audit_line"]
