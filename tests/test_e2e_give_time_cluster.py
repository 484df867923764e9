"""Give time in a cluster (issue #39): a gift made by the process that does not serve the game
(as a change from a DM reaches shard 0's) is committed once through PostgreSQL; the owner hears
of it, tells the table and arms the later time limit."""

from __future__ import annotations

from typing import Any

from bot.services.give_time import DAY

from .cluster_harness import eventually
from .e2e_helpers import open_and_start, seat_actor
from .test_e2e_cluster import nodes, pg_url, table_on

__all__ = ["nodes", "pg_url"]  # the cluster's fixtures, used here too


async def test_a_gift_from_the_other_process_moves_the_owners_time_limit(nodes) -> None:
    zero, one = nodes
    table = await table_on(one, 1, ["bea", "bob"])
    record = await one.run(
        lambda env: open_and_start(table, seed=5, time_limit="1d", on_timeout="skip")
    )
    mover = seat_actor(table, record, record.game.turn)
    other = next(p for p in table.players if p is not mover)
    limit = await one.run(lambda env: env.bot.db.timers.get(record.id, "limit"))
    assert limit is not None
    key = ("turn", record.id, "limit")

    async def give(env: Any) -> Any:
        return await env.bot.give_time.give_day(
            record.id, other.id, expected_revision=record.revision
        )

    gift = await zero.run(give)
    assert gift.event.due_at == limit.due_at + DAY
    assert zero.bot.games.records == {}  # process 0 serves nothing of guild 1

    def told(env: Any) -> bool:
        said = [m.content for m in table.channel.history() if m.content.startswith("⏳")]
        return len(said) == 1 and f"<t:{int(limit.due_at + DAY)}:R>" in said[0]

    await eventually(one, told)
    await eventually(one, lambda env: env.bot.scheduler._entries[key][0] == limit.due_at + DAY)
    stored = await one.run(lambda env: env.bot.db.timers.get(record.id, "limit"))
    assert stored is not None and stored.due_at == limit.due_at + DAY
