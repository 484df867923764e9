"""The season's champion role and podium channel as the bot can use them, in words: why a role
cannot be given, what the bot lacks in the season channel (for the podium and for
``/sequence-admin check``)."""

from __future__ import annotations

import discord

from .permissions import live_role


def role_problem(guild: discord.Guild, role_id: int | None) -> str | None:
    """Why the bot cannot give the champion role (None: it can, or no role is set)."""
    if role_id is None:
        return None
    role = live_role(guild, role_id)
    if role is None:
        return "the champion role was deleted: a server admin can set another (champion_role)"
    me = guild.me
    if not me.guild_permissions.manage_roles:
        return f"I lack **Manage Roles**, so I cannot give {role.mention}"
    if role >= me.top_role:
        return (
            f"{role.mention} is not below my highest role ({me.top_role.mention}): a server "
            "admin can move my role above it in the server's roles"
        )
    if role.managed:
        return f"{role.mention} belongs to an integration: nobody can give it"
    return None


def channel_problem(guild: discord.Guild, channel_id: int | None) -> str | None:
    """Why the bot cannot post a podium in the season channel (None: it can, or none is set)."""
    if channel_id is None:
        return None
    channel = guild.get_channel(channel_id)
    if not isinstance(channel, discord.abc.Messageable):
        return "the season channel was deleted: a server admin can set another (season_channel)"
    allowed = channel.permissions_for(guild.me)
    missing = [
        name
        for name, granted in (
            ("View Channel", allowed.view_channel),
            ("Send Messages", allowed.send_messages),
            ("Attach Files", allowed.attach_files),
            ("Read Message History", allowed.read_message_history),
        )
        if not granted
    ]
    if missing:
        return f"in {channel.mention} I lack " + ", ".join(f"**{m}**" for m in missing)
    return None


def season_check_lines(
    guild: discord.Guild, channel_id: int | None, role_id: int | None
) -> list[str]:
    """``/sequence-admin check``'s lines on seasons (none: nothing to say)."""
    lines = []
    where = channel_problem(guild, channel_id)
    if where:
        lines.append(f"⚠️ Season podiums: {where}.")
    why = role_problem(guild, role_id)
    if why:
        lines.append(f"⚠️ Champion role: {why}.")
    return lines
