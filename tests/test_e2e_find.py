"""Find a game, end to end on both backends: ``/sequence find game`` queues seekers and seats
those who match at a new table (which starts when everyone pressed Ready), tells the others
their place; a slow seek waits days; a live seek that finds nobody offers a computer;
``/sequence find tables`` lists the open tables within Discord's limits; restarts keep it all."""

from __future__ import annotations

from typing import Any

import discord
import pytest
import simcord
from discord import app_commands

from bot.app import create_bot
from bot.config import Settings
from bot.services.errors import UserError
from bot.services.lobbies import Person
from bot.services.seek_tables import not_ready
from bot.services.seeks import LIVE_WAIT, SeekRequest
from bot.table.options import TableOptions
from cogs.base import NOT_IN_DMS
from cogs.common.lengths import DESCRIPTION_LIMIT, EMBED_LIMIT

from .e2e_helpers import make_table, settle


@pytest.fixture
def bot_settings(settings_on_each_backend: Settings) -> Settings:
    """Every test here runs on SQLite and on PostgreSQL."""
    return settings_on_each_backend


async def seek(player: Any, channel: Any, **options: Any) -> Any:
    """``/sequence find game`` (2 live rated players unless told); its ephemeral answer."""
    options.setdefault("players", 2)
    options.setdefault("speed", "live")
    answer = await player.slash(channel, "sequence find game", **options)
    assert answer.ephemeral, answer.response.content
    return answer


def labels(message: Any) -> list[str]:
    return [c.label for row in message.components for c in row.children if hasattr(c, "label")]


def table_message(channel: Any) -> Any:
    """The newest message of ``channel`` with a Ready button."""
    return next(m for m in reversed(list(channel.history())) if "Ready" in labels(m))


async def test_a_live_queue_of_three_seats_two_and_tells_the_third(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob", "carol"])
    alice, bob, carol = table.players
    bot = table.bot
    first = await seek(alice, table.channel)
    assert "**1st** in the queue" in first.response.content
    assert "1 more player" in first.response.content
    found = await seek(bob, table.channel)
    assert "Players found" in found.response.content
    third = await seek(carol, table.channel)
    assert "**1st** in the queue" in third.response.content  # the first two left the queue

    lobbies = await bot.db.lobbies.open_in(table.guild.id)
    assert len(lobbies) == 1
    lobby = lobbies[0]
    assert [s.user_id for s in lobby.seats] == [alice.id, bob.id]
    assert lobby.options.turn_time_limit == 600 and lobby.options.rated
    message = table_message(table.channel)
    assert f"<@{alice.id}>" in message.content and f"<@{bob.id}>" in message.content
    assert "Ready" in labels(message) and "Start" not in labels(message)

    outsider = await carol.click(message, label="Ready")
    assert outsider.ephemeral and "no seat" in outsider.response.content
    assert (await alice.click(message, label="Ready")).acknowledged
    again = await alice.click(message, label="Ready")
    assert again.ephemeral and "ready already" in again.response.content
    early = await bob.slash(table.channel, "sequence join")
    assert early.ephemeral  # the table is full
    assert table.game() is None
    await bob.click(message, label="Ready")
    await settle(simcord_env)
    record = table.game()
    assert record is not None and {s.user_id for s in record.seats} == {alice.id, bob.id}
    seeks = await bot.db.seeks.of_lobby(lobby.id)
    assert {s.status for s in seeks} == {"matched"}
    # Carol still waits, alone in the queue.
    assert [s.user_id for s in await bot.seeks.queue(table.guild.id)] == [carol.id]


async def test_asking_again_cancels_and_bad_input_changes_nothing(simcord_env, bot_settings):
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    bot = table.bot
    await seek(alice, table.channel)
    again = await seek(alice, table.channel, players=4)
    assert "stopped your seek" in again.response.content
    assert await bot.seeks.queue(table.guild.id) == []
    nothing = await alice.slash(table.channel, "sequence find cancel")
    assert nothing.ephemeral and "not looking" in nothing.response.content
    await seek(alice, table.channel)
    stopped = await alice.slash(table.channel, "sequence find cancel")
    assert "stopped looking" in stopped.response.content
    assert await bot.seeks.queue(table.guild.id) == []

    with pytest.raises(simcord.SetupError):  # Discord offers 2, 3, 4 and 6 only
        await alice.slash(table.channel, "sequence find game", players=5, speed="live")
    request = SeekRequest(table.guild.id, alice.id, "alice", 5, "live", True, False, 1)
    with pytest.raises(UserError, match="2, 3, 4 or 6"):  # and the service, if it came
        await bot.seeks.seek(request)
    assert await bot.seeks.queue(table.guild.id) == []

    for command in ("sequence find game", "sequence find cancel", "sequence find tables"):
        options = {"players": 2, "speed": "live"} if command.endswith("game") else {}
        dm = await alice.user.slash(command, **options)  # in a DM
        assert dm.ephemeral and dm.response.content == NOT_IN_DMS, command
    assert await bot.seeks.queue(table.guild.id) == []
    # discord.py's own error for it, answered by the tree's error handler (and nothing else)
    assert {type(error) for error in simcord_env.errors} == {app_commands.NoPrivateMessage}

    capped = bot_settings.with_overrides(max_games_per_user=1)
    await simcord_env.bot.close()
    await simcord_env.restart_bot(create_bot(capped))
    other = table.guild.create_text_channel("other")
    await bob.slash(other, "sequence new")
    at_cap = await bob.slash(table.channel, "sequence find game", players=2, speed="live")
    assert at_cap.ephemeral and "already in" in at_cap.response.content
    assert await simcord_env.bot.seeks.queue(table.guild.id) == []


async def test_a_slow_seek_is_matched_after_a_day_and_ready_survives_a_restart(
    simcord_env, bot_settings
):
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    waiting = await seek(alice, table.channel, speed="slow", rated=False)
    assert "**1st** in the queue" in waiting.response.content
    await simcord_env.advance_time(24 * 3600)  # a day of virtual time: still waiting
    await settle(simcord_env)
    assert [s.user_id for s in await simcord_env.bot.seeks.queue(table.guild.id)] == [alice.id]
    await simcord_env.bot.close()
    await simcord_env.restart_bot(create_bot(bot_settings))
    found = await seek(bob, table.channel, speed="slow", rated=False)
    assert "Players found" in found.response.content
    lobby = (await simcord_env.bot.db.lobbies.open_in(table.guild.id))[0]
    assert lobby.options.turn_time_limit == 24 * 3600 and not lobby.options.rated
    message = table_message(table.channel)
    await alice.click(message, label="Ready")
    await simcord_env.bot.close()
    await simcord_env.restart_bot(create_bot(bot_settings))  # Ready works after a restart
    await bob.click(message, label="Ready")
    await settle(simcord_env)
    record = table.game()
    assert record is not None and not record.options.rated
    assert record.options.turn_time_limit == 24 * 3600
    # The seek's end, armed before the match, does nothing now.
    await simcord_env.advance_time(3 * 24 * 3600)
    await settle(simcord_env)
    assert not any("nobody was found" in m.content for m in table.channel.history())


async def test_a_live_seek_is_offered_a_computer_across_a_restart(simcord_env, bot_settings):
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    await seek(alice, table.channel, computer_after=True)
    await seek(bob, table.channel, players=3)  # another game: no match, no offer (not asked)
    await simcord_env.bot.close()
    await simcord_env.restart_bot(create_bot(bot_settings))
    await simcord_env.advance_time(LIVE_WAIT - 60)
    await settle(simcord_env)
    assert not any("nobody was found" in m.content for m in table.channel.history())
    await simcord_env.advance_time(120)  # the wait, armed again from the store, runs out
    await settle(simcord_env)
    offer = next(m for m in table.channel.history() if f"<@{alice.id}>, nobody" in m.content)
    assert labels(offer) == ["Play a computer"]
    offer_id = offer.components[0].children[0].custom_id
    ended = next(m for m in table.channel.history() if f"<@{bob.id}>, nobody" in m.content)
    assert labels(ended) == [] and "looks again" in ended.content
    assert await simcord_env.bot.seeks.queue(table.guild.id) == []

    await simcord_env.bot.close()
    await simcord_env.restart_bot(create_bot(bot_settings))
    not_hers = await bob.click(offer, label="Play a computer")
    assert not_hers.ephemeral and "someone else" in not_hers.response.content
    taken = await alice.click(offer, label="Play a computer")
    assert taken.ephemeral and "against the computer begins" in taken.response.content
    await settle(simcord_env)
    record = table.game()
    assert record is not None and len(record.seats) == 2
    assert record.seats[0].user_id == alice.id and record.seats[1].is_computer
    assert not record.options.rated  # a game with a computer is never rated
    offer = next(m for m in table.channel.history() if m.id == offer.id)
    assert labels(offer) == []  # the offer is taken: its button is gone
    seek_id = int(offer_id.rsplit(":", 1)[1])
    with pytest.raises(UserError, match="taken already"):
        await simcord_env.bot.seeks.accept_computer(seek_id, alice.id)


async def test_find_tables_lists_thirty_open_tables_within_discords_limits(
    simcord_env, bot_settings
):
    names = [f"player{i}" for i in range(32)]
    table = await make_table(simcord_env, names)
    await simcord_env.bot.close()
    roomy = bot_settings.with_overrides(max_lobbies_per_server=40)
    await simcord_env.restart_bot(create_bot(roomy))
    bot = table.bot
    for index, member in enumerate(table.players[:30]):
        channel = table.guild.create_text_channel(f"table-{index}")
        host = Person(member.id, member.name)
        lobby = await bot.lobbies.open(table.guild.id, channel.id, host, TableOptions())
        await bot.lobbies.set_message(lobby, 1456074443980800000 + index)  # a real id's length
    await seek(table.players[30], table.channel, players=4, rated=False)
    await seek(table.players[31], table.channel, speed="slow")
    answer = await table.players[0].slash(table.channel, "sequence find tables")
    assert answer.ephemeral
    embeds = answer.response.embeds
    assert 1 <= len(embeds) <= 10
    assert sum(len(e.title or "") + len(e.description or "") for e in embeds) <= EMBED_LIMIT
    assert all(len(e.description or "") <= DESCRIPTION_LIMIT for e in embeds)
    text = "\n".join(e.description or "" for e in embeds)
    shown = text.count("https://discord.com/channels/")
    more = [line for line in text.splitlines() if line.startswith("… and")]
    assert shown == 30 and not more, (shown, more)  # all of them, over two embeds
    assert "1 seated, 1 free" in text
    assert "4 players · live · unrated: 1 waiting" in text
    assert "2 players · slow · rated: 1 waiting" in text


async def test_a_seeker_who_left_the_server_is_dropped_when_found(simcord_env):
    """The bot has no members intent: a leave is not announced. When the seeker who left is
    found for a table, Discord says they are gone: their seek is dropped, the others wait."""
    table = await make_table(simcord_env, ["alice", "bob", "carol"])
    alice, bob, carol = table.players
    await seek(alice, table.channel)
    table.guild.remove_member(alice)
    await settle(simcord_env)
    found = await bob.slash(table.channel, "sequence find game", players=2, speed="live")
    assert found.ephemeral and "has left the server" in found.response.content
    assert await simcord_env.bot.db.lobbies.open_in(table.guild.id) == []
    assert [s.user_id for s in await simcord_env.bot.seeks.queue(table.guild.id)] == [bob.id]
    seated = await seek(carol, table.channel)
    assert "Players found" in seated.response.content
    (lobby,) = await simcord_env.bot.db.lobbies.open_in(table.guild.id)
    assert {s.user_id for s in lobby.seats} == {bob.id, carol.id}


async def test_a_banned_seeker_is_dropped_from_the_queue(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob", "carol"])
    alice, bob, carol = table.players
    await seek(alice, table.channel)
    simcord_env.backend.apply_ban(table.guild.id, alice.id, "spam")
    await settle(simcord_env)
    assert await simcord_env.bot.seeks.queue(table.guild.id) == []
    waiting = await seek(bob, table.channel)  # nobody to meet: Alice's seek is gone
    assert "**1st** in the queue" in waiting.response.content
    found = await seek(carol, table.channel)
    assert "Players found" in found.response.content


async def test_the_table_opens_in_the_servers_games_place_and_a_free_seat_pings_once(
    simcord_env,
):
    env = simcord_env
    table = await make_table(env, ["alice", "bob", "carol"])
    alice, bob, carol = table.players
    admins = table.guild.create_role("Admins", permissions=discord.Permissions(manage_guild=True))
    admin = table.guild.add_member(env.create_user("admin"), roles=[admins])
    games = table.guild.create_text_channel("games")
    looking = table.guild.create_role("Looking")
    for setting, value in (
        ("table_channels", games.mention),
        ("thread_tables", "yes"),
        ("looking_role", looking.mention),
    ):
        changed = await admin.slash(
            table.channel, "sequence-admin set", setting=setting, value=value
        )
        assert not changed.ephemeral, changed.response.content
    await seek(alice, table.channel)  # asked in #sequence...
    found = await seek(bob, table.channel)
    (thread,) = games.threads  # ...the table opens in a thread of #games
    assert f"<#{thread.id}>" in found.response.content
    lobby = await env.bot.db.lobbies.get_for_channel(thread.id)
    assert lobby is not None and lobby.options.own_thread
    message = table_message(thread)
    assert labels(message) == ["Ready", "Leave", "Ping for players"]  # full: no Join

    await alice.click(message, label="Ready")
    await bob.click(message, label="Leave")  # a seat is free: anyone may take it
    message = table_message(thread)
    assert "Join" in labels(message)
    not_host = await carol.click(message, label="Ping for players")
    assert not_host.ephemeral and "Only the host" in not_host.response.content
    pinged = await alice.click(message, label="Ping for players")
    assert "was pinged" in pinged.response.content
    assert looking.mention in thread.last_message.content
    twice = await alice.click(message, label="Ping for players")
    assert "already pinged" in twice.response.content
    await carol.click(message, label="Join")
    lobby = await env.bot.db.lobbies.get_for_channel(thread.id)
    assert not_ready(lobby) == [carol.id]  # a newcomer presses Ready too
    assert "Join" not in labels(table_message(thread))  # full again
    late = await bob.slash(thread, "sequence join")
    assert late.ephemeral and "full" in late.response.content
    await carol.click(message, label="Ready")
    await settle(env)
    record = env.bot.games.find_in_channel(thread.id)
    assert record is not None and {s.user_id for s in record.seats} == {alice.id, carol.id}


async def test_forget_me_renames_a_seek(simcord_env):
    """A seeker's forget-me replaces their id and name in their seeks as everywhere, and
    ends their open seek (nobody is to be seated under a pseudonym)."""
    table = await make_table(simcord_env, ["alice"])
    (alice,) = table.players
    await seek(alice, table.channel, speed="slow")
    asked = await alice.slash(table.channel, "sequence-me forget-me")
    done = await alice.click(asked.response, label="Forget me")
    label = done.response.content.split("**")[1]
    assert await simcord_env.bot.seeks.queue(table.guild.id) == []
    (stored,) = await simcord_env.bot.db.read(all_seeks)
    assert stored[0] != alice.id and stored[1] == label and stored[2] == "dropped"
    assert not await simcord_env.bot.db.members.holds_anything(alice.id)


async def all_seeks(conn: Any) -> list[Any]:
    return await conn.fetchall("SELECT user_id, name, status FROM seeks")


async def test_a_table_discord_refused_opens_at_the_next_seek(simcord_env):
    """The channel holds a lobby, so the seekers' table needs a thread, and Discord refuses it:
    the two are told and wait again. The next seeker of that game finds them seated at once
    (the queue never keeps a complete table waiting), and is told their own place."""
    env = simcord_env
    table = await make_table(env, ["alice", "bob", "carol", "dave"])
    alice, bob, carol, dave = table.players
    await dave.slash(table.channel, "sequence new")  # the channel is taken
    await seek(alice, table.channel)
    env.inject_error("POST", f"/channels/{table.channel.id}/threads", status=403, code=50013)
    refused = await bob.slash(table.channel, "sequence find game", players=2, speed="live")
    assert refused.ephemeral and "back in the queue" in refused.response.content
    assert table.channel.threads == []
    queue = await env.bot.seeks.queue(table.guild.id)
    assert [s.user_id for s in queue] == [alice.id, bob.id]

    told = await seek(carol, table.channel)
    assert "**1st** in the queue" in told.response.content
    assert "players who were waiting were seated" in told.response.content
    (thread,) = table.channel.threads
    lobby = await env.bot.db.lobbies.get_for_channel(thread.id)
    assert [s.user_id for s in lobby.seats] == [alice.id, bob.id]
    assert [s.user_id for s in await env.bot.seeks.queue(table.guild.id)] == [carol.id]


async def test_a_crash_between_a_match_and_its_table_opens_it_at_the_next_start(
    simcord_env, bot_settings
):
    """The match committed (its step in the outbox) and the process died before the table
    opened, and before a seek's end was told: the next start does both."""
    env = simcord_env
    table = await make_table(env, ["alice", "bob", "carol"])
    alice, bob, carol = table.players
    seeks = env.bot.seeks
    await seeks.seek(
        SeekRequest(table.guild.id, alice.id, "alice", 2, "live", True, False, table.channel.id)
    )
    answer = await seeks.seek(
        SeekRequest(table.guild.id, bob.id, "bob", 2, "live", True, False, table.channel.id)
    )
    assert answer.seated  # recorded; the table is the step's, which nobody did
    await seeks.seek(
        SeekRequest(table.guild.id, carol.id, "carol", 3, "slow", True, False, table.channel.id)
    )
    (carols,) = await seeks.queue(table.guild.id)
    await env.bot.db.run(_due_now, carols.id, env.bot.clock())
    assert (await seeks.expire(carols.id)) is not None  # ended; the telling died with it
    assert await env.bot.db.lobbies.open_in(table.guild.id) == []
    assert len(await seeks.undelivered()) == 2

    await env.bot.close()
    await env.restart_bot(create_bot(bot_settings))
    await settle(env)
    (lobby,) = await env.bot.db.lobbies.open_in(table.guild.id)
    assert [s.user_id for s in lobby.seats] == [alice.id, bob.id]
    message = table_message(table.channel)
    assert f"<@{alice.id}>" in message.content and f"<@{bob.id}>" in message.content
    told = [m for m in table.channel.history() if f"<@{carol.id}>, nobody" in m.content]
    assert len(told) == 1
    assert await env.bot.seeks.undelivered() == []
    await env.bot.close()
    await env.restart_bot(create_bot(bot_settings))  # done: never again
    await settle(env)
    assert len(await env.bot.db.lobbies.open_in(table.guild.id)) == 1
    assert len([m for m in table.channel.history() if f"<@{carol.id}>, nobody" in m.content]) == 1


async def _due_now(conn: Any, seek_id: int, now: float) -> None:
    await conn.execute("UPDATE seeks SET expires_at = ? WHERE id = ?", (now, seek_id))


async def test_a_found_table_nobody_readies_lapses_like_any_lobby(simcord_env, bot_settings):
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    await seek(alice, table.channel)
    await seek(bob, table.channel)
    message = table_message(table.channel)
    await alice.click(message, label="Ready")
    await simcord_env.bot.close()
    await simcord_env.restart_bot(create_bot(bot_settings))
    await simcord_env.advance_time(bot_settings.lobby_expiry + 60)
    await settle(simcord_env)
    assert await simcord_env.bot.db.lobbies.open_in(table.guild.id) == []
    lapsed = next(m for m in table.channel.history() if m.id == message.id)
    assert "expired" in lapsed.content and labels(lapsed) == []
    late = await seek(bob, table.channel)  # free to look again
    assert "**1st** in the queue" in late.response.content


async def test_the_servers_cap_of_lobbies_holds_a_table_until_one_closes(simcord_env, bot_settings):
    table = await make_table(simcord_env, ["alice", "bob", "carol", "dave"])
    alice, bob, carol, dave = table.players
    await simcord_env.bot.close()
    await simcord_env.restart_bot(create_bot(bot_settings.with_overrides(max_lobbies_per_server=1)))
    other = table.guild.create_text_channel("other")
    await dave.slash(other, "sequence new")  # the server's one lobby
    await seek(alice, table.channel)
    held = await seek(bob, table.channel)
    assert (
        "cannot open yet" in held.response.content
        and "the most it may have" in held.response.content
    )
    assert len(await simcord_env.bot.db.lobbies.open_in(table.guild.id)) == 1
    assert len(await simcord_env.bot.seeks.queue(table.guild.id)) == 2

    await dave.slash(other, "sequence cancel")
    told = await seek(carol, table.channel)  # the held table goes first
    assert "players who were waiting were seated" in told.response.content
    (lobby,) = await simcord_env.bot.db.lobbies.open_in(table.guild.id)
    assert [s.user_id for s in lobby.seats] == [alice.id, bob.id]
    assert [s.user_id for s in await simcord_env.bot.seeks.queue(table.guild.id)] == [carol.id]
