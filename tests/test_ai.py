"""Computer players: legal and complete moves at every level, no peeking, and some strength."""

from __future__ import annotations

import random

import pytest

from bot.game import Game, GameSettings, Move, player_view
from bot.game.ai import LEVELS, NoMoveError, choose_move, hint, legal_moves
from bot.game.board import CARD_SPACES
from bot.game.moves import DEAD, DRAW, FORFEIT, PASS, PLAY, TABLETALK
from bot.game.sequences import EMPTY
from tests.helpers.positions import random_position, with_state

#: A small work budget for hard, so the tests run fast.
FAST = {"samples": 3}

CONFIGS = [
    (2, "classic"),
    (3, "classic"),
    (4, "classic"),
    (6, "classic"),
    (2, "convoy"),
    (4, "convoy"),
]


def ask(game: Game, level: str, rng: random.Random, seat: int | None = None) -> Move:
    """The level's move for ``seat`` (by default the seat to play) from its view."""
    seat = game.turn if seat is None else seat
    return choose_move(player_view(game, seat), level, rng, **FAST)


def play_out(game: Game, levels: list[str], rng: random.Random, limit: int = 3000) -> Game:
    """Play to the end, each seat at its level; every move must be legal as given."""
    while not game.is_over() and len(game.moves) < limit:
        seat = next((s for s in range(game.settings.players) if game.owed_forfeits[s]), None)
        if seat is None:
            seat = next(iter(game.owed_draws), game.turn)
        move = ask(game, levels[seat % len(levels)], rng, seat)
        assert game.validate(move) is None, (move, game.validate(move))
        game.push(move)
    return game


@pytest.mark.parametrize(("players", "preset"), CONFIGS)
@pytest.mark.parametrize("level", LEVELS)
def test_every_level_returns_a_legal_move(players: int, preset: str, level: str) -> None:
    for seed in range(6 if level == "hard" else 15):
        game = random_position(players, preset, seed)
        move = ask(game, level, random.Random(seed))
        assert move.seat == game.turn
        assert game.validate(move) is None, (move, game.validate(move))
        game.push(move)  # never ChoiceRequired: the five is chosen


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize(("players", "preset"), [(2, "classic"), (2, "convoy"), (4, "classic")])
def test_every_level_completes_games(level: str, players: int, preset: str) -> None:
    settings = GameSettings.create(players, preset=preset)
    games = 1 if level == "hard" else 3
    for seed in range(games):
        game = play_out(Game.new(settings, seed), [level], random.Random(seed))
        assert game.is_over()


def test_house_options_manual_draw_and_engine_choice() -> None:
    settings = GameSettings.create(2, manual_draw=True, engine_chooses_five=True)
    game = play_out(Game.new(settings, 3), ["medium", "hard"], random.Random(3))
    assert game.is_over()
    assert any(move.kind == DRAW for move in game.moves)


def test_owed_draw_is_taken_first() -> None:
    game = Game.new(GameSettings.create(2, manual_draw=True), 5)
    seat = game.turn
    game.push(ask(game, "medium", random.Random(0)))
    for level in LEVELS:
        assert ask(game, level, random.Random(0), seat) == Move(DRAW, seat)


@pytest.mark.parametrize("level", LEVELS)
def test_forfeit_comes_first(level: str) -> None:
    game = Game.new(GameSettings.create(2), 7)
    seat = game.turn
    game.push(Move(TABLETALK, seat, team=game.team_of(seat)))
    move = ask(game, level, random.Random(1), seat)
    assert move.kind == FORFEIT and move.seat == seat
    assert game.validate(move) is None


def covered(game: Game, card: str, team: int) -> list[int]:
    """The board with both spaces of ``card`` covered by ``team``."""
    chips = list(game.chips)
    for space in CARD_SPACES[card]:
        chips[space] = team
    return chips


def test_forfeit_gives_up_a_dead_card_before_a_jack() -> None:
    game = Game.new(GameSettings.create(2), 8)
    seat = game.turn
    other = game.team_of(seat + 1)
    hands = [list(hand) for hand in game.hands]
    hands[seat] = ["JD", "JS", "2S", "5H"]
    game = with_state(game, chips=covered(game, "5H", other), hands=hands)
    game.push(Move(TABLETALK, seat, team=game.team_of(seat)))
    for level in ("medium", "hard"):
        assert ask(game, level, random.Random(0), seat) == Move(FORFEIT, seat, "5H")


def test_dead_card_turned_in_then_a_play_classic() -> None:
    game = Game.new(GameSettings.create(2), 9)
    seat = game.turn
    hands = [list(hand) for hand in game.hands]
    hands[seat] = ["5H", "2S", "3S", "4S", "KD", "QD", "TD"]
    game = with_state(game, chips=covered(game, "5H", game.team_of(seat + 1)), hands=hands)
    for level in ("medium", "hard"):
        assert ask(game, level, random.Random(0)) == Move(DEAD, seat, "5H")
    game.push(Move(DEAD, seat, "5H"))
    assert game.turn == seat
    move = ask(game, "hard", random.Random(0))
    assert move.kind == PLAY and game.validate(move) is None


def test_convoy_dead_card_only_when_nothing_else_plays() -> None:
    game = Game.new(GameSettings.create(2, preset="convoy"), 9)
    seat = game.turn
    chips = covered(game, "5H", game.team_of(seat + 1))
    hands = [list(hand) for hand in game.hands]
    hands[seat] = ["5H", "2S"]
    game = with_state(game, chips=chips, hands=hands)
    assert ask(game, "medium", random.Random(0)).kind == PLAY
    hands[seat] = ["5H"]
    game = with_state(game, hands=hands)
    assert ask(game, "medium", random.Random(0)) == Move(DEAD, seat, "5H")


def test_pass_when_nothing_can_be_played() -> None:
    game = Game.new(GameSettings.create(2), 10)
    seat = game.turn
    chips = covered(game, "5H", 1)
    for space in CARD_SPACES["6H"]:
        chips[space] = 1
    hands = [list(hand) for hand in game.hands]
    hands[seat] = ["5H", "6H"]
    game = with_state(game, chips=chips, hands=hands, dead_card_used=True)
    for level in LEVELS:
        assert ask(game, level, random.Random(0)) == Move(PASS, seat)


@pytest.mark.parametrize("level", LEVELS)
def test_line_of_six_comes_with_a_legal_choice_of_five(level: str) -> None:
    game = Game.new(GameSettings.create(2), 11)
    seat = game.turn
    team = game.team_of(seat)
    chips = [EMPTY if c >= 0 else c for c in game.chips]
    # Row 8 (A9..J9): AC 7S 6S 5S 4S 3S 2S 2H 3H 5D; own chips on B9-D9 and F9-G9.
    for space in (81, 82, 83, 85, 86):
        chips[space] = team
    hands = [list(hand) for hand in game.hands]
    hands[seat] = ["4S"]  # E9 (84) makes six in a row: B9..G9
    game = with_state(game, chips=chips, hands=hands)
    move = ask(game, level, random.Random(0))
    assert move.kind == PLAY and move.space == 84 and move.five is not None
    game.push(move)
    assert len(game.sequences) == 1


def test_immediate_win_is_taken() -> None:
    game = Game.new(GameSettings.create(3), 12)
    seat = game.turn
    team = game.team_of(seat)
    chips = [EMPTY if c >= 0 else c for c in game.chips]
    for space in (81, 82, 83, 84):  # B9..E9; F9 is 3S
        chips[space] = team
    hands = [list(hand) for hand in game.hands]
    hands[seat] = ["2D", "3S", "JD"]
    game = with_state(game, chips=chips, hands=hands)
    for level in ("medium", "hard"):
        move = ask(game, level, random.Random(0))
        assert move.space in (80, 85) and move.card != "JD"


def permuted_hidden(game: Game, seat: int, rng: random.Random) -> Game:
    """The same game as ``seat`` sees it, with everything it cannot see shuffled."""
    data = game.to_dict()
    state = data["state"]
    others = [s for s in range(game.settings.players) if s != seat]
    pool = [card for s in others for card in state["hands"][s]] + state["deck"]
    rng.shuffle(pool)
    for s in others:
        size = len(state["hands"][s])
        state["hands"][s], pool = pool[:size], pool[size:]
    state["deck"] = pool
    data["seed"] = rng.randrange(10**6)
    return Game.from_dict(data)


@pytest.mark.parametrize("level", LEVELS)
def test_never_cheats(level: str) -> None:
    checked = 0
    for seed in range(8):
        for players, preset in ((2, "classic"), (4, "classic"), (2, "convoy"), (3, "classic")):
            game = random_position(players, preset, seed)
            seat = game.turn
            twin = permuted_hidden(game, seat, random.Random(seed))
            assert twin.hands != game.hands or twin.deck != game.deck
            view, twin_view = player_view(game, seat), player_view(twin, seat)
            assert view == twin_view
            first = choose_move(view, level, random.Random(seed), **FAST)
            second = choose_move(twin_view, level, random.Random(seed), **FAST)
            assert first == second
            checked += 1
    assert checked == 32


@pytest.mark.parametrize("level", LEVELS)
def test_same_seed_same_move(level: str) -> None:
    game = random_position(2, "classic", 21)
    view = player_view(game, game.turn)
    moves = {choose_move(view, level, random.Random(5), **FAST) for _ in range(3)}
    assert len(moves) == 1


def test_refusals() -> None:
    game = Game.new(GameSettings.create(2), 13)
    view = player_view(game, game.turn)
    with pytest.raises(ValueError, match="level"):
        choose_move(view, "expert", random.Random(0))
    with pytest.raises(NoMoveError):
        choose_move(player_view(game, 1 - game.turn), "medium", random.Random(0))
    from bot.game import public_view

    with pytest.raises(ValueError):
        choose_move(public_view(game), "easy", random.Random(0))
    assert legal_moves(view) == game.legal_moves


def test_hint_is_a_legal_move() -> None:
    game = random_position(2, "classic", 14)
    move = hint(player_view(game, game.turn))
    assert game.validate(move) is None


def test_medium_beats_easy() -> None:
    wins = 0
    for seed in range(20):
        game = Game.new(GameSettings.create(2, preset="convoy" if seed % 2 else "classic"), seed)
        levels = ["medium", "easy"] if seed % 4 < 2 else ["easy", "medium"]
        play_out(game, levels, random.Random(seed))
        wins += game.winner is not None and levels[game.winner] == "medium"
    assert wins >= 16
