"""Tournament organisers (issue #38): ``/tournament-admin`` is a command of its own, for Manage
Server unless a server hands it to others, while entrants keep ``/tournament``."""

from __future__ import annotations

from typing import Any

import discord
import pytest
from simcord import SetupError

from bot.config import Settings
from tests.helpers.tournament import (
    announced,
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
