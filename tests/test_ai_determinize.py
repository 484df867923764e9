"""Guesses of the hidden cards: a guessed game keeps the real game's public state and rules."""

from __future__ import annotations

import random

from bot.game import DRAWN, Game, GameSettings, Termination, player_view
from bot.game.ai.determinize import game_from_view, sample_deal, unseen_cards
from bot.game.ai.position import Position
from bot.game.ai.search import _Search
from bot.game.ai.tracking import HELD, fill_factors
from bot.game.board import CARD_SPACES
from bot.game.moves import AGREE_DRAW, PLAY, Move
from cogs.common.describe import end_reason
from tests.engine_helpers import build_game, play

HAND = ["2S", "3S", "JD", "JH", "AH", "5H", "7H"]


def test_a_guessed_game_draws_by_the_endless_play_guard_as_the_real_one_does() -> None:
    real = build_game(GameSettings.create(2), hands={0: HAND}, deck=[], reshuffles_since_sequence=1)
    view = player_view(real, 0)
    assert view.endless_play()
    guesses = [game_from_view(view, sample_deal(view, random.Random(s))) for s in range(5)]
    assert len({tuple(g.hands[1]) for g in guesses}) > 1  # really different guesses
    play(real, 0, "AH", "F2")  # the draw reshuffles a second time: a draw
    assert real.status == DRAWN and real.termination == Termination.ENDLESS_PLAY
    for guess in guesses:
        assert guess.endless_play()
        assert guess.reshuffles_since_sequence == view.reshuffles_since_sequence
        play(guess, 0, "AH", "F2")
        assert (guess.status, guess.termination, end_reason(guess.outcome)) == (
            real.status,
            real.termination,
            end_reason(real.outcome),
        )


def test_a_guessed_game_keeps_the_kind_of_ending() -> None:
    game = Game.new(GameSettings.create(2), 3)
    game.push(Move(AGREE_DRAW, game.turn))
    view = player_view(game, 0)
    guess = game_from_view(view, sample_deal(view, random.Random(0)))
    assert guess.termination == game.termination == Termination.AGREEMENT


def test_hard_looks_ahead_by_the_same_rule() -> None:
    """With the deck empty after one reshuffle, the look-ahead of any play that completes no
    sequence ends drawn (worth 0), as the real game would; without the reshuffle it goes on."""
    values = {}
    for count in (0, 1):
        game = build_game(
            GameSettings.create(2), hands={0: HAND}, deck=[], reshuffles_since_sequence=count
        )
        view = player_view(game, 0)
        position = Position.from_view(view)
        fill = fill_factors(view, unseen_cards(view))
        search = _Search(view, position, 0, fill, unseen_cards(view))
        deal = sample_deal(view, random.Random(0))
        values[count] = [search.value(m, deal) for m in game.legal_moves if m.kind == PLAY]
    assert all(v == 0.0 for v in values[1])
    assert any(v != 0.0 for v in values[0])


def test_hard_counts_the_card_it_tries_as_no_longer_held() -> None:
    """The position after a candidate play is counted with the hand without that card: the
    card's other space is no longer one the viewer holds (the other cards still are)."""
    game = build_game(GameSettings.create(2), hands={0: HAND})
    view = player_view(game, 0)
    unseen = unseen_cards(view)
    fill = fill_factors(view, unseen)
    search = _Search(view, Position.from_view(view), 0, fill, unseen)
    first, other = CARD_SPACES["7H"]
    assert fill[0][other] == HELD
    after = search._after("7H", first)
    assert after.position.chips[first] == 0
    assert after.analysis.fill[0][other] < HELD
    assert after.analysis.fill[0][CARD_SPACES["AH"][0]] == HELD
