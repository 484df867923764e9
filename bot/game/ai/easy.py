"""The easy player: a beginner, beatable but plausible.

It always completes a sequence when one play does it, and it blocks another team's line of
four three times in four (a beginner does not always notice). Otherwise it plays a plain card
at random, preferring spaces next to its own chips; jacks are kept for completing and blocking,
and spent on a whim now and then.
"""

from __future__ import annotations

import random

from ..board import SIZE
from ..cards import is_jack, is_one_eyed
from ..moves import Move
from ..sequences import CORNER
from .evaluate import Analysis
from .position import Position

#: How often a four of another team that can be blocked is blocked.
BLOCK_CHANCE = 0.75
#: A space's weight grows by this much for each own chip (or free corner) next to it.
NEAR = 6.0
#: How often a jack is spent when no sequence is at stake and a plain card could be played.
JACK_CHANCE = 0.03


def neighbours(space: int) -> list[int]:
    """The up to eight spaces around ``space``."""
    row, col = divmod(space, SIZE)
    return [
        r * SIZE + c
        for r in range(max(0, row - 1), min(SIZE, row + 2))
        for c in range(max(0, col - 1), min(SIZE, col + 2))
        if (r, c) != (row, col)
    ]


def easy_play(position: Position, team: int, plays: list[Move], rng: random.Random) -> Move:
    """A beginner's play for ``team``, chosen from ``plays`` (the legal chip plays)."""
    places = [m for m in plays if not is_one_eyed(m.card or "")]
    completing = [m for m in places if position.options(team, m.space)]  # type: ignore[arg-type]
    if completing:
        return _prefer_plain(completing, rng)
    analysis = Analysis(position)
    threats = {
        space
        for other in range(position.teams)
        if other != team
        for space in analysis.completing(other)
    }
    if threats and rng.random() < BLOCK_CHANCE:
        blocks = [m for m in places if m.space in threats]
        if blocks:
            return _prefer_plain(blocks, rng)
    plain = [m for m in plays if not is_jack(m.card or "")]
    pool = plain if plain and rng.random() >= JACK_CHANCE else plays
    chips = position.chips
    weights = [
        1.0 + NEAR * sum(chips[n] in (team, CORNER) for n in neighbours(m.space))  # type: ignore[arg-type]
        for m in pool
    ]
    return rng.choices(pool, weights)[0]


def _prefer_plain(moves: list[Move], rng: random.Random) -> Move:
    """A random one of ``moves``, with a plain card when one will do."""
    plain = [m for m in moves if not is_jack(m.card or "")]
    return rng.choice(plain or moves)
