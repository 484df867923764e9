"""The host's seating of a lobby: ``/sequence kick``, ``/sequence team`` and
``/sequence addbot`` (host only, as the lobby service decides). The lobby's message is
refreshed by the :class:`~cogs.lobby.Lobby` cog."""

from __future__ import annotations

import discord
from discord import app_commands

from bot.app import SequenceBot
from bot.services.errors import UserError

from .base import SequenceCog
from .common.choices import LEVEL_CHOICES, TEAM_CHOICES
from .common.describe import team_label
from .common.replies import reply
from .lobby import Lobby


class LobbySeats(SequenceCog):
    """Who sits where in a lobby, by its host's commands."""

    @property
    def lobby_cog(self) -> Lobby:
        """The lobby cog (it keeps the lobby's message)."""
        cog = self.bot.get_cog(Lobby.__cog_name__)
        if not isinstance(cog, Lobby):
            raise RuntimeError("The Lobby cog is not loaded")
        return cog

    @app_commands.command(
        name="kick", description="Remove a player or a computer from the lobby (host only)"
    )
    @app_commands.describe(
        player="The person to remove", computer="The computer player to remove (pick from the list)"
    )
    async def kick(
        self,
        interaction: discord.Interaction[SequenceBot],
        player: discord.Member | None = None,
        computer: str | None = None,
    ) -> None:
        channel_id, actor_id = interaction.channel_id or 0, interaction.user.id
        if (player is None) == (computer is None):
            raise UserError("Name one player, or one computer player, to remove.")
        if computer is not None:
            lobby, name = await self.bot.lobbies.kick_computer(channel_id, actor_id, computer)
        else:
            assert player is not None
            lobby = await self.bot.lobbies.kick(channel_id, actor_id, player.id)
            name = player.display_name
        await reply(interaction, f"{name} was removed from the lobby.")
        await self.lobby_cog.refresh_message(lobby)

    @kick.autocomplete("computer")
    async def kick_computer_choices(
        self, interaction: discord.Interaction[SequenceBot], current: str
    ) -> list[app_commands.Choice[str]]:
        return await self.computer_choices(interaction, current)

    async def computer_choices(
        self, interaction: discord.Interaction[SequenceBot], current: str
    ) -> list[app_commands.Choice[str]]:
        """The lobby's computer players whose name holds ``current`` (their seat id as value)."""
        lobby = await self.bot.db.lobbies.get_for_channel(interaction.channel_id or 0)
        if lobby is None:
            return []
        wanted = current.casefold()
        return [
            app_commands.Choice(name=seat.name, value=str(seat.user_id))
            for seat in lobby.seats
            if seat.is_computer and wanted in seat.name.casefold()
        ][:25]

    @app_commands.command(
        name="team", description="Put a player or a computer on a team (host only)"
    )
    @app_commands.describe(
        player="The person to move", computer="The computer player to move (pick from the list)"
    )
    @app_commands.choices(team=TEAM_CHOICES)
    async def team(
        self,
        interaction: discord.Interaction[SequenceBot],
        team: int,
        player: discord.Member | None = None,
        computer: str | None = None,
    ) -> None:
        channel_id, actor_id = interaction.channel_id or 0, interaction.user.id
        if (player is None) == (computer is None):
            raise UserError("Name one player, or one computer player, to move.")
        if computer is not None:
            lobby, name = await self.bot.lobbies.set_computer_team(
                channel_id, actor_id, computer, team
            )
        else:
            assert player is not None
            lobby = await self.bot.lobbies.set_team(channel_id, actor_id, player.id, team)
            name = player.display_name
        await reply(interaction, f"{name} now plays for {team_label(team)}.")
        await self.lobby_cog.refresh_message(lobby)

    @team.autocomplete("computer")
    async def team_computer_choices(
        self, interaction: discord.Interaction[SequenceBot], current: str
    ) -> list[app_commands.Choice[str]]:
        return await self.computer_choices(interaction, current)

    @app_commands.command(name="addbot", description="Seat a computer player (host only)")
    @app_commands.choices(level=LEVEL_CHOICES)
    @app_commands.choices(team=TEAM_CHOICES)
    async def addbot(
        self,
        interaction: discord.Interaction[SequenceBot],
        level: str = "medium",
        team: int | None = None,
    ) -> None:
        lobby = await self.bot.lobbies.add_computer(
            interaction.channel_id or 0, interaction.user.id, level, team
        )
        await reply(interaction, f"🤖 {lobby.seats[-1].name} joined the lobby.")
        await self.lobby_cog.refresh_message(lobby)


async def setup(bot: SequenceBot) -> None:
    """Load the cog."""
    await bot.add_cog(LobbySeats(bot))
