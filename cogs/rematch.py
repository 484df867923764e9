"""Rematch: the final board's **Rematch** button, and the rematch lobby's **Accept**,
**Decline** and seating menu (the service: :mod:`bot.services.rematch`; the components as sent:
:mod:`cogs.common.rematch_message`). The lobby is an ordinary lobby besides: Join, Leave, Start
and its expiry are the Lobby cog's."""

from __future__ import annotations

import discord

from bot.app import SequenceBot
from bot.store.lobbies import LobbyRecord

from .base import SequenceCog
from .common.answering import Answering
from .common.lobby_message import lobby_embed, lobby_view
from .common.lookup import cog_of, selected
from .common.rematch_message import (
    RematchAnswerButton,
    RematchButton,
    SeatingSelect,
    rematch_button,
)
from .common.replies import require_table_permissions, require_thread_member
from .common.table import PINGS
from .lobby import Lobby


def rematch_opened_text(lobby: LobbyRecord) -> str:
    """The rematch lobby's message text: who asked, and who is asked to accept."""
    assert lobby.rematch is not None
    asked = ", ".join(f"<@{user}>" for user in lobby.rematch.waiting)
    text = f"🔁 <@{lobby.host_id}> asks for a **rematch**!"
    if asked:
        text += f" {asked}: press **Accept** to keep your seat, or **Decline** to free it."
    return text


class RematchClick(Answering, RematchButton, custom_id=RematchButton.ids.format):
    """Answers a click on a final board's Rematch: the rematch's lobby opens here."""

    async def clicked(self, interaction: discord.Interaction) -> None:
        cog = cog_of(interaction, Rematch)
        require_table_permissions(interaction)
        await require_thread_member(interaction)
        bot = cog.bot
        with bot.limits.counting(interaction, "rematch"):  # refusals: free
            lobby = await bot.lobbies.open_rematch(self.game, interaction.user.id)
        lobbies = cog_of(interaction, Lobby)
        try:
            await interaction.response.send_message(
                rematch_opened_text(lobby),
                embed=lobby_embed(lobby),
                view=lobby_view(lobby),
                allowed_mentions=PINGS,
            )
        except discord.HTTPException:  # nobody saw the lobby: it must not block the channel
            await bot.lobbies.expire(lobby.id, lobby.channel_id)
            raise
        lobbies.schedule_expiry(lobby)
        message = await interaction.original_response()
        current = await bot.lobbies.set_message(lobby, message.id)
        if current is not None and current.seats != lobby.seats:  # changed as it was posted
            await lobbies.refresh_message(current)


class RematchAnswerClick(Answering, RematchAnswerButton, custom_id=RematchAnswerButton.ids.format):
    """Answers Accept or Decline on a rematch lobby."""

    async def clicked(self, interaction: discord.Interaction) -> None:
        lobbies = cog_of(interaction, Rematch).bot.lobbies
        channel_id, user_id = interaction.channel_id or 0, interaction.user.id
        if self.answer == "accept":
            lobby = await lobbies.accept_rematch(channel_id, self.lobby_id, user_id)
        else:
            lobby = await lobbies.decline_rematch(channel_id, self.lobby_id, user_id)
        await interaction.response.edit_message(embed=lobby_embed(lobby), view=lobby_view(lobby))


class SeatingPick(Answering, SeatingSelect, custom_id=SeatingSelect.ids.format):
    """Answers the host's pick in a rematch lobby's seating menu."""

    async def clicked(self, interaction: discord.Interaction) -> None:
        lobbies = cog_of(interaction, Rematch).bot.lobbies
        lobby = await lobbies.arrange_rematch(
            interaction.channel_id or 0, self.lobby_id, interaction.user.id, selected(interaction)
        )
        await interaction.response.edit_message(embed=lobby_embed(lobby), view=lobby_view(lobby))


class Rematch(SequenceCog):
    """Play again: a finished game's Rematch, its lobby's Accept, Decline and seating."""

    components = (RematchClick, RematchAnswerClick, SeatingPick)
    final_board_button = staticmethod(rematch_button)


async def setup(bot: SequenceBot) -> None:
    """Load the cog."""
    await bot.add_cog(Rematch(bot))
