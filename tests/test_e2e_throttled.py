"""A busy table whose own output Discord throttles or refuses for a while: computers move
faster than boards can be posted, and a post, an edit or an answer fails (a 429 that outlasted
discord.py's waits, a 5xx after its retries). The moves are saved; what the channel ends with
must still be the latest board, pinging the player whose turn it is, with only that board live."""

from __future__ import annotations

import pytest

from bot.config import Settings

from .conftest import make_settings
from .e2e_helpers import make_table

PAUSE = 30.0  # longer than SimCord's settle window (5 s), which runs shorter sleeps at once


@pytest.fixture
def bot_settings(tmp_path) -> Settings:
    return make_settings(tmp_path, computer_move_delay=PAUSE)


def boards(channel) -> list:
    """The channel's board messages, oldest first."""
    return [m for m in channel.history() if m.attachments]


def live_boards(channel) -> list:
    """The board messages that still carry buttons."""
    return [m for m in boards(channel) if m.components]


async def against_a_computer(env):
    """alice against a computer that moves first, after its pause."""
    table = await make_table(env, ["alice"])
    (alice,) = table.players
    lobby = (await alice.slash(table.channel, "sequence new")).response
    await alice.slash(table.channel, "sequence addbot", level="medium")
    table.bot.lobbies.new_seed = lambda: 3  # seed 3: the computer starts
    await alice.click(lobby, label="Start")
    return table, table.game()


@pytest.mark.parametrize("status", [429, 503])
async def test_a_board_discord_refused_is_posted_once_when_it_answers_again(simcord_env, status):
    """The computer's move is saved, but Discord refuses its board (rate limited past
    discord.py's waits, or down): the channel kept showing the computer "thinking", with no
    ping for alice, until someone typed /sequence board. The board is tried again, once."""
    table, record = await against_a_computer(simcord_env)
    (alice,) = table.players
    simcord_env.inject_error("POST", f"/channels/{table.channel.id}/messages", status=status)
    await simcord_env.advance_time(PAUSE + 1)
    assert len(record.game.moves) == 1  # saved
    assert "is thinking" in table.channel.last_message.content
    await simcord_env.advance_time(300)
    latest = table.channel.last_message
    assert f"<@{alice.id}>" in latest.content and latest.attachments
    assert f"move {len(record.game.moves)}" in latest.embeds[0].title
    assert [m.id for m in live_boards(table.channel)] == [latest.id]
    await simcord_env.advance_time(3600)
    assert len(boards(table.channel)) == 2  # the start and this one: posted once


async def test_a_board_discord_keeps_refusing_is_tried_less_and_less_often(simcord_env):
    """Discord refuses every post for hours: the board is tried again after a minute, then
    after ever longer waits, then given up (a restart tries again), not once a minute for ever."""
    table, record = await against_a_computer(simcord_env)
    path = f"/channels/{table.channel.id}/messages"
    simcord_env.inject_error("POST", path, status=503, times=None)
    start = len(simcord_env.http_requests)
    await simcord_env.advance_time(PAUSE + 1)
    for _ in range(12):
        await simcord_env.advance_time(1800)
    tries = [r for r in simcord_env.http_requests[start:] if r.method == "POST" and r.path == path]
    assert len(tries) == 8  # the move's board, then after 1, 2, 4, 8, 16, 32 and 60 minutes
    assert len(record.game.moves) == 1
