"""Who may do what in a server: Discord's permissions and the roles a server gave the bot.

A role setting names a role by id; a role deleted since it was set is ignored (as if none were
set), never a crash. Refusals name the rule and who can change it.
"""

from __future__ import annotations

import discord

from bot.services.errors import UserError
from bot.services.server_settings import ServerRoles

from .lookup import bot_of
from .replies import can_manage

#: The Discord permissions that make a member a moderator of the bot's tables.
MODERATOR_PERMISSIONS = ("manage_channels", "manage_messages", "manage_guild")


def live_role(guild: discord.Guild | None, role_id: int | None) -> discord.Role | None:
    """The role a setting names, if the server still has it (None when unset or deleted)."""
    if guild is None or role_id is None:
        return None
    return guild.get_role(role_id)


def has_role(interaction: discord.Interaction, role: discord.Role) -> bool:
    """Whether the member who acted holds ``role``."""
    user = interaction.user
    return isinstance(user, discord.Member) and any(each.id == role.id for each in user.roles)


def is_moderator(interaction: discord.Interaction, roles: ServerRoles) -> bool:
    """Manage Channels, Manage Messages or Manage Server here, or the server's moderator role."""
    if any(can_manage(interaction, each) for each in MODERATOR_PERMISSIONS):
        return True
    role = live_role(interaction.guild, roles.moderator)
    return role is not None and has_role(interaction, role)


async def moderates(interaction: discord.Interaction) -> bool:
    """:func:`is_moderator` with the server's roles as they are set now (the one check of who
    moderates the bot's tables: table-talk rulings, cancelling a lobby or a game); False
    outside a server."""
    if interaction.guild_id is None:
        return False
    roles = await bot_of(interaction).server_settings.roles(interaction.guild_id)
    return is_moderator(interaction, roles)


def require_role(
    interaction: discord.Interaction, role_id: int | None, doing: str, setting: str
) -> None:
    """Refuse a member without the role a server set for ``doing`` ("open a lobby"); a member
    who may manage the server always may. Nothing to check when no (live) role is set."""
    role = live_role(interaction.guild, role_id)
    if role is None or has_role(interaction, role) or can_manage(interaction, "manage_guild"):
        return
    raise UserError(
        f"In this server only members with the {role.mention} role may {doing}. "
        f"A server admin can change that with `/sequence-admin set {setting}`."
    )
