"""Where the audit line of a settings change goes: the server's log channel (``log_channel``),
or the channel where the change was made.

The change is saved before anything is posted: when the log channel refuses the line (the bot
may not see it or post there, it was deleted, Discord fails), the line is posted where the
change was made and the admin is told why. A log channel deleted since it was set is ignored.
"""

from __future__ import annotations

import contextlib

import discord

from bot.services.errors import UserError

from .replies import reply

#: The setting that names the log channel.
LOG_CHANNEL = "log_channel"

#: Discord's error codes a post in the log channel may meet, in words.
REFUSALS = {
    50001: "the bot cannot see that channel",
    50013: "the bot may not post there",
    10003: "that channel no longer exists",
    50083: "that thread is archived",
    160005: "that thread is locked",
}

_QUIET = discord.AllowedMentions.none()


def log_channel(
    guild: discord.Guild | None, channel_id: int | None
) -> discord.abc.Messageable | None:
    """The log channel, if one is set and the server still has it (None: post in place)."""
    if guild is None or channel_id is None:
        return None
    channel = guild.get_channel(channel_id)
    return channel if isinstance(channel, discord.abc.Messageable) else None


def require_log_channel(guild: discord.Guild | None, channel_id: int | None) -> None:
    """Refuse, changing nothing, a log channel that is not a channel of this server that can
    hold messages (a category, a forum, another server's channel; a thread, which archives
    itself and would then look deleted)."""
    if channel_id is None or guild is None:
        return
    channel = guild.get_channel(channel_id)
    if channel is None and guild.get_thread(channel_id) is not None:
        raise UserError(f"<#{channel_id}> is a thread: name a text channel.")
    if channel is None:
        raise UserError(f"<#{channel_id}> is not a channel of this server.")
    if not isinstance(channel, discord.abc.Messageable):
        raise UserError(f"{channel.mention} cannot hold messages: name a text channel.")


def why_not(error: discord.HTTPException) -> str:
    """Why Discord refused a post, in words."""
    if error.code in REFUSALS:
        return REFUSALS[error.code]
    if isinstance(error, discord.Forbidden):
        return "the bot may not post there"
    if isinstance(error, discord.NotFound):
        return "that channel no longer exists"
    return f"Discord answered {error.status}"


async def post_audit_line(
    interaction: discord.Interaction, line: str, channel_id: int | None
) -> None:
    """Post ``line`` in the log channel ``channel_id`` (the admin gets an ephemeral
    confirmation), or where the change was made when none is set, it was deleted, it is this
    channel, or Discord refuses the post there (the admin is told why and where it went)."""
    channel = log_channel(interaction.guild, channel_id)
    if channel is None or channel_id == interaction.channel_id:
        with contextlib.suppress(discord.HTTPException):
            await reply(interaction, line, ephemeral=False, allowed_mentions=_QUIET)
        return
    with contextlib.suppress(discord.HTTPException):  # Discord may be slow: answer first
        await interaction.response.defer(ephemeral=True, thinking=True)
    mention = f"<#{channel_id}>"
    try:
        await channel.send(line, allowed_mentions=_QUIET)
    except discord.HTTPException as error:
        with contextlib.suppress(discord.HTTPException):
            await interaction.edit_original_response(
                content=f"{line}\n⚠️ Saved, but the audit line could not be posted in {mention} "
                f"({why_not(error)}): it is posted here instead."
            )
            await interaction.followup.send(line, allowed_mentions=_QUIET)
        return
    with contextlib.suppress(discord.HTTPException):
        await interaction.edit_original_response(content=f"{line}\n📒 Posted in {mention}.")
