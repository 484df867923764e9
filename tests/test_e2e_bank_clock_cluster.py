"""The bank clock in a cluster (issue #39): a move made by the process that does not serve the
game (from a DM, which reaches shard 0's) settles the mover's bank in its own transaction,
through PostgreSQL; the owner hears of it, arms the next turn's limit from the stored banks, and
the next bank that runs out applies the policy there."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.services.give_time import DAY

from .cluster_harness import eventually
from .e2e_helpers import open_and_start, seat_actor, settle
from .engine_helpers import playable
from .test_e2e_cluster import choose_on_dm, nodes, pg_url, table_on, turn_dm_on

__all__ = ["nodes", "pg_url"]  # the cluster's fixtures, used here too

HOUR = 3600


async def test_a_bank_game_across_two_processes(nodes) -> None:
    zero, one = nodes
    table = await table_on(one, 1, ["bea", "bob"])

    async def start(env: Any) -> Any:
        for player in table.players:
            await player.slash(table.channel, "sequence-me notify", setting="on")
        return await open_and_start(
            table,
            seed=5,
            clock="bank",
            bank_start="2h",
            bank_increment="30m",
            on_timeout="skip",
            reminder="none",
        )

    record = await one.run(start)
    first = record.game.turn
    mover = seat_actor(table, record, first)
    for node in (zero, one):  # an hour passes on both processes' clocks
        await node.run(lambda env: env.advance_time(HOUR))

    # The move is made on process 0, which does not serve the game: 2h - 1h + 30m.
    person = await turn_dm_on(zero, record, mover)
    _, card, space = playable(record.game)
    go = await choose_on_dm(zero, person, record.id, card, space)
    await zero.run(lambda env: person.click(person.dm_channel.last_message, custom_id=go))
    assert zero.bot.games.records == {}
    stored = await one.run(lambda env: env.bot.db.games.load(record.id))
    assert stored.options.banks[first] == pytest.approx(1.5 * HOUR, abs=5)
    second = 1 - first

    # The owner hears of it: the same banks, and the next turn's limit armed from them.
    await eventually(one, lambda env: len(record.game.moves) == 1)
    await eventually(one, lambda env: record.options.banks == stored.options.banks)
    limit = await one.run(lambda env: env.bot.db.timers.get(record.id, "limit"))
    assert limit is not None and limit.payload["turn"] == record.game.turn_number
    key = ("turn", record.id, "limit")
    await eventually(one, lambda env: env.bot.scheduler._entries[key][0] == limit.due_at)
    board = table.channel.last_message.content
    assert f"{seat_actor(table, record, first).user.name} 1h 30m" in board, board

    # The second player's bank (2h) runs out on the owner: skipped; their bank, the increment.
    async def run_out(env: Any) -> None:
        await env.advance_time(limit.due_at - env.bot.clock() + 1)
        await settle(env)

    await one.run(run_out)
    assert record.game.moves[-1].kind == "skip" and record.game.moves[-1].seat == second
    stored = await one.run(lambda env: env.bot.db.games.load(record.id))
    assert stored.options.banks[second] == 30 * 60
    assert stored.options.banks[first] == pytest.approx(1.5 * HOUR, abs=5)


async def test_a_day_given_on_the_owner_as_the_other_process_saves_the_move_is_kept(nodes) -> None:
    """Both in flight: process 0 saves the mover's move from a DM while process 1 (the owner)
    commits a day given to the same turn. The move's transaction reads what the turn left of the
    bank with the game held, so the day is in the bank whichever commits first (here the gift,
    between the move's draft and its write)."""
    zero, one = nodes
    table = await table_on(one, 1, ["bea", "bob"])

    async def start(env: Any) -> Any:
        for player in table.players:
            await player.slash(table.channel, "sequence-me notify", setting="on")
        return await open_and_start(
            table, seed=5, clock="bank", bank_start="2h", bank_increment="30m", reminder="none"
        )

    record = await one.run(start)
    first = record.game.turn
    mover = seat_actor(table, record, first)
    other = next(p for p in table.players if p is not mover)
    person = await turn_dm_on(zero, record, mover)
    _, card, space = playable(record.game)
    go = await choose_on_dm(zero, person, record.id, card, space)

    events: dict[str, asyncio.Event] = {}

    async def hold_the_write(env: Any) -> None:
        events["entered"], events["release"] = asyncio.Event(), asyncio.Event()
        games = env.bot.db.games
        append = games.append_moves

        async def held(*args: Any, **kwargs: Any) -> Any:
            events["entered"].set()
            await events["release"].wait()
            return await append(*args, **kwargs)

        games.append_moves = held

    await zero.run(hold_the_write)
    move = asyncio.create_task(
        zero.run(lambda env: person.click(person.dm_channel.last_message, custom_id=go))
    )
    await zero.run(lambda env: asyncio.wait_for(events["entered"].wait(), 10))

    async def give(env: Any) -> Any:
        return await env.bot.give_time.give_day(
            record.id, other.id, expected_revision=record.revision
        )

    gift = await one.run(give)  # committed while the move waits to write
    await zero.run(lambda env: _release(events))
    await move
    stored = await one.run(lambda env: env.bot.db.games.load(record.id))
    assert len(stored.game.moves) == 1
    spent = await zero.run(lambda env: _now(env))
    # the bank at the move: the gift's deadline less the moment of the move, plus 30 minutes
    assert stored.options.banks[first] == pytest.approx(gift.event.due_at - spent + 1800, abs=5)
    assert stored.options.banks[first] > DAY


async def _release(events: dict[str, asyncio.Event]) -> None:
    events["release"].set()


async def _now(env: Any) -> float:
    return env.bot.clock()
