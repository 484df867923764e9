"""The lobby's **📣 Ping for players** button: the host pings the server's looking-for-game role,
once per lobby (the call, recorded with the lobby: :mod:`bot.services.looking`).

The button is on a lobby that opened while the server had a looking-for-game role
(``/sequence-admin set looking_role``). Discord decides whether the role can be pinged: it must
still exist, and be mentionable or the bot have **Mention Everyone** where the lobby is; if not,
the host is told why and nothing is recorded. The ping mentions that role only (allowed
mentions: no user, no @everyone), says who is looking and for how many more players, and counts
against the rate limits as opening a lobby does (:mod:`cogs.common.cooldowns`).
"""

from __future__ import annotations

import discord

from bot.services.errors import UserError
from bot.store.lobbies import LobbyRecord

from .describe import counted
from .lookup import bot_of
from .permissions import live_role
from .replies import reply

#: The refusal when the server has no (live) looking-for-game role; ``{why}`` for a deleted one.
NO_LOOKING_ROLE = (
    "No looking-for-game role is set in this server{why}: a server admin can set one with "
    "`/sequence-admin set looking_role`."
)


def call_text(role: discord.Role, lobby: LobbyRecord, wanted: int) -> str:
    """The ping: the role, who is looking, for how many more players, and where to join."""
    where = "on the lobby"
    if lobby.message_id is not None:
        link = (
            f"https://discord.com/channels/{lobby.guild_id}/{lobby.channel_id}/{lobby.message_id}"
        )
        where = f"on [the lobby]({link})"
    seated = counted(len(lobby.seats), "player")
    return (
        f"📣 {role.mention}: <@{lobby.host_id}> is looking for "
        f"**{counted(wanted, 'more player')}** for a game of Sequence ({lobby.options.preset}, "
        f"{seated} seated so far). Press **Join** {where}."
    )


def require_may_ping(interaction: discord.Interaction, role: discord.Role) -> None:
    """Refuse when Discord would not ping ``role`` for the bot here: the role is not
    mentionable and the bot lacks Mention Everyone in this channel."""
    granted = interaction.app_permissions
    if role.mentionable or granted.mention_everyone or granted.administrator:
        return
    raise UserError(
        f"I cannot ping {role.mention} here: the role is not mentionable and I lack **Mention "
        "Everyone** in this channel. A server admin can make the role mentionable (Server "
        "Settings › Roles) or give me Mention Everyone here."
    )


async def call_for_players(interaction: discord.Interaction, lobby_id: int) -> None:
    """The host's click on the lobby ``lobby_id``'s ping button: ping the role, once."""
    bot = bot_of(interaction)
    roles = await bot.server_settings.roles(interaction.guild_id or 0)
    role = live_role(interaction.guild, roles.looking)
    if role is None:
        why = " (the one set was deleted)" if roles.looking is not None else ""
        raise UserError(NO_LOOKING_ROLE.format(why=why))
    require_may_ping(interaction, role)
    channel = interaction.channel
    if not isinstance(channel, discord.abc.Messageable):
        raise UserError("I cannot post here.")
    with bot.limits.counting(interaction, "looking ping"):  # refusals: free
        lobby, wanted = await bot.lobbies.call_for_players(
            interaction.channel_id or 0, lobby_id, interaction.user.id
        )
        try:
            await channel.send(
                call_text(role, lobby, wanted),
                allowed_mentions=discord.AllowedMentions(
                    everyone=False, users=False, roles=[role], replied_user=False
                ),
            )
        except discord.HTTPException:  # nobody was pinged: the host may try again
            await bot.lobbies.call_not_posted(lobby)
            raise UserError(
                "Discord refused my post here, so nobody was pinged: try again in a moment."
            ) from None
    await reply(interaction, f"📣 {role.mention} was pinged for this lobby (once per lobby).")
