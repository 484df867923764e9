"""Your turn in your DMs: the turn ping carries the player's private hand panel, and a move
made from it is the same change as from the server; the board is posted in the game's channel.
On both backends (one process serves every game)."""

from __future__ import annotations

import pytest

from bot.config import Settings
from bot.game import card_label, space_name
from tests.helpers.turn_dms import find_component, play_from_dm

from .e2e_helpers import make_table, open_and_start, play_one, seat_actor
from .engine_helpers import normal_play


@pytest.fixture
def bot_settings(settings_on_each_backend: Settings) -> Settings:
    return settings_on_each_backend


async def test_a_move_from_the_turn_dm_is_made_and_the_board_posted(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    for player in table.players:
        await player.slash(table.channel, "sequence-me notify", setting="on")
    record = await open_and_start(table)
    mover = seat_actor(table, record, record.game.turn)
    dm = mover.user.dm_channel
    ping = dm.last_message
    assert ping is not None and "Your turn" in ping.content
    assert [a.filename for a in ping.attachments] == ["hand.png"]
    hand = record.game.hands[record.game.turn]
    assert card_label(hand[0]) in ping.content  # the player's own cards, in their own DM
    find_component(ping, f"seq:card:{record.id}:{record.game.turn_number}")

    boards_before = len([m for m in table.channel.history() if m.attachments])
    seat = record.game.turn
    card, space = normal_play(record.game, seat)
    await play_from_dm(mover.user, record.id, card, space)
    assert [(m.kind, m.card, m.space) for m in record.game.moves] == [("play", card, space)]
    assert "Done" in dm.last_message.content
    boards = [m for m in table.channel.history() if m.attachments]
    assert len(boards) == boards_before + 1  # the board, posted in the game's channel
    for message in table.channel.history():  # and the hand never there
        assert "Your hand" not in message.content
    other = seat_actor(table, record, record.game.turn)
    assert other is not mover and "Your turn" in other.user.dm_channel.last_message.content


async def test_a_stale_dm_panel_changes_nothing(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    for player in table.players:
        await player.slash(table.channel, "sequence-me notify", setting="on")
    record = await open_and_start(table)
    seat = record.game.turn
    mover = seat_actor(table, record, seat)
    old_panel = mover.user.dm_channel.last_message
    card, space = normal_play(record.game, seat)
    # The same player moves from the server instead.
    await mover.slash(table.channel, "sequence play", card=card, space=space_name(space))
    moves = list(record.game.moves)
    select = find_component(old_panel, f"seq:card:{record.id}:")
    answer = await mover.user.select(old_panel, [card], custom_id=select)
    assert record.game.moves == moves
    assert answer.acknowledged



async def test_a_dm_move_whose_panel_discord_refused_says_what_shows_the_hand_there(simcord_env):
    """The move from the turn DM is saved, and Discord refuses the panel that follows it (a
    5xx): the player is told it is done and how to see their hand again from where they are.
    Before, they read "`/sequence hand` shows your hand", a command that works in the game's
    channel only (in a DM it answers that there is no game there)."""
    table = await make_table(simcord_env, ["alice", "bob"])
    for player in table.players:
        await player.slash(table.channel, "sequence-me notify", setting="on")
    record = await open_and_start(table)
    seat = record.game.turn
    mover = seat_actor(table, record, seat)
    dm = mover.user.dm_channel
    card, space = normal_play(record.game, seat)
    await mover.user.select(
        dm.last_message, [card], custom_id=find_component(dm.last_message, f"seq:card:{record.id}:")
    )
    go = find_component(dm.last_message, f"seq:go:{record.id}:")
    simcord_env.inject_error("POST", "/interactions/*/callback", status=500)
    answer = await mover.user.click(dm.last_message, custom_id=go)
    assert [(m.kind, m.card, m.space) for m in record.game.moves] == [("play", card, space)]
    told = answer.response.content
    assert answer.ephemeral and told.startswith("✅ Done."), told
    assert "/sequence hand" not in told and "Your hand" in told, told
    # What it names works: the board's button, in the game's channel.
    shown = await mover.click(table.channel.last_message, label="Your hand")
    assert shown.ephemeral and "Your hand" in shown.response.content


async def test_the_turn_dm_tells_every_move_since_the_players_last_turn(simcord_env):
    """Three players: Alice's turn DM said only what Carol just did ("carol played …"), not
    Bob's move before it; someone who plays from their DMs never learnt of it. Now it lists
    each move since her own."""
    table = await make_table(simcord_env, ["alice", "bob", "carol"])
    for player in table.players:
        await player.slash(table.channel, "sequence-me notify", setting="on")
    record = await open_and_start(table)
    first = seat_actor(table, record, record.game.turn)
    for _ in range(3):
        await play_one(table, record)
    assert seat_actor(table, record, record.game.turn) is first
    ping = first.user.dm_channel.last_message.content
    for move in record.game.moves[1:]:
        name = record.seats[move.seat].name
        told = f"{name} played {card_label(move.card)} on {space_name(move.space)}."
        assert told in ping, ping
    mine = record.game.moves[0]
    assert f"{card_label(mine.card)} on {space_name(mine.space)}" not in ping, ping
