"""Tournaments through Discord, played to the end: a 4-entrant knockout, a 6-entrant Swiss with
a no-show, a dropped entrant and a restart, and a round robin of teams with results by hand."""

from __future__ import annotations

from typing import Any

import discord
import pytest

from bot.app import create_bot
from bot.services.errors import UserError
from bot.store import Seat
from tests.helpers.tournament import (
    SHOW_UP,
    announced,
    anyone_may_organise,
    check_in,
    game_in,
    match_message,
    match_of,
    names,
    pairings,
    resign,
    scripted_win,
    snapshot,
    standings_rows,
    started_cup,
    thread_of,
)

from .e2e_driver import play_to_the_end
from .e2e_helpers import Table


# ---------------------------------------------------------------------- single elimination
async def test_four_entrant_knockout_played_to_the_end(simcord_env) -> None:
    env = simcord_env
    guild = env.create_guild("Club")
    anyone_may_organise(env, guild)
    channel = guild.create_text_channel("tournaments")
    ann, ben, cat, dan = (
        guild.add_member(env.create_user(n)) for n in ("ann", "ben", "cat", "dan")
    )
    bot = env.bot
    bot.lobbies.new_seed = lambda: 11

    created = await ann.slash(
        channel,
        "tournament-admin create",
        name="Spring Cup",
        format="elimination",
        sequences_to_win=1,
    )
    assert not created.ephemeral and created.response.embeds[0].title == "🏆 Spring Cup"
    signup = created.response
    assert (await ann.click(signup, label="Join")).acknowledged
    assert (await ben.click(signup, label="Join")).acknowledged
    assert not (await cat.slash(channel, "tournament join")).response.content.startswith("⚠️")
    joined = await dan.slash(channel, "tournament join")
    assert joined.ephemeral and "dan signed up" in joined.response.content
    again = await dan.click(signup, label="Join")
    assert again.ephemeral and "already signed up" in again.response.content

    # every organiser command refuses a non-organiser, clearly
    for command, options in (
        ("tournament-admin start", {}),
        ("tournament-admin drop", {"player": ann}),
        ("tournament-admin end", {}),
    ):
        refused = await ben.slash(channel, command, **options)
        assert refused.ephemeral
        assert f"Only the organiser (<@{ann.id}>) or someone with Manage Server" in (
            refused.response.content
        )
    started = await ann.slash(channel, "tournament-admin start")
    assert announced(channel, started) and "starts with 4 entrants" in started.response.content
    refused = await ben.slash(channel, "tournament-admin report", match=1, winner=ben)
    assert refused.ephemeral and "Only the organiser" in refused.response.content

    snap = await snapshot(bot, channel)
    assert pairings(snap, 1) == [("ann", "dan"), ("ben", "cat")]  # seeds 1 v 4, 2 v 3
    assert len(channel.threads) == 2
    first, second = snap.round_matches(1)
    thread = thread_of(channel, first)
    assert "ann v dan" in thread.name
    lobby = thread.history()[0]
    assert lobby.embeds[0].title.startswith("Sequence lobby")
    ping = match_message(channel, first)
    assert f"<@{ann.id}>" in ping.content and f"<@{dan.id}>" in ping.content
    # a stranger cannot check in for someone else's match
    stranger = await ben.click(ping, label="I'm here")
    assert stranger.ephemeral and "not yours" in stranger.response.content

    # semi-final 1: both check in, the game starts by itself; semi-final 2: the host presses Start
    await check_in(channel, first, [dan, ann])
    semi1 = game_in(bot, first)
    assert [s.user_id for s in semi1.seats] == [ann.id, dan.id]
    await play_to_the_end(Table(env, guild, thread, [ann, dan]), semi1)
    lobby2 = thread_of(channel, second).history()[0]
    assert (await ben.click(lobby2, label="Start")).acknowledged
    semi2 = game_in(bot, second)
    await play_to_the_end(Table(env, guild, thread_of(channel, second), [ben, cat]), semi2)

    snap = await snapshot(bot, channel)
    by_user = {p.id: p for p in (ann, ben, cat, dan)}

    def winner_of(record: Any) -> Any:
        return by_user[record.seats[record.game.settings.seats_of(record.game.winner)[0]].user_id]

    w1, w2 = winner_of(semi1), winner_of(semi2)
    assert pairings(snap, 2) == [(w1.user.name, w2.user.name)]
    (final_match,) = snap.round_matches(2)
    await check_in(channel, final_match, [w1, w2])
    final = game_in(bot, final_match)
    await play_to_the_end(Table(env, guild, thread_of(channel, final_match), [w1, w2]), final)
    champion = winner_of(final)
    runner_up = w2 if champion is w1 else w1
    semi_losers = [p for p in (ann, ben, cat, dan) if p not in (w1, w2)]
    seed = {"ann": 1, "ben": 2, "cat": 3, "dan": 4}
    semi_losers.sort(key=lambda p: seed[p.user.name])

    snap = await snapshot(bot, channel)
    assert snap.tournament.status == "finished"
    end = channel.last_message
    assert f"champion, **{champion.user.name}**" in end.content
    assert end.attachments[0].filename == "bracket.png"
    alt = end.attachments[0].description  # the bracket's alt text, for a screen reader
    assert alt.startswith(f"Knockout bracket of Spring Cup: champion {champion.user.name}.\n")
    assert f"Final: {champion.user.name} beat {runner_up.user.name}.\nSemi-finals: " in alt
    expected = [
        f"1. {champion.user.name} · 🥇 champion",
        f"2. {runner_up.user.name} · final",
        f"3. {semi_losers[0].user.name} · out in semi-finals",
        f"4. {semi_losers[1].user.name} · out in semi-finals",
    ]
    assert standings_rows(end.embeds[0]) == expected
    card = next(m for m in channel.history() if m.id == signup.id)
    assert card.embeds[0].footer.text == "Sign-up closed: the tournament is finished."
    shown = await dan.slash(channel, "tournament standings")
    assert standings_rows(shown.response.embeds[0]) == expected
    png = await shown.response.attachments[0].read()
    assert png.startswith(b"\x89PNG")
    # the games were ordinary rated games
    results = await bot.db.results.for_guild(guild.id)
    assert [r.game_id for r in results] == [semi1.id, semi2.id, final.id]
    assert all(r.rated for r in results)


async def test_a_closed_sign_up_no_longer_says_how_to_join(simcord_env) -> None:
    """Once the tournament started, the sign-up message said "Sign-up closed" in its footer
    and still "Press **Join** or use `/tournament join`." above it, with no Join button left."""
    channel, _ = await started_cup(simcord_env, ["ann", "ben"])
    card = channel.history()[0]
    assert card.embeds[0].title == "🏆 Cup" and not card.components
    assert card.embeds[0].footer.text == "Sign-up closed: the tournament is running."
    assert "Join" not in card.embeds[0].description
    assert "/tournament join" not in card.embeds[0].description


# ---------------------------------------------------------------------- Swiss
async def test_six_entrant_swiss_with_no_show_drop_and_restart(simcord_env, bot_settings) -> None:
    env = simcord_env
    guild = env.create_guild("Club")
    anyone_may_organise(env, guild)
    channel = guild.create_text_channel("swiss")
    org = guild.add_member(env.create_user("org"))
    players = {n: guild.add_member(env.create_user(f"p{n}")) for n in range(1, 7)}
    p = players
    env.bot.lobbies.new_seed = lambda: 3

    created = await org.slash(
        channel, "tournament-admin create", name="Swiss Open", format="swiss", sequences_to_win=1
    )
    for n in range(1, 7):
        assert (await p[n].click(created.response, label="Join")).acknowledged
    refused = await p[1].slash(channel, "tournament-admin start")
    assert refused.ephemeral and "Only the organiser" in refused.response.content
    await org.slash(channel, "tournament-admin start")
    snap = await snapshot(env.bot, channel)
    assert snap.settings.rounds == 3  # automatic: ceil(log2 6)
    assert pairings(snap, 1) == [("p1", "p2"), ("p3", "p4"), ("p5", "p6")]

    # round 1: p2 and p6 win their games; p4 never checks in and forfeits to p3
    await scripted_win(env, guild, channel, match_of(snap, 1, "p1"), [p[2]], [p[1]])
    await scripted_win(env, guild, channel, match_of(snap, 1, "p5"), [p[6]], [p[5]])
    no_show = match_of(snap, 1, "p3")
    await check_in(channel, no_show, [p[3]])
    await env.advance_time(SHOW_UP - 60)
    assert (await snapshot(env.bot, channel)).tournament.round == 1
    await env.advance_time(61)
    snap = await snapshot(env.bot, channel)
    decided = next(m for m in snap.matches if m.id == no_show.id)
    assert (decided.outcome, snap.name(decided.winner)) == ("forfeit", "p3")
    assert "p3** beat p4 by forfeit" in thread_of(channel, no_show).last_message.content
    assert env.bot.db and await env.bot.db.lobbies.get_for_channel(no_show.thread_id) is None

    # round 2 (2, 3, 6 on a point): p2 v p3, p6 v p1, p4 v p5; p4 is dropped: p5 wins
    assert pairings(snap, 2) == [("p2", "p3"), ("p6", "p1"), ("p4", "p5")]
    standings_after_1 = next(
        m for m in channel.history() if m.embeds and "after round 1" in m.embeds[0].title
    )
    assert standings_rows(standings_after_1.embeds[0])[0].startswith("1. p2 · 1 pts")
    dropped = await org.slash(channel, "tournament-admin drop", player=p[4])
    assert announced(channel, dropped) and "p4 was dropped" in dropped.response.content
    await scripted_win(env, guild, channel, match_of(snap, 2, "p2"), [p[3]], [p[2]])
    await scripted_win(env, guild, channel, match_of(snap, 2, "p6"), [p[1]], [p[6]])
    snap = await snapshot(env.bot, channel)
    assert [m.outcome for m in snap.round_matches(2)] == ["win", "win", "forfeit"]

    # round 3 (p3 on 2; p1, p2, p5, p6 on 1; p4 out): p6 has the bye, p3 v p1, p2 v p5
    assert pairings(snap, 3) == [("p3", "p1"), ("p2", "p5"), ("p6", None)]

    # a restart between rounds: the tournament, its threads, buttons and clocks carry on
    await env.bot.close()
    await env.restart_bot(create_bot(bot_settings))
    env.bot.lobbies.new_seed = lambda: 4
    await env.settle()
    pending = {m.id for m in snap.round_matches(3) if m.status == "pending"}
    assert env.bot.get_cog("TournamentTables").deadlines == pending
    assert all(("show-up", match_id) in env.bot.scheduler for match_id in pending)
    await scripted_win(env, guild, channel, match_of(snap, 3, "p3"), [p[1]], [p[3]])
    await scripted_win(env, guild, channel, match_of(snap, 3, "p2"), [p[5]], [p[2]])

    # final standings by hand (tests/test_tournament_logic.py works them out):
    # p1, p6, p3, p5 on 2 points; Buchholz 5, 4, 3, 3; p3 before p5 on seed; p2 1; p4 0.
    snap = await snapshot(env.bot, channel)
    assert snap.tournament.status == "finished"
    final = channel.last_message
    assert "champion, **p1**" in final.content
    expected = [
        "1. p1 · 2 pts · 2W 0D 1L · Buchholz 5",
        "2. p6 · 2 pts · 2W 0D 1L · Buchholz 4",
        "3. p3 · 2 pts · 2W 0D 1L · Buchholz 3",
        "4. p5 · 2 pts · 2W 0D 1L · Buchholz 3",
        "5. p2 · 1 pts · 1W 0D 2L · Buchholz 6",
        "6. p4 (dropped) · 0 pts · 0W 0D 2L · Buchholz 4",
    ]
    assert standings_rows(final.embeds[0]) == expected
    asked = await p[4].slash(thread_of(channel, match_of(snap, 3, "p3")), "tournament standings")
    assert standings_rows(asked.response.embeds[0]) == expected
    assert not asked.response.attachments  # no bracket outside knockouts
    # six rated games; the forfeits left ratings alone
    results = await env.bot.db.results.for_guild(guild.id)
    assert len(results) == 6 and all(r.rated for r in results)
    book = await env.bot.ratings.book(guild.id)
    assert p[4].id not in book.ratings


async def report_round(env: Any, channel: Any, org: Any, number: int, results: dict) -> Any:
    """The organiser reports round ``number`` by hand: ``results`` maps a player of each match
    to the winner (a member) or None (a draw). Returns the snapshot after it."""
    snap = await snapshot(env.bot, channel)
    for player, winner in results.items():
        match = match_of(snap, number, player)
        if winner is None:
            done = await org.slash(channel, "tournament-admin report", match=match.id, draw=True)
        else:
            done = await org.slash(
                channel, "tournament-admin report", match=match.id, winner=winner
            )
        assert announced(channel, done), done.response.content
    return await snapshot(env.bot, channel)


async def test_a_swiss_round_that_needs_a_rematch_has_only_one(simcord_env) -> None:
    """Six entrants, four rounds: after round 3 no round 4 avoids every rematch. The pairing
    used to give up on the history and pair top-down, so round 4 replayed round 2 game for
    game (p3 v p1, p5 v p2, p6 v p4); one rematch is enough."""
    env = simcord_env
    names = ["org", "p1", "p2", "p3", "p4", "p5", "p6"]
    channel, members = await started_cup(env, names, "swiss", organiser_plays=False, rounds=4)
    org, p = members[0], dict(zip(names, members, strict=True))
    await report_round(env, channel, org, 1, {"p1": p["p1"], "p3": p["p3"], "p5": p["p5"]})
    snap = await report_round(env, channel, org, 2, {"p1": p["p3"], "p5": p["p5"], "p4": p["p6"]})
    assert pairings(snap, 3) == [("p3", "p5"), ("p1", "p6"), ("p2", "p4")]
    snap = await report_round(env, channel, org, 3, {"p3": p["p3"], "p1": p["p1"], "p2": p["p2"]})
    met = {frozenset(pair) for n in (1, 2, 3) for pair in pairings(snap, n)}
    rematches = [pair for pair in pairings(snap, 4) if frozenset(pair) in met]
    assert len(rematches) == 1, pairings(snap, 4)
    assert pairings(snap, 4) == [("p3", "p1"), ("p5", "p4"), ("p2", "p6")]


async def test_a_swiss_bye_never_goes_twice_to_one_entrant_while_others_had_none(
    simcord_env,
) -> None:
    """Five entrants, four rounds, with draws: after round 3, p5 (a bye in round 1) used to
    sit out again in round 4, a second free point, while p4, last and never given a bye,
    played the leader. The bye goes to p4; p1 v p2 is replayed instead."""
    env = simcord_env
    names = ["org", "p1", "p2", "p3", "p4", "p5"]
    channel, members = await started_cup(env, names, "swiss", organiser_plays=False, rounds=4)
    org, p = members[0], dict(zip(names, members, strict=True))
    snap = await snapshot(env.bot, channel)
    assert pairings(snap, 1) == [("p1", "p2"), ("p3", "p4"), ("p5", None)]
    snap = await report_round(env, channel, org, 1, {"p1": p["p1"], "p3": None})
    assert pairings(snap, 2) == [("p1", "p3"), ("p5", "p4"), ("p2", None)]
    snap = await report_round(env, channel, org, 2, {"p1": p["p1"], "p5": None})
    assert pairings(snap, 3) == [("p1", "p5"), ("p2", "p4"), ("p3", None)]
    snap = await report_round(env, channel, org, 3, {"p1": p["p1"], "p2": p["p2"]})
    byes = [pair[0] for n in (1, 2, 3, 4) for pair in pairings(snap, n) if pair[1] is None]
    assert byes == ["p5", "p2", "p3", "p4"], pairings(snap, 4)
    assert pairings(snap, 4) == [("p1", "p2"), ("p3", "p5"), ("p4", None)]


# ---------------------------------------------------------------------- round robin of teams
async def test_round_robin_of_teams_with_results_by_hand(simcord_env) -> None:
    env = simcord_env
    guild = env.create_guild("Club")
    anyone_may_organise(env, guild)
    channel = guild.create_text_channel("teams")
    org = guild.add_member(env.create_user("org"))
    admins = guild.create_role("Admins", permissions=discord.Permissions(manage_guild=True))
    mod = guild.add_member(env.create_user("mod"), roles=[admins])
    a1, a2, b1, b2, c1, c2 = (
        guild.add_member(env.create_user(n)) for n in ("a1", "a2", "b1", "b2", "c1", "c2")
    )
    env.bot.lobbies.new_seed = lambda: 8

    created = await org.slash(
        channel, "tournament-admin create", name="Pairs", format="round_robin", team_size=2
    )
    solo = await a1.click(created.response, label="Join")
    assert solo.ephemeral and "name your partner" in solo.response.content
    missing = await a1.slash(channel, "tournament join")
    assert missing.ephemeral and "teams of 2" in missing.response.content
    # a2 did not sign up themselves: the channel tells them, with a ping, how to withdraw
    joined = await a1.slash(channel, "tournament join", partner=a2)
    assert not joined.ephemeral and joined.response.content == (
        f"✅ a1 & a2 signed up. <@{a2.id}>: a1 named you as partner. Not your team? Press "
        "**Leave** on the sign-up card."
    )
    posted = next(m for m in channel.history() if m.id == joined.response.id)
    assert [u.id for u in posted.mentions] == [a2.id]
    taken = await b1.slash(channel, "tournament join", partner=a2)
    assert taken.ephemeral and f"<@{a2.id}> is already signed up" in taken.response.content
    await b1.slash(channel, "tournament join", partner=b2)
    await c1.slash(channel, "tournament join", partner=b1)  # refused: b1 is taken
    left = await b2.slash(channel, "tournament leave")  # any member withdraws the team
    assert "b1 & b2 withdrew" in left.response.content
    await b1.slash(channel, "tournament join", partner=b2)
    await c1.slash(channel, "tournament join", partner=c2)
    await org.slash(channel, "tournament-admin start")
    snap = await snapshot(env.bot, channel)
    # circle method over seeds a, b, c: b v c and a's bye; a v c, b's bye; a v b, c's bye
    assert pairings(snap, 1) == [("b1 & b2", "c1 & c2"), ("a1 & a2", None)]

    # the 2 v 2 game is seated by team, alternating; c1 & c2 resign
    match = match_of(snap, 1, "b1 & b2")
    await check_in(channel, match, [b1, c1, b2, c2])
    record = game_in(env.bot, match)
    assert [s.user_id for s in record.seats] == [b1.id, c1.id, b2.id, c2.id]
    await resign(thread_of(channel, match), [c1, c2])
    snap = await snapshot(env.bot, channel)
    assert pairings(snap, 2) == [("a1 & a2", "c1 & c2"), ("b1 & b2", None)]

    # someone with Manage Server reports a draw by hand: the seated lobby closes
    match = match_of(snap, 2, "a1 & a2")
    drawn = await mod.slash(channel, "tournament-admin report", match=match.id, draw=True)
    assert announced(channel, drawn)
    assert await env.bot.db.lobbies.get_for_channel(match.thread_id) is None
    snap = await snapshot(env.bot, channel)
    assert pairings(snap, 3) == [("a1 & a2", "b1 & b2"), ("c1 & c2", None)]
    choices = await org.autocomplete(channel, "tournament-admin report", "match", "")
    assert [c["value"] for c in choices] == [match_of(snap, 3, "a1 & a2").id]

    # the organiser ends it before round 3 is played: final standings as they stand
    ended = await org.slash(channel, "tournament-admin end")
    assert announced(channel, ended)
    final = channel.last_message
    assert standings_rows(final.embeds[0]) == [
        "1. b1 & b2 · 2 pts · 2W 0D 0L · Head-to-head 0",
        "2. a1 & a2 · 1.5 pts · 1W 1D 0L · Head-to-head 0",
        "3. c1 & c2 · 0.5 pts · 0W 1D 1L · Head-to-head 0",
    ]
    assert (await snapshot(env.bot, channel)).tournament.status == "finished"
    shown = await a1.slash(channel, "tournament standings")  # still readable afterwards
    assert standings_rows(shown.response.embeds[0]) == standings_rows(final.embeds[0])
    again = await a1.slash(channel, "tournament join", partner=a2)
    assert again.ephemeral and "no tournament in this channel" in again.response.content


# ---------------------------------------------------------------------- guards and no-shows
async def test_matches_are_played_as_drawn_and_a_double_no_show_advances_nobody(
    simcord_env,
) -> None:
    env = simcord_env
    guild = env.create_guild("Club")
    anyone_may_organise(env, guild)
    channel = guild.create_text_channel("cup")
    ann, ben, cat = (guild.add_member(env.create_user(n)) for n in ("ann", "ben", "cat"))
    env.bot.lobbies.new_seed = lambda: 2
    created = await ann.slash(
        channel, "tournament-admin create", name="Mini Cup", format="elimination", show_up="10m"
    )
    for player in (ann, ben, cat):
        await player.click(created.response, label="Join")
    await ann.slash(channel, "tournament-admin start")
    snap = await snapshot(env.bot, channel)
    # 3 entrants in 4 places: ann (seed 1) has a bye, ben plays cat
    assert pairings(snap, 1) == [("ann", None), ("ben", "cat")]
    match = match_of(snap, 1, "ben")
    thread = thread_of(channel, match)

    # the host cannot seat computers in a match's lobby; one seated so (by an older release)
    # is not the match as drawn: its game is stopped
    refused = await ben.slash(thread, "sequence addbot", level="easy")
    assert refused.ephemeral and "tournament match" in refused.response.content
    lobby = await env.bot.db.lobbies.get_for_channel(thread.id)
    lobby.seats += [Seat(-n, f"Bot {n} (easy bot)", None, "easy") for n in (1, 2)]
    await env.bot.db.lobbies.save(lobby)
    started = await ben.slash(thread, "sequence start")
    assert not started.ephemeral
    assert env.bot.games.find_in_channel(thread.id) is None
    assert any("played by the teams as drawn" in (m.content or "") for m in thread.history())
    snap = await snapshot(env.bot, channel)
    match = match_of(snap, 1, "ben")
    assert match.status == "pending" and match.game_id is None
    lobby = await env.bot.db.lobbies.get_for_channel(thread.id)
    assert [s.user_id for s in lobby.seats] == [ben.id, cat.id]  # seated again

    # the game's host is a player: cancelling would have the match replayed, so only the
    # organiser may (a side that gives up resigns)
    await check_in(channel, match, [ben, cat])
    record = game_in(env.bot, match)
    refused = await ben.slash(thread, "sequence cancel")
    assert refused.ephemeral and "Only the organiser" in refused.response.content
    assert "/sequence resign" in refused.response.content
    assert env.bot.games.find_in_channel(thread.id) is not None

    # a game cancelled by the organiser is played again from a fresh lobby
    cancelled = await ann.slash(thread, "sequence cancel")
    assert not cancelled.ephemeral
    assert "played again" in thread.history()[-3].content
    snap = await snapshot(env.bot, channel)
    match = match_of(snap, 1, "ben")
    assert match.status == "pending" and await env.bot.db.results.get(record.id) is None

    # nobody checks in this time: a double forfeit, so ann has a walkover in the final
    await env.advance_time(10 * 60 + 1)
    snap = await snapshot(env.bot, channel)
    assert [m.outcome for m in snap.round_matches(1)] == ["bye", "double_forfeit"]
    assert snap.tournament.status == "finished"
    assert pairings(snap, 2) == [("ann", None)]
    final = channel.last_message
    assert "champion, **ann**" in final.content
    assert standings_rows(final.embeds[0]) == [
        "1. ann · 🥇 champion",
        "2. ben · out in semi-finals",
        "3. cat · out in semi-finals",
    ]


async def test_a_dropped_entrant_never_advances_on_a_bye(simcord_env) -> None:
    env = simcord_env
    channel, (ann, *_) = await started_cup(env, ["ann", "ben", "cat", "dan"])
    snap = await snapshot(env.bot, channel)
    assert pairings(snap, 1) == [("ann", "dan"), ("ben", "cat")]
    # ann wins her semi-final, then withdraws; ben and cat never show up
    first = match_of(snap, 1, "ann")
    await ann.slash(channel, "tournament-admin report", match=first.id, winner=ann)
    dropped = await ann.slash(channel, "tournament-admin drop", player=ann)
    assert announced(channel, dropped), dropped.response.content
    await env.advance_time(SHOW_UP + 1)
    snap = await snapshot(env.bot, channel)
    assert snap.tournament.status == "finished"
    assert snap.champion() is None
    assert all(m.entrant_a != first.entrant_a for m in snap.round_matches(2))
    final = channel.last_message
    assert "champion" not in final.content
    assert "🥇" not in final.embeds[0].description, standings_rows(final.embeds[0])


async def knockout_after_round_one(env: Any) -> tuple[Any, list[Any]]:
    """An 8-entrant knockout (ann to hal) whose quarter-finals ann, ben, cat and dan won, as
    the organiser (ann) reported them: its channel and members."""
    names = ["ann", "ben", "cat", "dan", "eve", "fay", "gus", "hal"]
    channel, members = await started_cup(env, names)
    by_id = {m.id: m for m in members}
    snap = await snapshot(env.bot, channel)
    for match in snap.round_matches(1):
        winner = by_id[snap.entrants[match.entrant_a].user_ids[0]]
        await members[0].slash(channel, "tournament-admin report", match=match.id, winner=winner)
    return channel, members


async def test_knockout_standings_never_say_an_entrant_still_in_is_out(simcord_env) -> None:
    """An 8-entrant knockout after its first round: the standings posted in the channel and
    /tournament standings show the four winners in the semi-finals, not out of them."""
    channel, members = await knockout_after_round_one(simcord_env)
    expected = [
        "1. ann · in semi-finals",
        "2. ben · in semi-finals",
        "3. cat · in semi-finals",
        "4. dan · in semi-finals",
        "5. eve · out in quarter-finals",
        "6. fay · out in quarter-finals",
        "7. gus · out in quarter-finals",
        "8. hal · out in quarter-finals",
    ]
    posted = next(m for m in channel.history() if m.embeds and "after round 1" in m.embeds[0].title)
    assert standings_rows(posted.embeds[0]) == expected
    shown = await members[7].slash(channel, "tournament standings")
    assert standings_rows(shown.response.embeds[0]) == expected
    alt = shown.response.attachments[0].description
    assert "no champion yet.\nFinal: no one yet.\n" in alt
    assert "\nSemi-finals: ann against dan; ben against cat.\n" in alt
    assert "\nQuarter-finals: ann beat hal (reported); dan beat eve (reported); " in alt


async def test_a_knockout_ended_early_never_says_an_unbeaten_entrant_is_out(simcord_env) -> None:
    """The organiser ends an 8-entrant knockout during its semi-finals: the final standings
    said the four semi-finalists, who never lost (their semi-finals were called off), were
    "out in semi-finals", as the two losers of a played semi-final are. They reached them."""
    channel, members = await knockout_after_round_one(simcord_env)
    ended = await members[0].slash(channel, "tournament-admin end")
    assert announced(channel, ended), ended.response.content
    expected = [
        "1. ann · reached semi-finals",
        "2. ben · reached semi-finals",
        "3. cat · reached semi-finals",
        "4. dan · reached semi-finals",
        "5. eve · out in quarter-finals",
        "6. fay · out in quarter-finals",
        "7. gus · out in quarter-finals",
        "8. hal · out in quarter-finals",
    ]
    assert standings_rows(channel.last_message.embeds[0]) == expected
    shown = await members[7].slash(channel, "tournament standings")
    assert standings_rows(shown.response.embeds[0]) == expected


async def test_a_dropped_leader_is_not_crowned(simcord_env) -> None:
    """ann leads the Swiss on 2 points, then withdraws (dropped); the organiser ends it: the
    final standings still list her first, marked dropped, but the champion is ben, the leader
    of those still in (it used to congratulate ann)."""
    env = simcord_env
    channel, (ann, ben, cat, dan) = await started_cup(env, ["ann", "ben", "cat", "dan"], "swiss")
    by_name = {m.user.name: m for m in (ann, ben, cat, dan)}
    snap = await snapshot(env.bot, channel)
    for match in snap.round_matches(1):  # the better seed wins each
        winner = by_name[snap.name(match.entrant_a)]
        await ann.slash(channel, "tournament-admin report", match=match.id, winner=winner)
    snap = await snapshot(env.bot, channel)
    top = match_of(snap, 2, "ann")
    other = top.entrant_b if snap.name(top.entrant_a) == "ann" else top.entrant_a
    opponent = by_name[snap.name(other)]
    await ann.slash(channel, "tournament-admin report", match=top.id, winner=ann)
    await ann.slash(channel, "tournament-admin drop", player=ann)
    await ann.slash(channel, "tournament-admin end")
    snap = await snapshot(env.bot, channel)
    final = channel.last_message
    rows = standings_rows(final.embeds[0])
    assert rows[0].startswith("1. ann (dropped) · 2 pts"), rows
    assert snap.name(snap.champion()) == opponent.user.name == rows[1].split(" · ")[0][3:]
    assert f"champion, **{opponent.user.name}**" in final.content, final.content


async def test_the_matches_an_end_calls_off_say_so_and_keep_no_check_in(simcord_env) -> None:
    """The organiser ends a Swiss during round 1: one match waits for its players, the other
    is being played. The waiting match's thread said "This match was decided without a game."
    and kept its I'm here button (pressed: "This match is already decided."); the game's
    thread said it "was stopped: its tournament match was decided". Neither was decided:
    both threads now say the tournament ended, and no I'm here is left."""
    env = simcord_env
    names = ["org", "ann", "ben", "cat", "dan"]
    channel, (org, *players) = await started_cup(env, names, "swiss", organiser_plays=False)
    snap = await snapshot(env.bot, channel)
    waiting, played = snap.round_matches(1)
    drawn = {u for e in played.sides for u in snap.entrants[e].user_ids}
    await check_in(channel, played, [p for p in players if p.id in drawn])
    record = game_in(env.bot, played)
    await check_in(channel, waiting, [p for p in players if p.id not in drawn][:1])
    ended = await org.slash(channel, "tournament-admin end")
    assert announced(channel, ended), ended.response.content
    texts = {m.id: [x.content for x in thread_of(channel, m).history()] for m in (waiting, played)}
    assert "🛑 This match is off: the tournament ended." in texts[waiting.id], texts[waiting.id]
    assert f"🛑 Game #{record.id} was stopped: the tournament ended." in texts[played.id]
    assert not [t for m in texts.values() for t in m if "decided" in t], texts
    assert not match_message(channel, waiting).components
    assert not env.bot.get_cog("TournamentTables").deadlines  # no show-up clock left
    late = next(p for p in players if p.id not in drawn and p.id not in waiting.checkins)
    with pytest.raises(UserError, match=r"^This match is off: the tournament ended\.$"):
        await env.bot.tournament_service.check_in(waiting.id, late.id)  # a click as it ended


async def test_a_tournament_ended_before_any_result_crowns_no_champion(simcord_env) -> None:
    """The organiser ends a Swiss before any match is decided: nobody has played, so the final
    message congratulates no one (it used to name the top seed champion on 0 points)."""
    env = simcord_env
    channel, (ann, *_) = await started_cup(env, ["ann", "ben", "cat", "dan"], "swiss")
    ended = await ann.slash(channel, "tournament-admin end")
    assert announced(channel, ended), ended.response.content
    final = channel.last_message
    assert final.content == "🎉 **Cup** is over.", final.content
    assert standings_rows(final.embeds[0])[0] == "1. ann · 0 pts · 0W 0D 0L · Buchholz 0"
    assert (await snapshot(env.bot, channel)).champion() is None


async def test_a_dropped_entrant_scores_no_round_robin_bye(simcord_env) -> None:
    env = simcord_env
    channel, (org, _, ben, cat) = await started_cup(
        env, ["org", "ann", "ben", "cat"], "round_robin", organiser_plays=False
    )
    snap = await snapshot(env.bot, channel)
    # circle method over ann, ben, cat: ben v cat and ann's bye; ann v cat, ben's bye; ...
    assert pairings(snap, 1) == [("ben", "cat"), ("ann", None)]
    await org.slash(channel, "tournament-admin drop", player=cat)  # ben wins by forfeit
    snap = await snapshot(env.bot, channel)
    assert pairings(snap, 2) == [("ann", "cat"), ("ben", None)]  # ann wins by forfeit
    snap = await snapshot(env.bot, channel)
    match = match_of(snap, 3, "ann")
    await org.slash(channel, "tournament-admin report", match=match.id, winner=ben)
    snap = await snapshot(env.bot, channel)
    assert snap.tournament.status == "finished"
    rows = standings_rows(channel.last_message.embeds[0])
    assert rows[-1].startswith("3. cat (dropped) · 0 pts · 0W 0D 2L"), rows


async def test_a_match_lobby_outlives_a_shorter_lobby_expiry_across_a_restart(
    simcord_env, bot_settings
) -> None:
    env = simcord_env
    channel, (ann, ben) = await started_cup(env, ["ann", "ben"], show_up="2h")
    (match,) = (await snapshot(env.bot, channel)).round_matches(1)
    # the bot restarts with casual lobbies closing after an hour: the match has two hours
    await env.bot.close()
    await env.restart_bot(create_bot(bot_settings.with_overrides(lobby_expiry=3600)))
    await env.settle()
    await env.advance_time(3600 + 60)
    assert not any("expired" in (m.content or "") for m in thread_of(channel, match).history())
    await check_in(channel, match, [ann, ben])
    assert game_in(env.bot, match).game.settings.teams == 2


async def test_a_large_tournament_posts_every_pairing_and_lists_every_entrant(
    simcord_env,
) -> None:
    """90 entrants: the sign-up card lists whole lines and says how many more there are, and
    the round's 45 pairings reach the channel (one message would pass Discord's 2,000
    characters: Discord refuses it)."""
    env = simcord_env
    guild = env.create_guild("Club")
    anyone_may_organise(env, guild)
    channel = guild.create_text_channel("big-cup")
    people = [guild.add_member(env.create_user(f"player{n:02d}")) for n in range(90)]
    created = await people[0].slash(
        channel, "tournament-admin create", name="Big Cup", format="swiss"
    )
    for person in people:
        await person.click(created.response, label="Join")
    card = next(m for m in channel.history() if m.id == created.response.id)
    field = next(f for f in card.embeds[0].fields if f.name == "Entrants (90 of 128)")
    listed = field.value.split("\n")
    assert len(field.value) <= 1024
    assert listed[-1] == f"… and {90 - len(listed) + 1} more"
    assert listed[:-1] == [f"{n + 1}. player{n:02d}" for n in range(len(listed) - 1)]
    await people[0].slash(channel, "tournament-admin start")
    posted = "\n".join(m.content for m in channel.history())
    snap = await snapshot(env.bot, channel)
    for match in snap.round_matches(1):
        a, b = (mentions_of(snap, e) for e in (match.entrant_a, match.entrant_b))
        assert f"• #{match.id} · {a} v {b}" in posted, (a, b)
    assert all(len(m.content) <= 2000 for m in channel.history())
    # the standings list the round's 45 matches as far as an embed's 6,000 characters allow
    embed = (await people[1].slash(channel, "tournament standings")).response.embeds[0]
    assert len(embed) <= 6000 and all(len(f.value) <= 1024 for f in embed.fields)
    shown = [line for f in embed.fields for line in f.value.split("\n")]
    assert shown[-1] == f"… and {45 - len(shown) + 1} more", shown[-1]


def mentions_of(snap: Any, entrant: int) -> str:
    """An entrant's members as mentions, as the pairings name them."""
    return " ".join(f"<@{user}>" for user in snap.entrants[entrant].user_ids)


async def test_a_deleted_match_thread_leaves_the_match_to_the_organiser(simcord_env) -> None:
    """An admin deletes a match's thread mid-game: the match is not replayed in the thread
    that is gone (both sides would then forfeit at the show-up time); the organiser reports."""
    env = simcord_env
    channel, (ann, ben) = await started_cup(env, ["ann", "ben"])
    (match,) = (await snapshot(env.bot, channel)).round_matches(1)
    await check_in(channel, match, [ann, ben])
    record = game_in(env.bot, match)
    env.backend.delete_channel(match.thread_id)
    await env.settle()
    await env.advance_time(SHOW_UP + 60)
    (after,) = (await snapshot(env.bot, channel)).round_matches(1)
    assert after.status != "done" and env.bot.games.records.get(record.id) is not None
    reported = await ann.slash(channel, "tournament-admin report", match=match.id, winner=ben)
    assert announced(channel, reported), reported.response.content
    snap = await snapshot(env.bot, channel)
    assert snap.tournament.status == "finished" and snap.name(snap.champion()) == "ben"


@pytest.mark.parametrize("when", ["before its game", "during its game"])
async def test_the_organiser_is_told_when_a_match_thread_is_deleted(simcord_env, when) -> None:
    """A moderator deletes a match's thread. Nobody was told: before the game, the show-up
    time then ran out and ben, who could no longer press I'm here, lost by forfeit (both
    sides, had neither checked in); during it, the match waited for a report nobody knew was
    needed. Now the show-up clock stops and the organiser is pinged in the tournament's
    channel to report the result."""
    env = simcord_env
    channel, (org, ann, ben) = await started_cup(env, ["org", "ann", "ben"], organiser_plays=False)
    (match,) = (await snapshot(env.bot, channel)).round_matches(1)
    await check_in(channel, match, [ann] if when == "before its game" else [ann, ben])
    env.backend.delete_channel(match.thread_id)
    await env.settle()
    told = channel.last_message
    assert f"<@{org.id}>" in told.content and "/tournament-admin report" in told.content, (
        told.content
    )
    assert "ann v ben" in told.content and "deleted" in told.content
    assert [u.id for u in told.mentions] == [org.id]
    await env.advance_time(SHOW_UP + 60)
    (after,) = (await snapshot(env.bot, channel)).round_matches(1)
    assert after.status != "done", after.outcome  # nobody forfeits a thread they cannot reach
    reported = await org.slash(channel, "tournament-admin report", match=match.id, winner=ben)
    assert announced(channel, reported), reported.response.content
    snap = await snapshot(env.bot, channel)
    assert snap.tournament.status == "finished" and snap.name(snap.champion()) == "ben"


@pytest.mark.parametrize("when", ["before its game", "during its game"])
async def test_the_organiser_is_told_of_a_match_thread_deleted_while_the_bot_was_down(
    simcord_env, bot_settings, when
) -> None:
    """A match's thread is deleted while the bot is down: Discord sends no deletion, so
    nobody was told, and (before the game) the show-up time ran out and the side that could
    no longer press I'm here lost by forfeit. Now, once the bot is ready, a thread Discord no
    longer knows is gone as on a live deletion: the clock stops and the organiser is pinged.
    Another match's archived thread, which Discord still knows, is left alone."""
    env = simcord_env
    names = ["org", "ann", "ben", "cat", "dan"]
    channel, (org, ann, *others) = await started_cup(env, names, organiser_plays=False)
    snap = await snapshot(env.bot, channel)
    gone, kept = match_of(snap, 1, "ann"), match_of(snap, 1, "ben")
    (rival,) = [p for p in others if p.id in snap.entrants[gone.entrant_b].user_ids]
    await check_in(channel, gone, [ann] if when == "before its game" else [ann, rival])
    env.backend.edit_channel(kept.thread_id, {}, thread_metadata={"archived": True})
    await env.bot.close()
    env.backend.delete_channel(gone.thread_id)
    await env.restart_bot(create_bot(bot_settings))
    await env.settle()
    told = [m for m in channel.history() if "/tournament-admin report" in m.content]
    assert len(told) == 1, [m.content for m in told]
    (told,) = told
    assert told.content.startswith(f"⚠️ The thread of ann v {rival.user.name}")
    assert "was deleted" in told.content and [u.id for u in told.mentions] == [org.id]
    await env.advance_time(SHOW_UP + 60)
    after = {m.id: m for m in (await snapshot(env.bot, channel)).round_matches(1)}
    assert after[gone.id].status != "done", after[gone.id].outcome
    assert after[kept.id].outcome == "double_forfeit"  # its clock ran as ever


async def test_the_organiser_is_asked_once_about_a_deleted_match_thread(
    simcord_env, bot_settings
) -> None:
    """A match's thread is deleted; the bot restarts twice (each a new session whose start
    looks for places gone). Before, the organiser was pinged again about the same thread at
    every start: 3 pings after 2 restarts."""
    env = simcord_env
    channel, (org, *_) = await started_cup(env, ["org", "ann", "ben"], organiser_plays=False)
    (match,) = (await snapshot(env.bot, channel)).round_matches(1)
    env.backend.delete_channel(match.thread_id)
    await env.settle()
    for _ in range(2):
        await env.bot.close()
        await env.restart_bot(create_bot(bot_settings))
        await env.settle()
    told = [m for m in channel.history() if "was deleted" in m.content]
    assert len(told) == 1, [m.content for m in told]
    assert [u.id for u in told[0].mentions] == [org.id]


async def test_a_tournament_whose_channel_was_deleted_while_the_bot_was_down_ends(
    simcord_env, bot_settings
) -> None:
    """A running tournament's channel is deleted while the bot is down: Discord sends no
    deletion, so it stayed running for ever (nobody could report or end it there), counting
    against its organiser's and the server's tournaments. Now, once the bot is ready, it ends
    as on a live deletion."""
    env = simcord_env
    channel, _ = await started_cup(env, ["ann", "ben"])
    cup = (await snapshot(env.bot, channel)).tournament
    await env.bot.close()
    env.backend.delete_channel(channel.id)
    await env.restart_bot(create_bot(bot_settings))
    await env.settle()
    ended = await env.bot.db.tournaments.get(cup.id)
    assert ended is not None and ended.status == "finished"


async def test_an_entrants_name_with_a_mention_and_markdown_is_shown_as_typed(simcord_env):
    """An entrant whose display name holds another member's mention and markdown wins a
    knockout: the entrants list, the result, the standings and the champion's announcement name
    them as typed, and ping and show no one else."""
    env = simcord_env
    guild = env.create_guild("Club")
    anyone_may_organise(env, guild)
    channel = guild.create_text_channel("cup")
    carol = guild.add_member(env.create_user("carol"))
    hostile = f"<@{carol.id}> **x"
    ann = guild.add_member(env.create_user("ann", global_name=hostile))
    ben = guild.add_member(env.create_user("ben"))
    env.bot.lobbies.new_seed = lambda: 11
    created = await ann.slash(channel, "tournament-admin create", name="Cup", format="elimination")
    await ann.click(created.response, label="Join")
    await ben.click(created.response, label="Join")
    await ann.slash(channel, "tournament-admin start")
    (final,) = (await snapshot(env.bot, channel)).round_matches(1)
    await scripted_win(env, guild, channel, final, [ann], [ben])
    assert (await snapshot(env.bot, channel)).tournament.status == "finished"
    messages = [*channel.history(), *thread_of(channel, final).history()]
    texts = [
        "\n".join([m.content, *(str(e.to_dict()) for e in m.embeds)])
        for m in messages
        if m.type != discord.MessageType.thread_created  # its text is the thread's plain name
    ]
    assert "champion" in channel.last_message.content
    assert not [text for text in texts if f"<@{carol.id}>" in text]
    shown = discord.utils.escape_markdown(discord.utils.escape_mentions(hostile))
    assert f"**{shown}**" in channel.last_message.content


async def test_a_tournament_name_cannot_mention_anyone(simcord_env) -> None:
    """The name is in every match message, which pings the match's players: a mention in it
    would ping someone else in every thread."""
    env = simcord_env
    guild = env.create_guild("Club")
    anyone_may_organise(env, guild)
    channel = guild.create_text_channel("cup")
    ann = guild.add_member(env.create_user("ann"))
    for name in (f"<@{ann.id}> Cup", "Cup @everyone", "<@&123> Cup", "@here"):
        refused = await ann.slash(channel, "tournament-admin create", name=name, format="swiss")
        assert refused.ephemeral and "cannot mention anyone" in refused.response.content, name
    created = await ann.slash(
        channel, "tournament-admin create", name="Ann's @ Cup", format="swiss"
    )
    assert not created.ephemeral, created.response.content


async def test_a_tournament_name_with_a_link_and_markdown_is_shown_as_typed(simcord_env) -> None:
    """Any member may name a tournament, and its name is in the start announcement, the
    pairings, each match's lobby title and its match message (which pings the players): a
    masked link, a spoiler or bold in it is shown as typed, never as a link the bot posts."""
    env = simcord_env
    guild = env.create_guild("Club")
    anyone_may_organise(env, guild)
    channel = guild.create_text_channel("cup")
    ann, ben = (guild.add_member(env.create_user(n)) for n in ("ann", "ben"))
    name = "[Free prizes](https://example.com) ||**Cup**||"
    created = await ann.slash(channel, "tournament-admin create", name=name, format="elimination")
    for member in (ann, ben):
        await member.click(created.response, label="Join")
    started = await ann.slash(channel, "tournament-admin start")
    (match,) = (await snapshot(env.bot, channel)).round_matches(1)
    ended = await ann.slash(channel, "tournament-admin end")
    contents = [
        m.content
        for m in [*channel.history(), *thread_of(channel, match).history()]
        if m.type != discord.MessageType.thread_created  # its text is the thread's plain name
    ]
    shown = discord.utils.escape_markdown(name)
    assert f"**{shown}**" in started.response.content
    assert f"**{shown}**" in ended.response.content
    assert f"**{shown}** match is ready" in match_message(channel, match).content
    assert any(f"**{shown}: round 1**" in text for text in contents)
    assert not [text for text in contents if name in text]


async def test_organiser_commands_discord_refused_to_answer_still_open_the_matches(
    simcord_env,
) -> None:
    """Discord refuses the answer to /tournament-admin start, then to /tournament-admin report: the
    tournament is saved either way, so its match threads (round 1, then the final) still open,
    rather than waiting for a restart with every match unplayable."""
    env = simcord_env
    guild = env.create_guild("Club")
    anyone_may_organise(env, guild)
    channel = guild.create_text_channel("cup")
    ann, ben, cat, dan = (
        guild.add_member(env.create_user(n)) for n in ("ann", "ben", "cat", "dan")
    )
    created = await ann.slash(channel, "tournament-admin create", name="Cup", format="elimination")
    for member in (ann, ben, cat, dan):
        await member.click(created.response, label="Join")
    env.inject_error("POST", "/interactions/*/callback", status=500)
    await ann.slash(channel, "tournament-admin start")
    snap = await snapshot(env.bot, channel)
    assert snap.tournament.status == "running" and len(channel.threads) == 2
    assert all(m.thread_id and m.message_id for m in snap.round_matches(1))
    assert any("Cup: round 1**" in m.content for m in channel.history())  # the pairings
    first, second = snap.round_matches(1)
    await ann.slash(channel, "tournament-admin report", match=first.id, winner=ann)
    env.inject_error("POST", "/interactions/*/callback", status=500)
    await ann.slash(channel, "tournament-admin report", match=second.id, winner=ben)
    (final,) = (await snapshot(env.bot, channel)).round_matches(2)
    assert final.thread_id and len(channel.threads) == 3
    assert f"<@{ann.id}>" in match_message(channel, final).content


async def test_a_tournament_discord_refused_to_show_can_be_created_again(simcord_env) -> None:
    """Discord refuses the sign-up message of /tournament-admin create: nobody saw it or its Join
    button, so it is not kept open; trying again (as the apology says) opens it."""
    env = simcord_env
    guild = env.create_guild("Club")
    anyone_may_organise(env, guild)
    channel = guild.create_text_channel("cup")
    ann = guild.add_member(env.create_user("ann"))
    env.inject_error("POST", "/interactions/*/callback", status=500)
    await ann.slash(channel, "tournament-admin create", name="Cup", format="swiss")
    assert len(env.errors) == 1  # the refused answer, logged by the error handler
    again = await ann.slash(channel, "tournament-admin create", name="Cup", format="swiss")
    assert not again.ephemeral and again.response.embeds[0].title == "🏆 Cup"
    assert (await ann.click(again.response, label="Join")).acknowledged


async def test_a_tournaments_games_take_the_bots_reminder_and_time_out_policy(
    simcord_env, bot_settings
) -> None:
    """An admin sets REMINDER_DELAY and TIME_LIMIT_POLICY: a tournament's games follow them,
    as casual games do (a tournament has no option of its own for either)."""
    env = simcord_env
    await env.bot.close()
    configured = bot_settings.with_overrides(reminder_delay=3600, time_limit_policy="computer")
    await env.restart_bot(create_bot(configured))
    channel, (ann, ben) = await started_cup(env, ["ann", "ben"], time_limit="2h")
    (match,) = (await snapshot(env.bot, channel)).round_matches(1)
    await check_in(channel, match, [ann, ben])
    record = game_in(env.bot, match)
    seat = record.game.turn
    await env.advance_time(3600 + 5)
    assert any(m.content.startswith("⏰") for m in thread_of(channel, match).history())
    await env.advance_time(3600)
    assert record.game.moves[-1].kind == "play" and record.game.moves[-1].seat == seat


async def test_the_last_check_in_discord_refused_to_answer_still_starts_the_game(
    simcord_env,
) -> None:
    """Discord refuses the answer to the last *I'm here*: the check-in is saved, so the game
    starts all the same, rather than everyone being here and no game ever starting."""
    env = simcord_env
    channel, (ann, ben) = await started_cup(env, ["ann", "ben"])
    (match,) = (await snapshot(env.bot, channel)).round_matches(1)
    await check_in(channel, match, [ann])
    env.inject_error("POST", "/interactions/*/callback", status=500)
    here = await ben.click(match_message(channel, match), label="I'm here")
    assert "The game begins" in here.response.content
    record = game_in(env.bot, match)
    assert not record.game.moves and not match_message(channel, match).components
    (started,) = [m for m in (await snapshot(env.bot, channel)).matches if m.id == match.id]
    assert started.status == "playing" and started.game_id == record.id


@pytest.mark.parametrize(("size", "partners"), [(2, "your partner"), (3, "your 2 partners")])
async def test_the_signup_message_counts_in_words(simcord_env, size, partners) -> None:
    """The sign-up (and a join without partners) said "name your 1 partner(s)" for pairs and
    "1 rounds" for a one-round Swiss: it reads "name your partner" and "1 round"."""
    guild = simcord_env.create_guild("Club")
    anyone_may_organise(simcord_env, guild)
    channel = guild.create_text_channel("cup")
    ann = guild.add_member(simcord_env.create_user("ann"))
    created = await ann.slash(
        channel, "tournament-admin create", name="Cup", format="swiss", rounds=1, team_size=size
    )
    embed = created.response.embeds[0]
    assert f"name {partners}." in embed.description, embed.description
    rules = next(f.value for f in embed.fields if f.name == "Rules")
    assert "1 round" in rules.split("\n") and "(s)" not in embed.description, rules
    alone = await ann.slash(channel, "tournament join")
    assert alone.ephemeral and f"name {partners}." in alone.response.content, alone.response.content


@pytest.mark.parametrize("fmt", ["round_robin", "elimination"])
async def test_rounds_outside_a_swiss_tournament_are_refused(simcord_env, fmt) -> None:
    """rounds is for Swiss only: a round robin or knockout created with rounds:3 opened without
    a word, and its sign-up never said the 3 rounds were dropped. It is refused instead, and
    nothing opens."""
    guild = simcord_env.create_guild("Club")
    anyone_may_organise(simcord_env, guild)
    channel = guild.create_text_channel("cup")
    ann = guild.add_member(simcord_env.create_user("ann"))
    refused = await ann.slash(channel, "tournament-admin create", name="Cup", format=fmt, rounds=3)
    assert refused.ephemeral and "Swiss" in refused.response.content, refused.response.content
    assert channel.history() == []
    created = await ann.slash(channel, "tournament-admin create", name="Cup", format=fmt)
    assert not created.ephemeral, created.response.content


async def test_a_match_lobby_offers_only_what_a_match_allows(simcord_env) -> None:
    """A match's lobby showed the casual lobby's text ("Join, pick a team, then the host
    presses **Start**") and its Switch team, Cancel and computer controls, and took a switch,
    a kick or a computer: each made a game that was then stopped as not the match as drawn.
    Now it says how the match starts, shows Join, Leave and Start, and refuses the rest; a
    player who leaves and sits down again is seated on their own side."""
    env = simcord_env
    channel, (ann, ben) = await started_cup(env, ["ann", "ben"])
    snap = await snapshot(env.bot, channel)
    match = match_of(snap, 1, "ann")
    thread = thread_of(channel, match)
    card = next(m for m in thread.history() if m.embeds and "lobby" in m.embeds[0].title)
    assert "I'm here" in card.embeds[0].description
    assert "pick a team" not in card.embeds[0].description
    labels = [c.label for row in card.components for c in row.children]
    assert labels == ["Join", "Leave", "Start"]
    host = ann if (await env.bot.db.lobbies.get_for_channel(thread.id)).host_id == ann.id else ben
    other = ben if host is ann else ann
    for command, options in (
        ("sequence addbot", {"level": "easy"}),
        ("sequence kick", {"player": other}),
        ("sequence team", {"player": other, "team": 0}),
    ):
        refused = await host.slash(thread, command, **options)
        assert refused.ephemeral and "tournament match" in refused.response.content, command
    lobby = await env.bot.db.lobbies.get_for_channel(thread.id)
    before = [(s.user_id, s.team) for s in lobby.seats]
    await other.click(card, label="Leave")
    await other.click(card, label="Join")
    after = (await env.bot.db.lobbies.get_for_channel(thread.id)).seats
    assert sorted((s.user_id, s.team) for s in after) == sorted(before)
    await check_in(channel, match, [ann, ben])
    assert game_in(env.bot, match) is not None


async def test_the_standings_after_a_round_name_that_round(simcord_env) -> None:
    """The standings posted as round 2 was paired were titled "standings after round 1" and
    carried the footer "round 2 of 2": it says round 1, as the title does."""
    env = simcord_env
    channel, (ann, _, cat, _) = await started_cup(env, ["ann", "ben", "cat", "dan"], "swiss")
    await report_round(env, channel, ann, 1, {"ann": ann, "cat": cat})
    posted = next(m for m in channel.history() if m.embeds and "after round 1" in m.embeds[0].title)
    footer = posted.embeds[0].footer.text
    assert footer.startswith("Swiss · round 1 of 2 · "), footer
    shown = await cat.slash(channel, "tournament standings")  # the running table: round 2
    assert shown.response.embeds[0].footer.text.startswith("Swiss · round 2 of 2 · ")


async def test_a_dropped_team_reads_were_dropped(simcord_env) -> None:
    """Dropping a team said "a1 & a2 was dropped." (and, again, "was already dropped"): a
    team reads "were"; a single player still "was"."""
    env = simcord_env
    guild = env.create_guild("Club")
    anyone_may_organise(env, guild)
    channel = guild.create_text_channel("teams")
    org, a1, a2, b1, b2, c1, c2 = (
        guild.add_member(env.create_user(n)) for n in ("org", "a1", "a2", "b1", "b2", "c1", "c2")
    )
    await org.slash(channel, "tournament-admin create", name="Pairs", format="swiss", team_size=2)
    for first, second in ((a1, a2), (b1, b2), (c1, c2)):
        await first.slash(channel, "tournament join", partner=second)
    await org.slash(channel, "tournament-admin start")
    dropped = await org.slash(channel, "tournament-admin drop", player=a2)
    assert announced(channel, dropped) and dropped.response.content == "🚫 a1 & a2 were dropped."
    again = await org.slash(channel, "tournament-admin drop", player=a1)
    assert again.ephemeral and again.response.content == "⚠️ a1 & a2 were already dropped."
    solo_channel, (ann, ben, _) = await started_cup(env, ["ann", "ben", "cat"], guild=guild)
    solo = await ann.slash(solo_channel, "tournament-admin drop", player=ben)
    assert solo.response.content == "🚫 ben was dropped.", solo.response.content


async def test_a_match_goes_by_one_number_everywhere(simcord_env) -> None:
    """/tournament-admin report takes a match by the number its list shows ("#3 · round 2: ...")
    and confirms "Match #3 is recorded.", while the result lines said "Round 2 · match 1",
    the match's place in its round: two numbers for one match. Now the pairings, the match's
    thread (its name and its first message), the results and the organiser's pings all name
    it by the number report takes."""
    env = simcord_env
    names = ["org", "ann", "ben", "cat", "dan"]
    channel, (org, ann, ben, cat, dan) = await started_cup(
        env, names, "swiss", organiser_plays=False
    )
    snap = await report_round(env, channel, org, 1, {"ann": ann, "cat": cat})
    match = match_of(snap, 2, "ann")
    assert (match.number, match.id) == (1, 3)  # the place and the number differ
    (choice, _) = await org.autocomplete(channel, "tournament-admin report", "match", "")
    assert choice["value"] == match.id and choice["name"].startswith(f"#{match.id} · round 2:")
    pairings_posted = next(m.content for m in channel.history() if "Cup: round 2**" in m.content)
    assert f"• #{match.id} · <@" in pairings_posted, pairings_posted
    thread = thread_of(channel, match)
    assert f"#{match.id}" in thread.name, thread.name
    assert f"match #{match.id}" in thread.history()[0].content
    other = next(p for p in (ben, cat, dan) if p.id in snap.entrants[match.entrant_b].user_ids)
    done = await org.slash(channel, "tournament-admin report", match=match.id, winner=other)
    assert done.response.content == f"📝 Match #{match.id} is recorded."
    result = f"🏁 Round 2 · match #{match.id}: **{other.user.name}** beat ann (reported by"
    assert any(m.content.startswith(result) for m in channel.history())
    assert thread.last_message.content.startswith(result), thread.last_message.content


# ---------------------------------------------------------------------- corrections
async def test_the_organiser_corrects_a_result_while_its_round_is_played(simcord_env) -> None:
    """The organiser reported the wrong winner: /tournament-admin report on the decided match said
    only "Match #1 is already decided." Now, while its round is still being played, the
    report replaces the result: the channel and the match's thread show the new result and
    the old one, the standings follow, and no round is paired by it. Once the next round is
    paired, a correction is refused, and changes nothing."""
    env = simcord_env
    people = ["org", "ann", "ben", "cat", "dan"]
    channel, (org, ann, ben, cat, _) = await started_cup(
        env, people, "swiss", organiser_plays=False
    )
    snap = await snapshot(env.bot, channel)
    first, second = match_of(snap, 1, "ann"), match_of(snap, 1, "cat")
    assert names(snap, first) == ("ann", "ben")
    await org.slash(channel, "tournament-admin report", match=first.id, winner=ann)
    choices = await org.autocomplete(channel, "tournament-admin report", "match", "")
    assert [c["value"] for c in choices] == [first.id, second.id]
    assert choices[0]["name"] == f"#{first.id} · round 1: ann v ben · decided: ann won"
    stranger = await ben.slash(channel, "tournament-admin report", match=first.id, winner=ben)
    assert stranger.ephemeral and "Only the organiser" in stranger.response.content

    fixed = await org.slash(channel, "tournament-admin report", match=first.id, winner=ben)
    assert announced(channel, fixed)
    assert fixed.response.content == f"📝 Match #{first.id} is corrected."
    news = (
        f"✏️ Result corrected: Round 1 · match #{first.id}: **ben** beat ann (reported by the "
        "organiser).\nIt was: **ann** beat ben (reported by the organiser)."
    )
    assert channel.last_message.content == news
    assert thread_of(channel, first).last_message.content == news
    snap = await snapshot(env.bot, channel)
    assert snap.tournament.round == 1 and snap.points()[first.entrant_b] == 1.0
    assert snap.points()[first.entrant_a] == 0.0
    shown = await cat.slash(channel, "tournament standings")
    assert standings_rows(shown.response.embeds[0])[0].startswith("1. ben · 1 pts")
    same = await org.slash(channel, "tournament-admin report", match=first.id, winner=ben)
    assert same.ephemeral and same.response.content == (
        f"⚠️ Match #{first.id} already has that result."
    )

    # the round's last result pairs round 2 from the corrected table: then no more corrections
    await org.slash(channel, "tournament-admin report", match=second.id, winner=cat)
    snap = await snapshot(env.bot, channel)
    assert pairings(snap, 2) == [("ben", "cat"), ("ann", "dan")]
    late = await org.slash(channel, "tournament-admin report", match=first.id, winner=ann)
    assert late.ephemeral and late.response.content == (
        "⚠️ Results cannot be changed once the next round is paired: a result can be corrected "
        "only while its round is still being played."
    )
    assert (await snapshot(env.bot, channel)).points() == snap.points()
    choices = await org.autocomplete(channel, "tournament-admin report", "match", "")
    assert [c["value"] for c in choices] == [m.id for m in snap.round_matches(2)]


async def test_a_correction_overrules_a_game_played_to_its_end(simcord_env) -> None:
    """A knockout semi-final was played and won; the organiser rules the other side the
    winner (a rules dispute) before the final is drawn. The correction stands, the channel
    says what the game's result was, and the ratings keep the game's result."""
    env = simcord_env
    guild = env.create_guild("Club")
    anyone_may_organise(env, guild)
    people = ["org", "ann", "ben", "cat", "dan"]
    channel, (org, ann, _, cat, dan) = await started_cup(
        env, people, organiser_plays=False, guild=guild
    )
    snap = await snapshot(env.bot, channel)
    semi = match_of(snap, 1, "ann")
    assert names(snap, semi) == ("ann", "dan")
    record = await scripted_win(env, guild, channel, semi, [ann], [dan])
    book = (await env.bot.ratings.book(guild.id)).ratings.copy()
    fixed = await org.slash(channel, "tournament-admin report", match=semi.id, winner=dan)
    assert announced(channel, fixed), fixed.response.content
    assert channel.last_message.content == (
        f"✏️ Result corrected: Round 1 · match #{semi.id}: **dan** beat ann (reported by the "
        f"organiser).\nIt was: **ann** beat dan (game #{record.id}).\nGame #{record.id} was "
        "played to its end and won by ann: the organiser's ruling replaces it."
    )
    assert (await env.bot.ratings.book(guild.id)).ratings == book
    draw = await org.slash(channel, "tournament-admin report", match=semi.id, draw=True)
    assert draw.ephemeral and "needs a winner" in draw.response.content
    await org.slash(
        channel, "tournament-admin report", match=match_of(snap, 1, "ben").id, winner=cat
    )
    snap = await snapshot(env.bot, channel)
    assert pairings(snap, 2) == [("dan", "cat")]


async def test_the_standings_show_the_round_being_played(simcord_env) -> None:
    """During a round, /tournament standings showed only the table: nobody could see who plays
    whom, which matches are still waiting or being played, or where their threads are. Now it
    lists the round's matches by number, with their state and a link to each thread, within
    Discord's limits for an embed (18 entrants with long names)."""
    env = simcord_env
    people = ["org"] + [f"player{n:02d}".ljust(30, "x") for n in range(18)]
    channel, (org, *players) = await started_cup(env, people, "swiss", organiser_plays=False)
    by_id = {p.id: p for p in players}
    snap = await snapshot(env.bot, channel)
    played, reported, *waiting = snap.round_matches(1)
    drawn = [by_id[u] for e in played.sides for u in snap.entrants[e].user_ids]
    await check_in(channel, played, drawn)
    winner = by_id[snap.entrants[reported.entrant_a].user_ids[0]]
    await org.slash(channel, "tournament-admin report", match=reported.id, winner=winner)
    shown = await players[0].slash(channel, "tournament standings")
    embed = shown.response.embeds[0]
    assert len(embed) <= 6000 and len(embed.fields) <= 25
    assert all(len(f.value) <= 1024 for f in embed.fields)
    assert embed.fields[0].name == "Round 1 · now playing"
    lines = [line for f in embed.fields for line in f.value.split("\n")]
    game = game_in(env.bot, played)

    def line(match: Any, state: str) -> str:
        a, b = names(snap, match)
        return f"#{match.id} · {a} v {b} · {state} · <#{match.thread_id}>"

    assert line(played, f"playing (game #{game.id})") in lines, lines
    assert line(reported, f"decided: {snap.name(reported.entrant_a)} won") in lines
    for match in waiting:
        assert line(match, "waiting for check-in") in lines
    assert len(lines) == 9 and len(embed.fields) == 2  # past one field's 1,024 characters
    await org.slash(channel, "tournament-admin end")
    after = await players[0].slash(channel, "tournament standings")
    assert not after.response.embeds[0].fields  # nothing is being played any more
