"""A first end-to-end look: lobby, start, the board, one move by command."""

from __future__ import annotations

import pytest
from discord.ext import commands

from bot.game import space_name
from bot.game.board import CARD_SPACES

from .e2e_helpers import make_table, open_and_start, seat_actor


async def test_two_players_start_and_play_one_card(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table)
    assert record is not None
    board = table.channel.last_message
    assert board.attachments[0].filename == "board.png"
    game = record.game
    mover = seat_actor(table, record, game.turn)
    card = next(c for c in game.hands[game.turn] if c in CARD_SPACES and game.targets(game.turn, c))
    space = space_name(game.targets(game.turn, card)[0])
    result = await mover.slash(table.channel, "sequence play", card=card, space=space)
    assert result.ephemeral
    assert len(record.game.moves) == 1
    assert table.channel.last_message.id != board.id


async def test_the_store_closes_even_when_closing_discord_fails(simcord_env, monkeypatch):
    """Closing the bot closed Discord and then the store: had the first failed, the store's
    connection (and the thread that keeps the process alive) would have stayed open."""
    bot = simcord_env.bot

    async def fails(self: object) -> None:
        raise RuntimeError("closing the gateway failed")

    with monkeypatch.context() as patched:
        patched.setattr(commands.Bot, "close", fails)
        with pytest.raises(RuntimeError):
            await bot.close()
    assert not await bot.db.alive()
