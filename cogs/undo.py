"""``/sequence undo``: the host asks to take back the last move (against computers, the last
move of a person and the computers' replies after it); every other team must agree.
The request's message is edited when it is answered, or lapses (the game moved on)."""

from __future__ import annotations

import contextlib

import discord
from discord import app_commands

from bot.app import SequenceBot
from bot.services.events import UndoRequestLapsed
from bot.services.undo import UndoService, UndoState

from .base import SequenceCog, Subscription
from .common.answers import AnswerButton
from .common.components import Components
from .common.describe import taken_back, team_label
from .common.lookup import cog_of
from .common.replies import show_answer
from .common.threads import edit_message


def lapsed_text(why: str) -> str:
    """A request's message once it lapsed."""
    return f"↩️ The host's undo request **lapsed**: {why}."


class UndoButton(AnswerButton, custom_id="seq:undo:{game_id}:{count}:{answer:agree|refuse}"):
    """Agree or refuse an undo request."""

    YES = "agree"
    LABELS = ("Agree", "Refuse")

    async def clicked(self, interaction: discord.Interaction) -> None:
        cog = cog_of(interaction, Undo)
        state = await cog.service.answer(
            self.game_id,
            interaction.user.id,
            self.count,
            agree=self.agrees,
            message_id=interaction.message.id if interaction.message else None,
        )
        await cog.show(interaction, state, edit=True)


class Undo(SequenceCog):
    """Take back a move, with everyone's agreement."""

    components = (UndoButton,)

    def __init__(self, bot: SequenceBot) -> None:
        super().__init__(bot)
        self.service: UndoService = bot.undo

    def subscriptions(self) -> list[Subscription]:
        return [(UndoRequestLapsed, self.lapsed)]

    @app_commands.command(
        name="undo", description="Ask to take back the last move (host; other teams must agree)"
    )
    async def undo(self, interaction: discord.Interaction[SequenceBot]) -> None:
        record = self.bot.games.for_channel(interaction.channel_id or 0)
        state = await self.service.request(record.id, interaction.user.id)
        try:
            await self.show(interaction, state, edit=False)
        except discord.HTTPException:  # nobody saw the request: nothing may wait for it
            if not (state.done or state.refused):
                await self.service.withdraw(record.id, state.count)
            raise

    async def show(self, interaction: discord.Interaction, state: UndoState, *, edit: bool) -> None:
        """The request message: who must still agree, or the result."""
        record = state.record
        if state.refused:
            text, view = f"↩️ The undo was refused by <@{interaction.user.id}>.", None
        elif state.done:
            kept = "it" if len(state.moves) == 1 else "them"
            text, view = (
                f"↩️ **Undone:** {taken_back(record, state.moves)}. "
                f"The move log keeps {kept}, marked undone.",
                None,
            )
        else:
            teams = ", ".join(team_label(t) for t in state.waiting_teams)
            text = (
                f"↩️ The host asks to undo {taken_back(record, state.moves)}.\n"
                f"Waiting for: {teams} (one player each)."
            )
            view = Components()
            view.add_item(UndoButton(record.id, state.count, "agree"))
            view.add_item(UndoButton(record.id, state.count, "refuse"))
        if edit:
            await show_answer(interaction, text, view)
        elif view is not None:
            await interaction.response.send_message(text, view=view)
            message = await interaction.original_response()
            if not await self.service.set_message(record.id, state, message.id):
                with contextlib.suppress(discord.HTTPException):  # lapsed as it was posted
                    await edit_message(
                        self.bot,
                        record.channel_id,
                        message.id,
                        content=lapsed_text("the game moved on"),
                        view=None,
                    )
        else:
            await interaction.response.send_message(text)

    async def lapsed(self, event: UndoRequestLapsed) -> None:
        """A request the game moved past (or the host asked again) says so on its message,
        without its buttons."""
        if event.message_id is None:
            return
        status = "replaced" if event.replaced else event.record.status
        why = {
            "replaced": "the host asked again, below",
            "cancelled": "the game was cancelled",
            "finished": "the game ended",
        }.get(status, "the game moved on")
        with contextlib.suppress(discord.HTTPException):
            await edit_message(
                self.bot,
                event.record.channel_id,
                event.message_id,
                content=lapsed_text(why),
                view=None,
            )


async def setup(bot: SequenceBot) -> None:
    """Load the cog."""
    await bot.add_cog(Undo(bot))
