"""A tournament step is one transaction, shown once it has committed (the outbox): a crash
between its commit and its showing is made good at the next start, once; and the game's end,
delivered at least once, records the match's result once. On SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

import pytest

from bot.app import create_bot
from bot.config import Settings
from bot.services.events import GameEnded
from tests.helpers.tournament import check_in, game_in, resign, snapshot, started_cup, thread_of

from .e2e_helpers import settle


@pytest.fixture
def bot_settings(settings_on_each_backend: Settings) -> Settings:
    return settings_on_each_backend


def posted(channel: Any, start: str) -> list[Any]:
    """The channel's messages that begin with ``start`` (not the start's announcement)."""
    return [
        m
        for m in channel.history()
        if (m.content or "").startswith(start) and "starts with" not in m.content
    ]


async def test_a_step_cut_short_by_a_crash_is_shown_once_at_the_next_start(
    simcord_env, bot_settings
):
    env = simcord_env
    channel, (ann, ben) = await started_cup(env, ["ann", "ben"])
    (match,) = (await snapshot(env.bot, channel)).round_matches(1)
    await check_in(channel, match, [ann, ben])
    record = game_in(env.bot, match)
    match = (await snapshot(env.bot, channel)).round_matches(1)[0]

    async def dies_before_showing(progress: Any) -> None:
        """The process dies right after the step's commit: nothing of it is shown."""

    # Imported once the bot has loaded its extensions (they are modules of their own).
    from cogs.tournament.views import CHECK_IN_COG

    env.bot.get_cog(CHECK_IN_COG).publish = dies_before_showing
    await resign(thread_of(channel, match), [ann])
    await settle(env)
    cup = await snapshot(env.bot, channel)
    assert cup.tournament.status == "finished"  # the step committed whole
    assert posted(channel, "🎉") == [] and posted(channel, "🏁") == []
    assert len(await env.bot.db.outbox.undelivered_steps()) == 1

    await env.bot.close()
    await env.restart_bot(create_bot(bot_settings))
    await settle(env)
    assert len(posted(channel, "🎉")) == 1 and len(posted(channel, "🏁")) == 1
    assert await env.bot.db.outbox.undelivered_steps() == []

    # The game's end delivered once more (delivery is at least once): nothing changes.
    ended = await env.bot.db.games.load(record.id)
    env.bot.bus.deliver([(None, GameEnded(ended))])
    await settle(env)
    assert len(posted(channel, "🎉")) == 1 and len(posted(channel, "🏁")) == 1
    assert await snapshot(env.bot, channel) == cup
    assert await env.bot.db.outbox.undelivered_steps() == []


async def test_a_game_end_delivered_twice_records_the_match_result_once(simcord_env, bot_settings):
    env = simcord_env
    channel, members = await started_cup(env, ["ann", "ben", "cat", "dan"])
    first = (await snapshot(env.bot, channel)).round_matches(1)[0]
    snap = await snapshot(env.bot, channel)
    sides = [
        [m for m in members if m.id in snap.entrants[entrant].user_ids] for entrant in first.sides
    ]
    await check_in(channel, first, [*sides[0], *sides[1]])
    record = game_in(env.bot, first)
    event = None

    def keep(events: Any) -> None:
        nonlocal event
        events = list(events)
        event = next((e for _, e in events if isinstance(e, GameEnded)), event)
        deliver(events)

    deliver, env.bot.bus.deliver = env.bot.bus.deliver, keep
    await resign(thread_of(channel, first), sides[0])
    await settle(env)
    env.bot.bus.deliver = deliver
    assert event is not None and event.game_id == record.id
    once = await snapshot(env.bot, channel)
    lines = posted(channel, "🏁")
    assert [m.status for m in once.round_matches(1)] == ["done", "pending"]

    env.bot.bus.deliver([(None, event)])  # the same end, delivered again
    await settle(env)
    assert await snapshot(env.bot, channel) == once
    assert posted(channel, "🏁") == lines and len(lines) == 1
    assert await env.bot.db.outbox.undelivered_steps() == []
