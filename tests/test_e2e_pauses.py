"""A paused table (its thread locked by a moderator, the bot removed from a private thread)
refuses every change its players ask for, not only moves, with why and what a moderator can
do; a moderator may still cancel it. A computer player moves only once the board before its
turn was shown: at a table locked unseen it waits, even with no pause of its own."""

from __future__ import annotations

from typing import Any

from bot.app import create_bot
from bot.store.votes import DRAW, UNDO
from tests.helpers.turn_dms import play_from_dm

from .e2e_helpers import Table, play_one, seat_actor, settle
from .engine_helpers import normal_play
from .test_e2e_threads import (
    LOCKED,
    alice_and_a_computer_in_a_thread,
    boards,
    game_in_a_thread,
    lock,
    refuse_posts,
    unlocked_the_computer_plays,
)

WHY = "its thread <#{thread}> is locked, so I cannot post the board there. A moderator can unlock"


def of_team(table: Table, record: Any, team: int) -> list[Any]:
    """The players of ``team``, in seat order."""
    return [seat_actor(table, record, s) for s in record.game.settings.seats_of(team)]


def refused(result: Any, record: Any, thread: Any, end: str = "Nothing was changed.") -> None:
    """``result`` is the paused table's refusal: ephemeral, with why, what a moderator can do,
    and that nothing changed."""
    text = result.response.content
    assert result.ephemeral, text
    assert text.startswith(f"⚠️ Game #{record.id} is paused: "), text
    assert WHY.format(thread=thread.id) in text and text.endswith(end), text


async def test_every_change_asked_at_a_locked_table_is_refused_but_a_cancel(simcord_env):
    """Only moves were refused at a locked table: a draw offer, its answer, an undo request,
    its answer, a resignation, a table-talk call and a ruling were all made (and their
    messages refused by Discord, so nobody saw them). Now each is refused with why and what a
    moderator can do, and nothing is saved; the host's (or a moderator's) cancel still ends
    the game."""
    env = simcord_env
    table, record = await game_in_a_thread(env, ("alice", "bob", "carol", "dave"), private=True)
    thread = table.channel
    host = table.players[0]  # alice opened the lobby
    ours = record.game.team_of(next(i for i, s in enumerate(record.seats) if s.user_id == host.id))
    mate = next(p for p in of_team(table, record, ours) if p is not host)
    theirs = of_team(table, record, 1 - ours)
    assert "Done" in (await play_one(table, record)).response.content

    # asked while the table could be used: a draw offer, an undo request, a table-talk call
    offer = (await mate.slash(thread, "sequence draw")).response
    ask = (await host.slash(thread, "sequence undo")).response
    call = (await mate.slash(thread, "sequence tabletalk", team=1 - ours)).response
    assert offer.components and ask.components and call.components
    votes = dict(record.votes)
    assert {kind for kind, _ in votes} == {DRAW, UNDO}

    refuse_posts(env, thread.id, LOCKED)
    lock(env, thread.id, True)  # a moderator locks the thread: Discord tells the bot
    await settle(env)
    record = table.game()
    moves = list(record.game.moves)

    refused(await theirs[0].click(offer, label="Accept the draw"), record, thread)
    refused(await theirs[0].click(ask, label="Agree"), record, thread)
    refused(await host.click(call, label="Uphold"), record, thread)
    refused(await host.slash(thread, "sequence undo"), record, thread)
    refused(await theirs[1].slash(thread, "sequence resign"), record, thread)
    refused(await theirs[1].slash(thread, "sequence tabletalk", team=ours), record, thread)
    seat = record.game.turn
    card, space = normal_play(record.game, seat)
    mover = seat_actor(table, record, seat)
    end = "Nothing was played; your cards are kept."
    refused(await play_from_dm(mover.user, record.id, card, space), record, thread, end)

    record = table.game()
    assert record.game.moves == moves and record.votes == votes  # nothing was saved
    stored = await env.bot.db.games.load(record.id)
    assert stored.game.moves == moves and stored.votes == votes and stored.paused == LOCKED
    pending = await env.bot.db.tabletalk.pending(record.id)
    assert [report.team for report in pending] == [1 - ours]  # the one call made before

    # what a moderator may want to do with a table nobody can use: the cancel is not refused
    cancelled = await host.slash(thread, "sequence cancel")
    assert not cancelled.ephemeral and "was cancelled" in cancelled.response.content
    assert (await env.bot.db.games.load(record.id)).status == "cancelled"


async def test_a_draw_offer_at_a_locked_table_is_refused(simcord_env):
    env = simcord_env
    table, record = await game_in_a_thread(env, private=True)
    thread = table.channel
    refuse_posts(env, thread.id, LOCKED)
    lock(env, thread.id, True)
    await settle(env)
    refused(await table.players[1].slash(thread, "sequence draw"), record, thread)
    assert table.game().votes == {} and (await env.bot.db.votes.of_game(record.id)) == {}


async def test_a_computer_waits_for_the_board_of_the_move_before_its_turn(simcord_env):
    """With ``COMPUTER_MOVE_DELAY=0`` (the tests' setting), the computer's turn ran ahead of
    the board's delivery: at a thread locked while the bot was not told, the computer moved
    before the refused board of Alice's move paused the table. Now it waits for that board:
    the table is paused, the computer moves once the thread is unlocked."""
    env = simcord_env
    assert env.bot.settings.computer_move_delay == 0
    table, record = await alice_and_a_computer_in_a_thread(env)
    thread = table.channel
    refuse_posts(env, thread.id, LOCKED)  # locked unseen (the bot was down, say)
    first = await play_one(table, record)
    assert "Your move is saved, but the table cannot show it" in first.response.content
    await settle(env)
    await env.advance_time(600)
    assert len(table.game().game.moves) == 1  # the computer waits for the table
    assert (await env.bot.db.games.load(record.id)).paused == LOCKED

    await unlocked_the_computer_plays(env, table)
    assert (await env.bot.db.games.load(record.id)).paused is None


async def test_a_thread_unlocked_while_the_bot_was_down_is_usable_after_its_restart(
    simcord_env, bot_settings
):
    """The pause is stored, so a restart keeps it; but a thread unlocked while the bot was
    down sends no event: the server's threads as Discord announces them at the connection
    tell it, and the table catches up (no `/sequence board` needed)."""
    env = simcord_env
    table, record = await game_in_a_thread(env, private=True)
    thread = table.channel
    refuse_posts(env, thread.id, LOCKED)
    lock(env, thread.id, True)
    await settle(env)
    refused(
        await play_one(table, record), record, thread, "Nothing was played; your cards are kept."
    )
    await env.bot.close()
    env.backend.faults.clear()
    env.backend.edit_channel(thread.id, {}, thread_metadata={"locked": False})
    shown = len(boards(thread))
    await env.restart_bot(create_bot(bot_settings))
    await settle(env)
    assert len(boards(thread)) == shown + 1  # the board as it stands: the table is back
    assert (await env.bot.db.games.load(record.id)).paused is None
    assert "✅ Done" in (await play_one(table, table.game())).response.content


async def test_a_thread_still_locked_at_a_restart_keeps_its_table_paused(simcord_env, bot_settings):
    env = simcord_env
    table, record = await game_in_a_thread(env, private=True)
    thread = table.channel
    refuse_posts(env, thread.id, LOCKED)
    lock(env, thread.id, True)
    await settle(env)
    await env.bot.close()
    await env.restart_bot(create_bot(bot_settings))
    await settle(env)
    refused(
        await play_one(table, table.game()),
        record,
        thread,
        "Nothing was played; your cards are kept.",
    )
    assert table.game().game.moves == []


async def test_a_call_refused_as_its_table_pauses_is_withdrawn_all_the_same(simcord_env):
    """A table-talk call Discord refused to show is withdrawn by the bot, so that it blocks no
    later call. The table paused while the call was made (forced here: the thread's lock is
    learnt as the call is stored): the withdrawal is the bot's own, not refused."""
    env = simcord_env
    table, record = await game_in_a_thread(env, ("alice", "bob", "carol", "dave"), private=True)
    thread = table.channel
    caller = table.players[0]
    team = 1 - record.game.team_of(
        next(i for i, s in enumerate(record.seats) if s.user_id == caller.id)
    )
    create = env.bot.db.tabletalk.create

    async def create_then_lock(*args: Any, **kwargs: Any) -> Any:
        made = await create(*args, **kwargs)
        await env.bot.table.thread_blocked(thread.id, LOCKED)  # as Discord's event would
        return made

    env.bot.db.tabletalk.create = create_then_lock
    refuse_posts(env, thread.id, LOCKED)
    env.inject_error("POST", "/interactions/*/callback", status=403, code=LOCKED, times=1)
    await caller.slash(thread, "sequence tabletalk", team=team)
    await settle(env)
    assert len(env.errors) == 1  # the refused answer, logged by the error handler
    assert await env.bot.db.tabletalk.pending(record.id) == []
