"""Match threads as Discord has them (issue #35, items 2 and 4): Discord limits thread creation
per channel for minutes at a time (a retry_after of 219-280 s is reported), so a round's
threads open one by one in the background, from the outbox: the command that paired the round,
the pairings and the show-up clocks of the matches whose thread is open never wait for the
others. Every match thread archives after a week without a message, the longest Discord
allows."""

from __future__ import annotations

import asyncio

import pytest

from bot.services.tournament.steps import THREADS
from tests.helpers.tournament import SHOW_UP, announced, anyone_may_organise, snapshot

#: How long Discord keeps thread creation closed in these tests (discord.py waits it out).
RETRY_AFTER = 240.0


def pairings_posts(channel):
    """The channel's pairing messages."""
    return [m for m in channel.history() if (m.content or "").startswith("📣")]


async def cup(env, names, fmt="elimination"):
    """A #cup channel, its members, and the sign-up done (not started)."""
    guild = env.create_guild("Club")
    anyone_may_organise(env, guild)
    channel = guild.create_text_channel("cup")
    members = [guild.add_member(env.create_user(name)) for name in names]
    created = await members[0].slash(channel, "tournament-admin create", name="Cup", format=fmt)
    for member in members:
        await member.click(created.response, label="Join")
    return channel, members


async def test_a_long_rate_limit_on_threads_delays_only_the_threads(simcord_env, monkeypatch):
    """The first thread creation of the round is held for 240 s (a 429 whose retry_after
    discord.py waits out). The start answers and the pairings are posted at once, saying that
    the threads open one by one; the organiser's commands answer meanwhile; the threads then
    open, each match's show-up clock starting when its thread opened."""
    env = simcord_env
    bot = env.bot
    channel, members = await cup(env, ["org", "ann", "ben", "cat"])
    start_thread = bot.http.start_thread_without_message
    held = []

    async def rate_limited(*args, **kwargs):
        if not held:
            held.append(bot.clock())
            await asyncio.sleep(RETRY_AFTER)  # as discord.py sleeps out a 429's retry_after
        return await start_thread(*args, **kwargs)

    monkeypatch.setattr(bot.http, "start_thread_without_message", rate_limited)
    began = bot.clock()
    started = await members[0].slash(channel, "tournament-admin start")
    assert announced(channel, started) and "starts with 4 entrants" in started.response.content
    (posted,) = pairings_posts(channel)
    assert "threads open one by one" in posted.content
    assert held and channel.threads == []  # the first thread waits for Discord
    waiting = await bot.db.outbox.undelivered_steps()  # the start's step is shown: only the
    assert [row.kind for row in waiting] == [THREADS]  # threads wait (before: the whole step)
    standings = await members[0].slash(channel, "tournament standings")
    assert standings.response.embeds  # the bot answers meanwhile
    await env.advance_time(RETRY_AFTER / 2)
    assert channel.threads == []
    await env.advance_time(RETRY_AFTER / 2 + 1)
    snap = await snapshot(bot, channel)
    matches = snap.round_matches(1)
    assert len(channel.threads) == len(matches) == 2
    assert all(m.thread_id for m in matches)
    for match in matches:  # each clock from its thread's opening, none from the pairing
        assert match.deadline is not None and match.deadline >= began + RETRY_AFTER + SHOW_UP
    for thread in channel.threads:
        assert bot.get_channel(thread.id).auto_archive_duration == 10080
    assert not [m for m in channel.history() if "could not open a thread" in (m.content or "")]
    events = await bot.db.outbox.undelivered_steps()
    assert events == []  # the threads' event is delivered once they are all open


@pytest.mark.parametrize("status", [429, 503])
async def test_a_thread_refused_for_now_is_tried_again(simcord_env, status):
    """Discord refuses the first two thread creations (rate limited past discord.py's own
    waits, or down). Before, the organiser was asked at once to report the match by hand ("I
    could not open a thread"), and it never got a thread. Now the thread is tried again after
    a wait, and every match gets its thread."""
    env = simcord_env
    bot = env.bot
    channel, members = await cup(env, ["org", "ann", "ben", "cat"])
    env.inject_error("POST", f"/channels/{channel.id}/threads", status=status, times=2)
    started = await members[0].slash(channel, "tournament-admin start")
    assert "starts with 4 entrants" in started.response.content
    await env.advance_time(60)
    snap = await snapshot(bot, channel)
    assert all(m.thread_id for m in snap.round_matches(1))
    assert len(channel.threads) == 2
    assert not [m for m in channel.history() if "could not open a thread" in (m.content or "")]


async def test_threads_a_restart_found_unopened_are_opened(simcord_env, monkeypatch):
    """The bot stops while the round's threads wait for Discord: the pairing's threads event
    is still in the outbox, and the next start opens the threads (once each)."""
    from bot.app import create_bot

    env = simcord_env
    bot = env.bot
    channel, members = await cup(env, ["org", "ann", "ben", "cat"])

    async def never(*args, **kwargs):
        await asyncio.sleep(10 * RETRY_AFTER)
        raise AssertionError("not reached: the bot stops first")

    monkeypatch.setattr(bot.http, "start_thread_without_message", never)
    await members[0].slash(channel, "tournament-admin start")
    assert channel.threads == []
    assert len(await bot.db.outbox.undelivered_steps()) == 1  # the threads still to open
    await bot.close()
    await env.restart_bot(create_bot(bot.settings))
    await env.settle()
    await env.advance_time(1)
    snap = await snapshot(env.bot, channel)
    assert all(m.thread_id for m in snap.round_matches(1))
    assert len(channel.threads) == 2
    assert await env.bot.db.outbox.undelivered_steps() == []


async def test_a_thread_whose_match_the_store_did_not_record_is_not_opened_twice(
    simcord_env, monkeypatch
):
    """The first match thread opens, then the store fails as the match is given it (an
    outage between Discord's answer and the commit). Before, the retry opened a second thread
    for the match; now it finds the one it opened and uses it."""
    from bot.store.errors import DatabaseUnavailableError

    env = simcord_env
    bot = env.bot
    channel, members = await cup(env, ["org", "ann", "ben", "cat"])
    service = bot.tournament_service
    open_match = service.open_match
    failed = []

    async def fails_once(match_id, thread_id):
        if not failed:
            failed.append(thread_id)
            raise DatabaseUnavailableError("the store stopped answering (a test)")
        return await open_match(match_id, thread_id)

    monkeypatch.setattr(service, "open_match", fails_once)
    await members[0].slash(channel, "tournament-admin start")
    await env.advance_time(60)
    snap = await snapshot(bot, channel)
    matches = snap.round_matches(1)
    assert failed and all(m.thread_id for m in matches)
    assert len(channel.threads) == len(matches) == 2  # one thread each, none twice
    assert failed[0] in {m.thread_id for m in matches}  # the first thread was kept
