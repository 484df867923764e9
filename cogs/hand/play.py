"""Playing a move from Discord: the one path of ``/sequence play`` and the panel's buttons."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord

from bot.game.moves import Move
from bot.services.games import ChoiceNeeded

from ..common.lookup import bot_of
from ..common.replies import reply, require_board_permissions
from ..common.table import QUIET
from ..common.threads import blocked_sentence
from . import panel

if TYPE_CHECKING:
    from bot.store.games.records import GameRecord

log = logging.getLogger(__name__)

#: Where a player sees their hand again when the panel after their move could not be shown:
#: in the game's channel, and from a turn DM (where ``/sequence hand`` finds no game).
_SEE_HAND = "`/sequence hand` shows your hand."
_SEE_HAND_IN_DM = (
    "**Your hand** under the board in the game's channel shows your hand; your next turn's "
    "DM brings it too."
)


async def play_and_announce(
    interaction: discord.Interaction,
    record: GameRecord,
    seat: int,
    move: Move,
    revision: int,
    *,
    edit: bool,
) -> None:
    """Apply a move for the clicking player, made for the game's ``revision`` (a panel's, or
    the game's now for a command), and show their panel after it: edited in place (``edit``,
    from a panel) or sent (from a command). The table posts the board.

    When a line of six or more needs a choice of five, the panel offers the choice instead.
    Where the bot could not post the board, the move is refused (by the game service: see
    :mod:`bot.services.pauses`) and nothing changes; where Discord refuses the board of a move
    it had no reason to refuse (a thread locked unseen), the move is saved and its player told
    that the table cannot show it (never "✅ Done."). Only at a table in a thread does the
    answer wait (up to 2 s) for the board: in a channel it leaves at once.
    """
    require_board_permissions(interaction, record.channel_id)
    in_dm = interaction.guild_id is None  # a turn DM's panel
    bot = bot_of(interaction)
    try:
        outcome = await bot.games.apply(
            record.id, move, actor_id=interaction.user.id, expected_revision=revision
        )
    except ChoiceNeeded as choice:
        shown = await panel.build_hand_panel(record, seat, choice=choice)
        await (shown.edit(interaction) if edit else shown.send(interaction))
        return
    done = "✅ Done." if outcome.turn_passed or outcome.finished else "✅ Done: carry on."
    shows_a_board = outcome.finished or any(p.kind not in QUIET for p in outcome.moves)
    # Only a thread can refuse the board of a move it had no reason to refuse (locked, or the
    # bot removed, unseen): elsewhere the answer does not wait for the board to be posted.
    if shows_a_board and isinstance(bot.get_channel(record.channel_id), discord.Thread):
        refused = await bot.table.board_refusal(record.id, len(outcome.game.moves))
        if refused is not None:
            done = (
                f"⚠️ Your move is saved, but the table cannot show it: "
                f"{blocked_sentence(refused, record.channel_id)}."
            )
    # Still this player's turn (a dead card turned in): the hand changed, so the image is redrawn.
    shown = await panel.build_hand_panel(
        outcome.record, seat, notice=done, with_image=not outcome.turn_passed
    )
    try:
        if edit:
            await shown.edit(interaction, keep_image=False)
        else:
            await shown.send(interaction)
    except discord.HTTPException as error:
        # The move is saved: a refused panel must not read as a failure ("please try again").
        log.info("Could not show a panel in game %d (HTTP %s)", record.id, error.status)
        await reply(interaction, f"{done} ({_SEE_HAND_IN_DM if in_dm else _SEE_HAND})")
