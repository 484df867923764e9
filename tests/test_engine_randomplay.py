"""The fast random player makes exactly the moves of ``rng.choice(game.legal_moves)``.

And loaded games share their card strings and moves (the memory of many active games).
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from bot.game import Game, GameSettings
from bot.game.cards import CANONICAL_CARDS
from bot.game.randomplay import push_random, random_move
from tests.engine_helpers import CONFIGS, HOUSE_OPTIONS, out_of_turn, play_random_game
from tests.engine_helpers import push_random as push_chosen

PROPERTY = hypothesis_settings(
    deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)


def same_pick(game: Game, rng: random.Random) -> None:
    """From the same generator state, both ways pick the same move and use the same draws."""
    fast, listed = random.Random(), random.Random()
    fast.setstate(rng.getstate())
    listed.setstate(rng.getstate())
    assert random_move(game, fast) == listed.choice(game.legal_moves)
    assert fast.getstate() == listed.getstate()


@hypothesis_settings(PROPERTY, max_examples=60)
@given(settings=HOUSE_OPTIONS, seed=st.integers(0, 2**32 - 1))
def test_random_move_is_the_choice_from_the_list(settings: GameSettings, seed: int) -> None:
    """In every position of random games, out-of-turn moves and house options included."""

    def check(game: Game) -> None:
        if not game.is_over():
            same_pick(game, random.Random(len(game.moves)))

    play_random_game(settings, seed, max_moves=15_000, after_move=check, extra=out_of_turn)


@hypothesis_settings(PROPERTY, max_examples=60)
@given(settings=HOUSE_OPTIONS, seed=st.integers(0, 2**32 - 1))
def test_push_random_plays_the_same_games(settings: GameSettings, seed: int) -> None:
    """Whole games move for move, the random five of a long line included."""
    fast, listed = Game.new(settings, seed), Game.new(settings, seed)
    fast_rng, listed_rng = random.Random(seed), random.Random(seed)
    while not listed.is_over():
        push_random(fast, fast_rng)
        push_chosen(listed, listed_rng.choice(listed.legal_moves), listed_rng)
        assert fast.moves[-1] == listed.moves[-1]
    assert fast.is_over() and fast == listed


def test_push_random_on_a_finished_game_raises() -> None:
    game = play_random_game(GameSettings.create(2), 3)
    with pytest.raises(IndexError, match="the game is over"):
        push_random(game, random.Random(1))


# ------------------------------------------------------------------------------------ memory
def loaded_twice(settings: GameSettings, seed: int, moves: int) -> tuple[Game, Game, Game]:
    game = Game.new(settings, seed)
    rng = random.Random(seed)
    while not game.is_over() and len(game.moves) < moves:
        push_random(game, rng)
    text = json.dumps(game.to_dict())
    return game, Game.from_dict(json.loads(text)), Game.from_dict(json.loads(text))


def test_loaded_games_share_card_strings_and_moves() -> None:
    game, first, second = loaded_twice(GameSettings.create(4), 11, 60)
    assert first == game and second == game
    for loaded in (first, second):
        piles = [*loaded.hands, loaded.deck, *loaded.discards, loaded.cut]
        assert all(card is CANONICAL_CARDS[card] for pile in piles for card in pile)
        assert all(m.card is None or m.card is CANONICAL_CARDS[m.card] for m in loaded.moves)
    assert all(a is b for a, b in zip(first.moves, second.moves, strict=True))
    assert first.settings is second.settings


def test_loaded_games_play_on_like_the_original() -> None:
    for settings in CONFIGS:
        game, loaded, _ = loaded_twice(settings, 5, 40)
        rng, loaded_rng = random.Random(9), random.Random(9)
        while not game.is_over():
            push_random(game, rng)
            push_random(loaded, loaded_rng)
        assert loaded == game
