"""The game service's lookups by channel and by player (``find_in_channel``, ``games_of``) are
indexes: after every start, end, cancel, time-out removal and restart they answer what a scan of
the active games answers."""

from __future__ import annotations

from typing import Any

from bot.app import create_bot

from .e2e_helpers import make_table, open_and_start


def assert_lookups_match_a_scan(bot: Any, channels: list[int], users: list[int]) -> None:
    """Every lookup equals the scan of the served games (the definition)."""
    games = bot.games
    records = list(games.records.values())
    for channel_id in channels:
        scanned = [r for r in records if r.channel_id == channel_id]
        found = games.find_in_channel(channel_id)
        assert (found,) == tuple(scanned) if scanned else found is None
    guilds = {r.guild_id for r in records} | {None}
    for user_id in users:
        for guild_id in guilds:
            scanned = {
                r.id
                for r in records
                if any(seat.user_id == user_id for seat in r.seats)
                and guild_id in (None, r.guild_id)
            }
            assert {r.id for r in games.games_of(user_id, guild_id)} == scanned


async def test_lookups_follow_starts_ends_cancels_and_restarts(simcord_env, bot_settings) -> None:
    env = simcord_env
    first = await make_table(env, ["alice", "bob"])
    alice, bob = first.players
    carol = first.guild.add_member(env.create_user("carol"))
    second_channel = first.guild.create_text_channel("second")
    other_guild = env.create_guild("Other Club")
    third_channel = other_guild.create_text_channel("third")
    dave = other_guild.add_member(env.create_user("dave"))
    alice_there = other_guild.add_member(alice)
    channels = [first.channel.id, second_channel.id, third_channel.id, 12345]
    users = [alice.id, bob.id, carol.id, dave.id, 999]

    def check() -> None:
        assert_lookups_match_a_scan(env.bot, channels, users)

    check()  # nothing yet
    game_one = await open_and_start(first)
    second = type(first)(env, first.guild, second_channel, [alice, carol])
    game_two = await open_and_start(second)
    third = type(first)(env, other_guild, third_channel, [dave, alice_there])
    game_three = await open_and_start(third)
    check()
    assert {r.id for r in env.bot.games.games_of(alice.id)} == {
        game_one.id,
        game_two.id,
        game_three.id,
    }
    assert [r.id for r in env.bot.games.games_of(alice.id, other_guild.id)] == [game_three.id]

    cancelled = await alice.slash(second_channel, "sequence cancel")
    assert "cancelled" in cancelled.response.content
    check()
    assert env.bot.games.find_in_channel(second_channel.id) is None
    assert env.bot.games.games_of(carol.id) == []

    await env.bot.close()  # a restart: the old process is gone
    await env.restart_bot(create_bot(bot_settings))  # rebuilt from the store
    check()
    assert env.bot.games.find_in_channel(first.channel.id).id == game_one.id

    # bob resigns: a team of one resigns at once and the game ends.
    await bob.slash(first.channel, "sequence resign")
    check()
    assert env.bot.games.find_in_channel(first.channel.id) is None
    assert {r.id for r in env.bot.games.games_of(alice.id)} == {game_three.id}

    again = await open_and_start(first, seed=2)  # a new game in the freed channel
    check()
    assert env.bot.games.find_in_channel(first.channel.id).id == again.id != game_one.id

    await env.bot.close()  # a restart: the old process is gone
    await env.restart_bot(create_bot(bot_settings))
    check()
    assert sorted(env.bot.games.records) == sorted([again.id, game_three.id])
