"""The tournament's buttons: sign-up (Join/Leave) and a match's *I'm here*. Both are dynamic
items, so they keep working after a restart; the services check everything again.

A click is answered by its cog (:class:`AnswersSignups`, :class:`AnswersCheckIns`), whose
module imports this one: this one names the cog and what it needs of it, never its module.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import discord

from cogs.common.answering import Answering
from cogs.common.components import Components
from cogs.common.custom_ids import Templated
from cogs.common.lookup import answering_cog

#: The names of the cogs that answer the sign-up buttons and the check-in button.
SIGNUP_COG = "Tournament"
CHECK_IN_COG = "TournamentTables"


@runtime_checkable
class AnswersSignups(Protocol):
    """The cog that answers the sign-up buttons (:data:`SIGNUP_COG`)."""

    async def signup_action(
        self, interaction: discord.Interaction, tournament_id: int, action: str, *, button: bool
    ) -> None:
        """Join or leave ``tournament_id`` (``action``), from a button or a command."""
        ...


@runtime_checkable
class AnswersCheckIns(Protocol):
    """The cog that answers a match's *I'm here* (:data:`CHECK_IN_COG`)."""

    async def check_in(self, interaction: discord.Interaction, match_id: int) -> None:
        """The clicking player is here for ``match_id``."""
        ...


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
        cog = answering_cog(interaction, SIGNUP_COG)
        if not isinstance(cog, AnswersSignups):
            raise TypeError(f"The {SIGNUP_COG} cog does not answer sign-ups")
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
        tables = answering_cog(interaction, CHECK_IN_COG)
        if not isinstance(tables, AnswersCheckIns):
            raise TypeError(f"The {CHECK_IN_COG} cog does not answer check-ins")
        await tables.check_in(interaction, self.match_id)


def check_in_view(match_id: int) -> Components:
    """The match message's button."""
    view = Components()
    view.add_item(CheckInButton(match_id))
    return view
