"""A busy table whose own output Discord throttles or refuses for a while: computers move
faster than boards can be posted, and a post, an edit or an answer fails (a 429 that outlasted
discord.py's waits, a 5xx after its retries). The moves are saved; what the channel ends with
must still be the latest board, pinging the player whose turn it is, with only that board live."""

from __future__ import annotations

import pytest

from bot.app import create_bot
from bot.config import Settings
from bot.game import space_name
from cogs.common import table as table_module

from .conftest import make_settings
from .e2e_driver import find_component, open_hand
from .e2e_helpers import against_a_computer
from .engine_helpers import playable

PAUSE = 30.0  # longer than SimCord's settle window (5 s), which runs shorter sleeps at once


@pytest.fixture
def bot_settings(tmp_path) -> Settings:
    return make_settings(tmp_path, computer_move_delay=PAUSE)


def boards(channel) -> list:
    """The channel's board messages, oldest first."""
    return [m for m in channel.history() if m.attachments]


def live_boards(channel) -> list:
    """The board messages that still carry a turn's buttons (a final board carries only its
    Rematch: :func:`final_buttons`)."""
    return [m for m in boards(channel) if m.components and final_buttons(m) != ["Rematch"]]


def final_buttons(message) -> list:
    """The labels of a board message's buttons."""
    return [c.label for row in message.components for c in row.children]


def pings(env, channel, user) -> list[str]:
    """The contents of the posts to ``channel`` that pinged ``user`` (as they were sent: an edit
    since cannot take a notification back)."""
    path = f"/channels/{channel.id}/messages"
    posts = [r.json for r in env.http_requests if r.method == "POST" and r.path == path]
    return [
        post["content"]
        for post in posts
        if f"<@{user.id}>" in (post.get("content") or "")
        and "users" in (post.get("allowed_mentions") or {}).get("parse", [])
    ]


async def her_move_meanwhile(bot, record, player) -> None:
    """``player`` answers the computer's first move (once) while its board is on the way: she
    saw her turn in /sequence hand."""
    game = record.game
    if len(game.moves) == 1 and record.seats[game.turn].user_id == player.id:
        _seat, card, space = playable(game)
        await bot.games.play(record.id, player.id, card, space, expected_turn=1)


@pytest.mark.parametrize("status", [429, 503])
async def test_a_board_discord_refused_is_posted_once_when_it_answers_again(simcord_env, status):
    """The computer's move is saved, but Discord refuses its board (rate limited past
    discord.py's waits, or down): the channel kept showing the computer "thinking", with no
    ping for alice, until someone typed /sequence board. The board is tried again, once."""
    table, record = await against_a_computer(simcord_env, "medium", seed=3)
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


async def tries_refused_for_hours(env, method: str, path: str) -> int:
    """Discord refuses every ``method`` on ``path`` (503) while the computer moves and six
    hours pass: how many times the bot tried it."""
    env.inject_error(method, path, status=503, times=None)
    start = len(env.http_requests)
    await env.advance_time(PAUSE + 1)
    for _ in range(12):
        await env.advance_time(1800)
    return sum(1 for r in env.http_requests[start:] if r.method == method and r.path == path)


async def test_a_board_discord_keeps_refusing_is_tried_less_and_less_often(simcord_env):
    """Discord refuses every post for hours: the board is tried again after a minute, then
    after ever longer waits, then given up (a restart tries again), not once a minute for ever."""
    table, record = await against_a_computer(simcord_env, "medium", seed=3)
    path = f"/channels/{table.channel.id}/messages"
    tries = await tries_refused_for_hours(simcord_env, "POST", path)
    assert tries == 8  # the move's board, then after 1, 2, 4, 8, 16, 32 and 60 minutes
    assert len(record.game.moves) == 1


async def test_a_board_posted_after_its_turn_was_played_pings_nobody(simcord_env, monkeypatch):
    """The board of the computer's move takes a while to draw (the server's other games post
    theirs at once); meanwhile alice, who saw her turn in /sequence hand, plays. The late board
    pinged her for a turn she had already played (a notification for nothing); it is posted
    without the ping, and her move's board then replaces it."""
    table, record = await against_a_computer(simcord_env, "medium", seed=3)
    (alice,) = table.players
    bot = table.bot
    drawn = table_module.public_board_file

    async def played_meanwhile(shown):
        file = await drawn(shown)
        await her_move_meanwhile(bot, record, alice)
        return file

    monkeypatch.setattr(table_module, "public_board_file", played_meanwhile)
    await simcord_env.advance_time(PAUSE + 1)
    await simcord_env.settle()
    await bot.bus.idle()
    assert len(record.game.moves) == 2
    late, latest = boards(table.channel)[-2:]
    assert "move 1" in late.embeds[0].title
    assert pings(simcord_env, table.channel, alice) == []
    assert late.content.startswith("↪️") and not late.components
    assert "move 2" in latest.embeds[0].title and latest.components


async def test_a_turn_played_while_its_board_waited_gets_no_turn_dm(simcord_env, monkeypatch):
    """alice gets turn DMs. The board of the computer's move waits for the channel's rate
    limit, and the DM waits behind it; meanwhile alice plays. The DM then still said "Your turn"
    with a hand panel for a turn she had already played (any click on it: "the game has moved
    on"). No DM is sent for a turn that has passed."""
    table, record = await against_a_computer(simcord_env, "medium", seed=3)
    (alice,) = table.players
    await alice.slash(table.channel, "sequence-me notify", setting="on")
    bot = table.bot
    board = f"/channels/{table.channel.id}/messages"
    request = bot.http.request

    async def played_meanwhile(route, **kwargs):
        """The board's post waits (discord.py waits out the bucket inside ``send``)."""
        if route.method == "POST" and route.url.endswith(board):
            await her_move_meanwhile(bot, record, alice)
        return await request(route, **kwargs)

    monkeypatch.setattr(bot.http, "request", played_meanwhile)
    await simcord_env.advance_time(PAUSE + 1)
    await simcord_env.settle()
    await bot.bus.idle()
    assert len(record.game.moves) == 2 and record.seats[record.game.turn].is_computer
    dm = alice.user.dm_channel
    assert dm is None or not any("Your turn" in m.content for m in dm.history())
    assert "move 2" in boards(table.channel)[-1].embeds[0].title


@pytest.mark.parametrize("status", [429, 502])
async def test_a_board_discord_refused_to_retire_is_retired_later(simcord_env, status):
    """Discord refuses the edit that retires the board before the computer's move: that board
    kept its buttons and its "your turn" line for good, two live boards in the channel. The
    edit is tried again later."""
    table, record = await against_a_computer(simcord_env, "medium", seed=3)
    (first,) = boards(table.channel)
    path = f"/channels/{table.channel.id}/messages/{first.id}"
    simcord_env.inject_error("PATCH", path, status=status)
    await simcord_env.advance_time(PAUSE + 1)
    assert len(record.game.moves) == 1
    assert len(live_boards(table.channel)) == 2  # the refusal
    await simcord_env.advance_time(300)
    latest = table.channel.last_message
    assert [m.id for m in live_boards(table.channel)] == [latest.id]
    retired = next(m for m in table.channel.history() if m.id == first.id)
    assert retired.content.startswith("↪️ Then:"), retired.content


@pytest.mark.parametrize("way", ["command", "panel"])
async def test_a_move_whose_panel_discord_refused_is_told_as_made(simcord_env, way):
    """Discord refuses the answer that shows alice her panel after her move (a 5xx): the move
    was saved and its board posted, yet she was told "Something went wrong on our side; please
    try again", and trying again only answered that the game had moved on. She is told her
    move was made."""
    table, record = await against_a_computer(simcord_env, "medium", seed=3)
    (alice,) = table.players
    await simcord_env.advance_time(PAUSE + 1)
    _seat, card, space = playable(record.game)
    callback = "/interactions/*/callback"
    if way == "command":
        simcord_env.inject_error("POST", callback, status=503)
        answer = await alice.slash(
            table.channel, "sequence play", card=card, space=space_name(space)
        )
        told = answer.response.content
    else:
        hand = await open_hand(table, alice)
        card_select = find_component(hand, f"seq:card:{record.id}:")["custom_id"]
        await alice.select(hand, [card], custom_id=card_select)
        go = find_component(hand, f"seq:go:{record.id}:")["custom_id"]
        simcord_env.inject_error("POST", callback, status=503)
        answer = await alice.click(hand, custom_id=go)
        told = answer.followups[-1].content if answer.followups else answer.response.content
    assert len(record.game.moves) == 2  # saved
    assert answer.ephemeral and told.startswith("✅ Done"), told
    assert "move 2" in boards(table.channel)[-1].embeds[0].title



async def restart(env, settings) -> None:
    """The bot stops and a new process starts over the same store (Discord as it was)."""
    await env.bot.close()
    await env.restart_bot(create_bot(settings))


async def nothing_left_to_retry(bot) -> bool:
    """True when the table tries nothing again: the outbox holds nothing back, and keeps
    nothing undelivered in the store but what it gave up until the next start."""
    await bot.bus.idle()
    undelivered = {row.id for row in await bot.db.outbox.undelivered()}
    return bot.bus.holding() == [] and undelivered <= bot.bus.given_up


async def test_a_board_discord_refused_before_a_restart_is_posted_after_it(
    simcord_env, bot_settings
):
    """Discord refuses the computer's board, and still refuses when the bot restarts: the
    board is tried again after the restart until Discord answers."""
    table, _record = await against_a_computer(simcord_env, "medium", seed=3)
    (alice,) = table.players
    path = f"/channels/{table.channel.id}/messages"
    simcord_env.inject_error("POST", path, status=503, times=None)
    await simcord_env.advance_time(PAUSE + 1)
    assert "is thinking" in table.channel.last_message.content
    await restart(simcord_env, bot_settings)
    simcord_env.backend.faults.clear()
    await simcord_env.advance_time(300)
    latest = table.channel.last_message
    assert f"<@{alice.id}>" in latest.content and "move 1" in latest.embeds[0].title
    assert [m.id for m in live_boards(table.channel)] == [latest.id]
    assert await nothing_left_to_retry(simcord_env.bot)


async def test_a_board_discord_refused_to_retire_before_a_restart_is_retired_after_it(
    simcord_env, bot_settings
):
    """Discord refuses the edit that retires the board before the computer's move, and the
    bot restarts: the older board kept its buttons and its "your turn" line for good, two live
    boards in the channel. The edit is tried again after the restart."""
    table, _record = await against_a_computer(simcord_env, "medium", seed=3)
    (first,) = boards(table.channel)
    path = f"/channels/{table.channel.id}/messages/{first.id}"
    simcord_env.inject_error("PATCH", path, status=503, times=None)
    await simcord_env.advance_time(PAUSE + 1)
    assert len(live_boards(table.channel)) == 2  # the refusal
    await restart(simcord_env, bot_settings)
    simcord_env.backend.faults.clear()
    await simcord_env.advance_time(3600)
    latest = table.channel.last_message
    assert [m.id for m in live_boards(table.channel)] == [latest.id]
    retired = next(m for m in table.channel.history() if m.id == first.id)
    assert retired.content.startswith("↪️ Then:"), retired.content
    assert await nothing_left_to_retry(simcord_env.bot)


async def test_an_older_board_is_retired_after_new_turns_the_end_and_a_restart(
    simcord_env, bot_settings
):
    """The retirement of an older board Discord refused outlives the turns played meanwhile
    (each replaces the game's timers) and the end of the game (which clears them)."""
    table, record = await against_a_computer(simcord_env, "medium", seed=3)
    (alice,) = table.players
    (first,) = boards(table.channel)
    path = f"/channels/{table.channel.id}/messages/{first.id}"
    simcord_env.inject_error("PATCH", path, status=503, times=None)
    await simcord_env.advance_time(PAUSE + 1)
    _seat, card, space = playable(record.game)
    await alice.slash(table.channel, "sequence play", card=card, space=space_name(space))
    await simcord_env.advance_time(PAUSE + 1)
    assert len(record.game.moves) == 3
    await alice.slash(table.channel, "sequence resign")
    assert [m.id for m in live_boards(table.channel)] == [first.id]  # still "your turn"
    await restart(simcord_env, bot_settings)
    simcord_env.backend.faults.clear()
    await simcord_env.advance_time(3600)
    assert live_boards(table.channel) == []
    assert final_buttons(boards(table.channel)[-1]) == ["Rematch"]
    assert "wins" in table.channel.last_message.content
    assert await nothing_left_to_retry(simcord_env.bot)


async def test_an_older_board_discord_keeps_refusing_to_retire_is_given_up(simcord_env):
    """Discord refuses the retirement of an older board for hours: tried after ever longer
    waits, as a board is, then given up and forgotten."""
    table, record = await against_a_computer(simcord_env, "medium", seed=3)
    (first,) = boards(table.channel)
    path = f"/channels/{table.channel.id}/messages/{first.id}"
    tries = await tries_refused_for_hours(simcord_env, "PATCH", path)
    assert tries == 8  # at the move, then after 1, 2, 4, 8, 16, 32 and 60 minutes
    assert len(record.game.moves) == 1
    assert await nothing_left_to_retry(table.bot)


async def test_a_retry_due_after_a_newer_board_posts_no_old_board(simcord_env):
    """Discord refuses the computer's board once; alice, who saw her turn in /sequence hand,
    plays before the retry falls due: her move's board is posted, and the retry then posts
    nothing (no board of move 1 after the board of move 2)."""
    table, record = await against_a_computer(simcord_env, "medium", seed=3)
    (alice,) = table.players
    simcord_env.inject_error("POST", f"/channels/{table.channel.id}/messages", status=503)
    await simcord_env.advance_time(PAUSE + 1)
    assert len(record.game.moves) == 1 and "is thinking" in table.channel.last_message.content
    _seat, card, space = playable(record.game)
    await alice.slash(table.channel, "sequence play", card=card, space=space_name(space))
    assert "move 2" in boards(table.channel)[-1].embeds[0].title
    await simcord_env.advance_time(PAUSE - 1)  # the retry's minute, before the computer moves
    titles = [m.embeds[0].title for m in boards(table.channel)]
    assert not any("move 1" in title for title in titles), titles
    assert [m.id for m in live_boards(table.channel)] == [boards(table.channel)[-1].id]
    assert await nothing_left_to_retry(table.bot)


@pytest.mark.parametrize("ending", ["resign", "channel deleted"])
async def test_retries_pending_when_the_game_ends_are_forgotten(simcord_env, ending):
    """Discord refuses the retirement of the first board, then alice's board; the game ends
    (alice resigns, or the channel is deleted) while both retries wait: the final board takes
    over, the first board is retired if the channel is still there, and nothing is left to try
    (no entry kept in memory for a game that is over)."""
    table, record = await against_a_computer(simcord_env, "medium", seed=3)
    (alice,) = table.players
    (first,) = boards(table.channel)
    channel = f"/channels/{table.channel.id}/messages"
    simcord_env.inject_error("PATCH", f"{channel}/{first.id}", status=503, times=None)
    await simcord_env.advance_time(PAUSE + 1)
    simcord_env.inject_error("POST", channel, status=503, times=None)
    _seat, card, space = playable(record.game)
    await alice.slash(table.channel, "sequence play", card=card, space=space_name(space))
    assert len(record.game.moves) == 2 and "move 1" in boards(table.channel)[-1].embeds[0].title
    assert table.bot.bus.holding(record.id)  # the board and the retirement wait
    if ending == "resign":
        await alice.slash(table.channel, "sequence resign")
    else:
        simcord_env.backend.delete_channel(table.channel.id)
        await simcord_env.settle()
    simcord_env.backend.faults.clear()
    await simcord_env.advance_time(4 * 3600)
    assert table.bot.games.records == {}
    assert await nothing_left_to_retry(table.bot)
    if ending == "resign":
        assert live_boards(table.channel) == []
        assert final_buttons(boards(table.channel)[-1]) == ["Rematch"]
        assert "wins" in table.channel.last_message.content


async def test_a_moves_board_refused_across_a_restart_is_posted_once(simcord_env, bot_settings):
    """Discord refuses the computer's board (the outbox keeps it undelivered), the bot restarts
    while it still refuses, then answers: the board of that move is posted once, with alice's
    ping, and neither the start-up, the pending retry nor the hours after post it again."""
    table, record = await against_a_computer(simcord_env, "medium", seed=3)
    (alice,) = table.players
    path = f"/channels/{table.channel.id}/messages"
    simcord_env.inject_error("POST", path, status=503, times=None)
    await simcord_env.advance_time(PAUSE + 90)  # the move, and a try a minute later: refused
    assert len(record.game.moves) == 1 and len(boards(table.channel)) == 1
    await restart(simcord_env, bot_settings)
    await simcord_env.advance_time(30)  # the start-up's try: still refused
    simcord_env.backend.faults.clear()
    await simcord_env.advance_time(3 * 3600)
    titles = [m.embeds[0].title for m in boards(table.channel)]
    assert sum("move 1" in title for title in titles) == 1, titles
    latest = boards(table.channel)[-1]
    assert "move 1" in latest.embeds[0].title and f"<@{alice.id}>" in latest.content
    assert [m.id for m in live_boards(table.channel)] == [latest.id]
    assert await nothing_left_to_retry(simcord_env.bot)
