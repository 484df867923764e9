"""Tournament organisers (issue #38): ``/tournament-admin`` is a command of its own, for Manage
Server unless a server hands it to others, while entrants keep ``/tournament``; a server's
organiser role creates tournaments and runs any of them, its moderators may end them."""

from __future__ import annotations

from typing import Any

import discord
import pytest
from simcord import SetupError

from bot.config import Settings
from tests.helpers.tournament import (
    announced,
    anyone_may_organise,
    check_in,
    game_in,
    match_of,
    snapshot,
    thread_of,
)


@pytest.fixture
def bot_settings(settings_on_each_backend: Settings) -> Settings:
    """Both backends."""
    return settings_on_each_backend


class Server:
    """A server with a #cup channel: an admin (Manage Server), two organisers (the Organisers
    role), a moderator (the Moderators role), and helpers and players without a role."""

    def __init__(self, env: Any) -> None:
        self.env = env
        guild = self.guild = env.create_guild("Club")
        self.channel = guild.create_text_channel("cup")
        admins = guild.create_role("Admins", permissions=discord.Permissions(manage_guild=True))
        self.organisers = guild.create_role("Organisers")
        self.moderators = guild.create_role("Moderators")
        self.helpers = guild.create_role("Helpers")
        self.admin = guild.add_member(env.create_user("admin"), roles=[admins])
        self.org1, self.org2 = (
            guild.add_member(env.create_user(n), roles=[self.organisers, self.helpers])
            for n in ("org1", "org2")
        )
        self.mod = guild.add_member(env.create_user("mod"), roles=[self.moderators, self.helpers])
        self.helper = guild.add_member(env.create_user("helper"), roles=[self.helpers])
        names = ("ann", "ben", "cat", "dan")
        self.players = [guild.add_member(env.create_user(n)) for n in names]

    def hand_admin_to_helpers(self) -> None:
        """Integrations page: ``/tournament-admin`` for the Helpers role too."""
        command = self.env.backend.find_command("tournament-admin", None)
        self.guild.set_command_permissions(int(command["id"]), {self.helpers: True})

    async def set_role(self, setting: str, role: Any) -> None:
        changed = await self.admin.slash(
            self.channel, "sequence-admin set", setting=setting, value=role.mention
        )
        assert not changed.ephemeral, changed.response.content

    async def tournaments(self) -> list[Any]:
        return await self.env.bot.db.tournaments.in_channel(self.channel.id)


async def test_tournament_admin_is_for_manage_server_while_entrants_keep_tournament(
    simcord_env,
):
    server = Server(simcord_env)
    ann, ben, *_ = server.players
    # Discord's default: a member without Manage Server does not see /tournament-admin at all
    for member in (ann, server.org1):
        with pytest.raises(SetupError, match="default-member-permissions"):
            await member.slash(
                server.channel, "tournament-admin create", name="Cup", format="swiss"
            )
    assert await server.tournaments() == []

    created = await server.admin.slash(
        server.channel, "tournament-admin create", name="Cup", format="swiss"
    )
    assert not created.ephemeral, created.response.content
    joined = await ann.slash(server.channel, "tournament join")
    assert joined.ephemeral and "ann signed up" in joined.response.content
    assert (await ben.click(created.response, label="Join")).acknowledged
    standings = await ben.slash(server.channel, "tournament standings")
    assert not standings.ephemeral and standings.response.embeds
    with pytest.raises(SetupError, match="default-member-permissions"):
        await ann.slash(server.channel, "tournament-admin start")
    started = await server.admin.slash(server.channel, "tournament-admin start")
    assert announced(server.channel, started)


async def test_the_organiser_role_gates_who_creates_and_runs_tournaments(simcord_env):
    """The server hands /tournament-admin to its Helpers and names an Organisers role: a helper
    without that role is refused by the bot, clearly and privately, and nothing changes; an
    organiser creates, and entrants still join and read the standings."""
    server = Server(simcord_env)
    server.hand_admin_to_helpers()
    await server.set_role("organiser_role", server.organisers)
    ann, ben, cat, _ = server.players
    with pytest.raises(SetupError, match="default-member-permissions"):  # not a helper
        await ann.slash(server.channel, "tournament-admin create", name="Cup", format="swiss")

    refused = await server.helper.slash(
        server.channel, "tournament-admin create", name="Cup", format="swiss"
    )
    assert refused.ephemeral
    assert refused.response.content == (
        f"⚠️ In this server only members with the {server.organisers.mention} role may create "
        "tournaments. A server admin can change that with `/sequence-admin set organiser_role`."
    )
    assert await server.tournaments() == []

    created = await server.org1.slash(
        server.channel, "tournament-admin create", name="Cup", format="swiss"
    )
    assert not created.ephemeral, created.response.content
    for player in (ann, ben):
        assert (await player.click(created.response, label="Join")).acknowledged
    joined = await cat.slash(server.channel, "tournament join")
    assert joined.ephemeral and "cat signed up" in joined.response.content
    standings = await cat.slash(server.channel, "tournament standings")
    assert not standings.ephemeral and standings.response.embeds

    # the helper may use the command, not run the organisers' tournament
    for command, options in (
        ("tournament-admin start", {}),
        ("tournament-admin drop", {"player": cat}),
    ):
        refused = await server.helper.slash(server.channel, command, **options)
        assert refused.ephemeral
        assert refused.response.content.startswith(
            f"⚠️ Only the organiser (<@{server.org1.id}>), members with the "
            f"{server.organisers.mention} role or someone with Manage Server can "
        ), refused.response.content
        assert "`/sequence-admin set organiser_role`" in refused.response.content
    ended = await server.helper.slash(server.channel, "tournament-admin end")
    assert ended.ephemeral and "Manage Channels or Manage Messages" in ended.response.content
    assert "`/sequence-admin set moderator_role`" in ended.response.content
    (tournament,) = await server.tournaments()
    snap = await snapshot(server.env.bot, server.channel)
    assert tournament.status == "signup" and len(snap.entrants) == 3  # as they signed up
    # Manage Server may always create, role or not
    hall = server.guild.create_text_channel("hall")
    other = await server.admin.slash(hall, "tournament-admin create", name="Open", format="swiss")
    assert not other.ephemeral, other.response.content


async def test_two_organisers_run_the_same_tournament(simcord_env):
    server = Server(simcord_env)
    server.hand_admin_to_helpers()
    await server.set_role("organiser_role", server.organisers)
    env, channel = server.env, server.channel
    ann = server.players[0]
    env.bot.lobbies.new_seed = lambda: 3
    created = await server.org1.slash(
        channel, "tournament-admin create", name="Cup", format="elimination", show_up="1h"
    )
    for player in server.players:
        await player.click(created.response, label="Join")

    # org2 starts org1's tournament, and cancels a match's game (it is played again)
    started = await server.org2.slash(channel, "tournament-admin start")
    assert announced(channel, started), started.response.content
    snap = await snapshot(env.bot, channel)
    match = match_of(snap, 1, "ben")
    playing = {u for e in match.sides for u in snap.entrants[e].user_ids}
    sides = [p for p in server.players if p.id in playing]
    await check_in(channel, match, sides)
    record = game_in(env.bot, match)
    thread = thread_of(channel, match)
    cancelled = await server.org2.slash(thread, "sequence cancel")
    assert not cancelled.ephemeral, cancelled.response.content
    assert (await env.bot.db.games.load(record.id)).status == "cancelled"

    # org1 reports the match by hand, org2 corrects it
    reported = await server.org1.slash(
        channel, "tournament-admin report", match=match.id, winner=sides[0]
    )
    assert announced(channel, reported), reported.response.content
    corrected = await server.org2.slash(
        channel, "tournament-admin report", match=match.id, winner=sides[1]
    )
    assert announced(channel, corrected) and "corrected" in corrected.response.content
    snap = await snapshot(env.bot, channel)
    decided = next(m for m in snap.matches if m.id == match.id)
    assert snap.entrants[decided.winner].user_ids == [sides[1].id]

    # org2 drops an entrant; the moderator (its role, not Manage Server) may end it, not drop
    dropped = await server.org2.slash(channel, "tournament-admin drop", player=sides[1])
    assert announced(channel, dropped), dropped.response.content
    await server.set_role("moderator_role", server.moderators)
    refused = await server.mod.slash(channel, "tournament-admin drop", player=ann)
    assert refused.ephemeral and "can drop entrants" in refused.response.content
    ended = await server.mod.slash(channel, "tournament-admin end")
    assert announced(channel, ended), ended.response.content
    assert (await server.tournaments())[0].status == "finished"


async def test_a_deleted_organiser_role_is_ignored(simcord_env):
    """The Organisers role is deleted: the rule is today's again (anyone the server let use
    the command creates, and runs their own tournament); a former organiser runs no other's."""
    server = Server(simcord_env)
    anyone_may_organise(server.env, server.guild)
    await server.set_role("organiser_role", server.organisers)
    ann = server.players[0]
    refused = await ann.slash(server.channel, "tournament-admin create", name="Cup", format="swiss")
    assert refused.ephemeral and "only members with the" in refused.response.content

    server.env.backend.delete_role(server.guild.id, server.organisers.id)
    await server.env.settle()
    created = await ann.slash(server.channel, "tournament-admin create", name="Cup", format="swiss")
    assert not created.ephemeral, created.response.content
    started = await server.org1.slash(server.channel, "tournament-admin start")
    assert started.ephemeral
    assert started.response.content.startswith(
        f"⚠️ Only the organiser (<@{ann.id}>) or someone with Manage Server can start"
    ), started.response.content
    assert (await server.tournaments())[0].status == "signup"
