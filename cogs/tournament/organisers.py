"""``/tournament-admin``: what organisers do: create, start, report, drop and end.

A top-level command of its own, for Manage Server unless a server hands it to others in its
Integrations page (as ``/sequence-admin``), so that entrants keep ``/tournament``
(:mod:`.entrants`) wherever it is. Within that, the bot's own rule (:mod:`.authority`): the
organiser role, when a server sets one, creates tournaments; a tournament is run by its creator,
the organiser role or Manage Server, and ended by those or a moderator. Everyone else is refused
with a clear message, and nothing changes.
"""

from __future__ import annotations

import contextlib
import io
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.seasons import NONE, stored_plan
from bot.services.durations import parse_duration
from bot.services.errors import UserError
from bot.services.lobbies import Person
from bot.services.tournament import (
    DEFAULT_SHOW_UP,
    FORMAT_NAMES,
    TournamentService,
    TournamentSettings,
)
from bot.store.seasons import SEASON_PLAN
from bot.store.tournaments.records import TournamentRecord
from bot.table.options import TableOptions
from bot.table.tournament import BEST_OF, parse_best_of_from
from cogs.common.answering import answer_errors
from cogs.common.replies import reply, require_table_permissions, user_name
from cogs.common.table_channels import require_table_channel

from ..base import server_id
from ..common.choices import PRESET_CHOICES
from ..common.describe import shown_name
from .authority import Authority, authority, require_may_create
from .channel import current_tournament
from .messages import SIGNUP_OPEN, decided_note, signup_embed
from .standings_csv import file_name, standings_csv
from .views import signup_view

if TYPE_CHECKING:
    from bot.app import SequenceBot

    from .tables import TournamentTables

FORMAT_CHOICES = [app_commands.Choice(name=name, value=key) for key, name in FORMAT_NAMES.items()]
BEST_OF_CHOICES = [
    app_commands.Choice(name=f"best of {games}" if games > 1 else "1 game", value=games)
    for games in BEST_OF
]
AWAY_CHOICES = [
    app_commands.Choice(name="allowed (their clock stops, or a computer plays)", value="any"),
    app_commands.Choice(name="only with a computer playing", value="computer"),
    app_commands.Choice(name="not allowed", value="none"),
]
SEEDING_CHOICES = [
    app_commands.Choice(name="by the all-time ratings", value="all_time"),
    app_commands.Choice(name="by the running season's ratings", value="season"),
    app_commands.Choice(name="at random", value="random"),
]
TEAM_SIZE_CHOICES = [
    app_commands.Choice(name="1 player (singles)", value=1),
    app_commands.Choice(name="2 players a team", value=2),
    app_commands.Choice(name="3 players a team", value=3),
]


def require_tournament_permissions(interaction: discord.Interaction) -> None:
    """Refuse where the bot could not announce the rounds, or open and play in match threads."""
    require_table_permissions(
        interaction, "run a tournament", "create_public_threads", "send_messages_in_threads"
    )


async def announce(interaction: discord.Interaction, text: str) -> None:
    """Say what an organiser's change did: to the organiser, privately (the command deferred
    ephemerally, so that a refusal found inside the step stays private), and in the channel,
    as a message of its own. The change is saved: if Discord refuses either, what follows it
    (threads, pairings, results) is still posted."""
    channel = interaction.channel
    if isinstance(channel, discord.abc.Messageable):
        with contextlib.suppress(discord.HTTPException):
            await channel.send(text, allowed_mentions=discord.AllowedMentions.none())
    with contextlib.suppress(discord.HTTPException):
        await reply(interaction, text)


@app_commands.guild_only()
@app_commands.default_permissions(manage_guild=True)
class TournamentOrganisers(
    commands.GroupCog,
    name="TournamentAdmin",
    group_name="tournament-admin",
    group_description="Run Sequence tournaments: round robin, Swiss or single elimination",
):
    """``/tournament-admin`` (its failures answered by :mod:`cogs.common.answering`)."""

    def __init__(
        self, bot: SequenceBot, service: TournamentService, tables: TournamentTables
    ) -> None:
        self.bot = bot
        self.service = service
        self.tables = tables
        super().__init__()
        answer_errors(*self.walk_app_commands())

    async def defer_step(
        self,
        interaction: discord.Interaction,
        tournament: TournamentRecord,
        action: str,
        *,
        ending: bool = False,
    ) -> Authority:
        """Before an organiser's step, which may pair or rank a round past Discord's 3
        seconds: the organiser is checked (a stranger is refused at once), then the command
        defers, ephemerally: its answer is private, its news posted in the channel (see
        :func:`announce`). A defer Discord refused does not stop the step: the organiser
        asked for it, and its news goes to the channel all the same. The member's authority
        goes on to the service, which checks it again under the tournament's lock."""
        may = await authority(self.bot, interaction, ending=ending)
        may.require(tournament, interaction.user.id, action)
        with contextlib.suppress(discord.HTTPException):
            await interaction.response.defer(thinking=True, ephemeral=True)
        return may

    @app_commands.command(name="create", description="Open a tournament in this channel")
    @app_commands.describe(
        name="The tournament's name",
        fmt="Round robin (all play all), Swiss, or single elimination",
        team_size="Players a team (teams sign up together)",
        preset="classic (official rules) or convoy",
        sequences_to_win="House rule: sequences needed to win a game",
        bot_picks_five="House rule: in a line of 6+, the bot picks the five",
        manual_draw="House rule: draw by hand, and lose the draw if you forget",
        tabletalk_stands="House rule: a table-talk call stands without confirmation",
        time_limit="Time per turn, like 2m or 1h (default: none)",
        show_up="Time the players of a match have to start it, like 15m (default 15m)",
        rounds="Swiss only: the number of rounds (default: enough to find a winner)",
        rated="Whether the games count for ratings (default: yes)",
        max_entrants="The most players (or teams) who may sign up (default: the bot's limit)",
        best_of="Games a match is the best of (default 1)",
        best_of_from="Best-of matches from this round on: final, or a round's number (default 1)",
        seeding="Seed by the all-time ratings (default), the running season's, or at random",
        away="Whether players may go away (/sequence-me away): any cover, computer only, or not",
    )
    @app_commands.rename(fmt="format")
    @app_commands.choices(fmt=FORMAT_CHOICES, preset=PRESET_CHOICES)
    @app_commands.choices(team_size=TEAM_SIZE_CHOICES, best_of=BEST_OF_CHOICES)
    @app_commands.choices(away=AWAY_CHOICES, seeding=SEEDING_CHOICES)
    async def create(
        self,
        interaction: discord.Interaction,
        name: app_commands.Range[str, 1, 60],
        fmt: str,
        team_size: int = 1,
        preset: str = "classic",
        sequences_to_win: app_commands.Range[int, 1, 4] | None = None,
        bot_picks_five: bool = False,
        manual_draw: bool = False,
        tabletalk_stands: bool = False,
        time_limit: str | None = None,
        show_up: str | None = None,
        rounds: app_commands.Range[int, 1, 20] | None = None,
        rated: bool = True,
        max_entrants: app_commands.Range[int, 2, 1024] | None = None,
        best_of: int = 1,
        best_of_from: app_commands.Range[str, 1, 10] | None = None,
        away: str = "any",
        seeding: str = "all_time",
    ) -> None:
        config = await self.bot.server_settings.of(server_id(interaction))  # read once
        if seeding == "season" and stored_plan(config.value(SEASON_PLAN)) == NONE:
            raise UserError(
                "seeding:season needs seasons: a server admin can set season_plan "
                "(/sequence-admin set), or seed by the all-time ratings."
            )
        require_may_create(interaction, config.roles)
        if not isinstance(interaction.channel, discord.TextChannel):
            raise UserError(
                "Create a tournament in a server's text channel: each match gets a thread there."
            )
        require_table_channel(interaction, config.places.channels)  # its matches are tables
        require_tournament_permissions(interaction)
        with self.bot.limits.counting(interaction, "new tournament"):  # refusals: free
            guild_id = server_id(interaction)
            table = TableOptions(
                preset=preset,
                teams=2,
                sequences_to_win=sequences_to_win,
                engine_chooses_five=bot_picks_five,
                manual_draw=manual_draw,
                tabletalk_stands=tabletalk_stands,
                turn_time_limit=parse_duration(time_limit) if time_limit else 0,
                time_limit_policy=self.bot.settings.time_limit_policy,
                reminder_delay=self.bot.settings.reminder_delay,
                rated=rated,
                away_rule=away,
            )
            self.bot.server_settings.check_ceilings(table)  # the owner's longest time limit
            settings = TournamentSettings(
                table,
                parse_duration(show_up) if show_up is not None else DEFAULT_SHOW_UP,
                rounds,
                self.bot.caps.entrants(max_entrants),
                best_of,
                parse_best_of_from(best_of_from),
                seeding,
            )
            organiser = Person(interaction.user.id, user_name(interaction.user))
            tournament = await self.service.create(
                guild_id,
                interaction.channel_id or 0,
                organiser,
                name,
                fmt,
                team_size,
                settings,
                caps=self.bot.caps,
            )
        snapshot = await self.service.snapshot(tournament.id)
        try:
            await interaction.response.send_message(
                SIGNUP_OPEN,
                embed=signup_embed(snapshot),
                view=signup_view(tournament.id),
            )
        except discord.HTTPException:  # nobody saw the sign-up: it must not block the next
            await self.service.end(tournament.id, interaction.user.id, True)
            raise
        message = await interaction.original_response()
        current = await self.service.set_message(tournament, message.id)
        if current is not None and (
            current.status != "signup" or (await self.service.snapshot(current.id)).entrants
        ):  # started, ended or joined as it was posted: the message shows it
            await self.tables.refresh_signup(current)

    @app_commands.command(name="start", description="Close sign-up and pair round 1 (organiser)")
    async def start(self, interaction: discord.Interaction) -> None:
        tournament = await current_tournament(self.service, interaction)
        require_tournament_permissions(interaction)
        may = await self.defer_step(interaction, tournament, "start the tournament")
        progress = await self.service.start(tournament.id, interaction.user.id, may.any_tournament)
        count = len(progress.snapshot.entrants)
        await announce(
            interaction,
            f"🏁 **{shown_name(tournament.name)}** starts with {count} entrants! Matches are "
            "opening in their threads.",
        )
        await self.tables.refresh_signup(progress.snapshot.tournament)
        await self.tables.publish(progress)

    @app_commands.command(
        name="report", description="Enter a match result by hand, or correct one (organiser)"
    )
    @app_commands.describe(
        match="The match (pick from the list; a result can be corrected until the next round)",
        winner="A player of the winning side",
        draw="The match was drawn (not in knockouts)",
    )
    async def report(
        self,
        interaction: discord.Interaction,
        match: int,
        winner: discord.Member | None = None,
        draw: bool = False,
    ) -> None:
        tournament = await current_tournament(self.service, interaction)
        if (winner is None) == (not draw):
            raise UserError("Name the winner, or set draw (but not both).")
        may = await self.defer_step(interaction, tournament, "report results")
        progress = await self.service.report(
            tournament.id,
            interaction.user.id,
            may.any_tournament,
            match,
            winner.id if winner is not None else None,
        )
        done = "corrected" if progress.corrected else "recorded"
        await announce(interaction, f"📝 Match #{match} is {done}.")
        await self.tables.publish(progress)

    @report.autocomplete("match")
    async def report_match_choices(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[int]]:
        try:
            tournament = await current_tournament(self.service, interaction)
        except UserError:
            return []
        snapshot = await self.service.snapshot(tournament.id)
        playing = snapshot.tournament.round
        choices = []
        for match in snapshot.matches:
            # open matches, and the current round's results (they can still be corrected)
            if not match.is_open and (match.status != "done" or match.round != playing):
                continue
            if match.entrant_b is None:
                continue  # a bye has no result
            label = (
                f"#{match.id} · round {match.round}: {snapshot.name(match.entrant_a)} v "
                f"{snapshot.name(match.entrant_b)}"
                + ("" if match.is_open else f" · decided: {decided_note(snapshot, match)}")
            )[:100]
            if current.lower() in label.lower():
                choices.append(app_commands.Choice(name=label, value=match.id))
        return choices[:25]

    @app_commands.command(
        name="drop", description="Drop an entrant; its open match is forfeited (organiser)"
    )
    @app_commands.describe(player="A player of the entrant to drop")
    async def drop(self, interaction: discord.Interaction, player: discord.Member) -> None:
        tournament = await current_tournament(self.service, interaction)
        may = await self.defer_step(interaction, tournament, "drop entrants")
        entrant, progress = await self.service.drop(
            tournament.id, interaction.user.id, may.any_tournament, player.id
        )
        verb = "were" if len(entrant.members) > 1 else "was"  # a team: "a1 & a2 were"
        await announce(interaction, f"🚫 {shown_name(entrant.name)} {verb} dropped.")
        if progress.snapshot.tournament.status == "signup":
            await self.tables.refresh_signup(progress.snapshot.tournament)
        await self.tables.publish(progress)

    @app_commands.command(name="end", description="End the tournament now (organiser)")
    async def end(self, interaction: discord.Interaction) -> None:
        tournament = await current_tournament(self.service, interaction)
        may = await self.defer_step(interaction, tournament, "end the tournament", ending=True)
        progress = await self.service.end(tournament.id, interaction.user.id, may.any_tournament)
        status = progress.snapshot.tournament.status
        text = "ended" if status == "finished" else "cancelled before it started"
        await announce(interaction, f"🛑 **{shown_name(tournament.name)}** was {text}.")
        await self.tables.refresh_signup(progress.snapshot.tournament)
        await self.tables.publish(progress)

    @app_commands.command(
        name="export", description="The standings as a CSV file, for a spreadsheet (organiser)"
    )
    async def export(self, interaction: discord.Interaction) -> None:
        tournament = await current_tournament(self.service, interaction, latest=True)
        await self.defer_step(interaction, tournament, "export the standings")
        snapshot = await self.service.snapshot(tournament.id)
        data = io.BytesIO(standings_csv(snapshot).encode())
        await interaction.followup.send(
            f"📄 The standings of **{shown_name(tournament.name)}**, as they stand now.",
            file=discord.File(data, filename=file_name(snapshot)),
            ephemeral=True,
        )
