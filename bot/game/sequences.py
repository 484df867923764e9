"""Sequence finding: only along the four lines through the space that just changed.

``chips`` is a list of 100 ints: a team number, :data:`EMPTY`, or :data:`CORNER` for a free
corner (which counts for every team).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from itertools import product

from .board import CORNERS, LINES_THROUGH
from .moves import Window

EMPTY = -1
CORNER = -2

#: One bit per space: bit ``s`` stands for space ``s`` in a board mask.
BITS: tuple[int, ...] = tuple(1 << space for space in range(100))
#: The four free corners, as a mask.
CORNER_MASK = sum(BITS[corner] for corner in CORNERS)


def _window_masks(space: int) -> tuple[int, ...]:
    """Masks of the windows of five through ``space``, corners left out (they count for all)."""
    masks = set()
    for line, index in LINES_THROUGH[space]:
        for first in range(max(0, index - 4), min(index, len(line) - 5) + 1):
            masks.add(sum(BITS[s] for s in line[first : first + 5]) & ~CORNER_MASK)
    return tuple(sorted(masks))


#: For each space, the masks of the windows of five that hold it.
WINDOWS_THROUGH: tuple[tuple[int, ...], ...] = tuple(_window_masks(s) for s in range(100))


def may_complete(team_mask: int, space: int) -> bool:
    """False when a chip on ``space`` surely completes no window of five for the team.

    ``team_mask`` has a bit for each of the team's chips. A cheap first test: when it says
    True, :func:`sequence_options` decides (the window may overlap an older sequence).
    """
    mask = team_mask | BITS[space]
    for window in WINDOWS_THROUGH[space]:  # noqa: SIM110 (a plain loop beats any() here)
        if mask & window == window:
            return True
    return False

#: One option for a move: the new sequences it would complete (possibly several).
Option = tuple[Window, ...]


def _compatible(window: Window, existing: Sequence[Collection[int]]) -> bool:
    """Two sequences of one team may share at most one space."""
    spaces = set(window)
    return all(len(spaces.intersection(old)) <= 1 for old in existing)


def _direction_options(
    chips: Sequence[int],
    space: int,
    team: int,
    direction: int,
    existing: Sequence[Collection[int]],
) -> list[Option]:
    """The ways a new chip on ``space`` completes sequences along one direction.

    Returns the options that complete the most sequences (one or two windows each), or ``[]``.
    """
    line, index = LINES_THROUGH[space][direction]
    start = index
    while start > 0 and chips[line[start - 1]] in (team, CORNER):
        start -= 1
    end = index
    last = len(line) - 1
    while end < last and chips[line[end + 1]] in (team, CORNER):
        end += 1
    if end - start < 4:
        return []
    windows: list[Window] = []
    for first in range(max(start, index - 4), min(index, end - 4) + 1):
        window: Window = line[first : first + 5]  # type: ignore[assignment]
        if _compatible(window, existing):
            windows.append(window)
    if not windows:
        return []
    # Two windows in one line that share only the new space (9 in a row, filled in the middle).
    ending_here = [w for w in windows if w[-1] == space]
    starting_here = [w for w in windows if w[0] == space]
    if ending_here and starting_here:
        return [(ending_here[0], starting_here[0])]
    return [(window,) for window in windows]


def sequence_options(
    chips: Sequence[int], space: int, team: int, existing: Sequence[Collection[int]]
) -> list[Option]:
    """Every way the chip just placed on ``space`` completes the most new sequences.

    ``chips`` must already hold ``team`` on ``space``. ``existing`` are the team's completed
    sequences (their spaces: windows or sets). Returns ``[]`` when no sequence forms, one option
    when there is nothing to choose, several when the mover must pick the five (a line of six or
    more).
    """
    per_direction = [
        options
        for direction in range(4)
        if (options := _direction_options(chips, space, team, direction, existing))
    ]
    if not per_direction:
        return []
    if len(per_direction) == 1:
        return per_direction[0]
    return [tuple(w for part in combo for w in part) for combo in product(*per_direction)]


def room_score(chips: Sequence[int], option: Option, team: int) -> int:
    """How much room an option leaves for further sequences along its lines.

    Counts the windows of five on the same lines that share at most one space with the option
    and hold no opponent chip: the house rule "the engine chooses" prefers the highest score.
    """
    score = 0
    for window in option:
        taken = set(window)
        direction = _direction_of(window)
        line, _ = LINES_THROUGH[window[0]][direction]
        for first in range(len(line) - 4):
            candidate = line[first : first + 5]
            if len(taken.intersection(candidate)) <= 1 and all(
                chips[s] in (team, CORNER, EMPTY) for s in candidate
            ):
                score += 1
    return score


def _direction_of(window: Window) -> int:
    step = window[1] - window[0]
    return {1: 0, 10: 1, 11: 2, 9: 3}[step]
