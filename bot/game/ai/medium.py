"""The medium player: the rules of thumb of a casual player, one move ahead.

Win if one play does it; else block another team's line of four whenever a card in hand can
(by a chip on its open space or by removing one of its chips); else complete a sequence if
possible; else extend the own longest line through a space. Jacks are kept for completing,
blocking or breaking a four (or when nothing else can be played).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..board import CARD_SPACES
from ..cards import is_one_eyed, is_two_eyed
from ..moves import Move
from ..sequences import EMPTY
from .evaluate import WIN, Analysis
from .lines import WINDOWS
from .scoring import Pick, best_play, completion_value

#: What a chip adds by the length of the team's longest open window through it, once placed.
EXTEND = (0.0, 1.0, 2.0, 4.0, 10.0)
#: What a chip is worth by the longest opponent window it blocks.
BLOCK = (0.0, 0.0, 0.5, 3.0, 50.0)
#: What removing a chip is worth by the longest opponent window through it.
BREAK = (0.0, 0.0, 0.0, 0.5, 40.0)
#: The price of spending a jack.
JACK_COST = 20.0


class MediumScores:
    """Medium's score of every play for one team on one position."""

    __slots__ = ("best_place", "best_remove", "place", "remove")

    def __init__(self, analysis: Analysis, team: int) -> None:
        position = analysis.position
        chips = position.chips
        own_best = [-1] * 100
        other_best = [-1] * 100
        other_chip_best = [-1] * 100
        for t, held in enumerate(analysis.held):
            best = own_best if t == team else other_best
            for w, n in enumerate(held):
                if n < 0:
                    continue
                for space in analysis.empties[w]:
                    if n > best[space]:
                        best[space] = n
                if t != team:
                    for space in WINDOWS[w]:
                        if chips[space] == t and n > other_chip_best[space]:
                            other_chip_best[space] = n
        place: dict[int, float] = {}
        for space in range(100):
            if chips[space] != EMPTY:
                continue
            own, other = own_best[space], other_best[space]
            if own == 4:
                value = completion_value(position, team, space)
                if value:
                    place[space] = value
                    continue
            place[space] = EXTEND[min(own + 1, 4)] + (BLOCK[other] if other > 0 else 0.0)
        locked = position.locked
        self.remove = {
            s: BREAK[max(other_chip_best[s], 0)]
            for s in range(100)
            if chips[s] >= 0 and chips[s] != team and not locked[s]
        }
        self.place = place
        self.best_place = max(place.items(), key=_value, default=None)
        self.best_remove = max(self.remove.items(), key=_value, default=None)

    def play_score(self, card: str, space: int) -> float:
        """The score of playing ``card`` on (or, a one-eyed jack, removing from) ``space``."""
        if is_one_eyed(card):
            return self.remove.get(space, 0.0) - JACK_COST
        score = self.place.get(space, 0.0)
        return score - JACK_COST if is_two_eyed(card) else score

    def best(self, hand: Iterable[str], chips: list[int]) -> Pick | None:
        """The best play from ``hand`` (score, card, space), or ``None`` when none is possible."""
        return best_play(self, hand, chips)


def _value(item: tuple[int, float]) -> float:
    return item[1]


def medium_play(analysis: Analysis, team: int, plays: list[Move]) -> Move:
    """The play :func:`medium_pick` chooses among the legal ``plays``."""
    pick = medium_pick(MediumScores(analysis, team), analysis, team, [m.card or "" for m in plays])
    assert pick is not None
    return next(m for m in plays if (m.card, m.space) == pick[1:])


def threat_windows(analysis: Analysis, team: int) -> dict[int, list[int]]:
    """Each space where another team than ``team`` completes a sequence with one chip, with
    the windows it completes."""
    threats: dict[int, list[int]] = {}
    for other in range(analysis.position.teams):
        if other != team:
            for w in analysis.fours(other):
                threats.setdefault(analysis.empties[w][0], []).append(w)
    return threats


def spoils(
    analysis: Analysis, threats: dict[int, list[int]], team: int, card: str, space: int
) -> int:
    """How many of the spaces ``threats`` playing ``card`` on ``space`` takes away: the one it
    covers, or (a one-eyed jack) those whose every window holds the chip it removes, less one
    when the space it empties lets a third team complete a line it blocked."""
    if not is_one_eyed(card):
        return int(space in threats)
    if analysis.position.locked[space]:
        return 0
    cleared = sum(all(space in WINDOWS[w] for w in windows) for windows in threats.values())
    opened = any(
        blocker == space and held == 4
        for other, lone in enumerate(analysis.lone)
        if other != team
        for blocker, held, _ in lone.values()
    )
    return cleared - opened


def medium_pick(
    scores: MediumScores, analysis: Analysis, team: int, hand: list[str]
) -> Pick | None:
    """Medium's play from ``hand`` (score, card, space), or ``None`` when none is possible: a
    win; else the block that leaves other teams the fewest spaces to complete a sequence on
    (the best by score among equals); else the best by score."""
    chips = analysis.position.chips
    best = best_play(scores, hand, chips)
    if best is None or best[0] >= WIN:
        return best
    threats = threat_windows(analysis, team)
    if not threats:
        return best
    block: tuple[int, float, str, int] | None = None
    for card in dict.fromkeys(hand):
        if is_one_eyed(card):
            spaces = {s for ws in threats.values() for w in ws for s in WINDOWS[w]}
            targets = [s for s in sorted(spaces) if chips[s] >= 0 and chips[s] != team]
        elif is_two_eyed(card):
            targets = list(threats)
        else:
            targets = [s for s in CARD_SPACES[card] if s in threats and chips[s] == EMPTY]
        for space in targets:
            spoiled = spoils(analysis, threats, team, card, space)
            if spoiled > 0:
                key = (spoiled, scores.play_score(card, space), card, space)
                if block is None or key[:2] > block[:2]:
                    block = key
    return best if block is None else (block[1], block[2], block[3])
