"""A server's roles for the bot's jobs (issue #38): the host role gates opening a lobby, the
moderator role rules on table talk and cancels, and a lobby short of players pings the
looking-for-game role once. Each on SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

import discord
import pytest
from discord import app_commands
from simcord.backend.models import Overwrite
from simcord.enums import OverwriteType

from bot.app import create_bot
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


def labels(message: Any) -> list[str]:
    """The labels of a message's buttons."""
    return [c.get("label") for row in message.components for c in row["components"]]


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


# ---------------------------------------------------------------------- looking-for-game role
def ping_of(env: Any, message: Any) -> Any:
    """The stored message behind ``message``: what Discord pinged."""
    return env.backend.messages[message.channel.id][message.id]


async def test_a_lobby_pings_the_looking_role_once_even_after_a_restart(simcord_env, bot_settings):
    env = simcord_env
    table = await make_table(env, ["alice", "bob"])
    alice, bob = table.players
    admin = an_admin(env, table)
    plain = (await alice.slash(table.channel, "sequence new")).response
    assert "Ping for players" not in labels(plain)  # no role set: no button
    await alice.slash(table.channel, "sequence cancel")

    looking = table.guild.create_role("Looking")
    await set_role(table, admin, "looking_role", looking)
    lobby = (await alice.slash(table.channel, "sequence new")).response
    assert "Ping for players" in labels(lobby)

    not_host = await bob.click(lobby, label="Ping for players")
    assert not_host.ephemeral
    assert not_host.response.content == (
        f"⚠️ Only the host (<@{alice.id}>) can ping the looking-for-game role."
    )
    pinged = await alice.click(lobby, label="Ping for players")
    assert pinged.ephemeral
    assert pinged.response.content == (
        f"📣 {looking.mention} was pinged for this lobby (once per lobby)."
    )
    call = table.channel.last_message
    record = await env.bot.db.lobbies.get_for_channel(table.channel.id)
    link = f"https://discord.com/channels/{table.guild.id}/{table.channel.id}/{lobby.id}"
    assert call.content == (
        f"📣 {looking.mention}: <@{alice.id}> is looking for **1 more player** for a game of "
        f"Sequence (classic, 1 player seated so far). Press **Join** on [the lobby]({link})."
    )
    stored = ping_of(env, call)
    assert stored.ping_role_ids == [looking.id]  # the role, and nobody else
    assert stored.ping_user_ids == [] and not stored.mention_everyone
    assert record.looking is not None and record.looking.pinged_by == alice.id

    again = await alice.click(lobby, label="Ping for players")
    assert again.ephemeral
    assert again.response.content.startswith(
        f"⚠️ The looking-for-game role was already pinged for this lobby (by <@{alice.id}> <t:"
    )
    assert again.response.content.endswith("): once per lobby.")
    assert table.channel.last_message.id == call.id

    await env.bot.close()
    await env.restart_bot(create_bot(bot_settings))
    await env.settle()
    after = await alice.click(lobby, label="Ping for players")
    assert after.ephemeral and "already pinged for this lobby" in after.response.content
    assert table.channel.last_message.id == call.id
    # the lobby plays on as ever
    assert (await bob.click(lobby, label="Join")).acknowledged


async def test_a_role_the_bot_cannot_ping_or_that_was_deleted_is_said_so(simcord_env):
    env = simcord_env
    table = await make_table(env, ["alice"])
    (alice,) = table.players
    admin = an_admin(env, table)
    looking = table.guild.create_role("Looking")  # not mentionable
    await set_role(table, admin, "looking_role", looking)
    deny = discord.PermissionOverwrite(mention_everyone=False).pair()[1].value
    env.backend.set_overwrite(
        table.channel.id, Overwrite(env.bot.user.id, OverwriteType.MEMBER, allow=0, deny=deny)
    )
    await env.settle()
    lobby = (await alice.slash(table.channel, "sequence new")).response

    cannot = await alice.click(lobby, label="Ping for players")
    assert cannot.ephemeral
    assert cannot.response.content.startswith(
        f"⚠️ I cannot ping {looking.mention} here: the role is not mentionable and I lack "
        "**Mention Everyone** in this channel."
    )
    assert table.channel.last_message.id == lobby.id  # nothing posted
    record = await env.bot.db.lobbies.get_for_channel(table.channel.id)
    assert record.looking is not None and not record.looking.made  # nothing recorded

    env.backend.edit_role(table.guild.id, looking.id, {"mentionable": True})
    await env.settle()
    pinged = await alice.click(lobby, label="Ping for players")
    assert pinged.ephemeral and "was pinged" in pinged.response.content
    assert ping_of(env, table.channel.last_message).ping_role_ids == [looking.id]

    # the role deleted: an open lobby's button says there is none; new lobbies have no button
    room = table.guild.create_text_channel("room")
    other = (await alice.slash(room, "sequence new")).response
    env.backend.delete_role(table.guild.id, looking.id)
    await env.settle()
    gone = await alice.click(other, label="Ping for players")
    assert gone.ephemeral
    assert gone.response.content == (
        "⚠️ No looking-for-game role is set in this server (the one set was deleted): a server "
        "admin can set one with `/sequence-admin set looking_role`."
    )
    record = await env.bot.db.lobbies.get_for_channel(room.id)
    assert not record.looking.made
    third = table.guild.create_text_channel("third")
    assert "Ping for players" not in labels((await alice.slash(third, "sequence new")).response)


async def test_a_discord_refusal_of_the_ping_gives_the_call_back(simcord_env):
    env = simcord_env
    table = await make_table(env, ["alice"])
    (alice,) = table.players
    admin = an_admin(env, table)
    looking = table.guild.create_role("Looking", mentionable=True)
    await set_role(table, admin, "looking_role", looking)
    lobby = (await alice.slash(table.channel, "sequence new")).response
    env.inject_error("POST", f"/channels/{table.channel.id}/messages", status=500)
    failed = await alice.click(lobby, label="Ping for players")
    assert failed.ephemeral and "nobody was pinged" in failed.response.content
    assert not (await env.bot.db.lobbies.get_for_channel(table.channel.id)).looking.made
    pinged = await alice.click(lobby, label="Ping for players")
    assert "was pinged" in pinged.response.content
    assert ping_of(env, table.channel.last_message).ping_role_ids == [looking.id]


async def test_pings_count_against_the_channels_rate_limit(simcord_env):
    """The ping is limited as the bot's other posts are (cogs/common/cooldowns.py): here once
    per channel in two minutes, so a second lobby's ping there waits; refused, it costs
    nothing."""
    env = simcord_env
    table = await make_table(env, ["alice", "bob"])
    alice, bob = table.players
    admin = an_admin(env, table)
    looking = table.guild.create_role("Looking", mentionable=True)
    await set_role(table, admin, "looking_role", looking)
    env.bot.limits.channel_rate = (1, 120)  # CHANNEL_RATE_LIMIT=1/120
    first = (await alice.slash(table.channel, "sequence new")).response
    await env.advance_time(60)
    assert "was pinged" in (await alice.click(first, label="Ping for players")).response.content
    await alice.slash(table.channel, "sequence cancel")
    await env.advance_time(61)  # a lobby may open here again; the ping waits another minute
    second = (await bob.slash(table.channel, "sequence new")).response
    waits = await bob.click(second, label="Ping for players")
    assert waits.ephemeral
    assert waits.response.content == (
        "⚠️ That was used too often in this channel: try again in 59 s."
    )
    assert not (await env.bot.db.lobbies.get_for_channel(table.channel.id)).looking.made
    await env.advance_time(60)
    assert "was pinged" in (await bob.click(second, label="Ping for players")).response.content


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
