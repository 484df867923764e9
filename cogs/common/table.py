"""The table of a game: posts the board after every move, the result at the end, and notices.

Everything here runs after the move is committed: a Discord failure loses nothing, and
``/sequence board`` can always post the board again.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

import discord

from bot.game import public_view
from render.board import render_board
from render.theme import TEAM_COLOUR_VALUES

from .describe import describe_outcome, result_line, scoreline, turn_line

if TYPE_CHECKING:
    from bot.app import SequenceBot
    from bot.services.games import MoveOutcome
    from bot.store.games import GameRecord

log = logging.getLogger(__name__)

#: Makes a button for the board message of a game, or None (cogs register these).
BoardButton = Callable[["GameRecord"], discord.ui.Item | None]

PINGS = discord.AllowedMentions(users=True, roles=False, everyone=False)


def seat_names(record: GameRecord) -> list[str]:
    """Display names by seat, for the images."""
    return [seat["name"] for seat in record.seats]


async def render_public_board(record: GameRecord) -> bytes:
    """The public board image (no hand), rendered off the event loop."""
    return await asyncio.to_thread(render_board, public_view(record.game), seat_names(record))


class Table:
    """Posts to the channel of each game."""

    def __init__(self, bot: SequenceBot) -> None:
        self.bot = bot
        self.board_buttons: list[BoardButton] = []

    def channel(self, record: GameRecord) -> discord.abc.Messageable:
        """The channel or thread of a game (cached, or a partial one that can still send)."""
        channel = self.bot.get_channel(record.channel_id)
        if isinstance(channel, discord.abc.Messageable):
            return channel
        return self.bot.get_partial_messageable(record.channel_id, guild_id=record.guild_id)

    def board_view(self, record: GameRecord) -> discord.ui.View | None:
        """The buttons under a board message (none once the game is over)."""
        if record.game.is_over():
            return None
        view = discord.ui.View(timeout=None)
        for make in self.board_buttons:
            item = make(record)
            if item is not None:
                view.add_item(item)
        return view

    def board_embed(self, record: GameRecord, headline: str | None) -> discord.Embed:
        """The embed around the board image."""
        game = record.game
        colour_team = game.winner if game.is_over() and game.winner is not None else None
        if colour_team is None:
            colour_team = game.team_of(game.turn)
        moves = len(game.moves)
        embed = discord.Embed(
            title=f"Sequence · game #{record.id} · move {moves}",
            description=headline or None,
            colour=TEAM_COLOUR_VALUES[colour_team],
        )
        # The board is the message's attachment, shown full width under the text; inside the
        # embed, Discord (and SimCord's preview) would shrink the tall image to a thumbnail.
        embed.set_footer(text=scoreline(record))
        return embed

    async def post_board(
        self, record: GameRecord, headline: str | None = None
    ) -> discord.Message | None:
        """Post the board with whose turn it is (or the result); None if Discord refused."""
        png = await render_public_board(record)
        content = result_line(record) if record.game.is_over() else turn_line(record)
        kwargs = {}
        view = self.board_view(record)
        if view is not None:
            kwargs["view"] = view
        try:
            message = await self.channel(record).send(
                content,
                embed=self.board_embed(record, headline),
                file=discord.File(io.BytesIO(png), filename="board.png"),
                allowed_mentions=PINGS,
                **kwargs,
            )
        except discord.HTTPException as error:
            log.warning(
                "Could not post the board of game %d (HTTP %s); /sequence board posts it again",
                record.id,
                error.status,
            )
            return None
        await self.bot.db.games.set_board_message(record.id, message.id)
        record.board_message_id = message.id
        return message

    async def after_move(self, outcome: MoveOutcome) -> None:
        """Everything the table sees after a committed move, then tell the other cogs."""
        await self.post_board(outcome.record, describe_outcome(outcome))
        self.bot.dispatch("sequence_move", outcome)

    async def notice(
        self, record: GameRecord, content: str, **kwargs: object
    ) -> discord.Message | None:
        """A plain message at the table; None if Discord refused."""
        try:
            return await self.channel(record).send(content, allowed_mentions=PINGS, **kwargs)  # type: ignore[arg-type]
        except discord.HTTPException as error:
            log.warning("Could not post to game %d (HTTP %s)", record.id, error.status)
            return None
