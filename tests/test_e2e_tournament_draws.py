"""A draw by agreement in a tournament and in the ratings: half a point each in a Swiss round,
a tie-break game between the same sides in a knockout, and openskill ranking drawn teams as
tied."""

from __future__ import annotations

from typing import Any

from bot.services.ratings import DEFAULT_MU, DEFAULT_SIGMA
from tests.helpers.tournament import (
    announced,
    anyone_may_organise,
    check_in,
    game_in,
    resign,
    snapshot,
    standings_rows,
    thread_of,
)

from .e2e_helpers import make_table, open_and_start


async def agree_draw(thread: Any, offerer: Any, accepter: Any) -> None:
    """One side offers a draw; the other accepts it."""
    offer = await offerer.slash(thread, "sequence draw")
    assert not offer.ephemeral, offer.response.content
    accepted = await accepter.click(offer.response, label="Accept the draw")
    assert not accepted.ephemeral, accepted.response.content


async def two_entrant_tournament(env: Any, fmt: str) -> tuple[Any, Any, Any, Any]:
    """ann and ben signed up and started, in a new channel; (channel, ann, ben, match)."""
    guild = env.create_guild("Club")
    anyone_may_organise(env, guild)
    channel = guild.create_text_channel("tournaments")
    ann, ben = (guild.add_member(env.create_user(n)) for n in ("ann", "ben"))
    env.bot.lobbies.new_seed = lambda: 11
    created = await ann.slash(channel, "tournament-admin create", name="Cup", format=fmt)
    for player in (ann, ben):
        assert (await player.click(created.response, label="Join")).acknowledged
    assert announced(channel, await ann.slash(channel, "tournament-admin start"))
    (match,) = (await snapshot(env.bot, channel)).round_matches(1)
    return channel, ann, ben, match


async def test_a_drawn_swiss_game_scores_half_a_point_each(simcord_env) -> None:
    channel, ann, ben, match = await two_entrant_tournament(simcord_env, "swiss")
    await check_in(channel, match, [ann, ben])
    record = game_in(simcord_env.bot, match)
    await agree_draw(thread_of(channel, match), ben, ann)
    assert record.game.is_over() and record.game.winner is None
    await simcord_env.settle()
    await simcord_env.bot.bus.idle()
    snap = await snapshot(simcord_env.bot, channel)
    (done,) = snap.round_matches(1)
    assert done.status == "done" and done.winner is None and done.game_id == record.id
    assert snap.points() == {done.entrant_a: 0.5, done.entrant_b: 0.5}
    assert snap.tournament.status == "finished"  # 2 entrants: one Swiss round
    assert any("drew" in m.content for m in channel.history())
    assert "champion" not in channel.last_message.content  # level: the seed crowns nobody
    rows = standings_rows(channel.last_message.embeds[0])
    assert len(rows) == 2 and all("½" in row or "0.5" in row for row in rows), rows


async def test_a_drawn_knockout_game_is_decided_by_a_tie_break_game(simcord_env) -> None:
    channel, ann, ben, match = await two_entrant_tournament(simcord_env, "elimination")
    bot = simcord_env.bot
    await check_in(channel, match, [ann, ben])
    drawn = game_in(bot, match)
    thread = thread_of(channel, match)
    await agree_draw(thread, ann, ben)
    await simcord_env.settle()
    await bot.bus.idle()
    assert drawn.game.is_over() and drawn.game.winner is None
    snap = await snapshot(bot, channel)
    (again,) = snap.round_matches(1)
    assert again.id == match.id and again.status == "pending" and again.winner is None
    assert snap.tournament.status == "running"
    assert any("tie-break game" in m.content for m in thread.history())
    # the tie-break game: the same two sides, a new game in the same thread
    await check_in(channel, again, [ann, ben])
    tie_break = game_in(bot, again)
    assert tie_break.id != drawn.id
    assert {s.user_id for s in tie_break.seats} == {ann.id, ben.id}
    await resign(thread, [ben])
    await simcord_env.settle()
    await bot.bus.idle()
    snap = await snapshot(bot, channel)
    (decided,) = snap.round_matches(1)
    assert decided.status == "done" and decided.game_id == tie_break.id
    assert snap.name(decided.winner) == "ann" and snap.tournament.status == "finished"


async def test_ratings_rank_a_drawn_game_as_a_tie(simcord_env) -> None:
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    bot = table.bot
    # between equals, a draw moves nobody's mean; both grow surer
    record = await open_and_start(table)
    await agree_draw(table.channel, alice, bob)
    assert record.game.is_over() and record.game.winner is None
    book = await bot.ratings.book(table.guild.id)
    first_a, first_b = book.rating(alice.id), book.rating(bob.id)
    assert first_a == first_b
    assert abs(first_a.mu - DEFAULT_MU) < 1e-9 and first_a.sigma < DEFAULT_SIGMA
    # after alice won once, a draw pulls the two towards each other
    await open_and_start(table, seed=2)
    assert not (await bob.slash(table.channel, "sequence resign")).ephemeral
    book = await bot.ratings.book(table.guild.id)
    won_a, lost_b = book.rating(alice.id), book.rating(bob.id)
    assert won_a.mu > lost_b.mu
    await open_and_start(table, seed=3)
    await agree_draw(table.channel, bob, alice)
    book = await bot.ratings.book(table.guild.id)
    assert book.rating(alice.id).mu < won_a.mu and book.rating(bob.id).mu > lost_b.mu
    results = await bot.db.results.for_guild(table.guild.id)
    assert [r.winner_team for r in results][::2] == [None, None] and all(r.rated for r in results)
    shown = await alice.slash(table.channel, "sequence stats")
    games = next(f.value for f in shown.response.embeds[0].fields if f.name == "Games")
    assert "2 drawn" in games
