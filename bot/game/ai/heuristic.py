"""The medium player: score every play by the windows it builds and blocks, take the best.

Wins first, then blocks of a nearly finished opponent line, then the longest own lines. Jacks
carry a cost, so they are kept until they do something a plain card cannot.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..board import CARD_SPACES
from ..cards import is_one_eyed, is_two_eyed
from ..moves import Move
from ..sequences import EMPTY
from .evaluate import BLOCK, SEQUENCE, WIN, Analysis, Blocks, Fill
from .position import Position

#: A four of an opponent one sequence from winning must be blocked at almost any price.
BLOCK_LAST = (0.0, 1.0, 4.0, 30.0, 2000.0)
#: The price of spending a jack: it is kept unless it does much more than a plain card.
TWO_EYED_COST = 250.0
ONE_EYED_COST = 150.0


class Scores:
    """Every play's score for one team on one position (a jack's price included)."""

    __slots__ = ("best_place", "best_remove", "one_eyed_cost", "place", "remove", "two_eyed_cost")

    def __init__(
        self,
        analysis: Analysis,
        team: int,
        blocks: Blocks | None = None,
        jack_costs: tuple[float, float] | None = None,
    ) -> None:
        position = analysis.position
        self.two_eyed_cost, self.one_eyed_cost = jack_costs or (TWO_EYED_COST, ONE_EYED_COST)
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

    def best(self, hand: Iterable[str], board: list[int]) -> tuple[float, str, int] | None:
        """The best play from ``hand`` (score, card, space), or ``None`` when none is possible."""
        best: tuple[float, str, int] | None = None
        place = self.place
        for card in set(hand):
            spaces = CARD_SPACES.get(card)
            if spaces is not None:
                for space in spaces:
                    if board[space] == EMPTY:
                        score = place.get(space, 0.0)
                        if best is None or score > best[0]:
                            best = (score, card, space)
                continue
            pick = self.best_remove if is_one_eyed(card) else self.best_place
            if pick is not None:
                score = self.play_score(card, pick[0])
                if best is None or score > best[0]:
                    best = (score, card, pick[0])
        return best


def _value(item: tuple[int, float]) -> float:
    return item[1]


def urgent_blocks(position: Position) -> Blocks:
    """Each team's block table: fours of a team one sequence from winning are the most urgent."""
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
    """Each play with its score, best first (ties keep the engine's order)."""
    scores = Scores(Analysis(position, fill), team)
    scored = [(scores.play_score(m.card, m.space), m) for m in plays]  # type: ignore[arg-type]
    return sorted(scored, key=lambda item: -item[0])


def medium_play(position: Position, team: int, plays: list[Move]) -> Move:
    """The best-scoring play."""
    return score_plays(position, team, plays)[0][1]


def card_value(position: Position, team: int, card: str, analysis: Analysis | None = None) -> float:
    """How useful a card in hand is: a jack most, a dead card least."""
    if is_two_eyed(card):
        return 1000.0
    if is_one_eyed(card):
        return 900.0
    analysis = analysis or Analysis(position)
    values = [
        analysis.place_gain(team, space)
        for space in CARD_SPACES[card]
        if position.chips[space] == EMPTY
    ]
    return max(values, default=-1.0)


def least_useful(position: Position, team: int, hand: Iterable[str]) -> str:
    """The card to give up (a forfeit): the one with the lowest :func:`card_value`."""
    analysis = Analysis(position)
    return min(sorted(set(hand)), key=lambda card: card_value(position, team, card, analysis))
