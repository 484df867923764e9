"""``/sequence-admin``: a server's house rules, table timers and limits, within the owner's
ceilings (issue #38). On SQLite and PostgreSQL."""

from __future__ import annotations

import discord
import pytest

from bot.config import Settings
from bot.store.votes import DRAW

from .e2e_helpers import make_table, open_and_start, settle
from .helpers.tournament import anyone_may_organise

DAY = 86400


@pytest.fixture
def bot_settings(settings_on_each_backend: Settings) -> Settings:
    """Both backends; the owner's ceilings lower than the bot's built-in ones."""
    return settings_on_each_backend.with_overrides(
        max_turn_time_limit=2 * DAY,
        max_reminder_delay=DAY,
        max_lobbies_per_server=5,
        max_lobbies_per_user=3,
        max_tournaments_per_server=3,
    )


async def with_admin(env, names=("alice", "bob")):
    """A table of ``names``, and an admin (Manage Server) in the same server."""
    table = await make_table(env, list(names))
    admins = table.guild.create_role("Admins", permissions=discord.Permissions(manage_guild=True))
    admin = table.guild.add_member(env.create_user("admin"), roles=[admins])
    anyone_may_organise(env, table.guild)  # its players may run tournaments
    return table, admin


async def admin_sets(table, admin, setting: str, value: str):
    """The admin sets a setting; it must be accepted (an audit line in the channel)."""
    result = await admin.slash(table.channel, "sequence-admin set", setting=setting, value=value)
    assert not result.ephemeral, result.response.content
    return result


async def test_each_new_server_default_reaches_a_new_table_and_not_a_running_one(simcord_env):
    table, admin = await with_admin(simcord_env)
    running = await open_and_start(table)
    before = running.options
    # a table opened now has its timers fixed: the bot's
    assert (before.lobby_expiry, before.table_talk_ruling_timeout) == (DAY, 600)
    assert before.draw_offer_timeout == 3600

    for setting, value in (
        ("sequences_to_win", "1"),
        ("bot_picks_five", "yes"),
        ("manual_draw", "yes"),
        ("small_hands", "yes"),
        ("tabletalk_stands", "yes"),
        ("lobby_expiry", "2h"),
        ("ruling_timeout", "5m"),
        ("draw_offer_timeout", "10m"),
    ):
        await admin_sets(table, admin, setting, value)
    changed = await admin_sets(table, admin, "ruling_timeout", "none")
    assert changed.response.content == (
        f"⚙️ {admin.mention} changed **ruling_timeout** for new tables: 5 min → none."
    )

    assert table.game().options == before  # the running game keeps what it started with

    room = table.guild.create_text_channel("second")
    opened = await table.players[1].slash(room, "sequence new")
    assert not opened.ephemeral
    lobby = (await table.bot.db.lobbies.get_for_channel(room.id)).options
    assert lobby.sequences_to_win == 1 and lobby.engine_chooses_five
    assert lobby.manual_draw and lobby.small_hands and lobby.tabletalk_stands
    assert (lobby.lobby_expiry, lobby.table_talk_ruling_timeout) == (7200, 0)
    assert lobby.draw_offer_timeout == 600
    # what the host gives wins over the server's default
    third = table.guild.create_text_channel("third")
    await admin.slash(third, "sequence new", manual_draw=False, sequences_to_win=2)
    lobby = (await table.bot.db.lobbies.get_for_channel(third.id)).options
    assert not lobby.manual_draw and lobby.sequences_to_win == 2 and lobby.small_hands

    shown = (await admin.slash(table.channel, "sequence-admin settings")).response.content
    assert "`sequences_to_win`: **1** (this server)" in shown
    assert "`draw_offer_timeout`: **10 min** (this server; limit: 1 min to 14 days)" in shown
    assert "`ruling_timeout`: **none** (this server; limit: none, or up to 14 days)" in shown
    reset = await admin.slash(table.channel, "sequence-admin reset", setting="sequences_to_win")
    assert "**sequences_to_win** for new tables: 1 → automatic." in reset.response.content


async def test_a_lobby_keeps_the_expiry_it_opened_with(simcord_env):
    table, admin = await with_admin(simcord_env)
    alice, bob = table.players
    await alice.slash(table.channel, "sequence new")  # the bot's expiry: a day
    await admin_sets(table, admin, "lobby_expiry", "1h")
    room = table.guild.create_text_channel("second")
    second = await bob.slash(room, "sequence new")
    await simcord_env.advance_time(3600 - 60)
    assert await table.bot.db.lobbies.get_for_channel(room.id) is not None
    await simcord_env.advance_time(65)
    await settle(simcord_env)
    assert await table.bot.db.lobbies.get_for_channel(room.id) is None
    closed = next(m for m in room.history() if m.id == second.response.id)
    assert closed.content == "⌛ This lobby expired before it started."
    # the first lobby keeps the day it opened with
    assert await table.bot.db.lobbies.get_for_channel(table.channel.id) is not None


async def test_a_game_keeps_its_draw_offer_timeout_after_the_server_changes_it(simcord_env):
    table, admin = await with_admin(simcord_env)
    alice, bob = table.players
    await admin_sets(table, admin, "draw_offer_timeout", "10m")
    record = await open_and_start(table)
    assert record.options.draw_offer_timeout == 600
    await admin_sets(table, admin, "draw_offer_timeout", "2h")

    rules = await bob.slash(table.channel, "sequence rules")
    assert "10 min" in "".join(m.content for m in [rules.response, *rules.followups])
    offer = await alice.slash(table.channel, "sequence draw")
    assert not offer.ephemeral
    vote = next(v for v in table.game().votes.values() if v.kind == DRAW)
    assert vote.expires_at == pytest.approx(vote.created_at + 600)
    await simcord_env.advance_time(600 + 5)
    await settle(simcord_env)
    assert table.game().votes == {}  # lapsed after the game's 10 minutes, not the server's 2 h
    posted = next(m for m in table.channel.history() if m.id == offer.response.id)
    assert "lapsed" in posted.content

    room = table.guild.create_text_channel("second")
    await alice.slash(room, "sequence new")
    lobby = await table.bot.db.lobbies.get_for_channel(room.id)
    assert lobby.options.draw_offer_timeout == 7200  # a new table takes the new value


async def test_a_server_lobby_limit_refuses_the_next_lobby(simcord_env):
    table, admin = await with_admin(simcord_env, ("alice", "bob", "carol"))
    alice, bob, carol = table.players
    await admin_sets(table, admin, "lobbies_per_server", "2")
    await alice.slash(table.channel, "sequence new")
    await bob.slash(table.guild.create_text_channel("two"), "sequence new")
    room = table.guild.create_text_channel("three")
    refused = await carol.slash(room, "sequence new")
    assert refused.ephemeral
    assert refused.response.content == (
        "⚠️ This server has 2 open lobbies, the most it may have: join one, or wait for one "
        "to start."
    )
    assert await table.bot.db.lobbies.get_for_channel(room.id) is None

    # another server is not held to this one's limit
    other, _ = await with_admin(simcord_env, ("dave",))
    assert not (await other.players[0].slash(other.channel, "sequence new")).ephemeral

    # the admin raises it: the next one opens
    await admin_sets(table, admin, "lobbies_per_server", "3")
    assert not (await carol.slash(room, "sequence new")).ephemeral


async def test_a_servers_per_person_limits_count_that_server_only(simcord_env):
    table, admin = await with_admin(simcord_env)
    alice, bob = table.players
    elsewhere = simcord_env.create_guild("Elsewhere")
    away = elsewhere.create_text_channel("tables")
    alice_there = elsewhere.add_member(alice)
    await admin_sets(table, admin, "lobbies_per_person", "1")
    await admin_sets(table, admin, "games_per_person", "1")

    assert not (await alice_there.slash(away, "sequence new")).ephemeral  # another server's
    assert not (await alice.slash(table.channel, "sequence new")).ephemeral  # 1 here
    room = table.guild.create_text_channel("second")
    refused = await alice.slash(room, "sequence new")
    assert refused.ephemeral
    assert refused.response.content == (
        "⚠️ You already host 1 open lobby in this server, the most it allows one person: start or "
        "cancel one first."
    )
    # bob sits in alice's lobby: one game or lobby in this server, the most it allows him
    lobby = await table.bot.db.lobbies.get_for_channel(table.channel.id)
    await bob.slash(table.channel, "sequence join")
    assert len((await table.bot.db.lobbies.get(lobby.id)).seats) == 2
    refused = await bob.slash(room, "sequence new")
    assert refused.ephemeral
    assert refused.response.content == (
        "⚠️ You are already in 1 game or lobby in this server, the most it allows one person at "
        "once: finish or leave one first."
    )
    assert await table.bot.db.lobbies.get_for_channel(room.id) is None


async def test_a_value_past_the_owners_ceiling_is_refused_naming_it(simcord_env):
    table, admin = await with_admin(simcord_env)
    alice = table.players[0]
    cases = (
        ("time_limit", "3d", "A turn's time limit on this bot is at most 2 days"),
        ("reminder", "2d", "A reminder on this bot comes at most 1 day after the turn starts"),
        ("lobbies_per_server", "6", "Open lobbies per server: this bot allows at most 5"),
        ("lobbies_per_server", "none", "Open lobbies per server: this bot allows at most 5"),
        ("games_per_person", "11", "Games per person: this bot allows at most 10"),
        ("lobbies_per_person", "ten", "'ten' is not a limit"),
        ("sequences_to_win", "5", "'5' is not 1, 2, 3, 4 or automatic"),
        ("lobby_expiry", "30s", "The lobby expiry must be between 1 min and 14 days"),
        ("draw_offer_timeout", "15d", "The draw-offer timeout must be between 1 min and 14 days"),
    )
    for setting, value, words in cases:
        refused = await admin.slash(
            table.channel, "sequence-admin set", setting=setting, value=value
        )
        assert refused.ephemeral, (setting, value)
        assert words in refused.response.content, refused.response.content
    assert await table.bot.db.guild_settings.all(table.guild.id) == {}

    # /sequence new is held to the same ceilings
    over = await alice.slash(table.channel, "sequence new", time_limit="3d")
    assert over.ephemeral and "at most 2 days (its owner's limit)" in over.response.content
    assert await table.bot.db.lobbies.get_for_channel(table.channel.id) is None
    cup = await alice.slash(
        table.channel, "tournament-admin create", name="Cup", format="swiss", time_limit="3d"
    )
    assert cup.ephemeral and "at most 2 days (its owner's limit)" in cup.response.content
    assert await table.bot.db.tournaments.open_in_channel(table.channel.id) is None
    await admin_sets(table, admin, "time_limit", "2d")  # the most is allowed
    shown = (await admin.slash(table.channel, "sequence-admin settings")).response.content
    assert "`time_limit`: **2 days** (this server; limit: at most 2 days)" in shown
    assert "`reminder`: **12 h** (the bot's default; limit: at most 1 day)" in shown
    assert "`lobbies_per_server`: **5** (the bot's default; limit: at most 5)" in shown


async def test_a_server_tournament_limit_refuses_the_next_tournament(simcord_env):
    table, admin = await with_admin(simcord_env)
    alice, bob = table.players
    await admin_sets(table, admin, "tournaments_per_server", "1")
    created = await alice.slash(
        table.channel, "tournament-admin create", name="Cup", format="swiss"
    )
    assert not created.ephemeral or "Cup" in created.response.content
    hall = table.guild.create_text_channel("hall")
    refused = await bob.slash(hall, "tournament-admin create", name="Open", format="swiss")
    assert refused.ephemeral
    assert refused.response.content == (
        "⚠️ This server has 1 open tournament, the most it may have: wait for one to end."
    )
    assert await table.bot.db.tournaments.open_in_channel(hall.id) is None


async def test_a_game_keeps_its_ruling_timeout_after_the_server_changes_it(simcord_env):
    """A call against the host's team (only a moderator may rule) stands after the game's
    ruling timeout, the server's when the lobby opened, not the one it set since."""
    table, admin = await with_admin(simcord_env, ("alice", "bob", "carol", "dave"))
    await admin_sets(table, admin, "ruling_timeout", "5m")
    record = await open_and_start(table)
    await admin_sets(table, admin, "ruling_timeout", "none")  # new tables: never stands

    def team_of(member) -> int:
        return record.game.team_of(
            next(i for i, s in enumerate(record.seats) if s.user_id == member.id)
        )

    accused = team_of(table.players[0])  # the host's team
    caller = next(p for p in table.players if team_of(p) != accused)
    call = await caller.slash(table.channel, "sequence tabletalk", team=accused)
    assert "the call stands" in call.response.content
    await simcord_env.advance_time(300 - 5)
    assert not any(record.game.owed_forfeits)
    await simcord_env.advance_time(10)
    owed = [record.game.owed_forfeits[s] for s in record.game.settings.seats_of(accused)]
    assert owed == [1, 1]
