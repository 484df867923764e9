"""The board a move posts is drawn from the game the store committed: what is posted is always
the committed game's board, and a move the store refuses posts nothing."""

from __future__ import annotations

from bot.app import create_bot
from bot.game import Move, public_view, space_name
from bot.game.cards import is_jack
from bot.services.games import RACE_LOST
from cogs.common.table import seat_names
from render.board import render_board

from .e2e_helpers import make_table, open_and_start, seat_actor
from .helpers.cluster import another_process


def plays(game, seat):
    """Each playable non-jack card of ``seat`` with its first open space."""
    return [
        (card, game.targets(seat, card)[0])
        for card in dict.fromkeys(game.hands[seat])
        if not is_jack(card) and game.targets(seat, card)
    ]


async def posted_board(message) -> bytes:
    return await message.attachments[0].read()


async def test_the_posted_board_is_the_committed_game(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table)
    for _ in range(4):
        seat = record.game.turn
        card, space = plays(record.game, seat)[0]
        mover = seat_actor(table, record, seat)
        await mover.slash(table.channel, "sequence play", card=card, space=space_name(space))
        board = table.channel.last_message
        assert f"move {len(record.game.moves)}" in board.embeds[0].title
        drawn = render_board(public_view(record.game), seat_names(record))
        assert await posted_board(board) == drawn


async def test_a_refused_commit_posts_the_stored_games_board(simcord_env):
    """Another process (a cluster) commits a different move first: the refused move's board is
    never drawn nor posted; the stored move's board is."""
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table)
    seat = record.game.turn
    mover = seat_actor(table, record, seat)
    (refused_card, refused_space), (card, space) = plays(record.game, seat)[:2]
    board_before = table.channel.last_message
    other = await another_process(table.bot)  # another process of the cluster moves first
    await other.play(record.id, mover.id, card, space, expected_turn=None)
    answer = await mover.slash(
        table.channel, "sequence play", card=refused_card, space=space_name(refused_space)
    )
    assert answer.ephemeral and RACE_LOST in answer.response.content
    assert record.game.moves == [Move.play(seat, card, space)]  # the stored move, reloaded
    board = table.channel.last_message
    assert board.id != board_before.id
    drawn = render_board(public_view(record.game), seat_names(record))
    assert await posted_board(board) == drawn


async def test_a_final_board_discord_refused_is_posted_when_discord_answers_again(
    simcord_env, bot_settings
):
    """Discord refuses every post to the channel when the game ends (after discord.py's own
    retries): the channel showed, for good, the older board saying whose turn it was. The final
    board is tried again later, also after a restart, until the result is shown."""
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table)
    alice = table.players[0]
    path = f"/channels/{table.channel.id}/messages"
    simcord_env.inject_error("POST", path, status=500, times=None)
    await alice.slash(table.channel, "sequence resign")
    assert record.game.is_over()
    await simcord_env.advance_time(90)  # a try while Discord still refuses
    assert "wins" not in table.channel.last_message.content
    await simcord_env.bot.close()
    simcord_env.backend.faults.clear()
    await simcord_env.restart_bot(create_bot(bot_settings))
    await simcord_env.advance_time(3600)
    final = table.channel.last_message
    assert "Green wins" in final.content and final.attachments
    # No turn's buttons on the final board: only its Rematch.
    assert [c.label for row in final.components for c in row.children] == ["Rematch"]
    boards = [m for m in table.channel.history() if m.attachments]
    assert "your turn" not in boards[-2].content and not boards[-2].components
    await simcord_env.advance_time(3 * 3600)
    assert table.channel.last_message.id == final.id  # posted once
