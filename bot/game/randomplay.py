"""Uniformly random play: for benchmarks, tests, sample boards and the easy computer player.

:func:`push_random` makes exactly the move ``rng.choice(game.legal_moves)`` would, with the same
draws from ``rng``, but without building the list: it counts the legal moves, draws one index and
builds that move alone. The engine made the move, so it applies it without validating it again.
It reads the board from the bitmasks the game keeps up to date move by move, so it needs a game
changed only by moves (or rebuilt by ``Game.from_dict``), never one whose ``chips`` were edited.
"""

from __future__ import annotations

import random

from .board import CARD_SPACES
from .cards import ONE_EYED_JACKS
from .game import Game
from .moves import DEAD, DRAW, FORFEIT, PASS, PLAY, Move
from .sequences import CORNER_MASK, EMPTY, Option, may_complete
from .state import ACTIVE

#: Every space that can hold a chip.
_BOARD_MASK = ((1 << 100) - 1) & ~CORNER_MASK


def push_random(game: Game, rng: random.Random) -> Move:
    """Apply a uniformly random legal move of the seat to move and return it.

    When the move makes a line of six or more, the five are chosen at random too.
    """
    move = random_move(game, rng)
    options: list[Option] = []
    if move.kind == PLAY and move.card not in ONE_EYED_JACKS:
        team = move.seat % game.settings.teams
        if may_complete(game._masks[team], move.space):  # type: ignore[arg-type]
            options = game.sequence_options(move)
            if len(options) > 1 and not game.settings.engine_chooses_five:
                move = move._replace(five=rng.choice(options))
    game._apply(move, options)
    return move


def random_move(game: Game, rng: random.Random) -> Move:
    """The move ``rng.choice(game.legal_moves)`` picks (same ``rng`` draws), listing nothing.

    Raises :class:`IndexError` when the seat to move has no legal move (the game is over).
    """
    seat = game.turn
    if game.status != ACTIVE or game.out[seat]:
        raise IndexError("No legal move: the game is over.")
    distinct = dict.fromkeys(game.hands[seat])
    if game.owed_forfeits[seat]:
        return Move(FORFEIT, seat, list(distinct)[_below(rng, len(distinct))])
    chips = game.chips
    card_spaces = CARD_SPACES
    plays = 0
    dead: list[str] = []
    jacks: dict[str, int] = {}  # targets of each jack held
    for card in distinct:
        spaces = card_spaces.get(card)
        if spaces is None:
            jacks[card] = count = _jack_mask(game, seat, card).bit_count()
            plays += count
        elif chips[spaces[0]] == EMPTY:
            plays += 1 + (chips[spaces[1]] == EMPTY)
        elif chips[spaces[1]] == EMPTY:
            plays += 1
        else:
            dead.append(card)
    if game.dead_card_used:
        dead = []
    draw = seat in game.owed_draws
    index = _below(rng, plays + draw + len(dead) + (not plays and not dead))
    if index < plays:
        for card in distinct:
            spaces = card_spaces.get(card)
            if spaces is None:
                count = jacks[card]
                if index < count:
                    space = _nth_bit(_jack_mask(game, seat, card), index)
                    break
            else:
                a, b = spaces
                count = (chips[a] == EMPTY) + (chips[b] == EMPTY)
                if index < count:
                    space = b if index or chips[a] != EMPTY else a
                    break
            index -= count
        return tuple.__new__(Move, (PLAY, seat, card, space, None, None))
    index -= plays
    if draw:
        if not index:
            return Move(DRAW, seat)
        index -= 1
    if index < len(dead):
        return Move(DEAD, seat, dead[index])
    return Move(PASS, seat)


def _below(rng: random.Random, count: int) -> int:
    """An index drawn exactly as ``rng.choice`` draws one from a list of ``count`` items.

    ``choice(seq)`` is ``seq[rng._randbelow(len(seq))]``; the tests check the games stay the same.
    """
    if not count:
        raise IndexError("Cannot choose from an empty sequence")
    return rng._randbelow(count)  # type: ignore[attr-defined]  # CPython's own, as choice uses


def _jack_mask(game: Game, seat: int, jack: str) -> int:
    """A bit per space ``jack`` can be played on by ``seat``.

    A two-eyed jack: every open space. A one-eyed jack: every opponent chip not locked.
    """
    masks = game._masks
    if jack in ONE_EYED_JACKS:
        team = seat % game.settings.teams
        mask = 0
        for other, chips in enumerate(masks):
            if other != team:
                mask |= chips
        return mask & ~game._locked_mask
    taken = 0
    for chips in masks:
        taken |= chips
    return _BOARD_MASK & ~taken


def _nth_bit(mask: int, index: int) -> int:
    """The space of the ``index``-th set bit of ``mask``, lowest first."""
    for _ in range(index):
        mask &= mask - 1  # drop the lowest bit
    return (mask & -mask).bit_length() - 1
