"""Lobbies: ``/sequence new``, join, leave, switch team, start, cancel (the host's seating
commands, kick, team and addbot, are :mod:`cogs.lobby_seats`).

The lobby's commands and the answers to its message's buttons, which share the same checks and
replies; the message itself is :mod:`cogs.common.lobby_message`, the service that changes a
lobby ``bot/services/lobbies.py``, its ping for players :mod:`cogs.common.looking`.

A server's **host role** (``/sequence-admin set host_role``) gates opening a lobby only: a
member without it (or Manage Server) is refused ``/sequence new``. Once a lobby is open, its
host runs it (add computers, kick, teams, start) whatever their roles: hosting passes to the
next player when the host leaves, and a lobby must not be stuck for want of a role.
"""

from __future__ import annotations

import contextlib
from functools import partial
from typing import Any

import discord
from discord import app_commands

from bot.app import SequenceBot
from bot.services.durations import parse_duration
from bot.services.lobbies import Person
from bot.store.games.records import GameRecord
from bot.store.lobbies import LobbyRecord
from bot.table.options import own_or_bot

from .base import SequenceCog, Subscription, server_id
from .common import own_threads
from .common.answering import Answering
from .common.choices import (
    CLOCK_CHOICES,
    PRESET_CHOICES,
    TEAM_COUNT_CHOICES,
    TIMEOUT_CHOICES,
)
from .common.lobby_message import (
    AddComputerSelect,
    LobbyButton,
    LookingButton,
    game_begins_text,
    lobby_message,
    no_reminder_warning,
)
from .common.looking import call_for_players
from .common.lookup import cog_of, selected
from .common.permissions import live_role, moderates, require_role
from .common.replies import (
    reply,
    require_table_permissions,
    require_thread_member,
    show_answer,
    user_name,
)
from .common.reposting import edit_or_post_anew
from .common.table_channels import require_table_channel
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
        embed, view = await lobby_message(cog.bot.db, lobby)
        await interaction.response.edit_message(embed=embed, view=view)


class LookingButtonClick(Answering, LookingButton, custom_id=LookingButton.ids.format):
    """Answers the host's click on a lobby message's ping for players."""

    async def clicked(self, interaction: discord.Interaction) -> None:
        await call_for_players(interaction, self.lobby_id)


#: The text of a lobby's message (above its embed, which lists the seats).
LOBBY_OPENED = "🎲 A game of **Sequence** is starting! Press **Join** to play."


class Lobby(SequenceCog):
    """Open a table, gather players and teams, and start the game."""

    components = (LobbyButtonClick, AddComputerPick, LookingButtonClick)

    def __init__(self, bot: SequenceBot) -> None:
        super().__init__(bot)
        self.thread_closer = own_threads.ThreadCloser(bot)

    def subscriptions(self) -> list[Subscription]:
        """A table's own thread closes a while after its game ends."""
        return self.thread_closer.subscriptions()

    async def cog_load(self) -> None:
        await super().cog_load()
        for lobby in await self.bot.db.lobbies.list_all():
            self.schedule_expiry(lobby)

    def schedule_expiry(self, lobby: LobbyRecord) -> None:
        """Close the lobby if nobody starts it within its expiry (a tournament
        match's lobby lives by its show-up deadline instead)."""
        if lobby.match is not None:
            return
        # The lobby's own expiry, fixed when it opened (the bot's for one opened before).
        due = lobby.created_at + own_or_bot(
            lobby.options.lobby_expiry, self.bot.settings.lobby_expiry
        )
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
            "House rule: sequences to win (default: the server's, else 2 with 2 teams, 1 with 3; "
            "convoy: 3)"
        ),
        bot_picks_five=(
            "House rule: in a line of 6+, the bot picks the five (default: the server's setting, "
            "no: the mover)"
        ),
        manual_draw=(
            "House rule: draw by hand, and lose the draw if you forget (default: the server's "
            "setting, no)"
        ),
        small_hands="House rule: 2 cards each with 10 or 12 players (default: the server's, no)",
        endless_guard=(
            "A draw when the deck is reshuffled twice with no new sequence (default: the "
            "bot's setting, on)"
        ),
        tabletalk_stands=(
            "House rule: a table-talk call stands without confirmation (default: the server's "
            "setting, no)"
        ),
        time_limit=(
            "Time per turn, like 10m, 12h or 2d (default: the bot's setting, none unless changed)"
        ),
        on_timeout=(
            "What happens when the time runs out (default: the bot's setting, skip unless changed)"
        ),
        clock=(
            "turn: a time limit per turn; bank: a bank of time per player (default: the "
            "server's setting, turn)"
        ),
        bank_start=(
            "Bank clock: the time each player starts with, like 3d (default: the server's, 3d)"
        ),
        bank_increment=(
            "Bank clock: time added to a player's bank after each turn, like 1d (default: the "
            "server's, 1d)"
        ),
        bank_cap="Bank clock: the most a bank holds, like 7d (default: the server's, none: 14d)",
        reminder=(
            "Remind the player to move after this long, like 6h or none (default: the bot's "
            "setting, 12h)"
        ),
        rated="Whether the game counts for ratings (default: the bot's setting, yes)",
        hints="Allow /sequence hint (practice only; unrated; default: the bot's setting, no)",
        thread="Open the table in a new thread of this channel (default: the server's setting)",
    )
    @app_commands.choices(preset=PRESET_CHOICES, on_timeout=TIMEOUT_CHOICES, clock=CLOCK_CHOICES)
    @app_commands.choices(teams=TEAM_COUNT_CHOICES)
    async def new(
        self,
        interaction: discord.Interaction[SequenceBot],
        preset: str | None = None,
        teams: int = 0,
        sequences_to_win: app_commands.Range[int, 1, 4] | None = None,
        bot_picks_five: bool | None = None,
        manual_draw: bool | None = None,
        small_hands: bool | None = None,
        endless_guard: bool | None = None,
        tabletalk_stands: bool | None = None,
        time_limit: str | None = None,
        on_timeout: str | None = None,
        clock: str | None = None,
        bank_start: str | None = None,
        bank_increment: str | None = None,
        bank_cap: str | None = None,
        reminder: str | None = None,
        rated: bool | None = None,
        hints: bool | None = None,
        thread: bool | None = None,
    ) -> None:
        server = server_id(interaction)
        config = await self.bot.server_settings.of(server)  # read once for all of this
        roles, places = config.roles, config.places
        require_role(interaction, roles.host, "open a lobby", "host_role")
        require_table_channel(interaction, places.channels)
        own_thread = own_threads.wants_own_thread(interaction.channel, thread, places.threads)
        if own_thread:
            own_threads.require_thread_permissions(interaction)
        else:
            require_table_permissions(interaction)
            await require_thread_member(interaction)
        options = config.new_table_options(
            preset=preset,
            teams=teams or None,
            sequences_to_win=sequences_to_win,
            engine_chooses_five=bot_picks_five,
            manual_draw=manual_draw,
            small_hands=small_hands,
            endless_play_guard=endless_guard,
            tabletalk_stands=tabletalk_stands,
            turn_time_limit=_seconds(time_limit),
            time_limit_policy=on_timeout,
            clock=clock,
            bank_start=_seconds(bank_start),
            bank_increment=_seconds(bank_increment),
            bank_cap=_seconds(bank_cap),
            reminder_delay=_seconds(reminder),
            hints=hints,
            rated=rated,
        )
        host = Person(interaction.user.id, user_name(interaction.user))
        its_thread = None
        with self.bot.limits.counting(interaction, "new lobby"):  # refusals: free
            looking = live_role(interaction.guild, roles.looking) is not None
            if own_thread:
                lobby, its_thread = await own_threads.open_lobby_in_own_thread(
                    self.bot, interaction, host, options, looking=looking
                )
            else:
                channel_id = interaction.channel_id or 0
                lobby = await self.bot.lobbies.open(
                    server, channel_id, host, options, looking=looking
                )
        embed, view = await lobby_message(self.bot.db, lobby)
        try:
            if its_thread is not None:
                message = await its_thread.send(LOBBY_OPENED, embed=embed, view=view)
            else:
                await interaction.response.send_message(LOBBY_OPENED, embed=embed, view=view)
        except discord.HTTPException:  # nobody saw the lobby: it must not block the channel
            await self.bot.lobbies.expire(lobby.id, lobby.channel_id)
            raise
        self.schedule_expiry(lobby)
        if its_thread is not None:
            await own_threads.announce_table(interaction, its_thread, interaction.user)
        warning = no_reminder_warning(its_thread or interaction.channel, options)
        if warning is not None:
            await interaction.followup.send(warning, ephemeral=True)
        if its_thread is None:
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
            lobby = await lobbies.cancel(channel_id, person.user_id, await moderates(interaction))
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
                embed, view = await lobby_message(self.bot.db, lobby)
                await interaction.response.edit_message(embed=embed, view=view)
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
        embed, view = await lobby_message(self.bot.db, lobby)
        await edit_or_post_anew(
            self.bot,
            lobby.channel_id,
            lobby.message_id,
            lambda message_id: self.bot.lobbies.set_message(lobby, message_id),
            content=LOBBY_OPENED,
            embed=embed,
            view=view,
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


def _seconds(duration: str | None) -> int | None:
    """A duration the host typed, in seconds (None: not given)."""
    return None if duration is None else parse_duration(duration)


async def setup(bot: SequenceBot) -> None:
    """Load the cog."""
    await bot.add_cog(Lobby(bot))
