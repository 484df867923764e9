"""``/sequence-admin``: a server's admins choose its defaults for new tables (issue #38)."""

from __future__ import annotations

import discord
import pytest
from simcord import SetupError

from bot.app import create_bot
from bot.config import Settings

from .e2e_helpers import make_table, open_and_start
from .test_e2e_table import the_server_removes_the_bot


@pytest.fixture
def bot_settings(settings_on_each_backend: Settings) -> Settings:
    """Both backends."""
    return settings_on_each_backend


async def with_admin(env):
    """A table of alice and bob, and an admin (Manage Server) in the same server."""
    table = await make_table(env, ["alice", "bob"])
    admins = table.guild.create_role("Admins", permissions=discord.Permissions(manage_guild=True))
    admin = table.guild.add_member(env.create_user("admin"), roles=[admins])
    return table, admin


async def test_a_server_default_reaches_a_new_table_and_not_a_running_one(simcord_env):
    table, admin = await with_admin(simcord_env)
    running = await open_and_start(table)
    assert running.options.turn_time_limit == 0 and running.options.rated

    changed = await admin.slash(
        table.channel, "sequence-admin set", setting="time_limit", value="2h"
    )
    assert not changed.ephemeral
    assert changed.response.content == (
        f"⚙️ {admin.mention} changed **time_limit** for new tables: none → 2 h."
    )
    rated = await admin.slash(table.channel, "sequence-admin set", setting="rated", value="no")
    assert "**rated** for new tables: yes → no." in rated.response.content

    assert table.game().options.turn_time_limit == 0  # the running game keeps its options
    assert table.game().options.rated

    room = table.guild.create_text_channel("second")
    opened = await table.players[0].slash(room, "sequence new")
    assert not opened.ephemeral
    lobby = await table.bot.db.lobbies.get_for_channel(room.id)
    assert lobby.options.turn_time_limit == 7200 and not lobby.options.rated
    # what the host gives wins over the server's default
    third = table.guild.create_text_channel("third")
    await table.players[1].slash(third, "sequence new", time_limit="30m", rated=True)
    lobby = await table.bot.db.lobbies.get_for_channel(third.id)
    assert lobby.options.turn_time_limit == 1800 and lobby.options.rated

    shown = await admin.slash(table.channel, "sequence-admin settings")
    assert shown.ephemeral
    text = shown.response.content
    assert "`time_limit`: **2 h** (this server; limit: at most 14 days)" in text
    assert "`rated`: **no** (this server)" in text
    assert "`reminder`: **12 h** (the bot's default; limit: at most 14 days)" in text


async def test_refusals_are_ephemeral_and_change_nothing(simcord_env):
    table, admin = await with_admin(simcord_env)
    before = await table.bot.db.guild_settings.all(table.guild.id)
    assert before == {}

    over = await admin.slash(table.channel, "sequence-admin set", setting="time_limit", value="15d")
    assert over.ephemeral
    assert "between 0 (none) and 14 days" in over.response.content
    unknown = await admin.slash(table.channel, "sequence-admin set", setting="speed", value="1")
    assert unknown.ephemeral
    assert "There is no setting 'speed'. The settings are: time_limit," in unknown.response.content
    malformed = await admin.slash(
        table.channel, "sequence-admin set", setting="reminder", value="soon"
    )
    assert malformed.ephemeral
    assert "'soon' is not a duration" in malformed.response.content
    policy = await admin.slash(
        table.channel, "sequence-admin set", setting="on_timeout", value="explode"
    )
    assert policy.ephemeral and "is not one of: skip, computer, remove" in policy.response.content
    short = await admin.slash(table.channel, "sequence-admin set", setting="reminder", value="1m")
    assert short.ephemeral
    assert "Reminders must be at least 10 minutes apart" in short.response.content
    assert await table.bot.db.guild_settings.all(table.guild.id) == {}

    # a member without Manage Server does not see the command at all (Discord's default)
    with pytest.raises(SetupError, match="default-member-permissions"):
        await table.players[0].slash(
            table.channel, "sequence-admin set", setting="rated", value="no"
        )
    assert await table.bot.db.guild_settings.all(table.guild.id) == {}


async def test_reset_goes_back_to_the_bots_default(simcord_env):
    table, admin = await with_admin(simcord_env)
    await admin.slash(table.channel, "sequence-admin set", setting="reminder", value="1d")
    await admin.slash(table.channel, "sequence-admin set", setting="preset", value="convoy")
    reset = await admin.slash(table.channel, "sequence-admin reset", setting="reminder")
    assert not reset.ephemeral
    assert reset.response.content == (
        f"⚙️ {admin.mention} changed **reminder** for new tables: 1 day → 12 h."
    )
    stored = await table.bot.db.guild_settings.all(table.guild.id)
    assert set(stored) == {"preset"} and stored["preset"].changed_by == admin.id
    await table.players[0].slash(table.channel, "sequence new")
    lobby = await table.bot.db.lobbies.get_for_channel(table.channel.id)
    assert lobby.options.reminder_delay == 12 * 3600 and lobby.options.preset == "convoy"


async def test_the_later_of_two_changes_wins(simcord_env):
    table, admin = await with_admin(simcord_env)
    service = table.bot.server_settings
    first = await service.set(table.guild.id, "time_limit", "1h", admin.id)
    second = await service.set(table.guild.id, "time_limit", "3h", table.players[0].id)
    assert (first.before, first.after, second.before, second.after) == (0, 3600, 3600, 10800)
    assert (await service.defaults(table.guild.id))["turn_time_limit"] == 10800


async def test_settings_go_when_the_bot_is_removed_from_the_server(simcord_env):
    env = simcord_env
    table, admin = await with_admin(env)
    other, other_admin = await with_admin(env)
    await admin.slash(table.channel, "sequence-admin set", setting="hints", value="yes")
    await other_admin.slash(other.channel, "sequence-admin set", setting="hints", value="yes")
    await open_and_start(table)
    the_server_removes_the_bot(env, table.guild.id, (table.channel.id,))
    await env.settle()
    assert await env.bot.db.guild_settings.all(table.guild.id) == {}
    assert set(await env.bot.db.guild_settings.all(other.guild.id)) == {"hints"}


async def test_settings_go_with_a_server_that_removed_the_bot_while_it_was_down(
    simcord_env, bot_settings
):
    """A server with settings and no table removes the bot while it is down (Discord sends no
    removal then): at the next start its settings go, as its tables would; another server's
    stay."""
    env = simcord_env
    table, admin = await with_admin(env)
    other, other_admin = await with_admin(env)
    await admin.slash(table.channel, "sequence-admin set", setting="hints", value="yes")
    await other_admin.slash(other.channel, "sequence-admin set", setting="hints", value="yes")
    await env.bot.close()
    the_server_removes_the_bot(env, table.guild.id, (table.channel.id,))
    await env.restart_bot(create_bot(bot_settings))
    await env.settle()
    assert await env.bot.db.guild_settings.all(table.guild.id) == {}
    assert set(await env.bot.db.guild_settings.all(other.guild.id)) == {"hints"}


async def test_a_role_setting_takes_a_mention_and_shows_a_deleted_role_as_deleted(simcord_env):
    env = simcord_env
    table, admin = await with_admin(env)
    hosts = table.guild.create_role("Hosts")
    changed = await admin.slash(
        table.channel, "sequence-admin set", setting="host_role", value=hosts.mention
    )
    assert changed.response.content == (
        f"⚙️ {admin.mention} changed **host_role**: none → {hosts.mention}."
    )
    assert (await table.bot.server_settings.roles(table.guild.id)).host == hosts.id
    wrong = await admin.slash(table.channel, "sequence-admin set", setting="host_role", value="x")
    assert wrong.ephemeral and "'x' is not a role: mention it" in wrong.response.content

    env.backend.delete_role(table.guild.id, hosts.id)
    await env.settle()
    shown = await admin.slash(table.channel, "sequence-admin settings")
    assert "`host_role`: **deleted role (ignored)** (this server)" in shown.response.content
    assert "`moderator_role`: **none** (the bot's default)" in shown.response.content
    cleared = await admin.slash(
        table.channel, "sequence-admin set", setting="host_role", value="none"
    )
    assert not cleared.ephemeral
    assert (await table.bot.server_settings.roles(table.guild.id)).host is None


async def test_the_setting_names_are_offered_by_name_then_by_description(simcord_env):
    """37 settings, and Discord offers 25 at most: typing finds any of them (by its name, or
    a word of its description); with nothing typed, the limits (set least often) come last."""
    table, admin = await with_admin(simcord_env)
    offered = await admin.autocomplete(table.channel, "sequence-admin set", "setting", "channel")
    names = [c["value"] for c in offered]
    assert names[:2] == ["table_channels", "log_channel"]  # by name, then by description
    assert "moderator_role" in names  # "... (besides Manage Channels)"
    everything = await admin.autocomplete(table.channel, "sequence-admin set", "setting", "")
    values = [c["value"] for c in everything]
    assert len(values) == 25 and "log_channel" in values and "thread_tables" in values
    limits = await admin.autocomplete(table.channel, "sequence-admin set", "setting", "per ")
    assert {c["value"] for c in limits} >= {"games_per_person", "tournaments_per_server"}
