"""Away in a cluster (issue #39): a member going away (or coming back) from a DM, which reaches
shard 0's process, changes a game another process serves through the outbox, written with the
period in one transaction; the owner hears of it and covers (or uncovers) its game. Going away
on both processes at once stores one period: the check and the insert are one step per member
across processes."""

from __future__ import annotations

import asyncio
from typing import Any

from .cluster_harness import eventually
from .e2e_helpers import open_and_start
from .test_e2e_cluster import nodes, pg_url, table_on

__all__ = ["nodes", "pg_url"]  # the cluster's fixtures, used here too


def said(env: Any, table: Any, start: str) -> list[str]:
    return [m.content for m in table.channel.history() if m.content.startswith(start)]


async def test_away_and_back_from_the_other_process_change_the_owners_game(nodes) -> None:
    zero, one = nodes
    table = await table_on(one, 1, ["bea", "bob"])
    record = await one.run(
        lambda env: open_and_start(table, seed=5, time_limit="1d", reminder="none")
    )
    bea = table.players[0]

    gone = await zero.run(lambda env: env.bot.away.go(bea.id, None, "2d", "pause"))
    assert gone.games == [record.id] and zero.bot.games.records == {}
    await eventually(one, lambda env: len(said(env, table, "🏖️")) == 1)
    await eventually(one, lambda env: bool(env.bot.games.records[record.id].options.away))

    back = await zero.run(lambda env: env.bot.away.back(bea.id, None))
    assert back.games == [record.id]
    await eventually(one, lambda env: len(said(env, table, "👋")) == 1)
    await eventually(one, lambda env: not env.bot.games.records[record.id].options.away)


async def test_going_away_on_both_processes_at_once_stores_one_period(nodes) -> None:
    zero, one = nodes
    table = await table_on(one, 1, ["bea", "bob"])
    record = await one.run(
        lambda env: open_and_start(table, seed=5, time_limit="1d", reminder="none")
    )
    bea = table.players[0]

    async def go(env: Any, guild_id: int | None) -> Any:
        lasting = env.bot.db.away.lasting

        async def slow(user_id: int | None = None) -> Any:
            found = await lasting(user_id)
            await asyncio.sleep(0.2)  # the other process reads meanwhile, if it could
            return found

        env.bot.db.away.lasting = slow
        try:
            return await env.bot.away.go(bea.id, guild_id, "1d", "pause")
        finally:
            env.bot.db.away.lasting = lasting

    answers = await asyncio.gather(
        zero.run(lambda env: go(env, None)),
        one.run(lambda env: go(env, table.guild.id)),
        return_exceptions=True,
    )
    refused = [a for a in answers if isinstance(a, Exception)]
    assert len(refused) == 1 and "You are already away" in str(refused[0]), answers
    periods = await one.run(lambda env: env.bot.db.away.lasting(bea.id))
    assert len(periods) == 1
    await eventually(one, lambda env: len(said(env, table, "🏖️")) == 1)
    await eventually(one, lambda env: len(env.bot.games.records[record.id].options.away) == 1)
