"""Every game ends: the endless-play guard, the draw by agreement and the kinds of ending."""

from __future__ import annotations

import json
import random

from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from bot.game import (
    ACTIVE,
    CARD_SPACES,
    DRAWN,
    WON,
    Game,
    GameSettings,
    Move,
    Termination,
    player_view,
    public_view,
)
from bot.game.game import ENDLESS_PLAY_RESHUFFLES
from bot.game.moves import AGREE_DRAW, RESIGN
from bot.game.randomplay import push_random
from bot.store.upgrades import termination_of
from cogs.common.describe import end_reason
from tests.engine_helpers import CONFIGS, assert_illegal, build_game, play

HAND = ["2S", "3S", "JD", "JH", "AH", "5H", "7H"]
CLASSIC2 = GameSettings.create(2)
UNGUARDED2 = GameSettings.create(2, endless_play_guard=False)
ENDLESS = "Endless play: the deck ran out twice with no new sequence, so the game is a draw."


def out_of_cards(settings: GameSettings = CLASSIC2, **state: object) -> Game:
    """Seat 0 to move with :data:`HAND`; the deck is empty, so its next draw reshuffles."""
    return build_game(settings, hands={0: HAND}, deck=[], **state)  # type: ignore[arg-type]


def max_moves(settings: GameSettings) -> int:
    """A bound on the length of any game with the guard on, from the rules alone.

    Completing sequences restarts the count at most ``teams * (to_win - 1) + 1`` times. Between
    two restarts the deck is reshuffled at most twice, so at most 2 x 104 + 1 cards are drawn.
    Every play and dead card draws one; between two draws at most one round of passes (a full
    round ends the game), and table talk or manual draws are not played by these games.
    """
    restarts = settings.teams * (settings.sequences_to_win - 1) + 1
    return (restarts + 1) * (ENDLESS_PLAY_RESHUFFLES * 104 + 1) * (settings.players + 1)


# ------------------------------------------------------------------------------------ the guard
def test_second_reshuffle_without_a_sequence_is_a_draw() -> None:
    game = out_of_cards(reshuffles_since_sequence=1)
    assert game.endless_play() and game.status == ACTIVE
    play(game, 0, "AH", "F2")
    assert game.reshuffles == 1 and game.reshuffles_since_sequence == ENDLESS_PLAY_RESHUFFLES
    assert game.status == DRAWN and game.winner is None
    assert game.termination == Termination.ENDLESS_PLAY and end_reason(game.outcome) == ENDLESS
    assert not game.endless_play() and game.legal_moves == []
    assert_illegal(game, Move.play(1, "2S", 1), "The game is over")


def test_first_reshuffle_only_warns() -> None:
    game = out_of_cards()
    assert not game.endless_play()
    play(game, 0, "AH", "F2")
    assert game.status == ACTIVE and game.reshuffles_since_sequence == 1
    assert game.endless_play()
    assert player_view(game, 1).endless_play() and public_view(game).endless_play()
    assert public_view(game).reshuffles_since_sequence == 1


def test_a_new_sequence_starts_the_count_again() -> None:
    chips = {"B2": 0, "C2": 0, "D2": 0, "E2": 0}
    game = out_of_cards(chips=chips, reshuffles_since_sequence=1)
    play(game, 0, "AH", "F2")  # completes B2-F2 before drawing, which reshuffles
    assert game.sequence_count(0) == 1 and game.status == ACTIVE
    assert game.reshuffles == 1 and game.reshuffles_since_sequence == 1


def test_dead_card_reshuffle_counts_too() -> None:
    dead = {space: 1 for space in CARD_SPACES["2S"]}
    game = out_of_cards(chips=dead, reshuffles_since_sequence=1)
    game.push(Move("dead", 0, "2S"))
    assert game.status == DRAWN and game.termination == Termination.ENDLESS_PLAY


def test_guard_off_plays_on() -> None:
    game = out_of_cards(UNGUARDED2, reshuffles_since_sequence=5)
    play(game, 0, "AH", "F2")
    assert game.status == ACTIVE and game.reshuffles_since_sequence == 6
    assert game.endless_play()  # the condition holds: computer players may offer a draw


def test_convoy_has_no_reshuffle_so_its_deck_out_rule_decides() -> None:
    convoy = GameSettings.create(2, preset="convoy")
    assert convoy.endless_play_guard
    game = build_game(convoy, hands={0: ["AH"], 1: ["5H"]}, deck=[])
    play(game, 0, "AH", "F2")
    play(game, 1, "5H", "E5")
    assert game.reshuffles == 0 and game.termination == Termination.STALEMATE


def test_old_three_team_game_without_the_setting_replays_past_the_guard() -> None:
    """A stored game from before the guard keeps its history: missing means off."""
    old = {k: v for k, v in GameSettings.create(3).to_dict().items() if k != "endless_play_guard"}
    settings = GameSettings.from_dict(old)
    assert not settings.endless_play_guard
    game = Game.new(settings, 40)
    rng = random.Random(40)
    while not game.is_over():
        push_random(game, rng)
    assert game.reshuffles > ENDLESS_PLAY_RESHUFFLES and game.status == WON
    assert game.termination == Termination.SEQUENCES
    assert Game.replay(settings, 40, game.moves) == game


# ------------------------------------------------------------------------------------ settings
def test_guard_is_a_house_option_on_by_default() -> None:
    assert GameSettings.create(3).endless_play_guard
    assert GameSettings.create(3).to_dict()["endless_play_guard"] is True
    for guard in (True, False):
        settings = GameSettings.create(4, endless_play_guard=guard)
        assert GameSettings.from_dict(json.loads(json.dumps(settings.to_dict()))) == settings


# ------------------------------------------------------------------------------------ agreement
def test_draw_by_agreement() -> None:
    game = Game.new(GameSettings.create(4), 1)
    assert Move(AGREE_DRAW, -1) not in game.legal_moves
    game.push(Move(AGREE_DRAW, -1))
    assert game.status == DRAWN and game.winner is None
    assert game.termination == Termination.AGREEMENT
    assert end_reason(game.outcome) == "Drawn by agreement."
    assert public_view(game).termination == "agreement"
    assert_illegal(game, Move(AGREE_DRAW, -1), "The game is over")
    assert_illegal(game, Move(RESIGN, -1, team=0), "The game is over")
    data = json.loads(json.dumps(game.to_dict()))
    assert data["moves"][-1] == {"kind": "agree_draw", "seat": -1}
    assert Game.from_dict(data) == game
    assert Game.replay(game.settings, game.seed, game.moves) == game


def test_agreement_mid_game_replays() -> None:
    game = Game.new(GameSettings.create(3), 7)
    rng = random.Random(7)
    for _ in range(20):
        push_random(game, rng)
    game.push(Move(AGREE_DRAW, -1))
    moves = [Move.from_notation(move.notation()) for move in game.moves]
    assert moves[-1] == Move(AGREE_DRAW, -1) and game.moves[-1].notation() == "-1:agree_draw"
    assert Game.replay(game.settings, 7, moves) == game


# ------------------------------------------------------------------------------------ endings
@hypothesis_settings(deadline=None, database=None, max_examples=150)
@given(settings=st.sampled_from(CONFIGS), seed=st.integers(0, 2**32 - 1))
def test_every_random_game_ends_within_the_bound(settings: GameSettings, seed: int) -> None:
    game = Game.new(settings, seed)
    rng = random.Random(seed)
    bound = max_moves(settings)
    while not game.is_over():
        assert len(game.moves) < bound
        assert game.reshuffles_since_sequence < ENDLESS_PLAY_RESHUFFLES
        push_random(game, rng)
    assert game.termination is not None
    assert game.termination == termination_of(end_reason(game.outcome))
    if game.termination == Termination.ENDLESS_PLAY:
        assert not settings.convoy and game.status == DRAWN
        assert game.reshuffles_since_sequence == ENDLESS_PLAY_RESHUFFLES


def test_three_team_games_that_used_to_run_for_thousands_of_moves_end() -> None:
    """Seeds whose games ran 2,900 and 3,300 moves before the guard (classic 3 and 6 players)."""
    for players, seed in ((3, 40), (6, 23)):
        game = Game.new(GameSettings.create(players), seed)
        rng = random.Random(seed)
        while not game.is_over():
            push_random(game, rng)
        assert game.termination == Termination.ENDLESS_PLAY and len(game.moves) < 400
        assert game.status == DRAWN and end_reason(game.outcome) == ENDLESS
