"""The easy player: any legal move, uniformly at random."""

from __future__ import annotations

import random

from ..moves import Move


def easy_move(moves: list[Move], rng: random.Random) -> Move:
    """A uniformly random move from the legal ones."""
    return rng.choice(moves)
