"""Seasons through Discord on both backends (issue #41 items 1 and 2): a season boundary
crossed with virtual time posts the podium once (across restarts, and when the process stopped
between posting it and recording it), the season leaderboard against the all-time one, bad
plans, an empty season, a page past the end, and a champion role the bot cannot give."""

from __future__ import annotations

from typing import Any

import discord
import pytest

from bot.app import create_bot
from bot.config import Settings
from bot.seasons import MONTHLY, season_at
from bot.store.rebuild import stored_problems

from .e2e_helpers import Table, make_table, open_and_start, settle
from .helpers.tournament import anyone_may_organise, snapshot
from .store_util import create_game
from .test_e2e_member_data import cells_holding

DAY = 86_400


@pytest.fixture
def bot_settings(settings_on_each_backend: Settings) -> Settings:
    """Both backends."""
    return settings_on_each_backend


async def an_admin(table: Table) -> Any:
    admins = table.guild.create_role("Admins", permissions=discord.Permissions(manage_guild=True))
    return table.guild.add_member(table.env.create_user("admin"), roles=[admins])


async def admin_sets(table: Table, admin: Any, setting: str, value: str) -> Any:
    return await admin.slash(table.channel, "sequence-admin set", setting=setting, value=value)


async def beats(table: Table, winner: Any, loser: Any, seed: int = 1) -> None:
    """A rated game: ``winner`` hosts, ``loser`` joins, then resigns."""
    await open_and_start(Table(table.env, table.guild, table.channel, [winner, loser]), seed=seed)
    await loser.slash(table.channel, "sequence resign")


async def restart(env: Any, settings: Settings) -> None:
    """A new process over the same store."""
    await env.bot.close()
    await env.restart_bot(create_bot(settings))
    await settle(env)


def rows(result: Any) -> list[str]:
    return [row.split(" ·")[0] for row in result.response.embeds[0].description.splitlines()]


def podiums(channel: Any) -> list[discord.Message]:
    return [m for m in channel.history() if m.content.startswith("🏆 **Season")]


async def until_the_season_ends(table: Table) -> str:
    """Virtual time to just past the end of the running month; the month's name."""
    now = table.bot.clock()
    season = season_at(MONTHLY, now)
    assert season is not None and season.end is not None
    await table.env.advance_time(season.end - now + 60)
    return season.name


async def season_steps(db: Any, end_id: int) -> list[tuple[str, bool]]:
    """A season end's steps in the outbox: (kind, delivered), oldest first."""
    rows = await db.read(
        lambda conn: conn.fetchall(
            "SELECT kind, delivered_at FROM events WHERE season_end_id = ? ORDER BY id", (end_id,)
        )
    )
    return [(str(kind), delivered is not None) for kind, delivered in rows]


def roles_of(table: Table, member: Any) -> set[str]:
    """The names of a member's roles, as Discord holds them."""
    held = table.env.backend.get_member(table.guild.id, member.id).role_ids
    return {role.name for role in table.guild.roles.values() if role.id in held}


async def test_a_season_ends_with_its_podium_once_and_its_board_stays(
    simcord_env, bot_settings: Settings
):
    table = await make_table(simcord_env, ["alice", "bob", "carol"])
    alice, bob, carol = table.players
    admin = await an_admin(table)
    stage = table.guild.create_text_channel("podium")
    champion = table.guild.create_role("Champion")  # below the bot's role: it can give it
    await admin_sets(table, admin, "season_plan", "monthly")
    await admin_sets(table, admin, "season_channel", f"<#{stage.id}>")
    changed = await admin_sets(table, admin, "champion_role", f"<@&{champion.id}>")
    assert "**champion_role**: none →" in changed.response.content

    await beats(table, alice, bob)
    await beats(table, alice, carol, seed=2)
    await beats(table, carol, bob, seed=3)
    season = await alice.slash(table.channel, "sequence leaderboard", season="current")
    assert rows(season) == [f"**1.** <@{alice.id}>", f"**2.** <@{carol.id}>", f"**3.** <@{bob.id}>"]
    embed = season.response.embeds[0]
    name = season_at(MONTHLY, table.bot.clock()).name
    assert embed.title == f"🏅 Season {name}" and "starts everyone fresh" in embed.footer.text
    choices = await alice.autocomplete(table.channel, "sequence leaderboard", "season", "")
    assert [c["value"] for c in choices][:4] == ["current", "previous", "all", name]

    # a restart before the end: the season's end is a stored timer, armed again
    await restart(simcord_env, bot_settings)
    assert podiums(stage) == []
    ended = await until_the_season_ends(table)
    assert ended == name
    (podium,) = podiums(stage)
    assert f"<@{alice.id}>" in podium.content.splitlines()[2]
    (image,) = podium.attachments
    assert image.filename == f"season-{name}.png"
    assert image.description.startswith(f"Podium of season {name}, of 3 rated players: ")
    assert "place 1: alice" in image.description and "place 3: bob" in image.description
    assert "goes to the champion" in podium.content
    assert "Champion" in roles_of(table, alice) and "Champion" not in roles_of(table, bob)

    # once: another restart, and the next season's end armed but not due
    await restart(simcord_env, bot_settings)
    await simcord_env.advance_time(DAY)
    assert len(podiums(stage)) == 1

    # the season that ended is "previous"; the new one has no rated game yet; all-time stays
    previous = await bob.slash(table.channel, "sequence leaderboard", season="previous")
    assert rows(previous) == rows(season)
    by_name = await bob.slash(table.channel, "sequence leaderboard", season=name)
    assert rows(by_name) == rows(season)
    empty = await bob.slash(table.channel, "sequence leaderboard", season="current")
    assert empty.ephemeral and "has no rated game yet: nobody is ranked" in empty.response.content
    await beats(table, bob, alice, seed=4)
    fresh = await bob.slash(table.channel, "sequence leaderboard", season="current")
    assert rows(fresh) == [f"**1.** <@{bob.id}>", f"**2.** <@{alice.id}>"]  # everyone fresh
    everyone = await bob.slash(table.channel, "sequence leaderboard", season="all", everyone=True)
    assert len(rows(everyone)) == 3
    assert rows(everyone)[0] == f"**1.** <@{alice.id}>"  # two wins of three all-time

    # the next season ends with bob first: the champion role passes from alice to him
    await until_the_season_ends(table)
    assert len(podiums(stage)) == 2
    assert "Champion" in roles_of(table, bob) and "Champion" not in roles_of(table, alice)


async def test_a_podium_posted_before_a_crash_is_not_posted_again(
    simcord_env, bot_settings: Settings
):
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    admin = await an_admin(table)
    stage = table.guild.create_text_channel("podium")
    await admin_sets(table, admin, "season_plan", "monthly")
    await admin_sets(table, admin, "season_channel", f"<#{stage.id}>")
    await beats(table, alice, bob)
    await until_the_season_ends(table)
    (podium,) = podiums(stage)
    assert "champion role" not in podium.content  # none set: nothing said of it
    # the process stopped after posting, before marking its step delivered: delivered again
    db = table.bot.db
    (end,) = [e for e in await db.season_ends.of_guild(table.guild.id) if e.state == "ended"]
    assert await season_steps(db, end.id) == [("SeasonPodium", True)]
    await db.run(
        lambda conn: conn.execute(
            "UPDATE events SET pending = 'seasons', delivered_at = NULL WHERE season_end_id = ?",
            (end.id,),
        )
    )
    assert [s.season_end_id for s in await db.outbox.undelivered_season_steps()] == [end.id]
    await restart(simcord_env, bot_settings)
    await simcord_env.advance_time(60)
    assert [m.id for m in podiums(stage)] == [podium.id]
    assert await season_steps(table.bot.db, end.id) == [("SeasonPodium", True)]


async def test_bad_plans_empty_seasons_and_pages_past_the_end_get_clear_answers(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    admin = await an_admin(table)
    none = await alice.slash(table.channel, "sequence leaderboard", season="current")
    assert none.ephemeral and "This server has no seasons" in none.response.content

    today = season_at("monthly", table.bot.clock())
    assert today is not None
    year = int(today.name[:4])
    for value, why in [
        (f"{year + 1}-01-01, {year + 1}-04-01, {year + 1}-01-01", "is given twice"),
        (f"{year - 1}-01-01, {year + 1}-01-01", "is in the past"),
        ("every spring", "is not a date"),
        (f"{year + 1}-02-30", "is not a date"),
    ]:
        refused = await admin_sets(table, admin, "season_plan", value)
        assert refused.ephemeral and why in refused.response.content, refused.response.content
    views = await table.bot.server_settings.values(table.guild.id)
    assert views["season_plan"] == "none"  # nothing changed

    dates = f"{year + 1}-04-01 {year + 1}-01-01"
    changed = await admin_sets(table, admin, "season_plan", dates)
    assert f"none → seasons from {year + 1}-01-01, {year + 1}-04-01" in changed.response.content
    early = await alice.slash(table.channel, "sequence leaderboard", season="current")
    assert early.ephemeral and "No season is running yet" in early.response.content

    await admin_sets(table, admin, "season_plan", "monthly")
    await beats(table, alice, bob)
    past = await alice.slash(table.channel, "sequence leaderboard", season="current", page=2)
    assert past.ephemeral and "Page 2 is past the end" in past.response.content
    assert "has 1 page (2 players)" in past.response.content
    later = f"{year + 5}-01"  # not begun yet
    unknown = await alice.slash(table.channel, "sequence leaderboard", season=later)
    assert unknown.ephemeral and f"There is no season '{later}' here" in unknown.response.content
    odd = await alice.slash(table.channel, "sequence leaderboard", season="spring")
    assert odd.ephemeral and "There is no season 'spring' here" in odd.response.content
    first = await alice.slash(table.channel, "sequence leaderboard", season="previous")
    assert first.ephemeral and "There is no previous season" not in first.response.content
    # the month before is a season of the plan, with no rated game
    assert "has no rated game: nobody is ranked" in first.response.content


async def test_a_champion_role_above_the_bots_is_named_in_the_podium_and_the_check(
    simcord_env,
):
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    admin = await an_admin(table)
    stage = table.guild.create_text_channel("podium")
    high = table.guild.create_role("Grand Champion", position=50)  # above the bot's role
    await admin_sets(table, admin, "season_plan", "monthly")
    await admin_sets(table, admin, "season_channel", f"<#{stage.id}>")
    await admin_sets(table, admin, "champion_role", f"<@&{high.id}>")
    check = await admin.slash(table.channel, "sequence-admin check")
    assert check.ephemeral
    assert f"⚠️ Champion role: <@&{high.id}> is not below my highest role" in (
        check.response.content
    )
    await beats(table, alice, bob)
    await until_the_season_ends(table)
    (podium,) = podiums(stage)
    assert "⚠️ The champion role could not be given:" in podium.content
    assert "Grand Champion" not in roles_of(table, alice)


async def test_forget_me_also_rewrites_season_ratings_and_podiums(simcord_env):
    table = await make_table(simcord_env, ["ann", "ben"])
    ann, ben = table.players
    admin = await an_admin(table)
    stage = table.guild.create_text_channel("podium")
    await admin_sets(table, admin, "season_plan", "monthly")
    await admin_sets(table, admin, "season_channel", f"<#{stage.id}>")
    await beats(table, ben, ann)
    ended = await until_the_season_ends(table)
    assert len(podiums(stage)) == 1
    await beats(table, ben, ann, seed=2)  # in the new season too
    bot = table.bot
    held = await bot.db.read(cells_holding, str(ben.id))
    assert {"season_ratings.user_id", "events.payload"} <= set(held)
    podium_steps = "SELECT payload FROM events WHERE season_end_id IS NOT NULL"
    (frozen,) = await bot.db.read(lambda conn: conn.fetchall(podium_steps))
    assert str(ben.id) in frozen[0]  # the podium frozen in its step
    before = rows(await ann.slash(table.channel, "sequence leaderboard", season=ended))

    asked = await ben.slash(table.channel, "sequence-me forget-me")
    done = await ben.click(asked.response, label="Forget me")
    label = done.response.content.split("**")[1]
    assert await bot.db.read(cells_holding, str(ben.id)) == []
    assert await bot.db.read(stored_problems, table.guild.id) == []  # seasons included
    (frozen,) = await bot.db.read(lambda conn: conn.fetchall(podium_steps))
    assert str(ben.id) not in frozen[0]
    after = rows(await ann.slash(table.channel, "sequence leaderboard", season=ended))
    assert after == [row.replace(f"<@{ben.id}>", label) for row in before]
    current = rows(await ann.slash(table.channel, "sequence leaderboard", season="current"))
    assert current[0] == f"**1.** {label}"


async def test_the_privacy_statement_mentions_season_ratings(simcord_env):
    table = await make_table(simcord_env, ["ann"])
    text = (await table.players[0].slash(table.channel, "sequence-me privacy")).response.content
    assert "in each of its seasons" in text


@pytest.mark.parametrize(
    ("seeding", "first"), [("season", "dan"), ("all_time", "ann"), (None, "ann")]
)
async def test_a_tournament_may_be_seeded_by_the_running_season(simcord_env, seeding, first):
    env = simcord_env
    guild = env.create_guild("Club")
    anyone_may_organise(env, guild)
    channel = guild.create_text_channel("cup")
    ann, ben, cat, dan = [
        guild.add_member(env.create_user(n)) for n in ("ann", "ben", "cat", "dan")
    ]
    db = env.bot.db
    now = env.bot.clock()
    month = season_at(MONTHLY, now)
    await db.season_ends.replan(guild.id, "season_plan", MONTHLY, ann.id, now)
    # last month ann beat everyone, often; this month dan beat ann once
    games = [
        (ann, loser, month.start - DAY * (n + 1)) for n in range(3) for loser in (ben, cat, dan)
    ]
    games.append((dan, ann, now))
    for number, (winner, loser, at) in enumerate(games):
        game = await create_game(db, channel_id=900 + number, guild_id=guild.id)
        await db.results.record(game.id, guild.id, [[winner.id], [loser.id]], 0, True, {}, now=at)
    if seeding is None:
        created = await ann.slash(channel, "tournament-admin create", name="Cup", format="swiss")
    else:
        created = await ann.slash(
            channel, "tournament-admin create", name="Cup", format="swiss", seeding=seeding
        )
    for member in (ann, ben, cat, dan):
        await member.click(created.response, label="Join")
    await ann.slash(channel, "tournament-admin start")
    snap = await snapshot(env.bot, channel)
    seeds = sorted(snap.entrants.values(), key=lambda e: e.seed)
    assert seeds[0].name == first


async def test_seeding_by_season_needs_seasons(simcord_env):
    guild = simcord_env.create_guild("Club")
    anyone_may_organise(simcord_env, guild)
    channel = guild.create_text_channel("cup")
    ann = guild.add_member(simcord_env.create_user("ann"))
    refused = await ann.slash(
        channel, "tournament-admin create", name="Cup", format="swiss", seeding="season"
    )
    assert refused.ephemeral and "seeding:season needs seasons" in refused.response.content


async def test_a_podium_discord_refused_is_posted_later_once(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    admin = await an_admin(table)
    stage = table.guild.create_text_channel("podium")
    await admin_sets(table, admin, "season_plan", "monthly")
    await admin_sets(table, admin, "season_channel", f"<#{stage.id}>")
    await beats(table, alice, bob)
    simcord_env.inject_error(
        "POST", f"/channels/{stage.id}/messages", status=403, code=50013, times=2
    )
    await until_the_season_ends(table)
    assert podiums(stage) == []  # refused: the event waits
    await simcord_env.advance_time(61)
    assert podiums(stage) == []  # refused again: it waits twice as long
    await simcord_env.advance_time(121)
    assert len(podiums(stage)) == 1
    await simcord_env.advance_time(3600)
    assert len(podiums(stage)) == 1
