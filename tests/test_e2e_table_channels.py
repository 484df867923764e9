"""Where tables may be opened (issue #38, channels): ``table_channels`` lists channels or
categories (none: anywhere); a thread counts as its parent, a channel as listed when its
category is; a deleted one is ignored. ``/sequence-admin check`` says which permissions the bot
lacks where tables may be opened."""

from __future__ import annotations

from typing import Any

import discord
import pytest
from simcord.backend.models import Overwrite
from simcord.builders import ChannelHandle
from simcord.enums import OverwriteType

from bot.config import Settings
from cogs.common.lengths import MESSAGE_LIMIT

from .e2e_helpers import Table, make_table, settle
from .helpers.tournament import anyone_may_organise


@pytest.fixture
def bot_settings(settings_on_each_backend: Settings) -> Settings:
    """Both backends."""
    return settings_on_each_backend


async def with_admin(env: Any) -> tuple[Table, Any]:
    """A table of alice and bob in #sequence, and an admin (Manage Server)."""
    table = await make_table(env, ["alice", "bob"])
    admins = table.guild.create_role("Admins", permissions=discord.Permissions(manage_guild=True))
    admin = table.guild.add_member(env.create_user("admin"), roles=[admins])
    return table, admin


async def allow(table: Table, admin: Any, *places: ChannelHandle) -> Any:
    """The admin lists ``places`` as the table channels; the answer."""
    value = " ".join(place.mention for place in places)
    return await admin.slash(
        table.channel, "sequence-admin set", setting="table_channels", value=value
    )


def a_thread(env: Any, channel: ChannelHandle, owner: Any) -> ChannelHandle:
    """A public thread of ``channel`` that ``owner`` opened (the bot in it)."""
    made = env.backend.create_thread(channel.id, "talk", owner.id)
    env.backend.add_thread_member(made.id, env.bot.user.id)
    return ChannelHandle(env, channel.guild, made)


async def test_a_channel_not_allowed_is_refused_and_nothing_opens(simcord_env):
    env = simcord_env
    table, admin = await with_admin(env)
    games = table.guild.create_text_channel("games")
    changed = await allow(table, admin, games)
    assert changed.response.content == (
        f"⚙️ {admin.mention} changed **table_channels**: anywhere → {games.mention}."
    )
    alice = table.players[0]
    refused = await alice.slash(table.channel, "sequence new")
    assert refused.ephemeral
    assert refused.response.content == (
        f"⚠️ Tables cannot be opened in this channel: in this server they are opened in "
        f"{games.mention}. A server admin can change that with "
        "`/sequence-admin set table_channels`."
    )
    assert await env.bot.db.lobbies.get_for_channel(table.channel.id) is None
    in_thread = await alice.slash(a_thread(env, table.channel, alice), "sequence new")
    assert in_thread.ephemeral and "cannot be opened in this channel" in in_thread.response.content
    as_thread = await alice.slash(table.channel, "sequence new", thread=True)
    assert as_thread.ephemeral and [t.name for t in table.channel.threads] == ["talk"]
    assert await env.bot.db.lobbies.hosted_by(alice.id) == 0

    opened = await alice.slash(games, "sequence new")
    assert not opened.ephemeral
    thread = a_thread(env, games, alice)
    assert not (await table.players[1].slash(thread, "sequence new")).ephemeral

    anyone_may_organise(env, table.guild)
    cup = await alice.slash(table.channel, "tournament-admin create", name="Cup", format="swiss")
    assert cup.ephemeral and "cannot be opened in this channel" in cup.response.content
    assert await env.bot.db.tournaments.open_in_channel(table.channel.id) is None


async def test_a_listed_category_allows_its_channels(simcord_env):
    env = simcord_env
    table, admin = await with_admin(env)
    category = table.guild.create_category("Games")
    inside = table.guild.create_text_channel("table-1", category=category)
    await allow(table, admin, category)
    refused = await table.players[0].slash(table.channel, "sequence new")
    assert refused.ephemeral
    assert "they are opened in the channels of the **Games** category." in (
        refused.response.content
    )
    opened = await table.players[0].slash(inside, "sequence new")
    assert not opened.ephemeral
    threaded = await table.players[1].slash(inside, "sequence new", thread=True)
    assert "Your table is open in" in threaded.response.content


async def test_a_deleted_channel_is_ignored(simcord_env):
    env = simcord_env
    table, admin = await with_admin(env)
    games = table.guild.create_text_channel("games")
    old = table.guild.create_text_channel("old")
    await allow(table, admin, games, old)
    env.backend.delete_channel(old.id)
    await settle(env)
    shown = await admin.slash(table.channel, "sequence-admin settings")
    assert (
        f"`table_channels`: **{games.mention} deleted channel (ignored)** (this server)"
        in shown.response.content
    )
    refused = await table.players[0].slash(table.channel, "sequence new")
    assert refused.response.content.startswith(
        f"⚠️ Tables cannot be opened in this channel: in this server they are opened in "
        f"{games.mention}. "
    )
    env.backend.delete_channel(games.id)
    await settle(env)
    anywhere = await table.players[0].slash(table.channel, "sequence new")
    assert not anywhere.ephemeral  # every listed channel gone: as if none were listed


async def test_listing_what_is_not_a_channel_here_is_refused(simcord_env):
    env = simcord_env
    table, admin = await with_admin(env)
    elsewhere = env.create_guild("Other").create_text_channel("theirs")
    refused = await allow(table, admin, elsewhere)
    assert refused.ephemeral
    assert f"{elsewhere.mention} is not a channel or category of this server" in (
        refused.response.content
    )
    typo = await admin.slash(
        table.channel, "sequence-admin set", setting="table_channels", value="#games"
    )
    assert typo.ephemeral and "is not a list of channels" in typo.response.content
    assert await env.bot.db.guild_settings.all(table.guild.id) == {}
    cleared = await admin.slash(
        table.channel, "sequence-admin set", setting="table_channels", value="none"
    )
    assert "anywhere → anywhere" in cleared.response.content


def deny_bot(env: Any, channel: ChannelHandle, **permissions: bool) -> None:
    """An overwrite of ``channel`` that denies the bot ``permissions``."""
    deny = discord.PermissionOverwrite(**permissions).pair()[1].value
    env.backend.set_overwrite(
        channel.id, Overwrite(env.bot.user.id, OverwriteType.MEMBER, allow=0, deny=deny)
    )


async def test_check_lists_the_permissions_the_bot_lacks(simcord_env):
    env = simcord_env
    table, admin = await with_admin(env)
    games = table.guild.create_text_channel("games")
    deny_bot(env, table.channel, attach_files=False)
    deny_bot(env, games, create_public_threads=False, embed_links=False)
    await settle(env)
    checked = await admin.slash(table.channel, "sequence-admin check")
    assert checked.ephemeral
    text = checked.response.content
    assert text.startswith(
        "⚠️ Of the 2 channel(s) of this server where tables may be opened, I lack permissions in 2"
    )
    assert f"• {table.channel.mention}: **Attach Files**" in text
    assert f"• {games.mention}: **Embed Links**, **Create Public Threads**" in text

    await allow(table, admin, games)
    only = (await admin.slash(table.channel, "sequence-admin check")).response.content
    assert "Of the 1 channel(s) listed in `table_channels`" in only
    assert table.channel.mention not in only.split("\n", 1)[1]
    env.backend.delete_overwrite(games.id, env.bot.user.id)
    await settle(env)
    fine = (await admin.slash(table.channel, "sequence-admin check")).response.content
    assert fine == (
        "✅ I have every permission I need in the 1 channel(s) listed in `table_channels` "
        "where tables may be opened."
    )


async def test_check_on_a_large_server_stays_within_one_message(simcord_env):
    env = simcord_env
    table, admin = await with_admin(env)
    category = table.guild.create_category("Tables")
    for number in range(120):
        room = table.guild.create_text_channel(f"table-{number}", category=category)
        deny_bot(env, room, attach_files=False, embed_links=False, send_messages=False)
    await allow(table, admin, category)
    await settle(env)
    checked = await admin.slash(table.channel, "sequence-admin check")
    text = checked.response.content
    assert len(text) <= MESSAGE_LIMIT
    assert "Of the 120 channel(s) listed in `table_channels`" in text
    assert text.splitlines()[-1].startswith("… and ")
