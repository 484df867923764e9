"""``/tournament``: what entrants do, open to every member: join, leave and standings (and the
sign-up card's Join and Leave buttons). Organisers run tournaments with ``/tournament-admin``
(:mod:`.organisers`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.services.errors import UserError
from bot.services.lobbies import Person
from bot.services.tournament import ELIMINATION, TournamentService
from cogs.common.answering import answer_errors
from cogs.common.replies import reply, user_name

from ..common.describe import shown_name
from .channel import current_tournament
from .messages import add_now_playing, signup_embed, standings_embed
from .views import SIGNUP_COG, SignupButton

if TYPE_CHECKING:
    from bot.app import SequenceBot

    from .tables import TournamentTables


@app_commands.guild_only()
class TournamentEntrants(
    commands.GroupCog,
    name=SIGNUP_COG,
    group_name="tournament",
    group_description="Sequence tournaments: sign up, withdraw, read the standings",
):
    """The ``/tournament`` commands (their failures answered by :mod:`cogs.common.answering`)."""

    def __init__(
        self, bot: SequenceBot, service: TournamentService, tables: TournamentTables
    ) -> None:
        self.bot = bot
        self.service = service
        self.tables = tables
        super().__init__()
        answer_errors(*self.walk_app_commands())

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(SignupButton)

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(SignupButton)

    @app_commands.command(name="join", description="Sign up (with your partners for team events)")
    @app_commands.describe(partner="Your partner (teams of 2 or 3)", partner2="Your second partner")
    async def join(
        self,
        interaction: discord.Interaction,
        partner: discord.Member | None = None,
        partner2: discord.Member | None = None,
    ) -> None:
        tournament = await current_tournament(self.service, interaction)
        partners = [p for p in (partner, partner2) if p is not None]
        if any(p.bot for p in partners):
            raise UserError("Partners are people: computer players cannot enter tournaments.")
        people = [Person(p.id, user_name(p)) for p in partners]
        await self._join(interaction, tournament.id, people, button=False)

    @app_commands.command(name="leave", description="Withdraw (your whole team) before the start")
    async def leave(self, interaction: discord.Interaction) -> None:
        tournament = await current_tournament(self.service, interaction)
        await self.signup_action(interaction, tournament.id, "leave", button=False)

    async def signup_action(
        self, interaction: discord.Interaction, tournament_id: int, action: str, *, button: bool
    ) -> None:
        """Join or leave, from the sign-up buttons or the commands."""
        if action == "join":
            tournament = await self.service.snapshot(tournament_id)
            if tournament.tournament.team_size > 1:
                raise UserError(
                    "Teams sign up together: use `/tournament join` and name your partner(s)."
                )
            await self._join(interaction, tournament_id, [], button=button)
            return
        entrant = await self.service.leave(tournament_id, interaction.user.id)
        note = f"{shown_name(entrant.name)} withdrew."
        await self._signed(interaction, tournament_id, note, button)

    async def _join(
        self,
        interaction: discord.Interaction,
        tournament_id: int,
        partners: list[Person],
        *,
        button: bool,
    ) -> None:
        person = Person(interaction.user.id, user_name(interaction.user))
        entrant = await self.service.join(tournament_id, person, partners)
        note = f"✅ {shown_name(entrant.name)} signed up."
        if partners:  # they were signed up by someone else: they hear it, in the channel
            named = " ".join(f"<@{p.user_id}>" for p in partners)
            note += (
                f" {named}: {shown_name(person.name)} named you as "
                f"{'partners' if len(partners) > 1 else 'partner'}. Not your team? Press "
                "**Leave** on the sign-up card."
            )
        await self._signed(interaction, tournament_id, note, button, public=bool(partners))

    async def _signed(
        self,
        interaction: discord.Interaction,
        tournament_id: int,
        note: str,
        button: bool,
        *,
        public: bool = False,
    ) -> None:
        """Answer a sign-up change (``public``: in the channel) and refresh the sign-up
        message."""
        snapshot = await self.service.snapshot(tournament_id)
        if button:
            await interaction.response.edit_message(embed=signup_embed(snapshot))
            return
        await reply(interaction, note, ephemeral=not public)
        await self.tables.refresh_signup(snapshot.tournament)

    @app_commands.command(name="standings", description="The table, tie-breaks and bracket")
    async def standings(self, interaction: discord.Interaction) -> None:
        with self.bot.limits.counting(interaction, "standings"):  # refusals: free
            tournament = await current_tournament(self.service, interaction, latest=True)
        await interaction.response.defer(thinking=True)  # the read grows with the matches
        snapshot = await self.service.snapshot(tournament.id)
        file = discord.utils.MISSING
        if tournament.format == ELIMINATION and tournament.status != "signup":
            file = await self.tables.bracket_file(snapshot)
        await interaction.followup.send(
            embed=add_now_playing(standings_embed(snapshot), snapshot),
            allowed_mentions=discord.AllowedMentions.none(),
            file=file,
        )
