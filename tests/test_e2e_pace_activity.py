"""Speed you can see (issue #39 item 5) and the leaderboard's activity window (issue #41 item 2),
through Discord on both backends: each player's median time to move in slow games in
``/sequence stats`` and a timed lobby's estimated length; the leaderboard ranking only the players
with a rated game lately (virtual time hides and shows them), ``everyone:true``, the server's
``leaderboard_active_days`` and provisional ratings.
"""

from __future__ import annotations

import discord
import pytest

from bot.config import Settings

from .e2e_driver import components
from .e2e_helpers import Table, make_table, open_and_start, play_one, seat_actor
from .engine_helpers import playable

DAY = 86_400


@pytest.fixture
def bot_settings(settings_on_each_backend: Settings) -> Settings:
    """Both backends."""
    return settings_on_each_backend


def field(embed: discord.Embed, start: str) -> str:
    return next(f.value for f in embed.fields if f.name.startswith(start))


def board_rows(result) -> list[str]:
    return result.response.embeds[0].description.splitlines()


async def play_a_slow_game(table: Table, think: dict[int, int], turns: int) -> None:
    """A 2-hour-a-turn game: each player thinks ``think[their id]`` seconds (virtual time) before
    each of their moves, for ``turns`` turns; then the second player resigns."""
    record = await open_and_start(table, time_limit="2h", reminder="none")
    for _ in range(turns):
        seat = playable(record.game)[0]
        await table.env.advance_time(think[seat_actor(table, record, seat).id])
        before = len(record.game.moves)
        await play_one(table, record)
        assert len(record.game.moves) > before
    await table.players[1].slash(table.channel, "sequence resign")
    assert record.game.is_over()


async def test_slow_games_show_each_players_median_and_a_lobby_its_length(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    fresh = await alice.slash(table.channel, "sequence stats")
    assert field(fresh.response.embeds[0], "Speed in slow games") == "No turn in a slow game yet"

    # a fast game (10 minutes a turn) is not slow: it gives nobody a pace
    fast = await open_and_start(table, time_limit="10m", reminder="none")
    await play_one(table, fast)
    await bob.slash(table.channel, "sequence resign")
    shown = await alice.slash(table.channel, "sequence stats")
    assert field(shown.response.embeds[0], "Speed in slow games") == "No turn in a slow game yet"

    # alice thinks 10 minutes a turn, bob 50, over 8 turns of a 2-hour game
    await play_a_slow_game(table, {alice.id: 600, bob.id: 3000}, turns=8)
    mine = (await alice.slash(table.channel, "sequence stats")).response.embeds[0]
    assert mine.fields[-1].name == "Speed in slow games (1 h+ a turn)"
    assert mine.fields[-1].value == "**10 min** a turn (median of 4 turns)"
    his = (await alice.slash(table.channel, "sequence stats", player=bob.user)).response
    assert field(his.embeds[0], "Speed in slow games") == "**50 min** a turn (median of 4 turns)"

    # the next 2-hour lobby: at most 50 turns of 2 h; at their pace, half of it at 30 min a turn
    lobby = (await alice.slash(table.channel, "sequence new", time_limit="2h")).response
    alone = field(lobby.embeds[0], "Rules")  # alice alone: her pace for every turn
    assert "about 8 h 20 min at these players' pace (1 of 1 known)" in alone, alone
    joined = await bob.click(lobby, label="Join")
    rules = field(joined.response.embeds[0], "Rules")
    assert (
        "⏱️ Length: about 1 day 1 h at these players' pace (2 of 2 known); at most about "
        "4 days 4 h" in rules
    ), rules
    await alice.slash(table.channel, "sequence cancel")

    # a lobby with no time limit says nothing of its length; a fast one only its most
    untimed = (await alice.slash(table.channel, "sequence new")).response
    assert "Length" not in field(untimed.embeds[0], "Rules")
    await alice.slash(table.channel, "sequence cancel")
    quick = (await alice.slash(table.channel, "sequence new", time_limit="1m")).response
    assert "⏱️ Length: at most about 50 min (~50 turns of up to 1 min)" in field(
        quick.embeds[0], "Rules"
    )


async def test_the_leaderboard_ranks_the_active_players_and_everyone_on_demand(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    carol = table.guild.add_member(simcord_env.create_user("carol"))
    admins = table.guild.create_role("Admins", permissions=discord.Permissions(manage_guild=True))
    admin = table.guild.add_member(simcord_env.create_user("admin"), roles=[admins])

    await open_and_start(table)
    await bob.slash(table.channel, "sequence resign")  # alice wins a rated game
    board = await alice.slash(table.channel, "sequence leaderboard")
    rows = board_rows(board)
    assert [row.split(" ·")[0] for row in rows] == [f"**1.** <@{alice.id}>", f"**2.** <@{bob.id}>"]
    assert all(row.split(" · ")[1].endswith("?") for row in rows)  # one rated game: provisional
    footer = board.response.embeds[0].footer.text
    assert "rated in the last 60 days" in footer and "? provisional" in footer

    # 61 days later nobody has played lately: the board is empty, everyone:true ranks both
    await simcord_env.advance_time(61 * DAY)
    idle = await alice.slash(table.channel, "sequence leaderboard")
    assert board_rows(idle)[0].startswith("Nobody has played a rated game in the last 60 days")
    everyone = await alice.slash(table.channel, "sequence leaderboard", everyone=True)
    assert [row.split(" ·")[0] for row in board_rows(everyone)] == [
        f"**1.** <@{alice.id}>",
        f"**2.** <@{bob.id}>",
    ]
    assert "rated in the last" not in everyone.response.embeds[0].footer.text
    assert all(b["custom_id"].endswith(":all") for b in components(everyone.response))
    stats = (await bob.slash(table.channel, "sequence stats")).response.embeds[0]
    assert "not ranked: no rated game in 60 days" in field(stats, "Rating")

    # alice plays carol: both are back on the board, bob is not (his place is not held)
    with_carol = Table(simcord_env, table.guild, table.channel, [alice, carol])
    await open_and_start(with_carol, seed=2)
    await carol.slash(table.channel, "sequence resign")
    back = await bob.slash(table.channel, "sequence leaderboard")
    assert [row.split(" ·")[0] for row in board_rows(back)] == [
        f"**1.** <@{alice.id}>",
        f"**2.** <@{carol.id}>",
    ]
    stats = (await alice.slash(table.channel, "sequence stats")).response.embeds[0]
    assert "#1 here" in field(stats, "Rating") and "(provisional)" in field(stats, "Rating")

    # the server ranks everyone (0), then a window of a week; a bad value changes nothing
    refused = await admin.slash(
        table.channel, "sequence-admin set", setting="leaderboard_active_days", value="soon"
    )
    assert refused.ephemeral and "'soon' is not a number of days" in refused.response.content
    changed = await admin.slash(
        table.channel, "sequence-admin set", setting="leaderboard_active_days", value="0"
    )
    assert "**leaderboard_active_days**: 60 days → everyone." in changed.response.content
    everyone_now = await bob.slash(table.channel, "sequence leaderboard")
    assert len(board_rows(everyone_now)) == 3
    assert "rated in the last" not in everyone_now.response.embeds[0].footer.text
    await admin.slash(
        table.channel, "sequence-admin set", setting="leaderboard_active_days", value="7"
    )
    await simcord_env.advance_time(8 * DAY)
    week = await bob.slash(table.channel, "sequence leaderboard")
    assert board_rows(week)[0].startswith("Nobody has played a rated game in the last 7 days")
