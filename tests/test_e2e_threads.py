"""Tables in threads as Discord has them: a thread that archived (edits there fail with 50083
until it is unarchived), one a moderator locked (every post fails with 160005), a private thread
the bot was removed from (50001). SimCord never archives or locks a thread by itself: the tests
set its state and inject Discord's errors."""

from __future__ import annotations

from typing import Any

import discord
import pytest
from simcord.backend.models import Overwrite
from simcord.builders import ChannelHandle
from simcord.enums import ChannelType, OverwriteType

from bot.app import create_bot
from bot.game import space_name
from tests.helpers.tournament import game_in, match_message, snapshot, started_cup, thread_of
from tests.helpers.turn_dms import play_from_dm

from .e2e_helpers import (
    Table,
    make_table,
    open_and_start,
    play_one,
    seat_actor,
    settle,
    timeouts,
)
from .engine_helpers import normal_play

LOCKED, MISSING_ACCESS, ARCHIVED = 160005, 50001, 50083


def boards(channel: Any) -> list[Any]:
    return [m for m in channel.history() if m.attachments]


async def game_in_a_thread(
    env: Any, names: tuple[str, ...] = ("alice", "bob"), *, private: bool = False, **options: Any
) -> tuple[Table, Any]:
    """Alice and Bob (and ``names``; turn DMs on) play in a thread of #sequence; the table
    and the game."""
    table = await make_table(env, list(names))
    if private:  # with Manage Threads the bot could post in any private thread
        deny = discord.PermissionOverwrite(manage_threads=False).pair()[1].value
        overwrite = Overwrite(env.bot.user.id, OverwriteType.MEMBER, allow=0, deny=deny)
        env.backend.set_overwrite(table.channel.id, overwrite)
    kind = ChannelType.PRIVATE_THREAD if private else ChannelType.PUBLIC_THREAD
    made = env.backend.create_thread(table.channel.id, "game", table.players[0].id, type=kind)
    for member in [p.id for p in table.players[1:]] + [env.bot.user.id]:
        env.backend.add_thread_member(made.id, member)
    thread = ChannelHandle(env, table.guild, made)
    for player in table.players:
        await player.slash(table.channel, "sequence-me notify", setting="on")
    played = Table(env, table.guild, thread, table.players)
    return played, await open_and_start(played, **options)


async def alice_and_a_computer_in_a_thread(env: Any) -> tuple[Table, Any]:
    """Alice and an easy computer at a table in a thread of #sequence, Alice to move first:
    the table (its channel the thread) and the game's record."""
    table = await make_table(env, ["alice"])
    made = env.backend.create_thread(table.channel.id, "game", table.players[0].id)
    env.backend.add_thread_member(made.id, env.bot.user.id)
    thread = ChannelHandle(env, table.guild, made)
    table = Table(env, table.guild, thread, table.players)
    (alice,) = table.players
    lobby = (await alice.slash(thread, "sequence new")).response
    await alice.slash(thread, "sequence addbot", level="easy")
    env.bot.lobbies.new_seed = lambda: 1  # Alice starts
    await alice.click(lobby, label="Start")
    record = table.game()
    return table, record


async def unlocked_the_computer_plays(env: Any, table: Table) -> None:
    """The thread of ``table`` is unlocked (Discord's refusals end): the table catches up, its
    board is posted again and the computer on turn moves."""
    thread = table.channel
    env.backend.faults.clear()
    shown = len(boards(thread))
    lock(env, thread.id, False)
    await settle(env)
    await env.advance_time(60)
    assert len(table.game().game.moves) > 1
    assert len(boards(thread)) > shown


def refuse_posts(env: Any, thread_id: int, code: int) -> None:
    """Discord refuses the bot every post and edit in the thread with ``code``."""
    status = 403 if code in (LOCKED, MISSING_ACCESS) else 400
    for method in ("POST", "PATCH"):
        env.inject_error(
            method, f"/channels/{thread_id}/messages*", status=status, code=code, times=None
        )


def lock(env: Any, thread_id: int, locked: bool) -> None:
    """A moderator locks (or unlocks) the thread: Discord announces it."""
    env.backend.edit_channel(thread_id, {}, thread_metadata={"locked": locked})


async def test_a_locked_thread_pauses_its_table_until_it_is_unlocked(simcord_env):
    """Measured in issue 35: with the thread locked (160005 on posts and edits), three moves
    made from the turn-DM panel were saved and answered "✅ Done.", but no board or ping
    appeared and nothing caught up after the unlock. Now the first move, made before the bot
    knew, is saved and its player told that the table cannot show it; the next moves are
    refused, from the DM panel and from the thread, with why and what a moderator can do; and
    the unlock posts the board as it stands, with whose turn it is."""
    env = simcord_env
    table, record = await game_in_a_thread(env)
    thread = table.channel
    refuse_posts(env, thread.id, LOCKED)  # locked while the bot was not told (down, say)

    seat = record.game.turn
    mover = seat_actor(table, record, seat)
    card, space = normal_play(record.game, seat)
    shown = len(boards(thread))
    answer = await play_from_dm(mover.user, record.id, card, space)
    text = mover.user.dm_channel.last_message.content
    assert "✅ Done" not in text, text
    assert "Your move is saved, but the table cannot show it" in text
    assert f"its thread <#{thread.id}> is locked" in text and "A moderator can unlock" in text
    assert answer.acknowledged
    assert len(record.game.moves) == 1  # saved: nothing is lost
    assert len(boards(thread)) == shown

    # the next player's move is refused up front, from the DM panel and from the thread
    record = table.game()
    seat = record.game.turn
    nxt = seat_actor(table, record, seat)
    ping = nxt.user.dm_channel.last_message.content
    assert "Your turn" in ping and "⏸️ The game is paused: its thread" in ping, ping
    card, space = normal_play(record.game, seat)
    refused = await play_from_dm(nxt.user, record.id, card, space)
    assert refused.ephemeral and refused.response.content == (
        f"⚠️ Game #{record.id} is paused: its thread <#{thread.id}> is locked, so I cannot post "
        "the board there. A moderator can unlock the thread: the game then carries on where it "
        "stopped (`/sequence board` there tries again at once). Nothing was played; your cards "
        "are kept."
    )
    result = await nxt.slash(thread, "sequence play", card=card, space=space_name(space))
    assert result.ephemeral and f"Game #{record.id} is paused" in result.response.content
    assert "A moderator can unlock the thread" in result.response.content
    assert "Nothing was played" in result.response.content
    assert len(table.game().game.moves) == 1

    # unlocked: the table catches up (the board as it stands, pinging whose turn it is)
    env.backend.faults.clear()
    lock(env, thread.id, False)
    await settle(env)
    latest = boards(thread)[-1]
    assert len(boards(thread)) == shown + 1
    assert f"<@{nxt.id}>" in latest.content
    assert table.game().board_move_count == 1
    answer = await nxt.slash(thread, "sequence play", card=card, space=space_name(space))
    assert "✅ Done." in answer.response.content
    assert len(table.game().game.moves) == 2


async def restart(env: Any, settings: Any) -> None:
    """The bot stops and starts again, as a new process (Discord's refusals stay)."""
    await env.bot.close()
    await env.restart_bot(create_bot(settings))


async def test_a_restart_keeps_a_locked_tables_clock_waiting(simcord_env, bot_settings):
    """A locked table's pause was kept in memory only: after a restart, its time limit, due
    meanwhile, could fire before the re-posted board found the thread still locked, and skip a
    player nobody could see. Now a game whose board the outbox still holds counts as paused
    until that board is delivered; unlocked, the table catches up with a fresh clock."""
    env = simcord_env
    table, record = await game_in_a_thread(env, time_limit="10m")
    thread = table.channel
    refuse_posts(env, thread.id, LOCKED)
    first = await play_one(table, record)
    assert "Your move is saved, but the table cannot show it" in first.response.content
    await env.advance_time(3600)  # the next player's 10 minutes are long past
    await restart(env, bot_settings)
    await settle(env)
    await env.advance_time(3 * 3600)
    assert len(table.game().game.moves) == 1  # nobody was skipped at a table nobody could use
    assert timeouts(table) == []

    env.backend.faults.clear()
    shown = len(boards(thread))
    lock(env, thread.id, False)
    await settle(env)
    assert len(boards(thread)) == shown + 1
    record = table.game()
    waiting = seat_actor(table, record, record.game.turn)
    assert f"<@{waiting.id}>" in boards(thread)[-1].content
    await env.advance_time(9 * 60)
    assert len(table.game().game.moves) == 1  # a fresh 10 minutes from the catch-up
    await env.advance_time(2 * 60)
    assert [m.kind for m in table.game().game.moves][1:] == ["skip"]


async def test_a_restart_keeps_a_locked_tables_computer_waiting(simcord_env, bot_settings):
    """The same with a computer player on turn: it does not move, after a restart (that
    starts it without delay), at a table nobody can see; unlocked, the board is posted and
    the computer plays."""
    env = simcord_env
    table, record = await alice_and_a_computer_in_a_thread(env)
    thread = table.channel
    env.bot.computers.delay = lambda: 5.0  # this process learns of the lock before it moves
    refuse_posts(env, thread.id, LOCKED)
    first = await play_one(table, record)
    assert "Your move is saved, but the table cannot show it" in first.response.content
    assert len(table.game().game.moves) == 1
    await restart(env, bot_settings)
    await settle(env)
    await env.advance_time(3600)
    assert len(table.game().game.moves) == 1  # the computer waits for the table

    await unlocked_the_computer_plays(env, table)


# ---------------------------------------------------------------------- archived threads
def archive(env: Any, thread_id: int) -> None:
    """The thread archives itself (a while without messages): Discord announces it."""
    env.backend.edit_channel(thread_id, {}, thread_metadata={"archived": True})


def archived(env: Any, thread_id: int) -> bool:
    return env.backend.get_channel(thread_id).thread_metadata.archived


def refuse_edits_while_archived(env: Any, thread_id: int, message_id: int, times: int) -> None:
    """Edits of the message fail with 50083 ``times`` times (the first try; and a retry, when
    the thread archives again at once)."""
    env.inject_error(
        "PATCH",
        f"/channels/{thread_id}/messages/{message_id}",
        status=400,
        code=ARCHIVED,
        message="Thread is archived",
        times=times,
    )


def now(channel: Any, message_id: int) -> Any:
    return next(m for m in channel.history() if m.id == message_id)


def a_thread(env: Any, table: Table) -> ChannelHandle:
    made = env.backend.create_thread(table.channel.id, "game", table.players[0].id)
    for player in table.players[1:]:
        env.backend.add_thread_member(made.id, player.id)
    return ChannelHandle(env, table.guild, made)


@pytest.mark.parametrize("refusals", [1, 2])
async def test_a_lobby_that_expires_in_an_archived_thread_loses_its_buttons(simcord_env, refusals):
    """Measured in issue 35: a lobby in a thread that archived before its expiry kept Join,
    Start and Cancel after it closed (the edit failed with 50083, and nothing tried again)."""
    env = simcord_env
    table = await make_table(env, ["alice", "bob"])
    thread = a_thread(env, table)
    lobby = (await table.players[0].slash(thread, "sequence new")).response
    assert now(thread, lobby.id).components
    archive(env, thread.id)
    refuse_edits_while_archived(env, thread.id, lobby.id, refusals)
    await env.advance_time(86400 + 60)
    await settle(env)
    closed = now(thread, lobby.id)
    assert closed.components == [] and "expired" in closed.content
    assert not archived(env, thread.id)


@pytest.mark.parametrize("refusals", [1, 2])
async def test_a_lapsed_draw_offer_and_undo_request_lose_their_buttons_in_an_archived_thread(
    simcord_env, refusals
):
    """A draw offer, then an undo request, lapse when the game moves on; their thread had
    archived, so the edits that take their buttons off failed (50083) and the buttons stayed."""
    env = simcord_env
    table, record = await game_in_a_thread(env)
    thread = table.channel
    waiting = seat_actor(table, record, 1 - record.game.turn)
    offer = (await waiting.slash(thread, "sequence draw")).response
    archive(env, thread.id)
    refuse_edits_while_archived(env, thread.id, offer.id, refusals)
    assert "Done" in (await play_one(table, record)).response.content
    await settle(env)
    lapsed = now(thread, offer.id)
    assert lapsed.components == [] and "lapsed" in lapsed.content

    host = table.players[0]  # alice opened the lobby
    ask = (await host.slash(thread, "sequence undo")).response
    assert now(thread, ask.id).components
    archive(env, thread.id)
    refuse_edits_while_archived(env, thread.id, ask.id, refusals)
    assert "Done" in (await play_one(table, table.game())).response.content
    await settle(env)
    lapsed = now(thread, ask.id)
    assert lapsed.components == [], lapsed.content


@pytest.mark.parametrize("refusals", [1, 2])
async def test_im_here_in_an_archived_match_thread(simcord_env, refusals):
    """*I'm here* edits the match message before anything posts in the thread: archived, the
    answer and the direct edit failed (50083), so the message did not list the player; and
    when the last press began the game, the edit that takes the button off failed the same
    way, leaving *I'm here* on the message of a match under way."""
    env = simcord_env
    channel, (ann, ben) = await started_cup(env, ["ann", "ben"], show_up="1h")
    (match,) = (await snapshot(env.bot, channel)).round_matches(1)
    thread = thread_of(channel, match)
    archive(env, thread.id)
    env.inject_error("POST", "/interactions/*/callback", status=400, code=ARCHIVED, times=1)
    refuse_edits_while_archived(env, thread.id, match.message_id, refusals)
    await ann.click(match_message(channel, match), label="I'm here")
    await settle(env)
    shown = match_message(channel, match).content
    assert shown.endswith(f"Here: <@{ann.id}>"), shown

    archive(env, thread.id)  # ben's press is answered; the button comes off by an edit
    refuse_edits_while_archived(env, thread.id, match.message_id, refusals)
    await ben.click(match_message(channel, match), label="I'm here")
    await settle(env)
    assert game_in(env.bot, match) is not None
    assert match_message(channel, match).components == []


# ---------------------------------------------------------------------- the bot removed, a retry
async def test_a_private_thread_the_bot_was_removed_from_pauses_its_table_and_its_clock(
    simcord_env,
):
    """A moderator removes the bot from the private thread of a game with 10 minutes a turn:
    Discord refuses it every post there (50001). Moves are refused up front (the bot was told),
    the clock does not skip the player who cannot move, and when the bot is added back the
    board is posted with a fresh clock for the turn."""
    env = simcord_env
    table, record = await game_in_a_thread(env, private=True, time_limit="10m")
    thread = table.channel
    env.backend.remove_thread_member(thread.id, env.bot.user.id)
    refuse_posts(env, thread.id, MISSING_ACCESS)
    await settle(env)
    seat = record.game.turn
    mover = seat_actor(table, record, seat)
    card, space = normal_play(record.game, seat)
    refused = await play_from_dm(mover.user, record.id, card, space)
    assert refused.ephemeral and f"I was removed from its thread <#{thread.id}>" in (
        refused.response.content
    )
    assert "A moderator can add me back to the thread" in refused.response.content
    await env.advance_time(3 * 3600)
    assert table.game().game.moves == []  # nobody was skipped for a table nobody could use

    env.backend.faults.clear()
    shown = len(boards(thread))
    env.backend.add_thread_member(thread.id, env.bot.user.id)
    await settle(env)
    assert len(boards(thread)) == shown + 1
    assert f"<@{mover.id}>" in boards(thread)[-1].content
    await env.advance_time(9 * 60)
    assert table.game().game.moves == []  # a fresh 10 minutes from the catch-up
    await env.advance_time(2 * 60)
    assert [m.kind for m in table.game().game.moves] == ["skip"]


async def test_a_thread_locked_on_the_boards_retry(simcord_env):
    """The board of a move is refused for a while (a 429), and on its retry the thread is
    locked (160005): the next move is refused with why. Unlocked without the bot hearing it,
    ``/sequence board`` tries again at once: the board comes, and the game goes on."""
    env = simcord_env
    table, record = await game_in_a_thread(env)
    thread = table.channel
    env.inject_error("POST", f"/channels/{thread.id}/messages", status=429, times=1)
    shown = len(boards(thread))
    assert "✅ Done." in (await play_one(table, record)).response.content
    refuse_posts(env, thread.id, LOCKED)
    await env.advance_time(61)  # the retry
    await settle(env)
    assert len(boards(thread)) == shown
    refused = await play_one(table, table.game())
    assert refused.ephemeral and "is paused: its thread" in refused.response.content
    assert len(table.game().game.moves) == 1
    # unlocked unheard (the bot was down, say): a moderator's /sequence board tries again
    env.backend.faults.clear()
    tried = await table.players[0].slash(thread, "sequence board")
    assert tried.ephemeral and "I try again now" in tried.response.content
    await settle(env)
    assert len(boards(thread)) == shown + 1
    assert "✅ Done." in (await play_one(table, table.game())).response.content


# ---------------------------------------------------------------------- no reminders in a thread
async def test_a_lobby_in_a_thread_without_reminders_warns_its_host(simcord_env):
    env = simcord_env
    table = await make_table(env, ["alice"])
    (alice,) = table.players
    thread = a_thread(env, table)
    opened = await alice.slash(thread, "sequence new", reminder="none")
    (warning,) = opened.followups
    assert warning.ephemeral and "No reminders at this table" in warning.content
    assert "a thread archives itself" in warning.content
    await alice.slash(thread, "sequence cancel")
    quiet = await alice.slash(thread, "sequence new", reminder="12h")
    assert quiet.followups == []
    await alice.slash(thread, "sequence cancel")
    in_channel = await alice.slash(table.channel, "sequence new", reminder="none")
    assert in_channel.followups == []


@pytest.mark.parametrize("refusals", [1, 2])
async def test_an_unruled_table_talk_call_loses_its_buttons_in_an_archived_thread(
    simcord_env, refusals
):
    """A table-talk call nobody ruled on closes when its game is cancelled; its thread had
    archived, so the edit failed (50083) and the call kept Uphold, Dismiss and Withdraw."""
    env = simcord_env
    table, record = await game_in_a_thread(env, ("alice", "bob", "carol", "dave"))
    thread = table.channel
    alice = table.players[0]
    seat = next(i for i, s in enumerate(record.seats) if s.user_id == alice.id)
    other_team = 1 - record.game.team_of(seat)
    call = (await alice.slash(thread, "sequence tabletalk", team=other_team)).response
    assert now(thread, call.id).components
    archive(env, thread.id)
    refuse_edits_while_archived(env, thread.id, call.id, refusals)
    await alice.slash(thread, "sequence cancel")
    await settle(env)
    closed = now(thread, call.id)
    assert closed.components == [] and "was not ruled on" in closed.content


async def test_a_move_in_a_private_thread_the_bot_was_removed_from_unseen(simcord_env):
    """The bot was removed from the private thread without hearing it (it was down): the first
    move is saved, and its player told that the table cannot show it (50001), not "✅ Done.";
    the next is refused; the bot added back, the board is posted and the game goes on."""
    env = simcord_env
    table, record = await game_in_a_thread(env, private=True)
    thread = table.channel
    refuse_posts(env, thread.id, MISSING_ACCESS)
    first = await play_one(table, record)
    assert "✅ Done" not in first.response.content
    assert "Your move is saved, but the table cannot show it: I was removed from its thread" in (
        first.response.content
    )
    refused = await play_one(table, table.game())
    assert refused.ephemeral and "is paused: I was removed from" in refused.response.content
    assert len(table.game().game.moves) == 1

    shown = len(boards(thread))
    env.backend.faults.clear()
    env.backend.remove_thread_member(thread.id, env.bot.user.id)
    env.backend.add_thread_member(thread.id, env.bot.user.id)  # a moderator adds it back
    await settle(env)
    assert len(boards(thread)) == shown + 1
    assert "✅ Done." in (await play_one(table, table.game())).response.content
    assert len(table.game().game.moves) == 2
