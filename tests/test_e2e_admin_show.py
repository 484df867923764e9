"""The options in force, and which are this server's: ``/sequence rules``, the lobby and
``/sequence status`` (issue #38, item 5). A table records, as it opens, which of its options
came from the server's settings; a change of the settings since does not change them."""

from __future__ import annotations

import pytest

from bot.app import create_bot
from bot.config import Settings
from bot.services.server_setting_list import SERVER_SETTINGS, ServerSetting
from bot.services.setting_values import parse_bool, show_bool

from .test_e2e_admin import with_admin


@pytest.fixture
def bot_settings(settings_on_each_backend: Settings) -> Settings:
    """Both backends (the marks go through each store's JSON)."""
    return settings_on_each_backend


def rules_field(message) -> str:
    return next(f.value for f in message.embeds[0].fields if f.name == "Rules")


def rules_text(result) -> str:
    return "\n".join(m.content for m in [result.response, *result.followups])


async def test_the_lobby_rules_and_status_mark_this_servers_options(simcord_env, bot_settings):
    env = simcord_env
    table, admin = await with_admin(env)
    alice, bob = table.players
    for setting, value in (("time_limit", "2h"), ("rated", "no"), ("reminder", "12h")):
        await admin.slash(table.channel, "sequence-admin set", setting=setting, value=value)

    # with no table here: a new table's options, this server's marked
    rules = rules_text(await alice.slash(table.channel, "sequence rules"))
    assert (
        "**Options of a new table here**: time limit 2 h (this server's default); "
        "on timeout skip; reminder 12 h (this server's default); rated no (this server's "
        "default); hints no; endless guard yes; preset classic"
    ) in rules

    opened = await alice.slash(table.channel, "sequence new", on_timeout="computer")
    field = rules_field(opened.response)
    # short: only what came from this server (the reminder is the server's too, same value)
    assert field.endswith("\n⚙️ This server's defaults: time limit 2 h, reminder 12 h, rated no"), (
        field
    )
    rules = rules_text(await bob.slash(table.channel, "sequence rules"))
    assert (
        "**Options at this table**: time limit 2 h (this server's default); on timeout "
        "computer; reminder 12 h (this server's default); rated no (this server's default); "
        "hints no; endless guard yes; preset classic"
    ) in rules

    await bob.click(opened.response, label="Join")
    await alice.click(opened.response, label="Start")
    # the server changes its defaults: the running table keeps its options and its marks
    await admin.slash(table.channel, "sequence-admin set", setting="time_limit", value="1h")
    await admin.slash(table.channel, "sequence-admin reset", setting="rated")
    await env.bot.close()
    await env.restart_bot(create_bot(bot_settings))  # and read back from the store
    status = (await bob.slash(table.channel, "sequence status")).response.content
    assert (
        "⚙️ Options: time limit 2 h (this server's default); on timeout computer; "
        "reminder 12 h (this server's default); rated no (this server's default); hints no; "
        "endless guard yes; preset classic"
    ) in status, status
    rules = rules_text(await bob.slash(table.channel, "sequence rules"))
    assert "**Options at this table**: time limit 2 h (this server's default);" in rules

    # what the host gives is not the server's; without settings of its own, nothing is marked
    room = table.guild.create_text_channel("room")
    hosted = await alice.slash(room, "sequence new", time_limit="30m", rated=False)
    assert rules_field(hosted.response).endswith("\n⚙️ This server's defaults: reminder 12 h")
    other, _ = await with_admin(env)
    plain = await other.players[0].slash(other.channel, "sequence new")
    assert "This server's defaults" not in rules_field(plain.response)
    rules = rules_text(await other.players[0].slash(other.channel, "sequence rules"))
    assert "(this server's default)" not in rules
    assert "**Options at this table**: time limit none; on timeout skip;" in rules


async def test_a_server_option_changed_at_the_table_is_no_longer_marked(simcord_env):
    """A computer player makes a table unrated: the server's "rated yes" no longer holds."""
    table, admin = await with_admin(simcord_env)
    alice = table.players[0]
    await admin.slash(table.channel, "sequence-admin set", setting="rated", value="yes")
    opened = await alice.slash(table.channel, "sequence new")
    assert rules_field(opened.response).endswith("\n⚙️ This server's defaults: rated yes")
    await alice.slash(table.channel, "sequence addbot")
    lobby = await table.bot.db.lobbies.get_for_channel(table.channel.id)
    message = next(m for m in table.channel.history() if m.id == lobby.message_id)
    assert "This server's defaults" not in rules_field(message)
    rules = rules_text(await alice.slash(table.channel, "sequence rules"))
    assert "; rated no; " in rules and "(this server's default)" not in rules


async def test_a_table_setting_added_to_the_list_shows_by_itself(simcord_env, monkeypatch):
    table, admin = await with_admin(simcord_env)
    monkeypatch.setitem(
        SERVER_SETTINGS,
        "small_hands",
        ServerSetting(
            "small_hands",
            "2 cards each with 10 or 12 players",
            "table",
            parse_bool,
            show_bool,
            lambda s: False,
            "small_hands",
        ),
    )
    await admin.slash(table.channel, "sequence-admin set", setting="small_hands", value="yes")
    rules = rules_text(await table.players[0].slash(table.channel, "sequence rules"))
    assert "; small hands yes (this server's default)" in rules
