"""Uniformly random play: for benchmarks, tests, sample boards and the easy computer player.

:func:`push_random` makes exactly the move ``rng.choice(game.legal_moves)`` would, with the same
draws from ``rng``, but without building the list: it counts the legal moves, draws one index and
builds that move alone. The engine made the move, so it applies it without validating it again.
"""

from __future__ import annotations

import random

from .board import CARD_SPACES
from .cards import ONE_EYED_JACKS, TWO_EYED_JACKS
from .game import ACTIVE, Game
from .moves import DEAD, DRAW, FORFEIT, PASS, PLAY, Move
from .sequences import CORNER_MASK, EMPTY, Option, may_complete

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
    distinct = list(dict.fromkeys(game.hands[seat]))
    if game.owed_forfeits[seat]:
        return Move(FORFEIT, seat, distinct[_below(rng, len(distinct))])
    chips = game.chips
    can_turn_in = not game.dead_card_used
    card_spaces = CARD_SPACES
    counts: list[int] = []
    dead: list[str] = []
    open_mask = opponent_mask = -1
    plays = 0
    for card in distinct:
        spaces = card_spaces.get(card)
        if spaces is not None:
            a, b = spaces
            count = (chips[a] == EMPTY) + (chips[b] == EMPTY)
            if not count and can_turn_in:
                dead.append(card)
        elif card in TWO_EYED_JACKS:
            if open_mask < 0:
                open_mask = _open_mask(game)
            count = open_mask.bit_count()
        else:
            if opponent_mask < 0:
                opponent_mask = _opponent_mask(game, seat)
            count = opponent_mask.bit_count()
        counts.append(count)
        plays += count
    draw = seat in game.owed_draws
    index = _below(rng, plays + draw + len(dead) + (not plays and not dead))
    if index < plays:
        for card, count in zip(distinct, counts, strict=True):
            if index < count:
                space = _target(game, card, index)
                return tuple.__new__(Move, (PLAY, seat, card, space, None, None))
            index -= count
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
    return rng._randbelow(count)


def _open_mask(game: Game) -> int:
    """A bit per open space."""
    taken = 0
    for mask in game._masks:
        taken |= mask
    return _BOARD_MASK & ~taken


def _opponent_mask(game: Game, seat: int) -> int:
    """A bit per chip a one-eyed jack of ``seat`` may remove: an opponent's, not locked."""
    team = game.team_of(seat)
    mask = 0
    for other, chips in enumerate(game._masks):
        if other != team:
            mask |= chips
    return mask & ~game._locked_mask


def _target(game: Game, card: str, index: int) -> int:
    """The ``index``-th target space of ``card`` for the seat to move, in space order."""
    spaces = CARD_SPACES.get(card)
    if spaces is not None:
        a, b = spaces
        return b if index or game.chips[a] != EMPTY else a
    mask = _opponent_mask(game, game.turn) if card in ONE_EYED_JACKS else _open_mask(game)
    for _ in range(index):
        mask &= mask - 1  # drop the lowest bit
    return (mask & -mask).bit_length() - 1

