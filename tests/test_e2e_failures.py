"""A command or a button that fails for a reason of the bot's (here: Discord refusing its answer
once) is answered with the apology, in the one place every command and component shares
(``cogs.common.answering``): a button's click as a command's, and after a deferred answer as a
followup."""

from __future__ import annotations

import discord
from discord import app_commands

from cogs.common.answering import ANSWERS_ERRORS, Answering
from cogs.common.replies import SORRY

from .e2e_helpers import make_table, open_and_start


async def test_a_button_whose_answer_discord_refused_gets_the_apology(simcord_env):
    """Discord refuses the panel that "Your hand" opens (a 5xx): the click is answered with
    the apology instead (the panel shows nothing new: it may be opened again)."""
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, _bob = table.players
    record = await open_and_start(table)
    board = table.channel.last_message
    simcord_env.inject_error("POST", "/interactions/*/callback", status=500)
    refused = await alice.click(board, label="Your hand")
    assert refused.ephemeral and refused.response.content == SORRY
    again = await alice.click(board, label="Your hand")
    assert again.ephemeral and again.response.attachments  # the panel, with the hand's image
    assert record.game.moves == []


async def test_a_deferred_command_whose_answer_discord_refused_gets_the_apology(simcord_env):
    """``/sequence hint`` answers "thinking…" first; Discord refuses the hint that follows
    (a 5xx): the apology follows instead, and the failure is logged by the tree's handler."""
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table, hints=True)
    mover = next(p for p in table.players if p.id == record.seats[record.game.turn].user_id)
    simcord_env.inject_error("POST", "/webhooks/*", status=500)
    hint = await mover.slash(table.channel, "sequence hint")
    assert hint.ephemeral and hint.response.content == SORRY
    assert len(simcord_env.errors) == 1  # the refused hint, logged by the error handler
    again = await mover.slash(table.channel, "sequence hint")
    assert again.ephemeral and again.response.content.startswith("💡")


async def test_every_command_and_component_answers_its_failures(simcord_env):
    """Nothing is left out of the one place: every slash command, the message command, and
    every component class registered (a cog of its own, like ``/tournament``, too)."""
    bot = simcord_env.bot
    commands = [
        command
        for command in bot.tree.walk_commands()
        if not isinstance(command, app_commands.Group)
    ]
    commands += bot.tree.get_commands(type=discord.AppCommandType.message)
    assert len(commands) > 30, len(commands)
    unanswered = [c.qualified_name for c in commands if not getattr(c.callback, ANSWERS_ERRORS, 0)]
    assert unanswered == []
    components = bot._connection._view_store._dynamic_items.values()  # what add_dynamic_items got
    assert len(components) > 15, len(components)
    assert [item.__name__ for item in components if not issubclass(item, Answering)] == []
