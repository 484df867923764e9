"""The tournament's buttons: sign-up (Join/Leave) and a match's *I'm here*. Both are dynamic
items, so they keep working after a restart; the services check everything again."""

from __future__ import annotations

import discord

from cogs.common.answering import Answering
from cogs.common.components import Components
from cogs.common.custom_ids import Templated
from cogs.common.lookup import cog_of


class SignupButton(
    Answering,
    Templated,
    discord.ui.DynamicItem[discord.ui.Button],
    custom_id="tour:{tournament_id}:{action:join|leave}",
):
    """Join or leave a tournament from its sign-up message."""

    def __init__(self, tournament_id: int, action: str) -> None:
        self.tournament_id, self.action = tournament_id, action
        label, style = (
            ("Join", discord.ButtonStyle.success)
            if action == "join"
            else ("Leave", discord.ButtonStyle.secondary)
        )
        super().__init__(
            discord.ui.Button(
                label=label,
                style=style,
                custom_id=self.ids(tournament_id=tournament_id, action=action),
            )
        )

    async def clicked(self, interaction: discord.Interaction) -> None:
        from .commands import TournamentCommands  # the cog's module imports this one

        cog = cog_of(interaction, TournamentCommands)
        await cog.signup_action(interaction, self.tournament_id, self.action, button=True)


def signup_view(tournament_id: int) -> Components:
    """The sign-up message's buttons."""
    view = Components()
    view.add_item(SignupButton(tournament_id, "join"))
    view.add_item(SignupButton(tournament_id, "leave"))
    return view


class CheckInButton(
    Answering,
    Templated,
    discord.ui.DynamicItem[discord.ui.Button],
    custom_id="tour:here:{match_id}",
):
    """A player of the match says they are here (the game starts when all are)."""

    def __init__(self, match_id: int) -> None:
        self.match_id = match_id
        super().__init__(
            discord.ui.Button(
                label="I'm here",
                style=discord.ButtonStyle.primary,
                custom_id=self.ids(match_id=match_id),
            )
        )

    async def clicked(self, interaction: discord.Interaction) -> None:
        from .tables import TournamentTables  # the cog's module imports this one

        tables = cog_of(interaction, TournamentTables)
        await tables.check_in(interaction, self.match_id)


def check_in_view(match_id: int) -> Components:
    """The match message's button."""
    view = Components()
    view.add_item(CheckInButton(match_id))
    return view
