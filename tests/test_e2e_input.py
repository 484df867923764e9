"""Abusive input through the real commands: 4,000-character cards, spaces and durations, odd
digits, and per-table timers below their minimums. Each gets a clear, short, ephemeral answer
(Discord refuses a reply over 2,000 characters) and changes nothing."""

from __future__ import annotations

import pytest

from bot.app import create_bot
from bot.config import Settings

from .e2e_helpers import make_table, open_and_start, seat_actor
from .helpers.tournament import anyone_may_organise

LONG = 4000
DISCORD_LIMIT = 2000


def refused(result, words: str) -> str:
    """The ephemeral answer of a refused command, checked to be short and clear."""
    assert result.ephemeral, result.response.content
    content = result.response.content
    assert content.startswith("⚠️") and words in content, content
    assert len(content) < 200
    return content


@pytest.mark.parametrize(
    ("card", "space", "words"),
    [
        ("7S" * (LONG // 2), "C4", "is not a card"),
        ("7S", "C4" * (LONG // 2), "is not a space"),
        ("x" * LONG, "y" * LONG, "is not a card"),
    ],
)
async def test_a_huge_card_or_space_gets_a_short_answer(simcord_env, card, space, words):
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table)
    mover = seat_actor(table, record, record.game.turn)
    moves = len(record.game.moves)
    result = await mover.slash(table.channel, "sequence play", card=card, space=space)
    content = refused(result, words)
    assert f"({LONG:,} characters)" in content and len(content) < DISCORD_LIMIT
    assert len(table.game().game.moves) == moves


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"time_limit": "9" * LONG}, "is not a duration"),
        ({"reminder": "1h" * (LONG // 2)}, "is not a duration"),
        ({"time_limit": "²"}, "'²' is not a duration"),
        ({"reminder": "³h"}, "'³h' is not a duration"),
        ({"reminder": "1s"}, "at least 10 minutes"),
        ({"reminder": "9m59s"}, "at least 10 minutes"),
        ({"time_limit": "30s"}, "at least 1 minute"),
    ],
)
async def test_bad_table_timers_are_refused_and_open_nothing(simcord_env, options, words):
    table = await make_table(simcord_env, ["alice"])
    (host,) = table.players
    refused(await host.slash(table.channel, "sequence new", **options), words)
    assert table.channel.history() == []  # no lobby message
    opened = await host.slash(table.channel, "sequence new")
    assert not opened.ephemeral  # and no lobby was left open by the refused command


async def test_the_shortest_timers_a_table_may_set(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table, reminder="10m", time_limit="1m")
    assert record.options.reminder_delay == 600
    assert record.options.turn_time_limit == 60


async def test_the_longest_timers_the_settings_accept_still_open_lobbies_and_tournaments(
    simcord_env, bot_settings
):
    """An admin sets TURN_TIME_LIMIT and REMINDER_DELAY as long as the bot accepts them: a host
    who sets neither still opens a lobby (not "The turn time limit must be between 0 (none) and
    14 days" for an option they never gave), and a tournament still opens."""
    longest = Settings.from_mapping({"TURN_TIME_LIMIT": "1209600", "REMINDER_DELAY": "1209600"})
    await simcord_env.bot.close()
    configured = bot_settings.with_overrides(
        turn_time_limit=longest.turn_time_limit, reminder_delay=longest.reminder_delay
    )
    await simcord_env.restart_bot(create_bot(configured))
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    opened = await alice.slash(table.channel, "sequence new")
    assert not opened.ephemeral, opened.response.content
    assert "14 days per turn" in opened.response.embeds[0].fields[-1].value
    cup_channel = table.guild.create_text_channel("cup")
    anyone_may_organise(simcord_env, table.guild)
    cup = await bob.slash(cup_channel, "tournament-admin create", name="Cup", format="swiss")
    assert not cup.ephemeral, cup.response.content
