"""Draw by agreement, end to end: ``/sequence draw``, the public offer with its buttons, every
other team accepting (two and three teams), a decline and its cooldown, the offer lapsing when
the game moves on, after its time and across a restart, computer teams answering and offering,
and an acceptance racing a move. On both store backends."""

from __future__ import annotations

import asyncio

import pytest

from bot.app import create_bot
from bot.config import Settings
from bot.game.moves import AGREE_DRAW
from bot.services.draws import COOLDOWN_TURNS, LAPSED_TEXT
from bot.services.errors import UserError
from bot.store.votes import DRAW, DRAW_COOLDOWN
from cogs.common.describe import end_reason, team_label

from .e2e_helpers import (
    against_a_computer,
    make_table,
    open_and_start,
    play_one,
    seat_actor,
    settle,
)
from .engine_helpers import playable

TIMEOUT = 3600


@pytest.fixture
def bot_settings(settings_on_each_backend: Settings) -> Settings:
    """Every test here runs on SQLite and on PostgreSQL."""
    return settings_on_each_backend


def message(table, message_id: int):
    """A channel message as it is now."""
    return next(m for m in table.channel.history() if m.id == message_id)


async def test_a_draw_offer_accepted_ends_the_game_as_a_draw(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob", "eve"])
    alice, bob, eve = table.players
    table.players = [alice, bob]
    no_game = await alice.slash(table.channel, "sequence draw")
    assert no_game.ephemeral and "There is no game in this channel" in no_game.response.content
    record = await open_and_start(table)
    nothing = await eve.slash(table.channel, "sequence draw")
    assert nothing.ephemeral and "not playing" in nothing.response.content
    offer = await alice.slash(table.channel, "sequence draw")
    assert not offer.ephemeral
    text = offer.response.content
    blue = team_label(record.game.team_of(0))
    assert f"<@{alice.id}> offers a **draw**" in text and "Waiting for" in text
    assert blue in text and "lapses when the game moves on" in text
    again = await bob.slash(table.channel, "sequence draw")
    assert again.ephemeral and "already open" in again.response.content
    own = await alice.click(offer.response, label="Accept the draw")
    assert own.ephemeral and "Your team made this offer" in own.response.content
    stranger = await eve.click(offer.response, label="Accept the draw")
    assert stranger.ephemeral and "Only players" in stranger.response.content
    assert not record.game.is_over() and (DRAW, 0) in record.votes
    accepted = await bob.click(offer.response, label="Accept the draw")
    assert accepted.acknowledged and not accepted.ephemeral
    assert "Draw agreed" in offer.response.content and not offer.response.components
    await settle(simcord_env)
    game = record.game
    assert game.is_over() and game.winner is None and game.moves[-1].kind == AGREE_DRAW
    assert "Drawn by agreement" in end_reason(game.outcome)
    result = await table.bot.db.results.get(record.id)
    assert result is not None and result.winner_team is None
    assert any("Every team agreed to a draw" in (m.embeds[0].description or "")
               for m in table.channel.history() if m.embeds)
    assert "The game is a draw" in table.channel.last_message.content
    assert await table.bot.db.votes.of_game(record.id) == {}
    late = await table.bot.db.games.load(record.id)
    assert late.status == "finished"


async def test_three_teams_must_all_accept(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob", "carol"])
    alice, bob, carol = table.players
    record = await open_and_start(table)
    assert record.game.settings.teams == 3
    offer = await bob.slash(table.channel, "sequence draw")
    first = await carol.click(offer.response, label="Accept the draw")
    assert not first.ephemeral and not record.game.is_over()
    text = offer.response.content
    carol_team = team_label(record.game.team_of(2))
    alice_team = team_label(record.game.team_of(0))
    assert f"Accepted by {carol_team}" in text and f"Waiting for: {alice_team}" in text
    twice = await carol.click(offer.response, label="Accept the draw")
    assert twice.ephemeral and "already accepted" in twice.response.content
    await alice.click(offer.response, label="Accept the draw")
    await settle(simcord_env)
    assert record.game.is_over() and record.game.winner is None
    assert "Draw agreed" in offer.response.content


async def test_a_declined_offer_and_the_cooldown(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    record = await open_and_start(table)
    offer = await alice.slash(table.channel, "sequence draw")
    declined = await bob.click(offer.response, label="Decline")
    assert not declined.ephemeral and "declined" in offer.response.content
    assert f"after {COOLDOWN_TURNS} of its own turns" in offer.response.content
    assert not offer.response.components and not record.game.is_over()
    team = record.game.team_of(0)
    assert record.votes[(DRAW_COOLDOWN, team)].turns_left == COOLDOWN_TURNS
    refused = await alice.slash(table.channel, "sequence draw")
    assert refused.ephemeral and "declined" in refused.response.content
    assert f"after {COOLDOWN_TURNS} more of its own turns" in refused.response.content
    # the other team is not cooling down: bob may offer at once (and alice declines it)
    other = await bob.slash(table.channel, "sequence draw")
    assert not other.ephemeral
    await alice.click(other.response, label="Decline")
    # the cooldown counts alice's team's own turns
    own_turns, told = 0, False
    while (DRAW_COOLDOWN, team) in record.votes:
        if own_turns == COOLDOWN_TURNS - 1 and not told:
            still = await alice.slash(table.channel, "sequence draw")
            assert still.ephemeral and "after 1 more of its own turn." in still.response.content
            told = True
        own_turns += record.game.team_of(record.game.turn) == team
        assert "Done" in (await play_one(table, record)).response.content
    assert own_turns == COOLDOWN_TURNS and told
    fresh = await alice.slash(table.channel, "sequence draw")
    assert not fresh.ephemeral and "offers a **draw**" in fresh.response.content
    stored = await table.bot.db.games.load(record.id)
    assert (DRAW, team) in stored.votes and (DRAW_COOLDOWN, team) not in stored.votes


async def test_an_offer_lapses_when_the_game_moves_on(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table)
    waiting = seat_actor(table, record, 1 - record.game.turn)
    mover = seat_actor(table, record, record.game.turn)
    offer = await waiting.slash(table.channel, "sequence draw")
    assert "Done" in (await play_one(table, record)).response.content
    await settle(simcord_env)
    assert "lapsed" in message(table, offer.response.id).content
    assert "the game moved on" in message(table, offer.response.id).content
    assert record.votes == {}
    # a second offer whose message Discord fails to edit when it lapses keeps its buttons:
    # a click on them is refused and changes nothing
    waiting, mover = mover, waiting
    offer = await waiting.slash(table.channel, "sequence draw")
    simcord_env.inject_error("PATCH", "/channels/*/messages/*", status=500)
    assert "Done" in (await play_one(table, record)).response.content
    await settle(simcord_env)
    assert "offers a **draw**" in message(table, offer.response.id).content
    moves = len(record.game.moves)
    stale = await mover.click(offer.response, label="Accept the draw")
    assert stale.ephemeral and stale.response.content == f"⚠️ {LAPSED_TEXT}"
    assert len(record.game.moves) == moves and not record.game.is_over()
    assert await table.bot.db.votes.of_game(record.id) == {}


async def test_an_offer_discord_refused_to_show_can_be_made_again(simcord_env):
    """Discord refuses the public offer of ``/sequence draw``: nobody saw it or its buttons,
    so it is not kept open; trying again (as the apology says) makes the offer."""
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    record = await open_and_start(table)
    simcord_env.inject_error("POST", "/interactions/*/callback", status=500)
    await alice.slash(table.channel, "sequence draw")
    await settle(simcord_env)
    assert len(simcord_env.errors) == 1  # the refused answer, logged by the error handler
    assert (DRAW, 0) not in record.votes and await table.bot.db.votes.of_game(record.id) == {}
    again = await alice.slash(table.channel, "sequence draw")
    assert not again.ephemeral and "offers a **draw**" in again.response.content
    accepted = await bob.click(again.response, label="Accept the draw")
    assert accepted.acknowledged and "Draw agreed" in again.response.content


async def test_an_offer_lapses_after_its_time_and_across_a_restart(simcord_env, bot_settings):
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    record = await open_and_start(table)
    offer = await alice.slash(table.channel, "sequence draw")
    await simcord_env.advance_time(TIMEOUT - 60)
    assert "offers a **draw**" in message(table, offer.response.id).content
    await simcord_env.advance_time(61)
    await settle(simcord_env)
    text = message(table, offer.response.id).content
    assert "lapsed" in text and "nobody answered in time" in text
    assert table.game().votes == {}
    # the same across a restart: the offer's time is kept with it and armed again at start-up
    second = await bob.slash(table.channel, "sequence draw")
    assert not second.ephemeral
    await simcord_env.bot.close()  # the old process is gone (its store's thread too)
    await simcord_env.restart_bot(create_bot(bot_settings))
    record = table.game()
    offer_vote = next(v for v in record.votes.values() if v.kind == DRAW)
    assert offer_vote.message_id == second.response.id
    await simcord_env.advance_time(TIMEOUT + 1)
    await settle(simcord_env)
    assert "nobody answered in time" in message(table, second.response.id).content
    assert table.game().votes == {}


async def test_a_button_from_before_a_restart_accepts(simcord_env, bot_settings):
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    await open_and_start(table)
    offer = await alice.slash(table.channel, "sequence draw")
    await simcord_env.bot.close()  # the old process is gone (its store's thread too)
    await simcord_env.restart_bot(create_bot(bot_settings))
    record = table.game()
    await bob.click(offer.response, label="Accept the draw")
    await settle(simcord_env)
    assert record.game.is_over() and record.game.winner is None


async def test_a_computer_team_answers_at_once(simcord_env):
    table, record = await against_a_computer(simcord_env, "easy", seed=1)
    (alice,) = table.players
    # the board is level: the computer is not ahead, so it accepts at once
    offer = await alice.slash(table.channel, "sequence draw")
    assert not offer.ephemeral and "Draw agreed" in offer.response.content
    await settle(simcord_env)
    assert record.game.is_over() and record.game.winner is None


async def test_a_computer_team_ahead_declines_at_once(simcord_env):
    from bot.game.sequences import EMPTY

    table, record = await against_a_computer(simcord_env, "easy", seed=1)
    (alice,) = table.players
    bot_team = record.game.team_of(1)
    # the computer's team holds four in a row (as if played): it is ahead and declines
    for space in (11, 12, 13, 14):
        assert record.game.chips[space] == EMPTY
        record.game.chips[space] = bot_team
    offer = await alice.slash(table.channel, "sequence draw")
    assert not offer.ephemeral and "declined" in offer.response.content
    assert not record.game.is_over()
    assert (DRAW_COOLDOWN, record.game.team_of(0)) in record.votes


async def test_a_computer_team_offers_only_in_endless_play(simcord_env):
    table, record = await against_a_computer(simcord_env, "easy", seed=1)
    (alice,) = table.players
    bot_seat = 1
    if record.game.turn == bot_seat:
        await settle(simcord_env)
    # alice plays; the computer answers with its move
    assert "Done" in (await play_one(table, record)).response.content
    await settle(simcord_env)
    assert not any(v.kind == DRAW for v in record.votes.values())  # not endless: no offer
    # the deck was reshuffled once with no sequence since: the endless-play condition
    record.game.reshuffles_since_sequence = 1
    assert record.game.endless_play()
    assert "Done" in (await play_one(table, record)).response.content
    await settle(simcord_env)
    offer = next(v for v in record.votes.values() if v.kind == DRAW)
    assert offer.team == record.game.team_of(bot_seat) and offer.message_id is not None
    posted = message(table, offer.message_id)
    assert "offers a **draw**" in posted.content
    await alice.click(posted, label="Decline")
    assert not record.game.is_over()


async def test_an_acceptance_and_a_move_in_flight_together(simcord_env):
    """Exactly one of them takes effect; the other is told."""
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table)
    bot = table.bot
    seat, card, space = playable(record.game)
    offerer = seat_actor(table, record, 1 - seat)
    offer = await offerer.slash(table.channel, "sequence draw")
    count = len(record.game.moves)
    mover_id = record.seats[seat].user_id
    played, accepted = await asyncio.gather(
        bot.games.play(record.id, mover_id, card, space, expected_turn=record.game.turn_number),
        bot.draws.answer(record.id, mover_id, count, accept=True),
        return_exceptions=True,
    )
    await settle(simcord_env)
    winners = [r for r in (played, accepted) if not isinstance(r, Exception)]
    losers = [r for r in (played, accepted) if isinstance(r, Exception)]
    assert len(winners) == 1 and len(losers) == 1 and isinstance(losers[0], UserError)
    stored = await bot.db.games.load(record.id)
    if isinstance(played, Exception):  # the draw won: the move was told the game is over
        assert stored.status == "finished" and stored.game.winner is None
        assert str(played) == f"Game #{record.id} has ended."
    else:  # the move won: the acceptance was told the offer lapsed
        assert str(accepted) == LAPSED_TEXT
        assert stored.status == "active" and len(stored.game.moves) == count + 1
        assert "lapsed" in message(table, offer.response.id).content
    assert stored.votes == {}


async def test_the_endless_play_guard_is_a_table_option_on_by_default(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table)
    assert record.game.settings.endless_play_guard is True
    await table.players[0].slash(table.channel, "sequence cancel")
    record = await open_and_start(table, endless_guard=False)
    assert record.game.settings.endless_play_guard is False
    status = await table.players[1].slash(table.channel, "sequence status")
    assert "no endless-play guard" in status.response.content


async def test_the_rules_say_how_a_game_is_drawn(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    await open_and_start(table, endless_guard=False, manual_draw=True, small_hands=True)
    rules = await table.players[0].slash(table.channel, "sequence rules")
    messages = [rules.response, *rules.followups]  # as many as Discord's 2,000 characters need
    assert rules.ephemeral and all(len(m.content) <= 2000 for m in messages)
    text = "\n".join(m.content for m in messages)
    for words in (
        "**Endless play**",
        "reshuffled a second time with no new sequence",
        "Convoy never reshuffles",
        "**Stalemate** (our choice; the printed rules are silent)",
        "`/sequence draw`; every other team must accept",
        "after 1 h",
        f"wait {COOLDOWN_TURNS} of your team's turns",
        "no endless-play guard",
    ):
        assert words in text, words


async def test_an_answer_discord_refused_to_show_still_closes_the_offer(simcord_env):
    """Discord refuses the answer to Decline: the decline is saved, so the offer's message
    loses its buttons all the same and says how it ended; the clicker is told."""
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    await open_and_start(table)
    offer = (await alice.slash(table.channel, "sequence draw")).response
    simcord_env.inject_error("POST", "/interactions/*/callback", status=500)
    declined = await bob.click(offer, label="Decline")
    assert "declined" in declined.response.content
    shown = next(m for m in table.channel.history() if m.id == offer.id)
    assert "declined" in shown.content and not shown.components
