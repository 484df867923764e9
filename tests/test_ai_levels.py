"""How each level plays: easy completes and sometimes blocks, medium always blocks a four, hard
gives the same move for the same seed whatever the machine's load or clock."""

from __future__ import annotations

import multiprocessing
import multiprocessing.synchronize
import random
import time
from collections.abc import Callable, Iterator

import pytest

from bot.game import ChoiceRequired, Game, GameSettings, Move, player_view
from bot.game.ai import choose_move
from bot.game.board import CARD_SPACES, SIZE
from bot.game.cards import is_one_eyed
from bot.game.moves import DEAD, PLAY
from bot.game.sequences import CORNER, EMPTY, sequence_options
from tests.helpers.positions import with_state

from .engine_helpers import build_game

SAMPLES = 8


def threats(game: Game, team: int) -> set[int]:
    """Empty spaces where one chip of another team than ``team`` completes a sequence, by the
    engine's own rule."""
    found: set[int] = set()
    for other in range(game.settings.teams):
        if other == team:
            continue
        existing = [frozenset(w) for t, w in game.sequences if t == other]
        chips = list(game.chips)
        for space in range(100):
            if chips[space] != EMPTY:
                continue
            chips[space] = other
            if sequence_options(chips, space, other, existing):
                found.add(space)
            chips[space] = EMPTY
    return found


def completes(game: Game, move: Move) -> bool:
    """True when ``move`` completes a sequence for its team."""
    return move.kind == PLAY and bool(game.sequence_options(move))


def after(game: Game, move: Move) -> Game:
    """A copy of ``game`` with ``move`` played (the first five, when there is a choice)."""
    copy = Game.from_dict(game.to_dict())
    try:
        copy.push(move)
    except ChoiceRequired as choice:
        copy.push(move._replace(five=choice.options[0]))
    return copy


def blocking_moves(game: Game) -> list[Move]:
    """The legal plays of the seat to move that leave fewer spaces where another team
    completes a sequence."""
    team = game.team_of(game.turn)
    before = len(threats(game, team))
    plays = [m for m in game.legal_moves if m.kind == PLAY]
    return [m for m in plays if len(threats(after(game, m), team)) < before]


def play_of(game: Game, level: str, rng: random.Random) -> tuple[Game, Move]:
    """The level's move for the seat to move, after any dead card it turns in first (classic:
    that does not end the turn), with the game it is played on."""
    move = choose_move(player_view(game, game.turn), level, rng)
    while move.kind == DEAD and not game.settings.convoy:
        game = after(game, move)
        move = choose_move(player_view(game, game.turn), level, rng)
    return game, move


def positions(levels: list[str], seeds: range, players: int = 2) -> Iterator[Game]:
    """Every position met in games between ``levels`` (the seat to move has a play)."""
    for seed in seeds:
        preset = "convoy" if seed % 2 and players % 2 == 0 else "classic"
        game = Game.new(GameSettings.create(players, preset=preset), seed)
        rng = random.Random(seed)
        while not game.is_over() and len(game.moves) < 400:
            seat = game.turn
            yield game
            move = choose_move(player_view(game, seat), levels[seat % len(levels)], rng)
            game = after(game, move)


# ------------------------------------------------------------------------------------- easy
def test_easy_completes_a_sequence_in_one_move() -> None:
    game = Game.new(GameSettings.create(2), 11)
    seat = game.turn
    team = game.team_of(seat)
    chips = [EMPTY if c >= 0 else c for c in game.chips]
    for space in (81, 82, 83, 84):  # B9..E9; A9 is a corner (AC), F9 is 3S
        chips[space] = team
    for seed in range(30):
        hands = [list(hand) for hand in game.hands]
        rng = random.Random(seed)
        hands[seat] = [*rng.sample(["2C", "9H", "KD", "7C", "QS", "4D"], 5), "3S"]
        board = with_state(game, chips=chips, hands=hands)
        move = choose_move(player_view(board, seat), "easy", rng)
        assert move == Move(PLAY, seat, "3S", 85), move


def test_easy_completes_whenever_it_can_in_played_games() -> None:
    checked = 0
    for game in positions(["easy", "medium"], range(40)):
        if game.turn != 0 or not any(completes(game, m) for m in game.legal_moves):
            continue
        game, move = play_of(game, "easy", random.Random(checked))
        assert completes(game, move), (game.seed, len(game.moves), move)
        checked += 1
    assert checked >= 10


@pytest.mark.slow
def test_easy_blocks_a_four_some_of_the_time() -> None:
    blocked = missed = 0
    for game in positions(["easy", "medium"], range(20)):
        if game.turn != 0 or any(completes(game, m) for m in game.legal_moves):
            continue
        places = {m.space for m in blocking_moves(game) if not is_one_eyed(m.card or "")}
        if not places:
            continue
        for seed in range(4):
            _, move = play_of(game, "easy", random.Random(seed))
            if move.kind == PLAY and move.space in places:
                blocked += 1
            else:
                missed += 1
    assert blocked >= 10 and missed >= 5
    assert 0.5 < blocked / (blocked + missed) < 0.95


def own_neighbours(game: Game, move: Move) -> int:
    """Own chips (and free corners) next to the space of ``move``."""
    team = game.team_of(move.seat)
    row, col = divmod(move.space or 0, SIZE)
    return sum(
        game.chips[r * SIZE + c] in (team, CORNER)
        for r in range(max(0, row - 1), min(SIZE, row + 2))
        for c in range(max(0, col - 1), min(SIZE, col + 2))
        if (r, c) != (row, col)
    )


def test_easy_plays_near_its_own_chips_and_not_always_the_same() -> None:
    easy: list[int] = []
    uniform: list[int] = []
    spaces: set[int] = set()
    for game in positions(["easy", "easy"], range(4)):
        plays = [m for m in game.legal_moves if m.kind == PLAY and m.card in CARD_SPACES]
        if len(plays) < 4 or len(game.moves) < 10:
            continue
        choices = [
            choose_move(player_view(game, game.turn), "easy", random.Random(s)) for s in range(3)
        ]
        spaces.add(len({m.space for m in choices}))
        easy.extend(own_neighbours(game, m) for m in choices if m.kind == PLAY)
        uniform.extend(own_neighbours(game, m) for m in plays)
    assert sum(easy) / len(easy) > 1.3 * sum(uniform) / len(uniform)
    assert max(spaces) > 1  # the same position, another seed: another move


# ----------------------------------------------------------------------------------- medium
@pytest.mark.slow
@pytest.mark.parametrize(
    ("players", "opponents"),
    [(2, ["medium", "easy"]), (2, ["medium"]), (3, ["medium", "easy", "medium"]), (4, ["easy"])],
)
def test_medium_always_blocks_a_four_when_a_card_can(players: int, opponents: list[str]) -> None:
    """Over positions from played games: when another team can complete a sequence and a
    card in medium's hand can spoil it, medium does (unless it wins on the spot)."""
    checked = 0
    for game in positions(opponents, range(16), players):
        seat = game.turn
        team = game.team_of(seat)
        if not threats(game, team):
            continue
        blocks = blocking_moves(game)
        if not blocks:
            continue
        game, move = play_of(game, "medium", random.Random(seat))
        if not blocking_moves(game):
            continue
        done = after(game, move)
        if done.is_over() and done.winner == team:
            continue
        assert move in blocks or (
            move.kind == PLAY and len(threats(done, team)) < len(threats(game, team))
        ), (game.seed, len(game.moves), move, blocks)
        checked += 1
    assert checked >= 15


# ------------------------------------------------------------------------------------- hard
def hard_positions() -> list[Game]:
    """Positions from medium-against-easy games, where hard has plays to weigh."""
    found = []
    for game in positions(["medium", "easy"], range(3)):
        if len(game.moves) % 9 == 4 and any(m.kind == PLAY for m in game.legal_moves):
            found.append(game)
    return found[:12]


def hard_moves(games: list[Game], clock: Callable[[], float] | None = None) -> list[Move]:
    """Hard's move in each game, seed 7, with a safety cap far above its work budget."""
    return [
        choose_move(
            player_view(g, g.turn), "hard", random.Random(7), 600_000, samples=SAMPLES, clock=clock
        )
        for g in games
    ]


JACK_BLOCK = """
X . . . . . . . . X
. . . . . . . . . .
. . 0 0 . . . . . .
. . . . . . . . . .
. . . . 1 1 1 1 0 .
. . . . . . . . . .
. . . . . . 0 0 . .
. . . . . . . . . .
. . . . . . . . . .
X . . . . . . . . X
"""


def test_hard_weighs_blocking_a_four_with_a_jack() -> None:
    """The other team's four (E5-H5) lacks only D5 (6H), which no card in hand covers; a
    two-eyed jack blocks it, although its one-move score ranks it below every plain play."""
    hand = ["JD", "2S", "3S", "4S", "5S", "6S", "7S"]
    game = build_game(GameSettings.create(2), hands={0: hand}, chips=JACK_BLOCK, turn=0)
    for seed in range(4):
        move = choose_move(player_view(game, 0), "hard", random.Random(seed), samples=SAMPLES)
        assert (move.card, move.space) == ("JD", 43), move


def _burn(stop: multiprocessing.synchronize.Event) -> None:
    while not stop.is_set():
        sum(i * i for i in range(10_000))


def test_hard_same_seed_same_move_under_different_load() -> None:
    games = hard_positions()
    quiet = hard_moves(games, time.perf_counter)
    stop = multiprocessing.Event()
    burners = [multiprocessing.Process(target=_burn, args=(stop,)) for _ in range(2)]
    for burner in burners:
        burner.start()
    try:
        loaded = hard_moves(games, time.perf_counter)
    finally:
        stop.set()
        for burner in burners:
            burner.join()
    assert loaded == quiet
    assert len(set(quiet)) > 1


class SteppingClock:
    """A clock that advances ``step`` seconds each time it is read: a fast or a slow machine."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step
        self.reads = 0

    def __call__(self) -> float:
        self.now += self.step
        self.reads += 1
        return self.now


def test_hard_move_does_not_depend_on_the_clock() -> None:
    games = hard_positions()
    fast, slow = SteppingClock(1e-6), SteppingClock(5.0)
    assert hard_moves(games, fast) == hard_moves(games, slow) == hard_moves(games)
    assert fast.reads > 0 and slow.reads > 0


def test_hard_safety_cap_cuts_the_search_short() -> None:
    game = hard_positions()[0]
    view = player_view(game, game.turn)
    clock = SteppingClock(1.0)  # every guess seems to take a second; the cap is 2.5 s
    move = choose_move(view, "hard", random.Random(7), 2500, samples=1000, clock=clock)
    assert game.validate(move) is None
    assert clock.reads < 10  # stopped after a guess or two, not a thousand


def test_no_level_reads_a_clock_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_clock() -> float:
        raise AssertionError("a computer player read the clock")

    for name in ("perf_counter", "monotonic", "time", "process_time", "perf_counter_ns"):
        monkeypatch.setattr(time, name, no_clock)
    game = hard_positions()[1]
    for level in ("easy", "medium", "hard"):
        move = choose_move(player_view(game, game.turn), level, random.Random(1), samples=4)
        assert game.validate(move) is None
