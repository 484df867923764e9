"""``/sequence hint``: the computer player's suggestion, in practice games.

The computer players themselves are :mod:`bot.services.computers`, driven by the game's events."""

from __future__ import annotations

import logging
import time

import discord
from discord import app_commands

from bot.app import SequenceBot
from bot.game import card_label, player_view, space_name
from bot.game.ai import hint as suggest_move
from bot.game.cards import is_one_eyed
from bot.game.moves import DEAD, FORFEIT, PASS, PLAY, Move
from bot.services.errors import UserError
from bot.services.workers import THINKING, run_on

from .base import SequenceCog
from .common.replies import reply

log = logging.getLogger(__name__)


def describe_hint(move: Move, *, convoy: bool = False) -> str:
    """A hint in words (``convoy``: a dead card turned in is the whole turn)."""
    if move.kind == PLAY:
        verb = "remove the chip on" if is_one_eyed(move.card or "") else "play it on"
        return f"Try {card_label(move.card or '')}: {verb} **{space_name(move.space or 0)}**."
    if move.kind == DEAD:
        if convoy:
            return (
                f"Turn in the dead {card_label(move.card or '')}: no card can go on the board "
                "(convoy: that is your whole turn)."
            )
        return f"Turn in the dead {card_label(move.card or '')} first."
    if move.kind == FORFEIT:
        return f"Forfeit {card_label(move.card or '')}: it is the card you need least."
    if move.kind == PASS:
        return "Nothing can be played: pass."
    return "Draw your card."


class Computers(SequenceCog):
    """Hints from the computer player (the computer players themselves are a service)."""

    @app_commands.command(name="hint", description="A suggestion for your move (practice games)")
    async def hint(self, interaction: discord.Interaction[SequenceBot]) -> None:
        record = self.bot.games.for_channel(interaction.channel_id or 0)
        seat = self.bot.games.require_seat(record, interaction.user.id)
        options = record.options
        if not options.hints or options.rated:
            raise UserError(
                "Hints are off at this table: they are for unrated practice games "
                "(open one with `/sequence new hints:True`)."
            )
        game = record.game
        if game.out[seat]:  # removed (time, a ban) or resigned: no turn will come
            raise UserError("You are no longer playing in this game: there is no move to hint.")
        if seat != game.turn and not game.owed_forfeits[seat]:
            raise UserError("It is not your turn: a hint waits until it is.")
        self.bot.limits.check(interaction, "hint")  # each one is a search: CPU
        budget = self.bot.settings.computer_budget_ms
        # Thinking may take up to the budget: past Discord's 3 s the answer would be lost.
        await interaction.response.defer(ephemeral=True, thinking=True)
        move = await run_on(
            THINKING, suggest_move, player_view(game, seat), budget, clock=time.perf_counter
        )
        await reply(interaction, f"💡 {describe_hint(move, convoy=game.settings.convoy)}")


async def setup(bot: SequenceBot) -> None:
    """Load the cog."""
    await bot.add_cog(Computers(bot))
