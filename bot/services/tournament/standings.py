"""Standings with tie-breaks, as pure functions of the decided matches.

Scoring (every format): a win, a bye and a win by forfeit score 1; a draw ½ each; a loss, a
forfeit and a double forfeit (nobody showed) 0.

Order:
* Swiss: points, then **Buchholz** (the sum of the points of every opponent met; a bye adds
  nothing), then wins, then seed.
* Round robin: points, then **head-to-head** (the points scored in the matches between the
  entrants tied on points), then wins, then seed.
* Single elimination: how far the entrant went (the champion first, then the runner-up, then
  the losers of each round from the last), then seed.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

ROUND_ROBIN = "round_robin"
SWISS = "swiss"
ELIMINATION = "elimination"
FORMATS = (ROUND_ROBIN, SWISS, ELIMINATION)

#: How a match was decided.
WIN = "win"  # a game won (or drawn: winner None)
BYE = "bye"  # no opponent this round: counts as a win
FORFEIT = "forfeit"  # the winner's opponent did not show, or was dropped
DOUBLE_FORFEIT = "double_forfeit"  # neither side showed: a loss for both
REPORTED = "reported"  # the organiser entered the result by hand (winner None: a draw)


@dataclass(frozen=True)
class MatchResult:
    """A decided match in entrant ids: ``b`` is None for a bye, ``winner`` None for a draw."""

    round: int
    a: int
    b: int | None
    winner: int | None
    outcome: str = WIN

    def points(self, entrant: int) -> float:
        """What the match scored for ``entrant`` (one of its sides)."""
        if self.b is None:
            return 1.0
        if self.outcome == DOUBLE_FORFEIT:
            return 0.0
        if self.winner is None:
            return 0.5
        return 1.0 if self.winner == entrant else 0.0

    @property
    def is_draw(self) -> bool:
        """A real draw (not a double forfeit)."""
        return self.b is not None and self.winner is None and self.outcome != DOUBLE_FORFEIT


@dataclass(frozen=True)
class Standing:
    """One line of the table. ``tiebreak`` is Buchholz, head-to-head points, or the round
    reached (elimination), depending on the format."""

    rank: int
    entrant: int
    points: float
    wins: int
    draws: int
    losses: int
    byes: int
    tiebreak: float


TIEBREAK_NAMES = {SWISS: "Buchholz", ROUND_ROBIN: "Head-to-head", ELIMINATION: "Reached round"}


def standings(fmt: str, seeds: Sequence[int], results: Iterable[MatchResult]) -> list[Standing]:
    """The table, best first. ``seeds`` lists every entrant, top seed first (the last tie-break).

    >>> [s.entrant for s in standings("swiss", [1, 2], [MatchResult(1, 1, 2, 2)])]
    [2, 1]
    """
    if fmt not in FORMATS:
        raise ValueError(f"Unknown format {fmt!r}.")
    results = list(results)
    seed_of = {entrant: index for index, entrant in enumerate(seeds)}
    points: dict[int, float] = defaultdict(float)
    wins: dict[int, int] = defaultdict(int)
    draws: dict[int, int] = defaultdict(int)
    losses: dict[int, int] = defaultdict(int)
    byes: dict[int, int] = defaultdict(int)
    for match in results:
        for side in (match.a, match.b):
            if side is None:
                continue
            scored = match.points(side)
            points[side] += scored
            if match.b is None:
                byes[side] += 1
            elif match.is_draw:
                draws[side] += 1
            elif scored:
                wins[side] += 1
            else:
                losses[side] += 1
    if fmt == SWISS:
        tiebreak = buchholz(seeds, results, points)
    elif fmt == ROUND_ROBIN:
        tiebreak = head_to_head(seeds, results, points)
    else:
        tiebreak = rounds_reached(seeds, results)

    def key(entrant: int) -> tuple[float, float, int, int]:
        if fmt == ELIMINATION:
            return (-tiebreak[entrant], 0.0, 0, seed_of[entrant])
        return (
            -points[entrant],
            -tiebreak[entrant],
            -(wins[entrant] + byes[entrant]),
            seed_of[entrant],
        )

    ordered = sorted(seeds, key=key)
    return [
        Standing(
            rank,
            entrant,
            points[entrant],
            wins[entrant],
            draws[entrant],
            losses[entrant],
            byes[entrant],
            tiebreak[entrant],
        )
        for rank, entrant in enumerate(ordered, start=1)
    ]


def buchholz(
    seeds: Sequence[int], results: Sequence[MatchResult], points: dict[int, float]
) -> dict[int, float]:
    """The sum of the points of each opponent an entrant met (byes add nothing)."""
    total = dict.fromkeys(seeds, 0.0)
    for match in results:
        if match.b is None:
            continue
        total[match.a] = total.get(match.a, 0.0) + points[match.b]
        total[match.b] = total.get(match.b, 0.0) + points[match.a]
    return total


def head_to_head(
    seeds: Sequence[int], results: Sequence[MatchResult], points: dict[int, float]
) -> dict[int, float]:
    """Points scored against the other entrants on the same points (a mini-league)."""
    total = dict.fromkeys(seeds, 0.0)
    for match in results:
        if match.b is None or points[match.a] != points[match.b]:
            continue
        total[match.a] += match.points(match.a)
        total[match.b] += match.points(match.b)
    return total


def rounds_reached(seeds: Sequence[int], results: Sequence[MatchResult]) -> dict[int, float]:
    """Elimination: the round an entrant lost in, or one past the last round it won."""
    reached = dict.fromkeys(seeds, 0.0)
    for match in results:
        for side in (match.a, match.b):
            if side is None:
                continue
            won = match.points(side) == 1.0
            reached[side] = max(reached[side], match.round + (1 if won else 0))
    return reached
