"""Quiet hours for turn DMs (issue #39): ``/sequence-me notify`` takes quiet hours and a time zone
(IANA names); a turn DM that falls in them waits for their end (by a timer in the store, so it
survives a restart), and is dropped if the turn has moved on by then. The game's clock is not
changed. With SimCord's virtual clock, across the night Europe/Berlin's clocks go back."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.app import create_bot
from bot.config import Settings
from bot.services.quiet_hours import BOTH

from .e2e_helpers import make_table, open_and_start, play_one, seat_actor

#: 21:00 UTC on Saturday 24 October 2026: 23:00 in Berlin, summer time (CEST, UTC+2). The
#: clocks go back at 03:00 that night: the quiet hours' end, 07:30, is then 06:30 UTC (CET).
EVENING = datetime(2026, 10, 24, 21, 0, tzinfo=UTC).timestamp()
QUIET_END = datetime(2026, 10, 25, 6, 30, tzinfo=UTC).timestamp()
#: 07:30 in summer time: where an end counted without the change would fall.
NAIVE_END = QUIET_END - 3600


@pytest.fixture
def bot_settings(settings_on_each_backend: Settings) -> Settings:
    """Every test here runs on SQLite and on PostgreSQL."""
    return settings_on_each_backend


def turn_dms(actor) -> list[str]:
    channel = actor.user.dm_channel
    if channel is None:
        return []
    return [m.content for m in channel.history() if "Your turn in Sequence game" in m.content]


async def until(env, moment: float) -> None:
    await env.advance_time(max(0.0, moment - env.bot.clock()))


async def quiet_table(env):
    """Alice and Bob; Alice (who plays first) has turn DMs, quiet from 22:00 to 07:30 in
    Berlin. It is 23:00 there on the night the clocks go back."""
    await until(env, EVENING)
    table = await make_table(env, ["alice", "bob"])
    alice, _ = table.players
    answer = await alice.slash(
        table.channel,
        "sequence-me notify",
        setting="on",
        quiet_from="22:00",
        quiet_to="07:30",
        timezone="Europe/Berlin",
    )
    assert answer.ephemeral and "Quiet hours 22:00–07:30 (Europe/Berlin)" in answer.response.content
    return table


async def test_a_turn_dm_waits_for_the_end_of_quiet_hours_across_the_dst_change_and_a_restart(
    simcord_env, bot_settings
):
    env = simcord_env
    table = await quiet_table(env)
    alice, _ = table.players
    record = await open_and_start(table, reminder="none")
    assert seat_actor(table, record, record.game.turn) is alice
    assert turn_dms(alice) == []  # 23:00 in Berlin: held
    held = await env.bot.db.timers.get(record.id, "turn_dm")
    assert held is not None and held.due_at == QUIET_END

    await until(env, EVENING + 4 * 3600)  # 01:00 UTC: a restart while the DM is held
    await env.bot.close()
    await env.restart_bot(create_bot(bot_settings))
    await until(env, NAIVE_END + 60)  # 07:31 had the clocks not gone back: still quiet
    assert turn_dms(alice) == []
    await until(env, QUIET_END + 1)
    (dm,) = turn_dms(alice)
    assert f"game #{record.id}" in dm
    assert await env.bot.db.timers.get(record.id, "turn_dm") is None
    await env.advance_time(86400)
    assert len(turn_dms(alice)) == 1  # once


async def test_a_held_dm_is_dropped_once_the_turn_has_moved_on(simcord_env):
    env = simcord_env
    table = await quiet_table(env)
    alice, bob = table.players
    await bob.slash(table.channel, "sequence-me notify", setting="on")
    record = await open_and_start(table, reminder="none")
    assert turn_dms(alice) == []
    await play_one(table, record)  # alice plays in her quiet hours: bob's turn, DM'd at once
    assert len(turn_dms(bob)) == 1
    await until(env, QUIET_END + 60)
    assert turn_dms(alice) == []  # her held DM was for a turn gone by
    await play_one(table, record)  # bob plays: alice's turn, out of quiet hours now
    assert len(turn_dms(alice)) == 1


async def test_bad_quiet_hours_are_refused_and_change_nothing(simcord_env):
    table = await make_table(simcord_env, ["alice"])
    (alice,) = table.players
    prefs = simcord_env.bot.db.prefs
    before = await prefs.all(alice.id)
    cases = [
        (dict(quiet_from="22:00", quiet_to="07:30", timezone="Mars/Olympus"), "time zone"),
        (dict(quiet_from="25:00", quiet_to="07:30", timezone="UTC"), "not a time of day"),
        (dict(quiet_from="22h", quiet_to="07:30"), "not a time of day"),
        (dict(quiet_from="07:30", quiet_to="7:30", timezone="UTC"), "the whole day"),
        (dict(quiet_from="22:00"), BOTH),
        (dict(setting="on", quiet_from="22:00", quiet_to="22:00"), "the whole day"),
        ({}, "Say `setting:` on or off"),
    ]
    for options, said in cases:
        answer = await alice.slash(table.channel, "sequence-me notify", **options)
        assert answer.ephemeral and said in answer.response.content, (options, answer.response)
    assert await prefs.all(alice.id) == before

    choices = await alice.autocomplete(table.channel, "sequence-me notify", "timezone", "berl")
    assert [c["value"] for c in choices] == ["Europe/Berlin"]
    done = await alice.slash(
        table.channel, "sequence-me notify", quiet_from="23:00", quiet_to="6:00"
    )
    assert "23:00–06:00 (UTC)" in done.response.content
    moved = await alice.slash(table.channel, "sequence-me notify", timezone="Asia/Tokyo")
    assert "23:00–06:00 (Asia/Tokyo)" in moved.response.content
    cleared = await alice.slash(table.channel, "sequence-me notify", quiet_from="off")
    assert "No quiet hours" in cleared.response.content
    assert "dm_quiet" not in await prefs.all(alice.id)
