"""Uniformly random play: for benchmarks, tests, sample boards and the easy computer player."""

from __future__ import annotations

import random

from .game import ChoiceRequired, Game
from .moves import Move


def push_random(game: Game, rng: random.Random) -> Move:
    """Apply a uniformly random legal move of the seat to move and return it.

    When the move makes a line of six or more, the five are chosen at random too.
    """
    move = rng.choice(game.legal_moves)
    try:
        game.push(move)
    except ChoiceRequired as choice:
        move = move._replace(five=rng.choice(choice.options))
        game.push(move)
    return move
