"""A server's roles for the bot's jobs (issue #38): the host role gates opening a lobby, the
moderator role rules on table talk and cancels; refused in DMs. Each on SQLite and
PostgreSQL."""

from __future__ import annotations

from typing import Any

import discord
import pytest
from discord import app_commands

from bot.config import Settings
from cogs.base import NOT_IN_DMS

from .e2e_helpers import four_player_game, make_table, seat_actor


@pytest.fixture
def bot_settings(settings_on_each_backend: Settings) -> Settings:
    """Both backends."""
    return settings_on_each_backend


async def set_role(table: Any, admin: Any, setting: str, role: Any) -> None:
    """The admin sets a role setting, as a server admin would."""
    changed = await admin.slash(
        table.channel, "sequence-admin set", setting=setting, value=role.mention
    )
    assert not changed.ephemeral, changed.response.content


def an_admin(env: Any, table: Any) -> Any:
    """A member with Manage Server (who may use ``/sequence-admin``)."""
    admins = table.guild.create_role("Admins", permissions=discord.Permissions(manage_guild=True))
    return table.guild.add_member(env.create_user("admin"), roles=[admins])


# ---------------------------------------------------------------------- host role
async def test_only_members_with_the_host_role_open_a_lobby(simcord_env):
    env = simcord_env
    table = await make_table(env, ["alice"])
    (alice,) = table.players
    admin = an_admin(env, table)
    hosts = table.guild.create_role("Hosts")
    host = table.guild.add_member(env.create_user("host"), roles=[hosts])
    await set_role(table, admin, "host_role", hosts)

    refused = await alice.slash(table.channel, "sequence new")
    assert refused.ephemeral
    assert refused.response.content == (
        f"⚠️ In this server only members with the {hosts.mention} role may open a lobby. "
        "A server admin can change that with `/sequence-admin set host_role`."
    )
    assert await env.bot.db.lobbies.get_for_channel(table.channel.id) is None

    opened = await host.slash(table.channel, "sequence new")
    assert not opened.ephemeral
    lobby = await env.bot.db.lobbies.get_for_channel(table.channel.id)
    assert lobby is not None and lobby.host_id == host.id
    # the lobby is open to all: alice joins, and hosts it once the host leaves
    assert (await alice.click(opened.response, label="Join")).acknowledged
    await host.slash(table.channel, "sequence leave")
    assert (await env.bot.db.lobbies.get_for_channel(table.channel.id)).host_id == alice.id
    added = await alice.slash(table.channel, "sequence addbot", level="easy")
    assert added.response.content == "🤖 Ada (easy bot) joined the lobby."

    # Manage Server may always open one
    room = table.guild.create_text_channel("admins")
    assert not (await admin.slash(room, "sequence new")).ephemeral

    # a deleted host role is ignored: everyone may open a lobby again
    env.backend.delete_role(table.guild.id, hosts.id)
    await env.settle()
    other = table.guild.create_text_channel("other")
    reopened = await alice.slash(other, "sequence new")
    assert not reopened.ephemeral, reopened.response.content
    assert (await env.bot.db.lobbies.get_for_channel(other.id)).host_id == alice.id


# ---------------------------------------------------------------------- moderator role
async def test_the_moderator_role_rules_on_table_talk_and_cancels(simcord_env):
    env = simcord_env
    table, record = await four_player_game(env)
    host = table.players[0]
    admin = an_admin(env, table)
    mods = table.guild.create_role("Mods")  # no permission of its own
    moderator = table.guild.add_member(env.create_user("mod"), roles=[mods])
    stranger = table.guild.add_member(env.create_user("stranger"))
    await set_role(table, admin, "moderator_role", mods)

    game = record.game
    host_seat = next(i for i, seat in enumerate(record.seats) if seat.user_id == host.id)
    offenders = 1 - game.team_of(host_seat)
    caller = next(
        seat_actor(table, record, s)
        for s in game.settings.seats_of(1 - offenders)
        if record.seats[s].user_id != host.id
    )
    call = await caller.slash(table.channel, "sequence tabletalk", team=offenders)
    assert "Who rules: the host or a moderator who is not accused." in call.response.content
    refused = await stranger.click(call.response, label="Dismiss")
    assert refused.ephemeral
    assert refused.response.content == (
        "⚠️ Only the host or a moderator who is not accused may rule on this call."
    )
    ruled = await moderator.click(call.response, label="Dismiss")
    assert ruled.acknowledged and "was **dismissed** by" in call.response.content
    assert moderator.mention in call.response.content

    # cancelling the game: the stranger may not, the moderator may
    refused = await stranger.slash(table.channel, "sequence cancel")
    assert refused.ephemeral
    assert refused.response.content == "⚠️ Only the host or a moderator can cancel the game."
    assert table.game() is not None
    cancelled = await moderator.slash(table.channel, "sequence cancel")
    assert not cancelled.ephemeral and "was cancelled by" in cancelled.response.content
    assert table.game() is None

    # a lobby too, by its Cancel button
    lobby = (await host.slash(table.channel, "sequence new")).response
    refused = await stranger.click(lobby, label="Cancel")
    assert refused.response.content == "⚠️ Only the host or a moderator can cancel a lobby."
    assert (await moderator.click(lobby, label="Cancel")).acknowledged
    assert await env.bot.db.lobbies.get_for_channel(table.channel.id) is None

    # the role deleted: its members moderate no more
    env.backend.delete_role(table.guild.id, mods.id)
    await env.settle()
    await host.slash(table.channel, "sequence new")
    gone = await moderator.slash(table.channel, "sequence cancel")
    assert gone.ephemeral and "Only the host or a moderator" in gone.response.content
    assert await env.bot.db.lobbies.get_for_channel(table.channel.id) is not None


# ---------------------------------------------------------------------- direct messages
async def test_the_gated_commands_refuse_in_direct_messages(simcord_env):
    env = simcord_env
    table = await make_table(env, ["alice"])
    admin = an_admin(env, table)
    hosts = table.guild.create_role("Hosts")
    await set_role(table, admin, "host_role", hosts)
    lobbies = await env.bot.db.lobbies.list_all()
    for command in ("sequence new", "sequence cancel", "sequence tabletalk"):
        options = {"team": 0} if command == "sequence tabletalk" else {}
        refused = await table.players[0].user.slash(command, **options)
        assert refused.ephemeral and refused.response.content == NOT_IN_DMS, command
    assert await env.bot.db.lobbies.list_all() == lobbies
    # discord.py's own error for it, answered by the tree's error handler (and nothing else)
    assert {type(error) for error in env.errors} == {app_commands.NoPrivateMessage}
