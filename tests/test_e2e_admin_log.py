"""``/sequence-admin set log_channel``: where the audit line of every settings change goes
(issue #38, item 4). The change is always saved; a log channel that refuses the line sends it
back to the channel of the change, and the admin is told why."""

from __future__ import annotations

import asyncio
import time

import discord
import pytest

import bot.store.guild_settings as guild_settings
from bot.config import Settings
from cogs.admin import audit_line

from .test_e2e_admin import with_admin
from .test_e2e_permissions import deny_bot


@pytest.fixture
def bot_settings(settings_on_each_backend: Settings) -> Settings:
    """Both backends."""
    return settings_on_each_backend


async def with_log(env):
    """A table, an admin, and a #log channel set as the server's log channel."""
    table, admin = await with_admin(env)
    log = table.guild.create_text_channel("log")
    set_log = await admin.slash(
        table.channel, "sequence-admin set", setting="log_channel", value=log.mention
    )
    # the change of the log channel itself is announced where the old setting said: here
    assert not set_log.ephemeral
    assert set_log.response.content == (
        f"⚙️ {admin.mention} changed **log_channel**: none → {log.mention}."
    )
    return table, admin, log


def lines_in(channel) -> list[str]:
    return [m.content for m in channel.history() if m.content.startswith("⚙️")]


async def test_the_audit_line_goes_to_the_log_channel(simcord_env):
    table, admin, log = await with_log(simcord_env)
    changed = await admin.slash(
        table.channel, "sequence-admin set", setting="time_limit", value="2h"
    )
    line = f"⚙️ {admin.mention} changed **time_limit** for new tables: none → 2 h."
    assert changed.ephemeral  # the admin's confirmation, in place
    assert changed.response.content == f"{line}\n📒 Posted in {log.mention}."
    assert lines_in(log) == [line]
    assert line not in lines_in(table.channel)
    reset = await admin.slash(table.channel, "sequence-admin reset", setting="time_limit")
    assert reset.ephemeral
    assert lines_in(log)[-1] == (
        f"⚙️ {admin.mention} changed **time_limit** for new tables: 2 h → none."
    )
    assert (await table.bot.server_settings.defaults(table.guild.id))["turn_time_limit"] == 0

    # made in the log channel itself: one public line there, as without a log channel
    there = await admin.slash(log, "sequence-admin set", setting="hints", value="yes")
    assert not there.ephemeral and "**hints** for new tables: no → yes." in there.response.content
    assert len(lines_in(log)) == 3

    shown = await admin.slash(table.channel, "sequence-admin settings")
    assert f"`log_channel`: **{log.mention}** (this server)" in shown.response.content
    cleared = await admin.slash(table.channel, "sequence-admin reset", setting="log_channel")
    assert cleared.ephemeral and cleared.response.content.endswith(f"📒 Posted in {log.mention}.")
    back = await admin.slash(table.channel, "sequence-admin set", setting="rated", value="no")
    assert not back.ephemeral and "**rated** for new tables" in back.response.content


REFUSED = [
    (403, 50013, "the bot may not post there"),
    (403, 50001, "the bot cannot see that channel"),
    (404, 10003, "that channel no longer exists"),
    (500, 0, "Discord answered 500"),
    (503, 0, "Discord answered 503"),
]


@pytest.mark.parametrize(("status", "code", "why"), REFUSED)
async def test_a_log_channel_that_refuses_the_line_sends_it_back_here(
    simcord_env, status, code, why
):
    env = simcord_env
    table, admin, log = await with_log(env)
    env.inject_error("POST", f"/channels/{log.id}/messages", status=status, code=code)
    changed = await admin.slash(table.channel, "sequence-admin set", setting="reminder", value="1d")
    line = f"⚙️ {admin.mention} changed **reminder** for new tables: 12 h → 1 day."
    assert (await table.bot.server_settings.defaults(table.guild.id))["reminder_delay"] == 86400
    assert changed.ephemeral
    assert changed.response.content == (
        f"{line}\n⚠️ Saved, but the audit line could not be posted in {log.mention} ({why}): "
        "it is posted here instead."
    )
    assert [m.content for m in changed.followups] == [line]
    assert not changed.followups[0].ephemeral
    assert lines_in(table.channel)[-1] == line and lines_in(log) == []
    # the next change finds the log channel working again
    again = await admin.slash(table.channel, "sequence-admin reset", setting="reminder")
    assert again.response.content.endswith(f"📒 Posted in {log.mention}.")
    assert len(lines_in(log)) == 1


async def test_a_log_channel_the_bot_may_not_post_in(simcord_env):
    env = simcord_env
    table, admin, log = await with_log(env)
    deny_bot(env, log, send_messages=False)
    await env.settle()
    changed = await admin.slash(table.channel, "sequence-admin set", setting="hints", value="yes")
    assert "could not be posted in" in changed.response.content
    assert "(the bot may not post there)" in changed.response.content
    assert lines_in(table.channel)[-1].endswith("**hints** for new tables: no → yes.")
    assert (await table.bot.server_settings.defaults(table.guild.id))["hints"] is True


async def test_a_deleted_log_channel_is_shown_deleted_and_ignored(simcord_env):
    env = simcord_env
    table, admin, log = await with_log(env)
    env.backend.delete_channel(log.id)
    await env.settle()
    shown = await admin.slash(table.channel, "sequence-admin settings")
    assert "`log_channel`: **deleted channel (ignored)** (this server)" in shown.response.content
    changed = await admin.slash(table.channel, "sequence-admin set", setting="rated", value="no")
    assert not changed.ephemeral  # in the channel of the change, as without a log channel
    assert changed.response.content == (
        f"⚙️ {admin.mention} changed **rated** for new tables: yes → no."
    )
    assert not changed.followups


async def test_a_log_channel_must_be_a_channel_of_this_server(simcord_env):
    env = simcord_env
    table, admin = await with_admin(env)
    elsewhere = env.create_guild("Elsewhere").create_text_channel("their-log")
    category = table.guild.create_category("Games")
    thread = env.backend.create_thread(table.channel.id, "side", admin.id)
    refusals = {
        "log": "'log' is not a channel: mention it (type # and pick it), or say none.",
        "#log": "'#log' is not a channel: mention it",
        f"{table.channel.mention} <#123456789012345678>": "Name one channel only.",
        elsewhere.mention: f"{elsewhere.mention} is not a channel of this server.",
        category.mention: f"{category.mention} cannot hold messages: name a text channel.",
        f"<#{thread.id}>": f"<#{thread.id}> is a thread: name a text channel.",
    }
    for value, answer in refusals.items():
        refused = await admin.slash(
            table.channel, "sequence-admin set", setting="log_channel", value=value
        )
        assert refused.ephemeral, value
        assert answer in refused.response.content, refused.response.content
    assert await table.bot.db.guild_settings.all(table.guild.id) == {}
    assert elsewhere.last_message is None


async def test_two_admins_change_one_setting_at_once_the_later_wins_both_audited(
    simcord_env, monkeypatch
):
    """Two changes of one setting in flight together: ``/sequence-admin set`` here, and the
    same change another admin makes at once (the service call the command makes, as another
    process would make it: SimCord runs one command at a time). The first holds between reading
    the value it replaces and writing its own until the second has begun: the second waits for
    it (the server's lock, on both backends, in every process), reads what it stored, and
    wins; each audit line says what it replaced. Without the lock, on PostgreSQL, both read
    "none" and the first write, committed last, won."""
    env = simcord_env
    table, admin, log = await with_log(env)
    admins = table.guild.create_role(
        "Admins too", permissions=discord.Permissions(manage_guild=True)
    )
    other = table.guild.add_member(env.create_user("other-admin"), roles=[admins])
    bot = table.bot
    began = 0
    put = bot.db.guild_settings.put

    async def counted_put(*args, **kwargs):
        nonlocal began
        began += 1
        return await put(*args, **kwargs)

    previous = guild_settings._previous
    held = False

    async def held_previous(conn, guild_id, name):
        nonlocal held
        found = await previous(conn, guild_id, name)
        if not held:
            held = True
            # the other change is in flight too (SQLite: it waits before, to read)...
            for _ in range(100):  # real time (SimCord's clock stands still meanwhile)
                if began >= 2:
                    break
                await asyncio.to_thread(time.sleep, 0.002)
            await asyncio.to_thread(time.sleep, 0.05)  # ...and reads now, unless it waits
        return found

    async def at_once():
        while began < 1:
            await asyncio.to_thread(time.sleep, 0.002)
        return await bot.server_settings.set(table.guild.id, "time_limit", "3h", other.id)

    monkeypatch.setattr(bot.db.guild_settings, "put", counted_put)
    monkeypatch.setattr(guild_settings, "_previous", held_previous)
    first, second = await asyncio.gather(
        admin.slash(table.channel, "sequence-admin set", setting="time_limit", value="1h"),
        at_once(),
    )
    assert first.ephemeral and first.response.content.endswith(f"📒 Posted in {log.mention}.")
    assert lines_in(log) == [
        f"⚙️ {admin.mention} changed **time_limit** for new tables: none → 1 h."
    ]
    assert audit_line(other, second) == (
        f"⚙️ {other.mention} changed **time_limit** for new tables: 1 h → 3 h."
    )
    stored = (await bot.db.guild_settings.all(table.guild.id))["time_limit"]
    assert (stored.value, stored.changed_by) == (10800, other.id)  # the later wins
    shown = await admin.slash(table.channel, "sequence-admin settings")
    assert "`time_limit`: **3 h** (this server" in shown.response.content
