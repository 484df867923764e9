"""A season's end in a two-process cluster on one PostgreSQL (issue #41 item 1): the process
that serves the guild posts its podium once; the other, though it shares the store, never fires
nor posts it, and of two processes firing the same due end at once exactly one makes its event."""

from __future__ import annotations

import asyncio
from typing import Any

import discord

from bot.seasons import MONTHLY, season_at

from .e2e_helpers import Table, open_and_start
from .test_e2e_cluster import nodes, pg_url, posted_to, table_on
from .test_e2e_seasons import season_steps

__all__ = ["nodes", "pg_url"]  # the cluster's fixtures, shared


async def test_the_podium_of_a_cluster_guild_is_posted_once_by_its_process(nodes) -> None:
    zero, one = nodes
    table = await table_on(one, 1, ["ann", "bob"])
    ann, bob = table.players

    async def season_with_a_game(env: Any) -> tuple[Any, float]:
        admins = table.guild.create_role(
            "Admins", permissions=discord.Permissions(manage_guild=True)
        )
        admin = table.guild.add_member(env.create_user("admin"), roles=[admins])
        stage = table.guild.create_text_channel("podium")
        for setting, value in (("season_plan", "monthly"), ("season_channel", f"<#{stage.id}>")):
            await admin.slash(table.channel, "sequence-admin set", setting=setting, value=value)
        await open_and_start(Table(env, table.guild, table.channel, [ann, bob]))
        await bob.slash(table.channel, "sequence resign")
        season = season_at(MONTHLY, env.bot.clock())
        return stage, season.end

    stage, end = await one.run(season_with_a_game)
    (waiting,) = [e for e in await one.run(lambda env: env.bot.db.season_ends.waiting())]
    assert waiting.state == "timer" and waiting.ends_at == end
    # process 0 does not serve the guild: it does not even see the end
    assert await zero.run(lambda env: env.bot.db.season_ends.waiting()) == []
    await zero.run(lambda env: env.bot.season_clock.fall_due(waiting.id))

    # both processes' stores fire the due end at once: one event
    fired = await asyncio.gather(
        zero.run(lambda env: env.bot.db.season_ends.fire(waiting.id, end + 1)),
        one.run(lambda env: env.bot.db.season_ends.fire(waiting.id, end + 1)),
    )
    assert sorted(fired) == [False, True]

    async def past_the_end(env: Any) -> None:
        await env.advance_time(end - env.bot.clock() + 60)

    await asyncio.gather(zero.run(past_the_end), one.run(past_the_end))
    await zero.run(lambda env: env.bot.season_clock.fall_due(waiting.id))
    podiums = [m for m in stage.history() if m.content.startswith("🏆 **Season")]
    assert len(podiums) == 1 and podiums[0].attachments
    assert stage.id not in posted_to(zero.env)
    ends = await one.run(lambda env: env.bot.db.season_ends.of_guild(table.guild.id))
    assert [e.state for e in ends if e.id == waiting.id] == ["ended"]
    steps = await one.run(lambda env: season_steps(env.bot.db, waiting.id))
    assert steps == [("SeasonPodium", True)]  # one step, delivered
    assert any(e.state == "timer" and e.ends_at > end for e in ends)  # the next season's end
