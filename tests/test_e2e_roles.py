"""A server's roles for the bot's jobs (issue #38): the moderator role rules on table talk and
cancels. Each on SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

import discord
import pytest

from bot.config import Settings

from .e2e_helpers import four_player_game, seat_actor


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
