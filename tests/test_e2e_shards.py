"""With ``SHARD_COUNT``, one shard's session ends and a new one begins while the others go on:
discord.py fires ``on_shard_ready`` for it, not ``on_ready``, and keeps the servers of that
shard's previous session. A server that removed the bot while that shard was down is noticed
there, as at a whole restart; a server in an outage on it keeps its table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import simcord

from bot.config import Settings

from .conftest import make_settings
from .e2e_helpers import Table, open_and_start
from .helpers.tournament import anyone_may_organise
from .test_e2e_table import the_server_removes_the_bot


@pytest.fixture
def bot_settings(tmp_path: Path) -> Settings:
    return make_settings(tmp_path, shard_count=2)


async def table_on_shard(env: Any, shard_id: int, names: list[str]) -> tuple[Table, Any]:
    """A server on ``shard_id`` with a #sequence channel where ``names`` play (a turn of 20
    minutes): the table and the game's record."""
    guild = env.create_guild(f"Club {shard_id}", shard_id=shard_id)
    channel = guild.create_text_channel("sequence")
    players = [guild.add_member(env.create_user(name)) for name in names]
    table = Table(env, guild, channel, players)
    return table, await open_and_start(table, time_limit="20m")


def no_removal_while_down(monkeypatch: Any, removed: int) -> None:
    """Discord sends no removal for a server that removed the bot while its shard was
    disconnected: the new session's READY simply does not list it (SimCord replays one)."""
    feed = simcord.gateway.FakeGateway.feed

    def as_discord(gateway: Any, event: str, payload: Any) -> None:
        if event == "GUILD_DELETE" and int(payload["id"]) == removed:
            return
        feed(gateway, event, payload)

    monkeypatch.setattr(simcord.gateway.FakeGateway, "feed", as_discord)


async def test_a_server_that_removed_the_bot_while_its_shard_was_down_ends_its_table(
    simcord_env, monkeypatch
):
    """Its game is cancelled and its tournament ended. Before: both stayed open, the game
    skipping a turn every 20 minutes for ever (no ``on_ready`` came, and discord.py still
    listed the server)."""
    env = simcord_env
    gone, record = await table_on_shard(env, 1, ["alice", "bob"])
    _, elsewhere = await table_on_shard(env, 0, ["dave", "erin"])
    hall = gone.guild.create_text_channel("hall")
    anyone_may_organise(env, gone.guild)
    created = await gone.players[0].slash(hall, "tournament-admin create", name="A", format="swiss")
    assert not created.ephemeral
    shard = env.bot.get_shard(1)
    await shard.disconnect()
    no_removal_while_down(monkeypatch, gone.guild.id)
    the_server_removes_the_bot(env, gone.guild.id, (gone.channel.id, hall.id))
    await shard.reconnect()
    await env.settle()
    await env.advance_time(3600)
    stored = await env.bot.db.games.load(record.id)
    assert stored.status == "cancelled" and await env.bot.db.results.get(record.id) is None
    assert list(env.bot.games.records) == [elsewhere.id]
    assert (await env.bot.db.games.load(elsewhere.id)).status == "active"
    assert await env.bot.db.tournaments.open_in_channel(hall.id) is None
    assert env.bot.is_ready()  # the other shard never stopped


async def test_a_server_unavailable_when_its_shard_comes_back_keeps_its_table(
    simcord_env, monkeypatch
):
    """A server in an outage is listed in the shard's READY as unavailable and sent later:
    its game is not ended."""
    env = simcord_env
    table, record = await table_on_shard(env, 1, ["alice", "bob"])
    hidden = str(table.guild.id)
    feed = simcord.gateway.FakeGateway.feed

    def outage(gateway: Any, event: str, payload: Any) -> None:
        if event == "READY" and payload["shard"][0] == 1:
            payload = {**payload, "guilds": [{"id": hidden, "unavailable": True}]}
        elif event == "GUILD_CREATE" and payload["id"] == hidden:
            return
        feed(gateway, event, payload)

    shard = env.bot.get_shard(1)
    await shard.disconnect()
    monkeypatch.setattr(simcord.gateway.FakeGateway, "feed", outage)
    await shard.reconnect()
    await env.settle()
    await env.advance_time(60)
    assert env.bot.get_guild(table.guild.id).unavailable
    assert (await env.bot.db.games.load(record.id)).status == "active"
    assert env.bot.games.find_in_channel(table.channel.id) is not None
