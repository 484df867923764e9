"""Lobbies: ``/sequence new``, join, leave, switch team, kick, add computers, start, cancel.

The lobby's commands and the answers to its message's buttons, which share the same checks and
replies; the message itself is :mod:`cogs.common.lobby_message`, the service that changes a
lobby ``bot/services/lobbies.py``.
"""

from __future__ import annotations

import contextlib
from functools import partial
from typing import Any

import discord
from discord import app_commands

from bot.app import SequenceBot
from bot.services.durations import parse_duration
from bot.services.errors import UserError
from bot.services.lobbies import Person
from bot.services.server_settings import table_options
from bot.store.games.records import GameRecord
from bot.store.lobbies import LobbyRecord

from .base import SequenceCog, server_id
from .common.answering import Answering
from .common.choices import (
    LEVEL_CHOICES,
    PRESET_CHOICES,
    TEAM_CHOICES,
    TEAM_COUNT_CHOICES,
    TIMEOUT_CHOICES,
)
from .common.describe import team_label
from .common.lobby_message import (
    AddComputerSelect,
    LobbyButton,
    game_begins_text,
    lobby_embed,
    lobby_view,
    no_reminder_warning,
)
from .common.lookup import cog_of, selected
from .common.replies import (
    can_manage,
    reply,
    require_table_permissions,
    require_thread_member,
    show_answer,
    user_name,
)
from .common.reposting import edit_or_post_anew
from .common.threads import edit_message


class LobbyButtonClick(Answering, LobbyButton, custom_id=LobbyButton.ids.format):
    """Answers a click on a lobby message's button."""

    async def clicked(self, interaction: discord.Interaction) -> None:
        cog = cog_of(interaction, Lobby)
        await cog.bot.lobbies.for_button(interaction.channel_id or 0, self.lobby_id)
        await cog.run_action(interaction, self.action, edit=True)


class AddComputerPick(Answering, AddComputerSelect, custom_id=AddComputerSelect.ids.format):
    """Answers the host's pick in a lobby message's computer-player menu."""

    async def clicked(self, interaction: discord.Interaction) -> None:
        cog = cog_of(interaction, Lobby)
        level = selected(interaction) or "medium"
        await cog.bot.lobbies.for_button(interaction.channel_id or 0, self.lobby_id)
        lobby = await cog.bot.lobbies.add_computer(
            interaction.channel_id or 0, interaction.user.id, level
        )
        await interaction.response.edit_message(embed=lobby_embed(lobby), view=lobby_view(lobby))


#: The text of a lobby's message (above its embed, which lists the seats).
LOBBY_OPENED = "🎲 A game of **Sequence** is starting! Press **Join** to play."


class Lobby(SequenceCog):
    """Open a table, gather players and teams, and start the game."""

    components = (LobbyButtonClick, AddComputerPick)

    async def cog_load(self) -> None:
        await super().cog_load()
        for lobby in await self.bot.db.lobbies.list_all():
            self.schedule_expiry(lobby)

    def schedule_expiry(self, lobby: LobbyRecord) -> None:
        """Close the lobby if nobody starts it within the configured time (a tournament
        match's lobby lives by its show-up deadline instead)."""
        if lobby.match is not None:
            return
        due = lobby.created_at + self.bot.settings.lobby_expiry
        self.bot.scheduler.at(("lobby", lobby.id), due, partial(self._expire, lobby))

    async def _expire(self, lobby: LobbyRecord) -> None:
        current = await self.bot.lobbies.expire(lobby.id, lobby.channel_id)
        if current is not None:
            await self.close_message(current, "⌛ This lobby expired before it started.")

    # ------------------------------------------------------------------ commands
    @app_commands.command(name="new", description="Open a Sequence lobby in this channel or thread")
    @app_commands.describe(
        preset=(
            "classic (official rules) or convoy (the 3-convoy variant) (default: the bot's "
            "setting, classic)"
        ),
        teams="2 or 3 teams, or automatic",
        sequences_to_win=(
            "House rule: sequences needed to win (default: 2 with 2 teams, 1 with 3; convoy: 3)"
        ),
        bot_picks_five="House rule: in a line of 6+, the bot picks the five (default: the mover)",
        manual_draw="House rule: draw by hand, and lose the draw if you forget",
        small_hands="House rule: 2 cards each with 10 or 12 players",
        endless_guard=(
            "A draw when the deck is reshuffled twice with no new sequence (default: the "
            "bot's setting, on)"
        ),
        tabletalk_stands="House rule: a table-talk call stands without confirmation",
        time_limit=(
            "Time per turn, like 10m, 12h or 2d (default: the bot's setting, none unless changed)"
        ),
        on_timeout=(
            "What happens when the time runs out (default: the bot's setting, skip unless changed)"
        ),
        reminder=(
            "Remind the player to move after this long, like 6h or none (default: the bot's "
            "setting, 12h)"
        ),
        rated="Whether the game counts for ratings (default: the bot's setting, yes)",
        hints="Allow /sequence hint (practice only; unrated; default: the bot's setting, no)",
    )
    @app_commands.choices(preset=PRESET_CHOICES, on_timeout=TIMEOUT_CHOICES)
    @app_commands.choices(teams=TEAM_COUNT_CHOICES)
    async def new(
        self,
        interaction: discord.Interaction[SequenceBot],
        preset: str | None = None,
        teams: int = 0,
        sequences_to_win: app_commands.Range[int, 1, 4] | None = None,
        bot_picks_five: bool = False,
        manual_draw: bool = False,
        small_hands: bool = False,
        endless_guard: bool | None = None,
        tabletalk_stands: bool = False,
        time_limit: str | None = None,
        on_timeout: str | None = None,
        reminder: str | None = None,
        rated: bool | None = None,
        hints: bool | None = None,
    ) -> None:
        require_table_permissions(interaction)
        await require_thread_member(interaction)
        defaults = await self.bot.server_settings.table_defaults(server_id(interaction))
        options = table_options(
            defaults.values,
            own=defaults.own,
            preset=preset,
            teams=teams or None,
            sequences_to_win=sequences_to_win,
            engine_chooses_five=bot_picks_five,
            manual_draw=manual_draw,
            small_hands=small_hands,
            endless_play_guard=endless_guard,
            tabletalk_stands=tabletalk_stands,
            turn_time_limit=None if time_limit is None else parse_duration(time_limit),
            time_limit_policy=on_timeout,
            reminder_delay=None if reminder is None else parse_duration(reminder),
            hints=hints,
            rated=rated,
        )
        host = Person(interaction.user.id, user_name(interaction.user))
        with self.bot.limits.counting(interaction, "new lobby"):  # refusals: free
            lobby = await self.bot.lobbies.open(
                server_id(interaction), interaction.channel_id or 0, host, options
            )
        try:
            await interaction.response.send_message(
                LOBBY_OPENED,
                embed=lobby_embed(lobby),
                view=lobby_view(lobby),
            )
        except discord.HTTPException:  # nobody saw the lobby: it must not block the channel
            await self.bot.lobbies.expire(lobby.id, lobby.channel_id)
            raise
        self.schedule_expiry(lobby)
        warning = no_reminder_warning(interaction.channel, options)
        if warning is not None:
            await interaction.followup.send(warning, ephemeral=True)
        message = await interaction.original_response()
        current = await self.bot.lobbies.set_message(lobby, message.id)
        if current is not None and current.seats != lobby.seats:  # changed as it was posted
            await self.refresh_message(current)

    @app_commands.command(name="join", description="Join the lobby in this channel")
    async def join(self, interaction: discord.Interaction[SequenceBot]) -> None:
        await self.run_action(interaction, "join", edit=False)

    @app_commands.command(name="leave", description="Leave the lobby in this channel")
    async def leave(self, interaction: discord.Interaction[SequenceBot]) -> None:
        await self.run_action(interaction, "leave", edit=False)

    @app_commands.command(name="start", description="Start the game (host only)")
    async def start(self, interaction: discord.Interaction[SequenceBot]) -> None:
        await self.run_action(interaction, "start", edit=False)

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
        await self.refresh_message(lobby)

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
        await self.refresh_message(lobby)

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
        await self.refresh_message(lobby)

    # ------------------------------------------------------------------ actions
    async def run_action(
        self, interaction: discord.Interaction, action: str, *, edit: bool
    ) -> None:
        """Join, leave, switch, start or cancel, from a button (``edit``) or a command."""
        channel_id = interaction.channel_id or 0
        person = Person(interaction.user.id, user_name(interaction.user))
        lobbies = self.bot.lobbies
        if action == "start":
            require_table_permissions(interaction)
            await require_thread_member(interaction)
            record = await lobbies.start(channel_id, person.user_id)
            await self.begin(interaction, record, edit=edit)
            return
        if action == "cancel":
            lobby = await lobbies.cancel(
                channel_id, person.user_id, can_manage(interaction, "manage_channels")
            )
            await self._respond(interaction, edit, "The lobby was cancelled.", None, closed=True)
            if not edit:
                await self.close_message(lobby)
            return
        if action == "join":
            lobby = await lobbies.join(channel_id, person)
            note = f"{person.name} joined."
        elif action == "leave":
            lobby, still_open = await lobbies.leave(channel_id, person.user_id)
            if not still_open:
                note = "Everyone left: the lobby is closed."
                await self._respond(interaction, edit, note, None, closed=True)
                if not edit:
                    await self.close_message(lobby, f"🚪 {note}")
                return
            note = f"{person.name} left."
        else:
            lobby = await lobbies.switch_team(channel_id, person.user_id)
            note = f"{person.name} switched teams."
        await self._respond(interaction, edit, note, lobby)

    async def _respond(
        self,
        interaction: discord.Interaction,
        edit: bool,
        note: str,
        lobby: LobbyRecord | None,
        *,
        closed: bool = False,
    ) -> None:
        if edit:
            if closed:  # closed all the same if Discord refuses: its message says so
                await show_answer(interaction, f"🚪 {note}", None, embed=None)
            else:
                assert lobby is not None  # only a closed lobby is gone
                await interaction.response.edit_message(
                    embed=lobby_embed(lobby), view=lobby_view(lobby)
                )
            return
        await reply(interaction, note)
        if lobby is not None:
            await self.refresh_message(lobby)

    async def refresh_message(self, lobby: LobbyRecord) -> None:
        """Edit the lobby message after a change made by a command."""
        if lobby.message_id is None:
            return
        # The lobby itself is saved; if Discord refuses, the next change edits the message
        # again. One that may be edited no more is posted anew.
        await edit_or_post_anew(
            self.bot,
            lobby.channel_id,
            lobby.message_id,
            lambda message_id: self.bot.lobbies.set_message(lobby, message_id),
            content=LOBBY_OPENED,
            embed=lobby_embed(lobby),
            view=lobby_view(lobby),
        )

    async def close_message(
        self, lobby: LobbyRecord, text: str = "🚪 The lobby was cancelled."
    ) -> None:
        """Strip the buttons from a closed lobby's message (its thread unarchived if need be)."""
        if lobby.message_id is None:
            return
        with contextlib.suppress(discord.HTTPException):
            await edit_message(
                self.bot, lobby.channel_id, lobby.message_id, content=text, embed=None, view=None
            )

    async def begin(
        self, interaction: discord.Interaction, record: GameRecord, *, edit: bool
    ) -> None:
        """The game has started: say who deals and who starts (the table posts the board)."""
        text = game_begins_text(record)
        if edit:
            with contextlib.suppress(discord.HTTPException):
                await interaction.response.edit_message(content=text, embed=None, view=None)
                return
            # Discord refused the answer, but the game has begun: the lobby message says so.
            await self._edit_lobby_message(record, content=text, embed=None, view=None)
            return
        await reply(interaction, text, ephemeral=False)
        await self._edit_lobby_message(record, view=None)

    async def _edit_lobby_message(self, record: GameRecord, **fields: Any) -> None:
        """Edit a started game's lobby message, if it has one and Discord lets us."""
        if not record.lobby_message_id:
            return
        with contextlib.suppress(discord.HTTPException):
            await edit_message(self.bot, record.channel_id, record.lobby_message_id, **fields)


async def setup(bot: SequenceBot) -> None:
    """Load the cog."""
    await bot.add_cog(Lobby(bot))
