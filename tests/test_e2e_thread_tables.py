"""A table per thread (issue #38, item 3): ``/sequence new thread:yes``, or the server's
``thread_tables``, opens the lobby in a new public thread of the channel, named for the table,
so that any number of tables share one channel; the game plays there, and the thread is closed
(archived) a while after the game ends, through the outbox (once, across a restart). Discord's
refusals of the thread are answered clearly and open nothing."""

from __future__ import annotations

import asyncio
from typing import Any

import discord
import pytest
from simcord.backend.models import Overwrite
from simcord.builders import ChannelHandle
from simcord.enums import OverwriteType

from bot.app import create_bot
from bot.config import Settings
from bot.store.errors import DatabaseUnavailableError
from cogs.common.own_threads import (
    CLOSE_AFTER,
    DISCORD_DOWN,
    NOT_ALLOWED,
    RATE_LIMITED,
)
from cogs.common.replies import DATABASE_DOWN

from .e2e_driver import play_to_the_end
from .e2e_helpers import Table, make_table, settle

#: How long Discord keeps thread creation closed in the test of a long retry_after.
RETRY_AFTER = 240.0


@pytest.fixture
def bot_settings(settings_on_each_backend: Settings) -> Settings:
    """Both backends."""
    return settings_on_each_backend


def the_thread(table: Table) -> ChannelHandle:
    """The one thread of the table's channel."""
    (thread,) = table.channel.threads
    return thread


def archived(env: Any, thread: ChannelHandle) -> bool:
    """Whether Discord holds the thread archived."""
    return bool(env.backend.channels[thread.id].thread_metadata.archived)


async def open_in_a_thread(table: Table, **options: Any) -> tuple[Any, ChannelHandle]:
    """The first player opens a table in a thread of its own; the answer and the thread."""
    opened = await table.players[0].slash(table.channel, "sequence new", thread=True, **options)
    return opened, the_thread(table)


async def start_in(table: Table, thread: ChannelHandle, seed: int = 1) -> Table:
    """The others join the lobby in ``thread`` and the host starts; the table there."""
    table.bot.lobbies.new_seed = lambda: seed
    lobby_message = next(m for m in thread.history() if m.embeds)
    for player in table.players[1:]:
        assert (await player.click(lobby_message, label="Join")).acknowledged
    assert (await table.players[0].click(lobby_message, label="Start")).acknowledged
    return Table(table.env, table.guild, thread, table.players)


async def test_a_table_in_its_own_thread_plays_to_its_end_and_its_thread_closes(simcord_env):
    env = simcord_env
    table = await make_table(env, ["alice", "bob"])
    alice = table.players[0]
    opened, thread = await open_in_a_thread(table)
    assert opened.ephemeral
    assert (
        opened.response.content == f"✅ Your table is open in {thread.mention}: the lobby is there."
    )
    assert thread.name == "Sequence — alice's table"
    assert env.bot.get_channel(thread.id).auto_archive_duration == 10080
    (said,) = [m for m in table.channel.history() if thread.mention in (m.content or "")]
    assert said.content.startswith(f"🎲 {alice.mention} opened a table of **Sequence**")
    lobby = await env.bot.db.lobbies.get_for_channel(thread.id)
    assert lobby is not None and lobby.options.own_thread
    assert await env.bot.db.lobbies.get_for_channel(table.channel.id) is None
    assert alice.id in env.backend.channels[thread.id].thread_members  # the host is added

    played = await start_in(table, thread)
    record = played.game()
    assert record.channel_id == thread.id and record.options.own_thread
    await play_to_the_end(played, record)
    assert record.game.is_over()
    assert "wins!" in thread.last_message.content
    await settle(env)
    assert not archived(env, thread)
    await env.advance_time(CLOSE_AFTER - 60)
    assert not archived(env, thread)
    await env.advance_time(120)
    await settle(env)
    assert archived(env, thread)
    assert not [r for r in await env.bot.db.outbox.undelivered() if r.kind == "GameEnded"]


async def test_any_number_of_tables_share_one_channel(simcord_env):
    env = simcord_env
    table = await make_table(env, ["alice", "bob", "carol"])
    for player in table.players:
        opened = await player.slash(table.channel, "sequence new", thread=True)
        assert opened.ephemeral and "Your table is open in" in opened.response.content
    threads = table.channel.threads
    assert sorted(t.name for t in threads) == [
        "Sequence — alice's table",
        "Sequence — bob's table",
        "Sequence — carol's table",
    ]
    lobbies = [await env.bot.db.lobbies.get_for_channel(t.id) for t in threads]
    assert sorted(lobby.host_id for lobby in lobbies) == sorted(p.id for p in table.players)


async def test_the_thread_closes_once_after_a_restart(simcord_env, bot_settings):
    """The bot restarts between the game's end and the thread's closing: the next start
    closes it when the time comes, once."""
    env = simcord_env
    table = await make_table(env, ["alice", "bob"])
    _, thread = await open_in_a_thread(table)
    played = await start_in(table, thread)
    resigned = await table.players[1].slash(thread, "sequence resign")
    assert not resigned.ephemeral
    assert played.game() is None  # over: bob's team resigned
    await settle(env)
    await env.advance_time(CLOSE_AFTER / 2)
    await env.bot.close()
    await env.restart_bot(create_bot(bot_settings))
    await settle(env)
    assert not archived(env, thread)
    await env.advance_time(CLOSE_AFTER / 2 + 60)
    await settle(env)
    assert archived(env, thread)
    archives = [
        r
        for r in env.http_requests
        if r.method == "PATCH"
        and r.path == f"/channels/{thread.id}"
        and (r.json or {}).get("archived")
    ]
    assert len(archives) == 1
    assert not [r for r in await env.bot.db.outbox.undelivered() if r.kind == "GameEnded"]


async def test_a_refused_closing_is_tried_again(simcord_env):
    """Discord refuses the thread's archiving for now (a 503): it is tried again later (the
    outbox's wait doubles: an hour after the end came first, so two hours on)."""
    env = simcord_env
    table = await make_table(env, ["alice", "bob"])
    _, thread = await open_in_a_thread(table)
    await start_in(table, thread)
    await table.players[1].slash(thread, "sequence resign")
    await settle(env)
    env.inject_error("PATCH", f"/channels/{thread.id}", status=503)
    await env.advance_time(CLOSE_AFTER + 1)
    await settle(env)
    assert not archived(env, thread)
    await env.advance_time(2 * CLOSE_AFTER - 60)
    assert not archived(env, thread)
    await env.advance_time(61)
    await settle(env)
    assert archived(env, thread)


async def test_a_thread_holding_a_newer_table_stays_open(simcord_env):
    env = simcord_env
    table = await make_table(env, ["alice", "bob"])
    _, thread = await open_in_a_thread(table)
    await start_in(table, thread)
    await table.players[1].slash(thread, "sequence resign")
    again = await table.players[0].slash(thread, "sequence new", thread=True)
    assert not again.ephemeral  # in a thread, thread:yes opens the lobby right there
    assert len(table.channel.threads) == 1
    lobby = await env.bot.db.lobbies.get_for_channel(thread.id)
    assert lobby is not None and not lobby.options.own_thread
    await env.advance_time(CLOSE_AFTER + 60)
    await settle(env)
    assert not archived(env, thread)


async def test_the_servers_default_opens_threads_and_the_host_may_say_no(simcord_env):
    env = simcord_env
    table = await make_table(env, ["alice", "bob"])
    admins = table.guild.create_role("Admins", permissions=discord.Permissions(manage_guild=True))
    admin = table.guild.add_member(env.create_user("admin"), roles=[admins])
    changed = await admin.slash(
        table.channel, "sequence-admin set", setting="thread_tables", value="yes"
    )
    assert "**thread_tables** for new tables: no → yes." in changed.response.content
    opened = await table.players[0].slash(table.channel, "sequence new")
    assert opened.ephemeral and "Your table is open in" in opened.response.content
    assert len(table.channel.threads) == 1
    here = await table.players[1].slash(table.channel, "sequence new", thread=False)
    assert not here.ephemeral
    lobby = await env.bot.db.lobbies.get_for_channel(table.channel.id)
    assert lobby is not None and not lobby.options.own_thread
    assert len(table.channel.threads) == 1


async def test_no_reminders_in_a_tables_own_thread_warns_its_host(simcord_env):
    env = simcord_env
    table = await make_table(env, ["alice"])
    opened, _ = await open_in_a_thread(table, reminder="none")
    (warning,) = opened.followups
    assert warning.ephemeral and "No reminders at this table" in warning.content


# ---------------------------------------------------------------------- refusals
@pytest.mark.parametrize(
    ("status", "code", "answer"),
    [(429, 0, RATE_LIMITED), (403, 50013, NOT_ALLOWED), (503, 0, DISCORD_DOWN)],
    ids=["rate limited", "missing permissions", "Discord down"],
)
async def test_discord_refuses_the_thread(simcord_env, status, code, answer):
    """Discord refuses the thread (rate limited past discord.py's waits, a permission taken
    away, down): a clear answer, no thread and no lobby; the next try opens the table."""
    env = simcord_env
    table = await make_table(env, ["alice"])
    alice = table.players[0]
    env.inject_error("POST", f"/channels/{table.channel.id}/threads", status=status, code=code)
    refused = await alice.slash(table.channel, "sequence new", thread=True)
    assert refused.ephemeral and refused.response.content == f"⚠️ {answer}"
    assert table.channel.threads == []
    assert await env.bot.db.lobbies.hosted_by(alice.id) == 0
    assert [m for m in table.channel.history() if not m.flags.ephemeral] == []
    opened = await alice.slash(table.channel, "sequence new", thread=True)
    assert "Your table is open in" in opened.response.content
    assert len(table.channel.threads) == 1


async def test_a_long_rate_limit_on_the_thread_keeps_the_command_deferred(simcord_env, monkeypatch):
    """Discord holds the thread for 240 s (a 429 whose retry_after discord.py waits out): the
    command was deferred first, so the answer comes when the thread does."""
    env = simcord_env
    bot = env.bot
    table = await make_table(env, ["alice"])
    start_thread = bot.http.start_thread_without_message

    async def rate_limited(*args, **kwargs):
        await asyncio.sleep(RETRY_AFTER)  # as discord.py sleeps out a 429's retry_after
        return await start_thread(*args, **kwargs)

    monkeypatch.setattr(bot.http, "start_thread_without_message", rate_limited)
    opened = await table.players[0].slash(table.channel, "sequence new", thread=True)
    assert opened.deferred and opened.ephemeral and table.channel.threads == []
    await env.advance_time(RETRY_AFTER + 1)
    assert "Your table is open in" in opened.response.content
    assert len(table.channel.threads) == 1


async def test_a_thread_whose_lobby_was_not_saved_is_used_on_the_next_try(simcord_env, monkeypatch):
    """The thread is made, then the store fails as the lobby is saved: the host is told that
    nothing was saved, and the next try opens the lobby in that same thread, not a second."""
    env = simcord_env
    table = await make_table(env, ["alice"])
    alice = table.players[0]
    service = env.bot.lobbies
    real_open = service.open
    failures = [DatabaseUnavailableError("the database is down (injected)")]

    async def failing_open(*args, **kwargs):
        if failures:
            raise failures.pop()
        return await real_open(*args, **kwargs)

    monkeypatch.setattr(service, "open", failing_open)
    failed = await alice.slash(table.channel, "sequence new", thread=True)
    assert failed.ephemeral and failed.response.content == DATABASE_DOWN
    (thread,) = table.channel.threads
    assert thread.history() == []
    opened = await alice.slash(table.channel, "sequence new", thread=True)
    assert (
        opened.response.content == f"✅ Your table is open in {thread.mention}: the lobby is there."
    )
    assert [t.id for t in table.channel.threads] == [thread.id]
    assert await env.bot.db.lobbies.get_for_channel(thread.id) is not None


async def test_without_create_public_threads_a_clear_answer(simcord_env):
    env = simcord_env
    table = await make_table(env, ["alice"])
    deny = discord.PermissionOverwrite(create_public_threads=False).pair()[1].value
    overwrite = Overwrite(env.bot.user.id, OverwriteType.MEMBER, allow=0, deny=deny)
    env.backend.set_overwrite(table.channel.id, overwrite)
    await settle(env)
    refused = await table.players[0].slash(table.channel, "sequence new", thread=True)
    assert refused.ephemeral
    assert refused.response.content == (
        "⚠️ I cannot open a table in a thread of its own here: I need the **Create Public "
        "Threads** permission in this channel. Ask a server admin for it, or open the table "
        "right here with `thread:no`."
    )
    assert table.channel.threads == []
    assert await env.bot.db.lobbies.hosted_by(table.players[0].id) == 0
    here = await table.players[0].slash(table.channel, "sequence new")
    assert not here.ephemeral  # a table right here needs no thread


async def test_thread_yes_where_no_thread_can_open_is_refused(simcord_env):
    env = simcord_env
    table = await make_table(env, ["alice"])
    voice = table.guild.create_voice_channel("lounge")
    refused = await table.players[0].slash(voice, "sequence new", thread=True)
    assert refused.ephemeral
    assert "only from a text channel" in refused.response.content
    assert await env.bot.db.lobbies.hosted_by(table.players[0].id) == 0


async def test_thread_yes_in_an_announcement_channel_is_refused(simcord_env):
    env = simcord_env
    table = await make_table(env, ["alice"])
    news = table.guild.create_news_channel("news")
    refused = await table.players[0].slash(news, "sequence new", thread=True)
    assert refused.ephemeral and "only from a text channel" in refused.response.content
    assert news.threads == []
    assert await env.bot.db.lobbies.hosted_by(table.players[0].id) == 0
