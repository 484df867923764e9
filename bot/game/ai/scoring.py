"""Hard's one-move scores: what a play builds for its team and blocks for the others.

Each play is scored by the change it makes to :meth:`Analysis.score` (own windows by ``OWN``,
other teams' by ``BLOCK``), plus any sequence it completes. A jack carries a price, so it is
kept unless it does much more than a plain card could.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from ..board import CARD_SPACES
from ..cards import is_one_eyed, is_two_eyed
from ..moves import Move
from ..sequences import EMPTY
from .evaluate import BLOCK, SEQUENCE, WIN, Analysis, Blocks, Fill
from .position import Position

#: A four of a team one sequence from winning must be blocked at almost any price.
BLOCK_LAST = (0.0, 1.0, 4.0, 30.0, 2000.0)
#: The price of spending a jack.
TWO_EYED_COST = 250.0
ONE_EYED_COST = 150.0

Pick = tuple[float, str, int]


class Scores:
    """Every play's score for one team on one position (a jack's price included)."""

    __slots__ = ("best_place", "best_remove", "one_eyed_cost", "place", "remove", "two_eyed_cost")

    def __init__(
        self,
        analysis: Analysis,
        team: int,
        blocks: Blocks | None = None,
        jack_costs: tuple[float, float] = (TWO_EYED_COST, ONE_EYED_COST),
    ) -> None:
        position = analysis.position
        self.two_eyed_cost, self.one_eyed_cost = jack_costs
        if blocks is None:
            blocks = urgent_blocks(position)
        place = analysis.place_gains(team, blocks)
        for space in analysis.completing(team):
            place[space] = place.get(space, 0.0) + completion_value(position, team, space)
        self.place = place
        self.remove = analysis.remove_gains(team, blocks)
        self.best_place = max(place.items(), key=_value, default=None)
        self.best_remove = max(self.remove.items(), key=_value, default=None)

    def play_score(self, card: str, space: int) -> float:
        """The score of playing ``card`` on (or, a one-eyed jack, removing from) ``space``."""
        if is_one_eyed(card):
            return self.remove.get(space, 0.0) - self.one_eyed_cost
        score = self.place.get(space, 0.0)
        return score - self.two_eyed_cost if is_two_eyed(card) else score

    def best(self, hand: Iterable[str], chips: list[int]) -> Pick | None:
        """The best play from ``hand`` (score, card, space), or ``None`` when none is possible."""
        return best_play(self, hand, chips)


class PlayScores(Protocol):
    """Scores of one team's plays: by space, and the best space for each kind of jack."""

    place: dict[int, float]
    best_place: tuple[int, float] | None
    best_remove: tuple[int, float] | None

    def play_score(self, card: str, space: int) -> float:
        """The score of playing ``card`` on (or removing from) ``space``."""
        ...


def best_play(scores: PlayScores, hand: Iterable[str], chips: list[int]) -> Pick | None:
    """The best play from ``hand`` by ``scores`` (the first of equals), or ``None``."""
    best: Pick | None = None
    place = scores.place
    for card in dict.fromkeys(hand):
        spaces = CARD_SPACES.get(card)
        if spaces is not None:
            for space in spaces:
                if chips[space] == EMPTY:
                    score = place.get(space, 0.0)
                    if best is None or score > best[0]:
                        best = (score, card, space)
            continue
        pick = scores.best_remove if is_one_eyed(card) else scores.best_place
        if pick is not None:
            score = scores.play_score(card, pick[0])
            if best is None or score > best[0]:
                best = (score, card, pick[0])
    return best


def _value(item: tuple[int, float]) -> float:
    return item[1]


def urgent_blocks(position: Position) -> Blocks:
    """Each team's block table: the fours of a team one sequence from winning come first."""
    last = position.to_win - 1
    return [BLOCK_LAST if len(w) >= last else BLOCK for w in position.sequences]


def completion_value(position: Position, team: int, space: int) -> float:
    """What the sequences completed by a chip of ``team`` on ``space`` are worth (a win: WIN)."""
    options = position.options(team, space)
    if not options:
        return 0.0
    made = max(len(option) for option in options)
    if len(position.sequences[team]) + made >= position.to_win:
        return WIN
    return SEQUENCE * made


def score_plays(
    position: Position, team: int, plays: list[Move], fill: Fill | None = None
) -> list[tuple[float, Move]]:
    """Each play with its score, best first (equals keep the engine's order)."""
    scores = Scores(Analysis(position, fill), team)
    scored = [(scores.play_score(m.card, m.space), m) for m in plays]  # type: ignore[arg-type]
    return sorted(scored, key=lambda item: -item[0])


def least_useful(position: Position, team: int, hand: Iterable[str]) -> str:
    """The card to give up for a forfeit: a dead card first, a jack last, else the card whose
    best space adds least."""
    analysis = Analysis(position)

    def value(card: str) -> float:
        if is_two_eyed(card):
            return 2 * WIN
        if is_one_eyed(card):
            return WIN
        spaces = [s for s in CARD_SPACES[card] if position.chips[s] == EMPTY]
        return max((analysis.place_gain(team, s) for s in spaces), default=-1.0)

    return min(sorted(set(hand)), key=value)
