"""Best-of matches end to end, on SQLite and PostgreSQL: a knockout whose final is the best of
3, decided 2–1 across a restart; a series decided by the organiser's report while one of its
games is being played; a bad best_of_from refused."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from bot.app import create_bot
from bot.config import Settings
from bot.game.moves import RESIGN, Move
from tests.helpers.tournament import (
    SHOW_UP,
    announced,
    anyone_may_organise,
    check_in,
    game_in,
    match_of,
    resign,
    snapshot,
    started_cup,
    thread_of,
)

from .e2e_helpers import settle


@pytest.fixture
def bot_settings(settings_on_each_backend: Settings) -> Settings:
    """Every test here runs on SQLite and on PostgreSQL."""
    return settings_on_each_backend


def seeds(bot: Any) -> None:
    """A fresh seed for every deal (the first deal alternates by choosing the seed)."""
    bot.lobbies.new_seed = itertools.count(1).__next__


def boards(thread: Any, after: int = 0) -> list[Any]:
    """The thread's board messages posted after message ``after``."""
    return [m for m in thread.history() if m.attachments and m.id > after]


async def play_game(env: Any, channel: Any, final: Any, players: list, losers: list) -> Any:
    """The match's players check in (its message as it now stands), the game starts, and
    ``losers`` resign: the game as it ended."""
    current = match_of(await snapshot(env.bot, channel), final.round, "ann")
    await check_in(channel, current, players)
    record = game_in(env.bot, current)
    await resign(thread_of(channel, current), losers)
    await settle(env)
    assert record.game.is_over()
    return record


async def test_a_best_of_3_final_decided_2_1_across_a_restart(simcord_env, bot_settings):
    env = simcord_env
    seeds(env.bot)
    channel, (ann, ben, *_) = await started_cup(
        env, ["ann", "ben", "cat", "dan"], best_of=3, best_of_from="final"
    )
    sign_up = next(m for m in channel.history() if m.embeds and "Rules" in str(m.embeds[0].fields))
    assert "best of 3 games from the final" in str(sign_up.embeds[0].fields)
    snap = await snapshot(env.bot, channel)
    for match in snap.round_matches(1):  # round 1 plays one game: the organiser reports it
        lobby = await env.bot.db.lobbies.get_for_channel(match.thread_id)
        assert lobby.options.series_best_of == 0 and lobby.options.tournament_match == match.id
        winner = ann if "ann" in (snap.name(match.entrant_a), snap.name(match.entrant_b)) else ben
        reported = await ann.slash(
            channel, "tournament-admin report", match=match.id, winner=winner
        )
        assert announced(channel, reported)
    await settle(env)
    snap = await snapshot(env.bot, channel)
    final = match_of(snap, 2, "ann")
    assert (snap.name(final.entrant_a), snap.name(final.entrant_b)) == ("ann", "ben")
    thread = thread_of(channel, final)
    assert any("Game 1 of 3 · ann 0 – ben 0" in m.content for m in thread.history())

    first = await play_game(env, channel, final, [ann, ben], [ben])  # ann 1 – ben 0
    board = boards(thread)[-1]
    assert "Game 1 of 3 · ann 1 – ben 0" in board.embeds[0].footer.text
    assert not board.components  # a match's final board: no Rematch
    assert any("Next: Game 2 of 3 · ann 1 – ben 0" in m.content for m in thread.history())
    mark = thread.last_message.id
    second = await play_game(env, channel, final, [ann, ben], [ann])  # ann 1 – ben 1
    assert second.id != first.id
    assert second.game.team_of(second.game.dealer) != first.game.team_of(first.game.dealer)
    shown = boards(thread, mark)
    assert shown and all(
        "Game 2 of 3 · ann 1 – ben 0" in m.embeds[0].footer.text for m in shown[:-1]
    )
    assert "Game 2 of 3 · ann 1 – ben 1" in shown[-1].embeds[0].footer.text
    snap = await snapshot(env.bot, channel)
    assert match_of(snap, 2, "ann").status == "pending" and snap.tournament.status == "running"

    # a restart between games 2 and 3: the match message's button, posted before, carries on
    await env.bot.close()
    await env.restart_bot(create_bot(bot_settings))
    seeds(env.bot)
    await settle(env)
    assert any("Next: Game 3 of 3 · ann 1 – ben 1" in m.content for m in thread.history())
    mark = thread.last_message.id
    third = await play_game(env, channel, final, [ben, ann], [ben])  # ann 2 – ben 1
    assert third.game.team_of(third.game.dealer) != second.game.team_of(second.game.dealer)
    assert "Game 3 of 3 · ann 2 – ben 1" in boards(thread, mark)[-1].embeds[0].footer.text

    snap = await snapshot(env.bot, channel)
    decided = match_of(snap, 2, "ann")
    assert decided.status == "done" and snap.name(decided.winner) == "ann"
    assert decided.game_id == third.id and snap.tournament.status == "finished"
    assert any("**ann** beat ben (best of 3: 2–1 in games)" in m.content for m in thread.history())
    assert "champion, **ann**" in channel.last_message.content
    assert await env.bot.db.lobbies.get_for_channel(thread.id) is None
    results = await env.bot.db.results.for_guild(channel.guild.id)
    assert {first.id, second.id, third.id} <= {r.game_id for r in results}  # each game rated


async def test_a_series_decided_by_a_report_in_the_middle_of_a_game(simcord_env):
    env = simcord_env
    seeds(env.bot)
    channel, (ann, ben) = await started_cup(env, ["ann", "ben"], best_of=3)
    (match,) = (await snapshot(env.bot, channel)).round_matches(1)
    thread = thread_of(channel, match)
    await play_game(env, channel, match, [ann, ben], [ben])  # ann 1 – ben 0
    current = match_of(await snapshot(env.bot, channel), 1, "ann")
    await check_in(channel, current, [ann, ben])
    second = game_in(env.bot, current)
    assert "Game 2 of 3 · ann 1 – ben 0" in boards(thread)[-1].embeds[0].footer.text

    reported = await ann.slash(channel, "tournament-admin report", match=match.id, winner=ben)
    assert announced(channel, reported)
    await settle(env)
    stopped = await env.bot.db.games.load(second.id)
    assert stopped.status == "cancelled"
    assert any(f"Game #{second.id} was stopped" in m.content for m in thread.history())
    snap = await snapshot(env.bot, channel)
    (decided,) = snap.round_matches(1)
    assert decided.outcome == "reported" and snap.name(decided.winner) == "ben"
    assert (
        snap.tournament.status == "finished" and "champion, **ben**" in channel.last_message.content
    )
    assert await env.bot.db.lobbies.get_for_channel(thread.id) is None
    assert env.bot.games.find_in_channel(thread.id) is None
    assert not any("Next: Game 3" in m.content for m in thread.history())


async def test_a_bad_best_of_from_is_refused(simcord_env):
    guild = simcord_env.create_guild("Club")
    anyone_may_organise(simcord_env, guild)
    channel = guild.create_text_channel("cup")
    ann = guild.add_member(simcord_env.create_user("ann"))
    refused = await ann.slash(
        channel,
        "tournament-admin create",
        name="Cup",
        format="elimination",
        best_of=3,
        best_of_from="semis",
    )
    assert refused.ephemeral and "best_of_from is `final`" in refused.response.content
    alone = await ann.slash(
        channel, "tournament-admin create", name="Cup", format="swiss", best_of_from="2"
    )
    assert alone.ephemeral and "choose best_of" in alone.response.content
    assert not await simcord_env.bot.db.tournaments.in_channel(channel.id)


async def test_a_series_whose_thread_is_deleted_is_left_to_the_organiser(simcord_env):
    """The thread goes while game 2 is played, and game 2 then ends at 1–1 (ann resigns, in
    the service: no command reaches a thread that is gone): the series seats no game 3 in the
    thread, nobody forfeits at the show-up time, the organiser is asked once, and the report
    decides the match."""
    env = simcord_env
    seeds(env.bot)
    channel, (ann, ben) = await started_cup(env, ["ann", "ben"], best_of=3)
    (match,) = (await snapshot(env.bot, channel)).round_matches(1)
    await play_game(env, channel, match, [ann, ben], [ben])  # ann 1 – ben 0
    current = match_of(await snapshot(env.bot, channel), 1, "ann")
    await check_in(channel, current, [ann, ben])
    second = game_in(env.bot, current)
    env.backend.delete_channel(match.thread_id)
    await settle(env)
    told = [m for m in channel.history() if "was deleted" in m.content]
    assert len(told) == 1 and f"<@{ann.id}>" in told[0].content
    ann_team = next(i for i, s in enumerate(second.seats) if s.user_id == ann.id) % 2
    await env.bot.games.apply(second.id, Move(RESIGN, -1, team=ann_team), actor_id=ann.id)
    await settle(env)
    await env.advance_time(SHOW_UP + 60)
    await settle(env)
    (after,) = (await snapshot(env.bot, channel)).round_matches(1)
    assert after.status == "pending" and after.deadline is None and after.thread_gone_at
    assert await env.bot.db.lobbies.get_for_channel(match.thread_id) is None
    assert (await env.bot.db.games.load(second.id)).status == "finished"  # rated as played
    assert len([m for m in channel.history() if "was deleted" in m.content]) == 1
    reported = await ann.slash(channel, "tournament-admin report", match=match.id, winner=ann)
    assert announced(channel, reported), reported.response.content
    snap = await snapshot(env.bot, channel)
    assert snap.tournament.status == "finished" and snap.name(snap.champion()) == "ann"
