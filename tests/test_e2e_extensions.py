"""Every feature cog can be unloaded and loaded again (``reload_extension``): what it added to
the bot goes with it and comes back once, and the commands still work after. And the
``/sequence`` commands that make sense in DMs answer there; the others say they are for servers."""

from __future__ import annotations

import discord
import pytest
from discord import app_commands

from bot.app import EXTENSIONS
from bot.game import space_name
from bot.game.board import CARD_SPACES
from cogs.base import NOT_IN_DMS

from .e2e_helpers import make_table, open_and_start, seat_actor, simcord


def registered(bot) -> dict[str, object]:
    """What the cogs have added to the bot, to compare before and after a reload."""
    return {
        "commands": sorted(c.qualified_name for c in bot.tree.walk_commands()),
        "menus": [c.name for c in bot.tree.get_commands(type=discord.AppCommandType.message)],
        "sequence": sorted(bot.sequence_group._children),
        "board buttons": len(bot.table.board_buttons),
        "components": sorted(p.pattern for p in bot._connection._view_store._dynamic_items),
        "cogs": sorted(bot.cogs),
    }


async def play_a_card_from_the_hand_button(table) -> None:
    """The mover opens their panel from the board's button, picks a card and plays it."""
    record = table.game()
    game = record.game
    moves = len(game.moves)
    mover = seat_actor(table, record, game.turn)
    card = next(c for c in game.hands[game.turn] if c in CARD_SPACES and game.targets(game.turn, c))
    space = game.targets(game.turn, card)[0]
    opened = await mover.click(table.channel.last_message, label="Your hand")
    panel = opened.response
    assert opened.ephemeral and panel is not None
    chosen = await mover.select(panel, [card], custom_id=f"seq:card:{record.id}:{game.turn_number}")
    await mover.click(chosen.response or panel, label=f"Play on {space_name(space)}")
    assert len(table.game().game.moves) == moves + 1


@pytest.mark.parametrize("extension", EXTENSIONS)
async def test_an_extension_unloads_and_reloads(simcord_env, extension):
    bot = simcord_env.bot
    before = registered(bot)
    await bot.unload_extension(extension)
    after_unload = registered(bot)
    assert after_unload != before  # the cog took what it added away with it
    if extension == "cogs.tournament":
        assert not any(p.startswith("tour") for p in after_unload["components"])
    await bot.load_extension(extension)
    assert registered(bot) == before
    await bot.reload_extension(extension)
    assert registered(bot) == before


async def test_the_game_plays_on_after_every_extension_is_reloaded(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    await open_and_start(table)
    bot = simcord_env.bot
    for extension in EXTENSIONS:
        await bot.reload_extension(extension)
    await play_a_card_from_the_hand_button(table)
    record = table.game()
    mover = seat_actor(table, record, record.game.turn)
    status = await mover.slash(table.channel, "sequence status")
    assert status.ephemeral and f"Game #{record.id}" in status.response.content


async def test_without_the_hand_cog_the_board_has_no_hand_button(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    await open_and_start(table)
    bot = simcord_env.bot
    await bot.unload_extension("cogs.hand")
    alice = table.players[0]
    board = await alice.slash(table.channel, "sequence board")
    labels = [child["label"] for row in board.response.components for child in row["components"]]
    assert "Your hand" not in labels
    await bot.load_extension("cogs.hand")
    await alice.slash(table.channel, "sequence board")
    await play_a_card_from_the_hand_button(table)


async def test_commands_for_dms_answer_there_and_the_others_refuse(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    await open_and_start(table)
    alice = table.players[0].user
    rules = await alice.slash("sequence rules")
    assert rules.ephemeral and "Sequence in one minute" in rules.response.content
    notify = await alice.slash("sequence-me notify", setting="on")
    assert notify.ephemeral and "DM" in notify.response.content
    mine = await alice.slash("sequence mygames")
    assert mine.ephemeral and f"Game #{table.game().id}" in mine.response.content
    nobody = simcord_env.create_user("nobody")  # in a DM the answer is about every server
    none = await nobody.slash("sequence mygames")
    assert none.response.content == (
        "You are not in any active game in any server. Open one with `/sequence new`."
    )
    lobbies = await simcord_env.bot.db.lobbies.list_all()
    for command in ("sequence new", "sequence stats", "sequence hand", "sequence leaderboard"):
        refused = await alice.slash(command)
        assert refused.ephemeral and refused.response.content == NOT_IN_DMS, command
    assert await simcord_env.bot.db.lobbies.list_all() == lobbies
    # discord.py's own error for it, answered by the tree's error handler (and nothing else)
    assert {type(error) for error in simcord_env.errors} == {app_commands.NoPrivateMessage}
    with pytest.raises(simcord.SetupError):  # Discord offers /tournament in servers only
        await alice.slash("tournament standings")
