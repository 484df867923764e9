"""The outbox: what a change causes survives a crash between its commit and its consequences.

Each test kills the bot as it stands right after a change commits (nothing the change caused has
been delivered: the process dies before its dispatcher runs), starts a new bot over the same
store and the same Discord, and checks that every consequence then happens exactly once: the
board, the older board's retirement, the next turn's timers, the turn's DM, the computer's reply,
the end of the game with its result. On SQLite and PostgreSQL.
"""

from __future__ import annotations

from typing import Any

import pytest

from bot.app import create_bot
from bot.config import Settings
from bot.services.timing import LIMIT, REMINDER

from .e2e_helpers import against_a_computer, make_table, open_and_start, play_one, settle


@pytest.fixture
def bot_settings(settings_on_each_backend: Settings) -> Settings:
    return settings_on_each_backend


def crash_after_the_next_commit(env: Any) -> None:
    """The bot dies right after its next commit: nothing that change caused is delivered."""
    env.bot.bus.deliver = lambda events: None


async def restart(env: Any, settings: Settings) -> None:
    """A new process over the same store (the old one is gone without delivering anything)."""
    await env.bot.close()
    await env.restart_bot(create_bot(settings))
    await settle(env)


def boards(table: Any) -> list[Any]:
    return [m for m in table.channel.history() if m.attachments]


async def undelivered(env: Any, game_id: int) -> list[str]:
    return [row.kind for row in await env.bot.db.outbox.undelivered(game_id)]


async def test_a_move_cut_short_posts_its_board_arms_its_timers_and_dms_once(
    simcord_env, bot_settings
):
    table = await make_table(simcord_env, ["alice", "bob"])
    _, bob = table.players
    await bob.slash(table.channel, "sequence-me notify", setting="on")
    record = await open_and_start(table, time_limit="1d", on_timeout="skip")
    if record.seats[record.game.turn].user_id == bob.id:  # alice moves, bob is told
        await play_one(table, record)
    before = boards(table)
    dms = len(list(bob.user.dm_channel.history())) if bob.user.dm_channel else 0
    crash_after_the_next_commit(simcord_env)
    await play_one(table, record)
    assert len(boards(table)) == len(before)  # committed, nothing followed
    assert await undelivered(simcord_env, record.id) == ["MoveCommitted", "TurnStarted"]

    await restart(simcord_env, bot_settings)
    after = boards(table)
    assert len(after) == len(before) + 1  # the move's board, once
    assert f"move {len(record.game.moves)}" in after[-1].embeds[0].title
    assert after[-1].components  # the newest board carries the controls...
    assert not after[-2].components  # ...and the one it replaced was retired
    assert after[-2].content.startswith("↪️")
    dm = [m for m in bob.user.dm_channel.history() if "Your turn" in m.content]
    assert len(list(bob.user.dm_channel.history())) - dms == 1 and dm  # the turn's DM, once
    game = simcord_env.bot.games.records[record.id].game
    timers = await simcord_env.bot.db.timers.of_game(record.id)
    assert {t.kind for t in timers} == {LIMIT, REMINDER}
    assert {t.payload["turn"] for t in timers} == {game.turn_number}
    assert ("turn", record.id, LIMIT) in simcord_env.bot.scheduler  # armed in the new process
    assert await undelivered(simcord_env, record.id) == []

    await restart(simcord_env, bot_settings)  # a second restart repeats nothing
    assert len(boards(table)) == len(after)
    assert len(list(bob.user.dm_channel.history())) - dms == 1


async def test_a_move_cut_short_against_a_computer_gets_its_reply_once(simcord_env, bot_settings):
    table, record = await against_a_computer(simcord_env, "easy", seed=1)
    await settle(simcord_env)
    moves = len(record.game.moves)
    crash_after_the_next_commit(simcord_env)
    await play_one(table, record)
    assert len(record.game.moves) == moves + 1  # the person's move; no reply yet

    await restart(simcord_env, bot_settings)
    live = simcord_env.bot.games.records[record.id]
    assert len(live.game.moves) == moves + 2  # the computer replied, once
    assert live.seats[live.game.turn].user_id == table.players[0].id
    titles = [m.embeds[0].title for m in boards(table)]
    expected = [f"Sequence · game #{record.id} · move {n}" for n in (moves + 1, moves + 2)]
    assert titles[-2:] == expected
    assert len(set(titles)) == len(titles)  # no board twice


async def test_a_resignation_cut_short_announces_the_end_and_records_it_once(
    simcord_env, bot_settings
):
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, _ = table.players
    record = await open_and_start(table)
    crash_after_the_next_commit(simcord_env)
    await alice.slash(table.channel, "sequence resign")
    assert record.game.is_over()
    assert "wins" not in table.channel.last_message.content  # nothing announced yet

    await restart(simcord_env, bot_settings)
    final = table.channel.last_message
    assert "Green wins" in final.content and final.attachments
    # No turn's buttons on the final board: only its Rematch.
    assert [c.label for row in final.components for c in row.children] == ["Rematch"]
    result = await simcord_env.bot.db.results.get(record.id)
    assert result is not None and result.winner_team is not None  # the result, recorded
    finals = [m for m in table.channel.history() if "wins" in m.content]
    assert len(finals) == 1
    await restart(simcord_env, bot_settings)
    assert [m for m in table.channel.history() if "wins" in m.content] == finals
