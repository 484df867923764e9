"""Computer players: always a legal, complete move; never a peek at hidden cards."""

from __future__ import annotations

import random

import pytest

from bot.game import Game, GameSettings, player_view
from bot.game.ai import LEVELS, NoMoveError, choose_move, hint
from bot.game.board import CARD_SPACES
from bot.game.moves import DEAD, FORFEIT, PASS, TABLETALK, Move
from bot.game.randomplay import push_random

#: Few samples keep the hard player quick and its choices reproducible in tests.
SAMPLES = 4


def seat_to_act(game: Game) -> int:
    """A seat owing a forfeit acts first, then the seat to move."""
    return next((s for s, owed in enumerate(game.owed_forfeits) if owed), game.turn)


def play(game: Game, levels: list[str], seed: int, max_moves: int = 3000) -> Game:
    """Play ``game`` to its end, each seat at its level; every move must be legal."""
    rng = random.Random(seed)
    while not game.is_over() and len(game.moves) < max_moves:
        seat = seat_to_act(game)
        move = choose_move(player_view(game, seat), levels[seat], rng, samples=SAMPLES)
        assert move.seat == seat
        assert game.validate(move) is None, (move, game.validate(move))
        game.push(move)
    return game


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize(
    ("players", "preset"), [(2, "classic"), (3, "classic"), (4, "classic"), (2, "convoy")]
)
def test_every_level_plays_legal_moves_to_the_end(level: str, players: int, preset: str) -> None:
    settings = GameSettings.create(players, preset=preset)
    game = play(Game.new(settings, seed=players), [level] * players, seed=players)
    assert game.is_over()


@pytest.mark.parametrize("level", LEVELS)
def test_random_positions_get_a_complete_legal_move(level: str) -> None:
    rng = random.Random(5)
    for seed in range(12):
        game = Game.new(GameSettings.create(rng.choice([2, 3, 4])), seed)
        for _ in range(rng.randint(0, 60)):
            if game.is_over():
                break
            push_random(game, rng)
        if game.is_over():
            continue
        move = choose_move(player_view(game, game.turn), level, rng, samples=SAMPLES)
        assert game.validate(move) is None
        if move.five is not None:  # a long line: the five chosen is one the move makes
            assert move.five in game.sequence_options(move._replace(five=None))


@pytest.mark.parametrize("level", LEVELS)
def test_an_owed_forfeit_comes_first(level: str) -> None:
    game = Game.new(GameSettings.create(2), 3)
    offender = game.team_of(game.turn)
    game.push(Move(TABLETALK, -1, team=offender))
    move = choose_move(player_view(game, game.turn), level, random.Random(1), samples=SAMPLES)
    assert move.kind == FORFEIT and move.card in game.hands[game.turn]


def test_a_dead_card_is_turned_in_and_nothing_playable_is_a_pass() -> None:
    game = Game.new(GameSettings.create(2), 4)
    seat = game.turn
    card = next(c for c in game.hands[seat] if c[0] != "J")
    for space in CARD_SPACES[card]:  # arrange: the opponent covers both spaces of the card
        game.chips[space] = 1 - game.team_of(seat)
    move = choose_move(player_view(game, seat), "medium", random.Random(1))
    assert move == Move(DEAD, seat, card)  # in the classic game the exchange costs nothing
    game.push(move)
    # arrange: only one-eyed jacks in hand and no opponent chip left to remove
    game.hands[seat] = ["JH", "JS"]
    game.chips = [c if c < 0 or c == game.team_of(seat) else -1 for c in game.chips]
    move = choose_move(player_view(game, seat), "hard", random.Random(1), samples=SAMPLES)
    assert move == Move(PASS, seat)


def test_no_move_when_it_is_not_the_seats_turn() -> None:
    game = Game.new(GameSettings.create(2), 1)
    with pytest.raises(NoMoveError):
        choose_move(player_view(game, 1 - game.turn), "easy", random.Random(1))


def hidden_shuffled(game: Game, seat: int, seed: int) -> Game:
    """The same game as ``seat`` sees it, with every card it cannot see dealt differently."""
    data = game.to_dict()
    state = data["state"]
    others = [s for s in range(game.settings.players) if s != seat]
    hidden = [card for s in others for card in state["hands"][s]] + state["deck"]
    random.Random(seed).shuffle(hidden)
    for s in others:
        size = len(state["hands"][s])
        state["hands"][s], hidden = hidden[:size], hidden[size:]
    state["deck"] = hidden
    return Game.from_dict(data)


@pytest.mark.parametrize("level", LEVELS)
def test_a_computer_never_reads_what_it_may_not_see(level: str) -> None:
    """Its choice is the same in any two games that differ only in the hidden cards."""
    rng = random.Random(9)
    for seed in range(6):
        game = Game.new(GameSettings.create(rng.choice([2, 4])), seed)
        for _ in range(rng.randint(5, 40)):
            if game.is_over():
                break
            push_random(game, rng)
        if game.is_over():
            continue
        seat = game.turn
        twin = hidden_shuffled(game, seat, seed)
        assert twin.hands[seat] == game.hands[seat]
        assert twin.hands != game.hands or twin.deck != game.deck
        assert player_view(twin, seat) == player_view(game, seat)
        one = choose_move(player_view(game, seat), level, random.Random(seed), samples=SAMPLES)
        two = choose_move(player_view(twin, seat), level, random.Random(seed), samples=SAMPLES)
        assert one == two


def test_medium_beats_easy_most_of_the_time() -> None:
    wins = 0
    for seed in range(10):
        levels = ["medium", "easy"] if seed % 2 else ["easy", "medium"]
        game = play(Game.new(GameSettings.create(2), seed), levels, seed)
        wins += game.winner is not None and levels[game.winner] == "medium"
    assert wins >= 7


def test_a_hint_is_a_legal_move_for_the_player() -> None:
    game = Game.new(GameSettings.create(2), 2)
    move = hint(player_view(game, game.turn), budget_ms=50)
    assert game.validate(move) is None
