"""Games across days: reminders, time limits, DMs, undo, /sequence mygames and restarts,
with SimCord's virtual clock (``env.advance_time``) instead of waiting."""

from __future__ import annotations

import random

import pytest

from bot.app import create_bot
from bot.cli.commands import tree_commands
from bot.config import Settings
from bot.game import Move, card_label, player_view, space_name
from bot.game.ai import choose_move
from bot.game.cards import is_jack
from bot.game.moves import DRAW, FORFEIT
from bot.store import Seat
from bot.table.options import TableOptions
from cogs.common.describe import deadline_note

from .e2e_driver import make_move
from .e2e_helpers import Table, make_table, open_and_start, play_one, seat_actor, timeouts
from .store_util import new_game


@pytest.fixture
def bot_settings(settings_on_each_backend: Settings) -> Settings:
    """Every test here runs twice: on SQLite and on PostgreSQL (conftest's store backends)."""
    return settings_on_each_backend


HOUR = 3600


def reminders(table):
    return [m for m in table.channel.history() if m.content.startswith("⏰")]


async def test_a_reminder_at_the_right_time_and_at_most_once_per_delay(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table, reminder="1h")
    await simcord_env.advance_time(HOUR - 5)
    assert reminders(table) == []
    await simcord_env.advance_time(10)
    (first,) = reminders(table)
    mover = seat_actor(table, record, record.game.turn)
    assert f"<@{mover.id}>" in first.content
    await simcord_env.advance_time(HOUR / 2)
    assert len(reminders(table)) == 1  # not again within the delay
    await simcord_env.advance_time(HOUR / 2 + 5)
    assert len(reminders(table)) == 2  # once more after a whole delay
    # each says how long the player has been awaited, not the delay again
    assert ["waiting 1 h." in r.content for r in reminders(table)] == [True, False]
    assert "waiting 2 h." in reminders(table)[1].content
    await play_one(table, record)
    await simcord_env.advance_time(HOUR - 10)
    assert len(reminders(table)) == 2  # a move re-arms the reminder for the next player


async def test_the_wait_counts_from_the_turns_start_not_from_a_move_within_it(simcord_env):
    """Bob's turn began 12 h ago; meanwhile Alice made her late manual draw and, after Bob's
    upheld table-talk call, she and her teammate each forfeited a card. The reminder said
    "waiting 6 h" and /sequence status "Waiting 6 h" (since the last forfeit), though the 12 h
    reminder was due."""
    table = await make_table(simcord_env, ["alice", "bob", "carol", "dave"])
    record = await open_and_start(table, manual_draw=True, tabletalk_stands=True)
    first = record.game.turn
    teammate = (first + 2) % 4
    await play_one(table, record)
    await simcord_env.advance_time(5 * HOUR)
    await make_move(table, record, first, Move(DRAW, first))
    waiter = seat_actor(table, record, record.game.turn)
    await simcord_env.advance_time(HOUR)
    team = record.game.team_of(first)
    called = await waiter.slash(table.channel, "sequence tabletalk", team=team)
    assert not called.ephemeral, called.response.content
    for seat in (first, teammate):
        await make_move(table, record, seat, Move(FORFEIT, seat, card=record.game.hands[seat][0]))
    kinds = ["play", "draw", "tabletalk", "forfeit", "forfeit"]
    assert [m.kind for m in record.game.moves] == kinds
    await simcord_env.advance_time(6 * HOUR + 5)
    (reminder,) = reminders(table)
    assert "waiting 12 h." in reminder.content, reminder.content
    status = (await waiter.slash(table.channel, "sequence status")).response.content
    assert "⏳ Waiting 12 h 5 s for this move." in status, status


async def test_after_an_undo_the_wait_counts_from_the_undo(simcord_env):
    """The turn an undo returns to starts again (its timers too): status said "Waiting 4 h",
    counting from the move taken back 3 h before the undo."""
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    record = await open_and_start(table)
    await play_one(table, record)
    await simcord_env.advance_time(3 * HOUR)
    ask = await alice.slash(table.channel, "sequence undo")
    await bob.click(ask.response, label="Agree")
    assert table.game().game.moves == []
    await simcord_env.advance_time(HOUR)
    status = (await bob.slash(table.channel, "sequence status")).response.content
    assert "⏳ Waiting 1 h for this move." in status, status


async def test_time_limit_skip(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table, time_limit="10m", on_timeout="skip")
    game = record.game
    seat = game.turn
    await simcord_env.advance_time(10 * 60 + 1)
    assert record.game.turn != seat and record.game.moves[-1].kind == "skip"
    # told once, on the board the skip posts (a "⌛ … ran out of time." notice before it said
    # the same again)
    (told,) = timeouts(table)
    assert told.id == table.channel.last_message.id and "your turn" in told.content
    late = seat_actor(table, record, seat).name
    assert told.embeds[0].description == f"**{late}** ran out of time: the turn passes."
    await simcord_env.advance_time(10 * 60 + 1)
    assert record.game.turn == seat and len(timeouts(table)) == 2  # the next player's clock ran too


async def test_a_table_where_nobody_plays_a_whole_round_stops_its_clock(simcord_env, bot_settings):
    """Before: with the skip policy, a table whose players had all gone was skipped turn after
    turn for ever, a "your turn" ping each time (1,440 a day with a 1-minute limit; the soak's
    seed 25 spent a settle on one such day). After a whole round of time-outs the clock waits
    for the player on turn, and says so; their move starts it again."""
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table, time_limit="1m", on_timeout="skip")
    await simcord_env.advance_time(61)
    await simcord_env.advance_time(61)
    assert [m.kind for m in record.game.moves] == ["skip", "skip"]
    board = table.channel.last_message
    assert "your turn" in board.content and "Time runs out" not in board.content
    assert "clock waits" in board.content, board.content
    await simcord_env.advance_time(HOUR)
    await simcord_env.bot.close()
    await simcord_env.restart_bot(create_bot(bot_settings))
    await simcord_env.advance_time(HOUR)
    record = table.game()
    assert len(record.game.moves) == 2 and table.channel.last_message.id == board.id
    await play_one(table, record)
    await simcord_env.advance_time(61)
    assert [m.kind for m in record.game.moves][2:] == ["play", "skip"]


async def test_a_time_limited_turn_says_when_it_runs_out(simcord_env):
    """With a time limit, the board, /sequence status, the reminder and the turn DM say when
    the turn runs out, as a Discord timestamp each reader sees in their own time zone; a game
    without one says nothing of the kind."""
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    await bob.slash(table.channel, "sequence-me notify", setting="on")
    record = await open_and_start(table, time_limit="1d", on_timeout="skip")
    bot = table.bot

    async def runs_out() -> str:
        timer = await bot.db.timers.get(record.id, "limit")
        assert timer is not None and timer.payload["turn"] == record.game.turn_number
        return deadline_note(timer.due_at)

    board = table.channel.last_message.content
    assert "your turn" in board and board.endswith(await runs_out()), board
    await play_one(table, record)  # the next turn has its own, later deadline
    assert table.channel.last_message.content.endswith(await runs_out())
    dm = bob.user.dm_channel
    if record.game.turn != next(i for i, s in enumerate(record.seats) if s.user_id == bob.id):
        await play_one(table, record)
    assert await runs_out() in dm.last_message.content, dm.last_message.content
    status = (await alice.slash(table.channel, "sequence status")).response.content
    assert await runs_out() in status.split("\n"), status
    await simcord_env.advance_time(12 * HOUR + 1)  # the reminder, in the channel and by DM
    (reminder,) = reminders(table)
    assert await runs_out() in reminder.content
    assert "Reminder" in dm.last_message.content and await runs_out() in dm.last_message.content

    plain = await make_table(simcord_env, ["cat", "dan"])
    await open_and_start(plain)
    assert "Time runs out" not in plain.channel.last_message.content


async def test_time_limit_computer_moves_for_them(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table, time_limit="1h", on_timeout="computer")
    game = record.game
    seat = game.turn
    await simcord_env.advance_time(HOUR + 1)
    assert record.game.moves[-1].kind == "play" and record.game.moves[-1].seat == seat
    assert "computer player moves for them" in timeouts(table)[0].content


async def test_time_limit_computer_also_takes_the_manual_draw(simcord_env):
    """Manual draw: the stand-in plays the whole turn, draw included; left owed, the draw was
    lost as soon as the next player moved and drew, and the absent player had a card less."""
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table, time_limit="1h", on_timeout="computer", manual_draw=True)
    seat = record.game.turn
    await simcord_env.advance_time(HOUR + 1)
    assert [(m.kind, m.seat) for m in record.game.moves] == [("play", seat), ("draw", seat)]
    assert seat not in record.game.owed_draws and len(record.game.hands[seat]) == 7


async def test_the_configured_time_limit_policy_is_the_default(simcord_env, bot_settings):
    """An admin sets TIME_LIMIT_POLICY: a host who chooses no policy gets it (not always skip);
    a host's own choice still wins."""
    await simcord_env.bot.close()
    configured = bot_settings.with_overrides(time_limit_policy="computer")
    await simcord_env.restart_bot(create_bot(configured))
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table, time_limit="1h")
    assert record.options.time_limit_policy == "computer"
    seat = record.game.turn
    await simcord_env.advance_time(HOUR + 1)
    assert record.game.moves[-1].kind == "play" and record.game.moves[-1].seat == seat
    assert "computer player moves for them" in timeouts(table)[0].content
    await table.players[0].slash(table.channel, "sequence cancel")
    record = await open_and_start(table, time_limit="1h", on_timeout="skip")
    assert record.options.time_limit_policy == "skip"


async def test_the_configured_time_limit_and_reminder_are_the_defaults_the_options_name(
    simcord_env, bot_settings
):
    """An admin sets TURN_TIME_LIMIT and REMINDER_DELAY: a host who chooses neither gets them,
    and /sequence new's options say so (not "default: none" and "default 12h")."""
    await simcord_env.bot.close()
    configured = bot_settings.with_overrides(turn_time_limit=HOUR, reminder_delay=HOUR // 2)
    await simcord_env.restart_bot(create_bot(configured))
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table)
    assert record.options.turn_time_limit == HOUR
    assert record.options.reminder_delay == HOUR // 2
    (new,) = [c for c in tree_commands(simcord_env.bot.tree) if c.name == "sequence new"]
    described = {option.name: option.description for option in new.options}
    for name in ("time_limit", "on_timeout", "reminder"):
        assert "(default: the bot's setting," in described[name], described[name]


async def test_time_limit_computer_plays_the_whole_turn_after_a_dead_card(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table, seed=3, time_limit="1h", on_timeout="computer")
    rng = random.Random(0)
    while not any(record.game.is_dead(c) for c in record.game.hands[record.game.turn]):
        assert not record.game.is_over()
        seat = record.game.turn
        move = choose_move(player_view(record.game, seat), "easy", rng)
        await make_move(table, record, seat, move)
    turn, seat = record.game.turn_number, record.game.turn
    await simcord_env.advance_time(HOUR + 1)
    # The dead card is turned in, and the computer still plays the turn: it does not stop
    # there, leaving the turn to the absent player with no time limit any more.
    assert [m.kind for m in record.game.moves if m.seat == seat][-2:] == ["dead", "play"]
    assert record.game.turn_number == turn + 1 and record.game.turn != seat
    next_player = seat_actor(table, record, record.game.turn)
    assert f"<@{next_player.id}>, your turn" in table.channel.last_message.content


async def test_time_limit_remove_and_the_team_plays_on(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob", "carol", "dave"])
    record = await open_and_start(table, time_limit="1h", on_timeout="remove")
    game = record.game
    seat = game.turn
    await simcord_env.advance_time(HOUR + 1)
    assert record.game.out[seat] and not record.game.is_over()
    assert record.game.hands[seat] == []
    assert record.game.turn != seat
    for _ in range(4):  # the removed seat is skipped from now on
        assert record.game.turn != seat
        await play_one(table, record)


async def test_a_removed_player_is_told_they_are_out_not_that_their_turn_will_come(simcord_env):
    """A player removed for running out of time (or whose team resigned) has no more turns:
    their hand panel says so, by command and by the board's button, and promises no ping."""
    table = await make_table(simcord_env, ["alice", "bob", "carol", "dave"])
    record = await open_and_start(table, time_limit="1h", on_timeout="remove")
    seat = record.game.turn
    removed = seat_actor(table, record, seat)
    await simcord_env.advance_time(HOUR + 1)
    assert record.game.out[seat] and not record.game.is_over()
    board = next(m for m in reversed(table.channel.history()) if m.attachments)
    for shown in (
        await removed.slash(table.channel, "sequence hand"),
        await removed.click(board, label="Your hand"),
    ):
        assert shown.ephemeral
        assert "no longer playing" in shown.response.content, shown.response.content
        assert "pinged" not in shown.response.content and not shown.response.components


async def test_a_player_removed_alone_is_not_said_to_leave_a_team_playing_on(simcord_env):
    """In a 3-player game each plays alone: a player removed for running out of time takes
    their whole team out, and the board must not say "their team plays on"; nor when the
    removal ends the game."""
    table = await make_table(simcord_env, ["alice", "bob", "carol"])
    record = await open_and_start(table, time_limit="1h", on_timeout="remove")
    first = record.game.turn
    await simcord_env.advance_time(HOUR + 1)
    assert record.game.out[first] and not record.game.is_over()
    board = next(m for m in reversed(table.channel.history()) if m.attachments)
    headline = board.embeds[0].description
    assert "their team plays on" not in headline, headline
    assert "Blue is out" in headline and "the others play on" in headline, headline
    await simcord_env.advance_time(HOUR + 1)
    assert record.game.is_over()
    final = table.channel.last_message
    assert "wins!" in final.content
    assert "plays on" not in final.embeds[0].description, final.embeds[0].description


async def test_a_two_player_table_is_told_a_removal_for_time_ends_the_game(simcord_env):
    """At two players (each plays alone) the remove policy ends the game at the first time-out:
    the player's team is out and the other wins. The option's choice, the lobby's rules and
    /sequence status promised "their team plays on", which no team of one does."""
    table = await make_table(simcord_env, ["alice", "bob"])
    (new,) = [c for c in tree_commands(simcord_env.bot.tree) if c.name == "sequence new"]
    (option,) = [o for o in new.options if o.name == "on_timeout"]
    alice, bob = table.players
    options = {"time_limit": "1h", "on_timeout": "remove"}
    lobby = (await alice.slash(table.channel, "sequence new", **options)).response
    rules = lobby.embeds[0].fields[-1].value
    await bob.click(lobby, label="Join")
    await alice.click(lobby, label="Start")
    record = table.game()
    status = await alice.slash(table.channel, "sequence status")
    told = [*option.choices, rules, status.response.content]
    removed = [text for text in told if "removed" in text or "Remove" in text]
    assert len(removed) == 3, told
    for text in removed:
        assert "with nobody left, it is out" in text, text
    loser = record.game.turn
    await simcord_env.advance_time(HOUR + 1)
    assert record.game.is_over() and record.game.out[loser]
    winner = seat_actor(table, record, 1 - loser)
    assert f"<@{winner.id}>" in table.channel.last_message.content
    assert "wins!" in table.channel.last_message.content


async def test_a_forfeit_not_chosen_in_time_is_made_at_random(simcord_env):
    """The player to move owes a card and runs out of time: the card is forfeited for them at
    random before the skip; their teammate's card is still theirs to choose."""
    table = await make_table(simcord_env, ["alice", "bob", "carol", "dave"])
    record = await open_and_start(table, time_limit="1h", tabletalk_stands=True)
    game = record.game
    seat = game.turn
    caller = seat_actor(table, record, (seat + 1) % 4)
    await caller.slash(table.channel, "sequence tabletalk", team=game.team_of(seat))
    size = len(game.hands[seat])
    await simcord_env.advance_time(HOUR + 1)
    assert record.game.owed_forfeits[seat] == 0 and len(record.game.hands[seat]) == size - 1
    assert [m.kind for m in record.game.moves[-2:]] == ["forfeit", "skip"]
    assert record.game.owed_forfeits[(seat + 2) % 4] == 1


async def test_a_pending_timer_fires_once_after_a_restart(simcord_env, bot_settings):
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table, time_limit="1h")
    await simcord_env.advance_time(HOUR / 2)
    await simcord_env.bot.close()
    await simcord_env.restart_bot(create_bot(bot_settings))
    await simcord_env.advance_time(HOUR / 2 - 10)
    assert timeouts(table) == []
    await simcord_env.advance_time(20)
    assert len(timeouts(table)) == 1
    restored = simcord_env.bot.games.find_in_channel(table.channel.id)
    assert [m.kind for m in restored.game.moves] == ["skip"]
    assert record.id == restored.id


async def test_after_a_long_downtime_no_reminder_for_a_turn_that_timed_out(
    simcord_env, bot_settings
):
    """The bot was down for days: the turn's reminder and its time limit both fell due. The
    player is told they ran out of time, not pinged that it is 'still' their turn, 'waiting 0 s'."""
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table, reminder="1h", time_limit="1d", on_timeout="skip")
    late = seat_actor(table, record, record.game.turn)
    await simcord_env.bot.close()
    await simcord_env.advance_time(3 * 24 * HOUR)
    await simcord_env.restart_bot(create_bot(bot_settings))
    await simcord_env.settle()
    restored = simcord_env.bot.games.find_in_channel(table.channel.id)
    assert [m.kind for m in restored.game.moves] == ["skip"]
    assert len(timeouts(table)) == 1
    assert [r.content for r in reminders(table) if f"<@{late.id}>" in r.content] == []
    await simcord_env.advance_time(HOUR + 5)  # the next player's own reminder still comes
    (reminder,) = reminders(table)
    assert "waiting 1 h" in reminder.content


async def test_turn_dms_on_off_and_closed(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    bob = table.players[1]
    on = await bob.slash(table.channel, "sequence-me notify", setting="on")
    assert on.ephemeral and "DM" in on.response.content
    record = await open_and_start(table)
    bob_seat = next(i for i, s in enumerate(record.seats) if s.user_id == bob.id)
    if record.game.turn == bob_seat:
        await play_one(table, record)  # alice's turn now
        await play_one(table, record)  # and back to bob: a DM
    else:
        await play_one(table, record)
    dm = bob.user.dm_channel
    assert dm.last_message is not None and "Your turn" in dm.last_message.content
    seen = dm.last_message.id
    await bob.slash(table.channel, "sequence-me notify", setting="off")
    await play_one(table, record)
    await play_one(table, record)
    assert dm.last_message.id == seen  # no more DMs
    # DMs closed: the DM fails, the game goes on, and bob is told next time
    await bob.slash(table.channel, "sequence-me notify", setting="on")
    simcord_env.inject_error("POST", f"/channels/{dm.id}/messages", status=403, code=50007)
    before = len(record.game.moves)
    await play_one(table, record)
    await play_one(table, record)
    assert len(record.game.moves) == before + 2
    again = await bob.slash(table.channel, "sequence-me notify", setting="on")
    assert "failed" in again.response.content


async def test_closed_dms_are_told_once_and_not_tried_every_turn(simcord_env):
    """A player asked for turn DMs but Discord refuses them (DMs closed, 50007): they are told
    once, at the table, and the bot stops trying each turn until they use /sequence-me notify."""
    table = await make_table(simcord_env, ["alice", "bob"])
    bob = table.players[1]
    await bob.slash(table.channel, "sequence-me notify", setting="on")
    record = await open_and_start(table)
    dm = bob.user.dm_channel
    dm_path = f"/channels/{dm.id}/messages"
    simcord_env.inject_error("POST", dm_path, status=403, code=50007, times=None)
    start = len(simcord_env.http_requests)
    for _ in range(6):  # three of bob's turns
        await play_one(table, record)
    tries = [r for r in simcord_env.http_requests[start:] if r.path == dm_path]
    assert len(tries) == 1
    told = [m for m in table.channel.history() if "DMs cannot reach you" in m.content]
    assert len(told) == 1 and f"<@{bob.id}>" in told[0].content
    simcord_env.backend.faults.clear()  # bob opens his DMs and asks again
    again = await bob.slash(table.channel, "sequence-me notify", setting="on")
    assert "failed" in again.response.content
    for _ in range(2):
        await play_one(table, record)
    assert "Your turn" in dm.last_message.content


async def test_undo_with_and_without_agreement(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    record = await open_and_start(table)
    await play_one(table, record)
    game = record.game
    assert len(game.moves) == 1
    refused = await bob.slash(table.channel, "sequence undo")
    assert refused.ephemeral and "Only the host" in refused.response.content
    ask = await alice.slash(table.channel, "sequence undo")
    assert not ask.ephemeral and "Waiting for" in ask.response.content
    own = await alice.click(ask.response, label="Agree")
    assert own.ephemeral and "other teams decide" in own.response.content
    await bob.click(ask.response, label="Refuse")
    assert "refused" in ask.response.content and len(record.game.moves) == 1
    ask = await alice.slash(table.channel, "sequence undo")
    await bob.click(ask.response, label="Agree")
    record = table.game()
    assert len(record.game.moves) == 0 and "Undone" in ask.response.content
    log = await table.bot.db.games.log(record.id)
    assert len(log) == 1 and log[0].undone_at is not None  # the log keeps the move and its undoing
    assert "Undone" in table.channel.last_message.embeds[0].description


async def test_an_old_undo_request_answers_for_no_later_request(simcord_env):
    """The host asked to undo bob's move; the game moved on (and Discord refused to edit the
    request's message to say it lapsed), and that move was later taken back and replaced by
    another. Agreeing on the old request's message (which names the first move) undoes nothing:
    only the request now open, on its own message, can be answered."""
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    record = await open_and_start(table)
    await play_one(table, record)
    await play_one(table, record)  # bob's move: the first request's
    old = (await alice.slash(table.channel, "sequence undo")).response
    # the game moves on: the old request lapses, but Discord refuses to edit its message
    simcord_env.inject_error("PATCH", f"/channels/*/messages/{old.id}", status=500)
    await play_one(table, record)
    for _ in range(2):  # take back alice's move, then bob's
        ask = (await alice.slash(table.channel, "sequence undo")).response
        await bob.click(ask, label="Agree")
    record = table.game()
    game = record.game
    first = old.content.split("\n")[0].removeprefix("↩️ The host asks to undo ")
    playable = [c for c in game.hands[game.turn] if not is_jack(c) and game.targets(game.turn, c)]
    card = next(c for c in playable if card_label(c) not in first)  # bob plays another move
    space = space_name(game.targets(game.turn, card)[0])
    await bob.slash(table.channel, "sequence play", card=card, space=space)
    current = (await alice.slash(table.channel, "sequence undo")).response
    assert "Waiting for" in current.content and first not in current.content
    stale = await bob.click(old, label="Agree")
    assert stale.ephemeral and "no longer open" in stale.response.content
    assert len(table.game().game.moves) == 2
    await bob.click(current, label="Agree")
    assert "Undone" in current.content and len(table.game().game.moves) == 1


async def test_mygames_and_status_show_whose_turn_and_how_long(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    record = await open_and_start(table)
    await simcord_env.advance_time(2 * HOUR)
    mine = await alice.slash(table.channel, "sequence mygames")
    assert mine.ephemeral and f"Game #{record.id}" in mine.response.content
    assert "[board](https://discord.com/channels/" in mine.response.content
    status = await bob.slash(table.channel, "sequence status")
    assert "Waiting 2 h" in status.response.content


async def test_mygames_in_a_dm_says_which_server_and_how_long_is_left(simcord_env):
    """Alice plays in two servers, each game in a #sequence channel, one with a time limit. In
    a DM, /sequence mygames listed "Game #1 in #sequence: your turn" twice over: it did not say
    which server each was in, nor how long she had left. Now each line names its server and
    says when the turn's time runs out."""
    club = await make_table(simcord_env, ["alice", "bob"])
    alice = club.players[0]
    timed = await open_and_start(club, time_limit="2d")
    guild = simcord_env.create_guild("Chess Corner")
    other = Table(
        simcord_env,
        guild,
        guild.create_text_channel("sequence"),
        [guild.add_member(alice.user), guild.add_member(simcord_env.create_user("cat"))],
    )
    untimed = await open_and_start(other)
    mine = (await alice.user.slash("sequence mygames")).response.content
    lines = mine.split("\n")
    due = (await club.bot.db.timers.get(timed.id, "limit")).due_at
    (first,) = [line for line in lines if f"Game #{timed.id} " in line]
    assert "Sequence Club" in first and deadline_note(due) in first, first
    (second,) = [line for line in lines if f"Game #{untimed.id} " in line]
    assert "Chess Corner" in second and "Time runs out" not in second, second
    here = (await alice.slash(club.channel, "sequence mygames")).response.content
    assert "Sequence Club" not in here and "Time runs out" in here, here


async def test_mygames_lists_many_games_within_discords_message_limit(simcord_env):
    table = await make_table(simcord_env, ["alice"])
    (alice,) = table.players
    db = table.bot.db
    ids = []
    for n in range(16):  # more games than one 2,000-character message can list
        channel = table.guild.create_text_channel(f"table-{n}")
        seats = [Seat(alice.id, "alice"), Seat(-1, "Ada (easy bot)", None, "easy")]
        record = await db.games.create(
            table.guild.id, channel.id, new_game(n + 1), seats, TableOptions(), None, 1000.0
        )
        ids.append(record.id)
    mine = await alice.slash(table.channel, "sequence mygames")
    messages = [mine.response, *mine.followups]
    assert all(m.flags.ephemeral and len(m.content) <= 2000 for m in messages)
    listed = "\n".join(m.content for m in messages)
    assert all(f"Game #{game_id} in" in listed for game_id in ids), listed


async def test_an_abandoned_lobby_expires(simcord_env):
    table = await make_table(simcord_env, ["alice"])
    (alice,) = table.players
    lobby = (await alice.slash(table.channel, "sequence new")).response
    await simcord_env.advance_time(25 * HOUR)
    assert "expired" in lobby.content
    fresh = await alice.slash(table.channel, "sequence new")
    assert not fresh.ephemeral


async def test_a_player_whose_team_resigned_has_no_say_in_an_undo(simcord_env):
    """With three teams, a team that resigned is out: its player can neither refuse nor agree
    to an undo; the teams still playing decide."""
    table = await make_table(simcord_env, ["alice", "bob", "carol"])
    alice, bob, carol = table.players
    record = await open_and_start(table)
    resigned = await bob.slash(table.channel, "sequence resign")
    assert not resigned.ephemeral and not record.game.is_over()
    await play_one(table, record)
    ask = await alice.slash(table.channel, "sequence undo")
    assert "Waiting for" in ask.response.content
    for label in ("Refuse", "Agree"):
        vetoed = await bob.click(ask.response, label=label)
        assert vetoed.ephemeral and "no longer in this game" in vetoed.response.content
        assert "Waiting for" in ask.response.content and len(record.game.moves) == 2
    await carol.click(ask.response, label="Agree")
    assert "Undone" in ask.response.content and len(table.game().game.moves) == 1


async def test_an_undo_answer_discord_refused_to_show_still_closes_the_request(simcord_env):
    """Discord refuses the answer to Refuse: the refusal is saved, so the request's message
    loses its buttons all the same; the clicker is told."""
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    record = await open_and_start(table)
    await play_one(table, record)
    ask = (await alice.slash(table.channel, "sequence undo")).response
    simcord_env.inject_error("POST", "/interactions/*/callback", status=500)
    refused = await bob.click(ask, label="Refuse")
    assert "refused" in refused.response.content
    shown = next(m for m in table.channel.history() if m.id == ask.id)
    assert "refused" in shown.content and not shown.components


async def test_an_undo_request_the_game_moved_past_says_so_and_loses_its_buttons(simcord_env):
    """The host asks to undo; the game moves on before anyone answers (a move, then a cancel
    for a second request): each request's message says it lapsed and why, with no Agree or
    Refuse left to click, as a lapsed draw offer's does."""
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, _ = table.players
    record = await open_and_start(table)
    await play_one(table, record)
    ask = (await alice.slash(table.channel, "sequence undo")).response
    assert "Waiting for" in ask.content and ask.components
    await play_one(table, record)  # bob moves instead of answering
    await simcord_env.settle()
    await table.bot.bus.idle()
    shown = next(m for m in table.channel.history() if m.id == ask.id)
    assert "lapsed" in shown.content and "the game moved on" in shown.content
    assert "Waiting for" not in shown.content and not shown.components
    assert "undo_request" not in table.game().options.to_dict()
    ask = (await alice.slash(table.channel, "sequence undo")).response
    await alice.slash(table.channel, "sequence cancel")
    await simcord_env.settle()
    await table.bot.bus.idle()
    shown = next(m for m in table.channel.history() if m.id == ask.id)
    assert "lapsed" in shown.content and "cancelled" in shown.content and not shown.components


async def test_an_undo_request_asked_again_closes_the_first_message(simcord_env):
    """The host asks to undo twice before anyone answers: only the second request is open, so
    the first message says it was replaced and keeps no buttons to click."""
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    record = await open_and_start(table)
    await play_one(table, record)
    first = (await alice.slash(table.channel, "sequence undo")).response
    second = (await alice.slash(table.channel, "sequence undo")).response
    await simcord_env.settle()
    await table.bot.bus.idle()
    shown = next(m for m in table.channel.history() if m.id == first.id)
    assert "Waiting for" not in shown.content and "asked again" in shown.content
    assert not shown.components
    await bob.click(second, label="Agree")
    assert "Undone" in second.content and len(table.game().game.moves) == 0
