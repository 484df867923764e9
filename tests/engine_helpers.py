"""Shared helpers for the engine tests: hand-made positions, random games, invariant checks."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence

import pytest
from hypothesis import strategies as st

from bot.game import (
    CORNER,
    CORNERS,
    EMPTY,
    ChoiceRequired,
    Game,
    GameSettings,
    IllegalMove,
    Move,
    full_deck,
    parse_space,
)
from bot.game.cards import is_jack
from bot.game.moves import DRAW, FORFEIT, REMOVE, RESIGN, SKIP, TABLETALK

Space = int | str

#: Every player count of both presets, with the default options.
CONFIGS = [GameSettings.create(players) for players in (2, 3, 4, 6, 8, 9, 10, 12)] + [
    GameSettings.create(players, preset="convoy") for players in (2, 4, 6, 8)
]


def sp(space: Space) -> int:
    """A space number from a number or a name such as ``"C4"``."""
    return space if isinstance(space, int) else parse_space(space)


def sps(*spaces: Space) -> tuple[int, ...]:
    """Several spaces, as a tuple of numbers."""
    return tuple(sp(space) for space in spaces)


def chips_from_picture(picture: str) -> list[int]:
    """A ``chips`` list from 10 lines of 10 characters: ``.`` empty, ``X`` corner, ``0-2`` team.

    Spaces inside a line are ignored, so rows may be written ``X . . 0 ...`` for readability.
    """
    rows = [line.replace(" ", "") for line in picture.strip().splitlines()]
    assert len(rows) == 10 and all(len(row) == 10 for row in rows), "need 10 rows of 10"
    chips: list[int] = []
    for space, char in enumerate("".join(rows)):
        if space in CORNERS:
            assert char in "X.", f"corner {space} must be X"
            chips.append(CORNER)
        else:
            chips.append(EMPTY if char == "." else int(char))
    return chips


def build_game(
    settings: GameSettings | None = None,
    *,
    seed: int = 1,
    hands: Mapping[int, Sequence[str]] | None = None,
    chips: Mapping[Space, int] | str | None = None,
    sequences: Iterable[tuple[int, Sequence[Space]]] = (),
    turn: int = 0,
    deck: Sequence[str] | None = None,
    **state: object,
) -> Game:
    """A game in a hand-made position, built via :meth:`Game.from_dict` on an edited state.

    The 104 cards stay accounted for: requested hand cards come out of the deck (or, failing
    that, out of another seat's dealt hand, which gets a deck card back). ``deck`` (top last)
    makes the draw deck exactly those cards; any other deck cards go to seat 0's discard pile.
    ``chips`` is a picture (see :func:`chips_from_picture`) or a mapping space -> team.
    ``state`` overrides any other key of the state snapshot.
    """
    settings = settings or GameSettings.create(2)
    data = Game.new(settings, seed).to_dict()
    st = data["state"]
    pool: list[str] = st["deck"]
    hands = dict(hands or {})
    for seat in hands:
        pool.extend(st["hands"][seat])
        st["hands"][seat] = []
    wanted = [card for cards in hands.values() for card in cards]
    for seat, cards in hands.items():
        for card in cards:
            if card not in pool:
                donor = next(
                    s for s, hand in enumerate(st["hands"]) if s not in hands and card in hand
                )
                spare = next(c for c in pool if c not in wanted)
                st["hands"][donor].remove(card)
                st["hands"][donor].append(spare)
                pool.remove(spare)
                pool.append(card)
            pool.remove(card)
            st["hands"][seat].append(card)
    if deck is not None:
        for card in deck:
            pool.remove(card)
        st["discards"][0].extend(pool)
        st["deck"] = list(deck)
    if isinstance(chips, str):
        st["chips"] = chips_from_picture(chips)
    elif chips:
        for space, team in chips.items():
            st["chips"][sp(space)] = team
    st["sequences"] = [[team, [sp(s) for s in window]] for team, window in sequences]
    st["turn"] = turn
    st.update(state)
    game = Game.from_dict(data)
    assert card_total(game) == 104
    return game


def card_total(game: Game) -> int:
    """Cards in the deck, the hands and the discard piles."""
    return len(game.deck) + sum(map(len, game.hands)) + sum(map(len, game.discards))


def all_cards(game: Game) -> Counter[str]:
    """Every card of the game, wherever it is."""
    cards = Counter(game.deck)
    for pile in (*game.hands, *game.discards):
        cards.update(pile)
    return cards


FULL_DECK = Counter(full_deck())


def assert_illegal(game: Game, move: Move, reason: str) -> None:
    """``move`` is refused with ``reason`` by validate and by push, and changes nothing."""
    before = game.to_dict()
    message = game.validate(move)
    assert message is not None and reason in message, message
    with pytest.raises(IllegalMove) as error:
        game.push(move)
    assert reason in str(error.value)
    assert game.to_dict() == before


def play(
    game: Game, seat: int, card: str, space: Space, five: Iterable[Sequence[Space]] = ()
) -> None:
    """Push a play, naming spaces by name or number."""
    windows = tuple(sps(*window) for window in five) or None
    game.push(Move.play(seat, card, sp(space), windows))  # type: ignore[arg-type]


def windows_of(game: Game, team: int) -> set[tuple[int, ...]]:
    """A team's completed sequences, as sorted tuples of spaces."""
    return {tuple(sorted(window)) for owner, window in game.sequences if owner == team}


def random_move(game: Game, rng: random.Random) -> Move:
    """A uniformly random legal move of the seat to move."""
    return rng.choice(game.legal_moves)


def push_random(game: Game, move: Move, rng: random.Random) -> Move:
    """Push ``move``; when the mover must choose the five, choose one at random."""
    try:
        game.push(move)
    except ChoiceRequired as choice:
        move = move._replace(five=rng.choice(choice.options))
        game.push(move)
    return move


def play_random_game(
    settings: GameSettings,
    seed: int,
    *,
    max_moves: int = 2000,
    after_move: Callable[[Game], None] | None = None,
    extra: Callable[[Game, random.Random], Move | None] | None = None,
) -> Game:
    """Play uniformly random legal moves until the game ends; fail after ``max_moves``.

    ``extra`` may return an out-of-turn move (table talk, a manual draw...) to push first.
    """
    game = Game.new(settings, seed)
    rng = random.Random(seed)
    while not game.is_over():
        assert len(game.moves) < max_moves, f"no result after {max_moves} moves"
        move = extra(game, rng) if extra else None
        push_random(game, move or random_move(game, rng), rng)
        if after_move:
            after_move(game)
    return game


HOUSE_OPTIONS = st.builds(
    lambda config, to_win, chooses, manual, small, guard: GameSettings.create(
        config.players,
        config.teams,
        config.preset,
        sequences_to_win=to_win,
        engine_chooses_five=chooses,
        manual_draw=manual,
        small_hands=small,
        endless_play_guard=guard,
    ),
    st.sampled_from(CONFIGS),
    st.one_of(st.none(), st.integers(1, 3)),
    st.booleans(),
    st.booleans(),
    st.booleans(),
    st.booleans(),
)


def out_of_turn(game: Game, rng: random.Random) -> Move | None:
    """Now and then a move outside the turn (table talk, a forfeit, a manual draw, a departure)
    or a time-out of the seat to move."""
    roll = rng.random()
    players = game.settings.players
    owing = [s for s in range(players) if game.owed_forfeits[s]]
    if owing and roll < 0.3:
        seat = rng.choice(owing)
        return Move(FORFEIT, seat, rng.choice(game.hands[seat]))
    if game.owed_draws and roll < 0.6:
        return Move(DRAW, rng.choice(sorted(game.owed_draws)))
    if roll > 0.9985:
        seat = rng.choice([s for s in range(players) if not game.out[s]])
        if rng.random() < 0.5:
            return Move(REMOVE, seat)
        return Move(RESIGN, seat, team=game.team_of(seat))
    if roll > 0.985:
        return Move(TABLETALK, game.turn, team=rng.choice(game.active_teams()))
    if 0.9 < roll < 0.92:  # the turn's time ran out
        return Move(SKIP, game.turn)
    return None


def normal_play(game: Game, seat: int) -> tuple[str, int]:
    """A card of ``seat`` that is no jack and has an open space, and its first such space."""
    card = next(c for c in game.hands[seat] if not is_jack(c) and game.targets(seat, c))
    return card, game.targets(seat, card)[0]


def playable(game: Game) -> tuple[int, str, int]:
    """The seat on turn, a normal card it can play (no jack), and that card's first space."""
    return (game.turn, *normal_play(game, game.turn))
