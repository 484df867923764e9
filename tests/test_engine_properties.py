"""Property tests: random complete games of every player count and both presets.

Each game plays uniformly random legal moves from ``random.Random(seed)`` (a random five when the
mover must choose) and checks the invariants after every move; the end checks are heavier.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from itertools import combinations

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from bot.game import (
    CORNER,
    CORNERS,
    DRAWN,
    EMPTY,
    WON,
    ChoiceRequired,
    Game,
    GameSettings,
    IllegalMove,
    Move,
    Termination,
    player_view,
    public_view,
)
from bot.game.ai import lines
from bot.store.upgrades import termination_of
from cogs.common.describe import end_reason
from tests.engine_helpers import (
    CONFIGS,
    FULL_DECK,
    HOUSE_OPTIONS,
    all_cards,
    card_total,
    out_of_turn,
    play_random_game,
    push_random,
)

#: With the endless-play guard off, random 3-team games can fill the board without a sequence
#: and then cycle through one-eyed jacks for a few thousand moves (1 game in 1,000 passes 3,000);
#: no game may pass this bound. With the guard on (the default) see test_engine_endless.py.
MAX_MOVES = 15_000

#: Every window of five spaces in a straight line on the board (192 of them).
WINDOWS = sorted(lines.WINDOWS)
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
PROPERTY = hypothesis_settings(
    deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)


class Invariants:
    """Checks after every move: cards accounted for, corners free, locked chips stay put."""

    def __init__(self) -> None:
        self.locked: dict[int, int] = {}
        self.sequences = 0

    def __call__(self, game: Game) -> None:
        assert card_total(game) == 104
        chips = game.chips
        assert all(chips[corner] == CORNER for corner in CORNERS)
        for space, team in self.locked.items():
            assert chips[space] == team and game.locked[space]
        if len(game.sequences) != self.sequences:  # only on a move that completed sequences
            assert len(game.sequences) > self.sequences
            self.sequences = len(game.sequences)
            for team, window in game.sequences:
                for space in window:
                    if space not in CORNERS:
                        self.locked[space] = team
        assert sum(game.locked) == len(self.locked)


def check_end(game: Game) -> None:
    """The game ended in a legal result, and its data is complete and deterministic."""
    settings = game.settings
    counts = [game.sequence_count(team) for team in range(settings.teams)]
    assert game.status in (WON, DRAWN)
    assert game.legal_moves == []
    if game.status == WON:
        assert game.winner is not None
        active = game.active_teams()
        if counts[game.winner] >= settings.sequences_to_win:
            assert "completed" in end_reason(game.outcome)
        elif active == [game.winner]:
            reason = end_reason(game.outcome)
            assert "resigned" in reason or "player left" in reason
        else:  # convoy, nobody reached the target: strictly the most convoys
            assert settings.convoy and "most convoys" in end_reason(game.outcome)
            assert all(counts[game.winner] > counts[t] for t in active if t != game.winner)
        assert all(n < settings.sequences_to_win for t, n in enumerate(counts) if t != game.winner)
    else:
        assert game.winner is None
        assert all(n < settings.sequences_to_win for n in counts)
        assert game.termination in (Termination.STALEMATE, Termination.ENDLESS_PLAY)
    assert game.termination == termination_of(end_reason(game.outcome))
    if game.termination == Termination.STALEMATE:  # nobody can play on, now or next turn
        for seat in range(settings.players):
            if not game.out[seat] and seat not in game.owed_draws:
                assert not game.has_playable_card(seat), seat
                assert not any(game.is_dead(card) for card in game.hands[seat]), seat
    if game.termination == Termination.ENDLESS_PLAY:
        assert settings.endless_play_guard and not settings.convoy
    check_sequences(game)
    assert all_cards(game) == FULL_DECK
    data = game.to_dict()
    assert Game.from_dict(json.loads(json.dumps(data))) == game
    assert Game.from_dict(data).to_dict() == data
    assert Game.replay(settings, game.seed, game.moves) == game
    assert [Move.from_notation(m.notation()) for m in game.moves] == game.moves
    assert [Move.from_dict(m.to_dict()) for m in game.moves] == game.moves


def check_sequences(game: Game) -> None:
    """Every recorded sequence is real; no five of a team on the board went unrecorded."""
    chips = game.chips
    window_set = set(WINDOWS)
    by_team: dict[int, list[set[int]]] = {}
    for team, window in game.sequences:
        assert tuple(sorted(window)) in window_set
        assert all(chips[s] in (team, CORNER) for s in window)
        by_team.setdefault(team, []).append(set(window))
    for windows in by_team.values():
        for first, second in combinations(windows, 2):
            assert len(first & second) <= 1
    for window in WINDOWS:
        owners = {chips[s] for s in window} - {CORNER}
        if len(owners) == 1 and (team := owners.pop()) != EMPTY:
            assert any(len(set(window) & old) >= 2 for old in by_team.get(team, [])), window


def play_checked(settings: GameSettings, seed: int, **kwargs: object) -> Game:
    """A complete random game with the per-move invariants and the end checks."""
    game = play_random_game(settings, seed, max_moves=MAX_MOVES, after_move=Invariants(), **kwargs)
    check_end(game)
    return game


# ------------------------------------------------------------------------------------ games
@pytest.mark.parametrize("settings", CONFIGS, ids=lambda s: f"{s.preset}-{s.players}")
def test_every_configuration_plays_to_a_legal_end(settings: GameSettings) -> None:
    for seed in range(4):
        play_checked(settings, seed)


@pytest.mark.slow
@hypothesis_settings(PROPERTY, max_examples=300)
@given(settings=st.sampled_from(CONFIGS), seed=SEEDS)
def test_random_games_keep_every_invariant(settings: GameSettings, seed: int) -> None:
    play_checked(settings, seed)


@hypothesis_settings(PROPERTY, max_examples=200)
@given(settings=HOUSE_OPTIONS, seed=SEEDS)
def test_house_options_and_moves_out_of_turn(settings: GameSettings, seed: int) -> None:
    game = play_checked(settings, seed, extra=out_of_turn)
    if settings.engine_chooses_five:
        assert all(move.five is None for move in game.moves)


@hypothesis_settings(PROPERTY, max_examples=100)
@given(settings=HOUSE_OPTIONS, rules=st.sampled_from((1, 2)), seed=SEEDS)
def test_a_game_replays_from_its_log_under_its_own_rules_revision(
    settings: GameSettings, rules: int, seed: int
) -> None:
    """A game of either rules revision, with moves out of turn (time-outs, late draws,
    departures), replays from its stored settings and log to the state it had after each move:
    revision 1's stored settings name no revision (as a game stored before revisions)."""
    settings = replace(settings, rules=rules)
    states: list[dict[str, object]] = []
    game = play_random_game(
        settings,
        seed,
        max_moves=MAX_MOVES,
        extra=out_of_turn,
        after_move=lambda game: states.append(game.state_dict()),
    )
    stored = settings.to_dict()
    if rules == 1:
        del stored["rules"]
    loaded = GameSettings.from_dict(json.loads(json.dumps(stored)))
    assert loaded == settings
    replayed = Game.new(loaded, seed)
    for move, state in zip(game.moves, states, strict=True):
        replayed.push(move)
        assert replayed.state_dict() == state
    assert replayed == game


# ------------------------------------------------------------------------------------ moves
@hypothesis_settings(PROPERTY, max_examples=40)
@given(settings=st.sampled_from(CONFIGS), seed=SEEDS)
def test_legal_moves_agree_with_validate(settings: GameSettings, seed: int) -> None:
    """Every listed move is legal; random other moves are refused and change nothing."""
    game = Game.new(settings, seed)
    rng = random.Random(seed)
    while not game.is_over() and len(game.moves) < 300:
        legal = game.legal_moves
        if len(game.moves) % 7 == 0:
            for move in legal:
                reason = game.validate(move)
                assert reason is None or "Choose" in reason, (move, reason)
            seat = game.turn
            before = game.to_dict()
            for _ in range(20):
                card = rng.choice([*game.hands[seat], "JD", "2S"])
                mover = rng.choice([seat, (seat + 1) % settings.players])
                move = Move.play(mover, card, rng.randrange(100))
                if move in legal:
                    continue
                with pytest.raises(IllegalMove) as refused:
                    game.push(move)
                assert not isinstance(refused.value, ChoiceRequired)
                assert game.validate(move) == str(refused.value)
            assert game.to_dict() == before
        push_random(game, rng.choice(legal), rng)


@hypothesis_settings(PROPERTY, max_examples=40)
@given(settings=st.sampled_from(CONFIGS), seed=SEEDS, moves=st.integers(0, 60))
def test_views_hide_other_hands_and_the_deck(settings: GameSettings, seed: int, moves: int) -> None:
    game = Game.new(settings, seed)
    rng = random.Random(seed)
    while not game.is_over() and len(game.moves) < moves:
        push_random(game, rng.choice(game.legal_moves), rng)
    seat = rng.randrange(settings.players)
    data = game.to_dict()
    state = data["state"]
    others = [s for s in range(settings.players) if s != seat]
    hidden = [card for s in others for card in state["hands"][s]] + state["deck"]
    rng.shuffle(hidden)
    for s in others:
        size = len(state["hands"][s])
        state["hands"][s], hidden = hidden[:size], hidden[size:]
    state["deck"] = hidden
    other = Game.from_dict(data)
    assert player_view(other, seat) == player_view(game, seat)
    assert public_view(other) == public_view(game)
    assert player_view(game, seat).hand == tuple(game.hands[seat])
    assert public_view(game).hand is None
    assert sum(player_view(game, seat).hand_sizes) == sum(map(len, game.hands))


def _mutable_parts(value: object) -> list[object]:
    """Every list and dict inside ``value`` (tuples, strings and numbers are immutable)."""
    if isinstance(value, list):
        return [value, *(part for item in value for part in _mutable_parts(item))]
    if isinstance(value, dict):
        return [value, *(part for item in value.values() for part in _mutable_parts(item))]
    return []


@hypothesis_settings(PROPERTY, max_examples=40)
@given(settings=st.sampled_from(CONFIGS), seed=SEEDS, moves=st.integers(0, 80))
def test_a_copy_shares_no_state_and_plays_on_alone(
    settings: GameSettings, seed: int, moves: int
) -> None:
    game = Game.new(settings, seed)
    rng = random.Random(seed)
    while not game.is_over() and len(game.moves) < moves:
        push_random(game, rng.choice(game.legal_moves), rng)
    twin = game.copy()
    assert twin == game and twin.to_dict() == game.to_dict()
    ours = {id(part) for part in _mutable_parts(vars(game))}
    assert not [part for part in _mutable_parts(vars(twin)) if id(part) in ours]
    before = game.to_dict()
    for _ in range(20):  # the copy plays on; the game does not move
        if twin.is_over():
            break
        push_random(twin, rng.choice(twin.legal_moves), rng)
    assert game.to_dict() == before
    assert Game.replay(twin.settings, twin.seed, twin.moves) == twin
