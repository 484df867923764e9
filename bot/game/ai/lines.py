"""Static tables: every window of five spaces on the board, and which windows pass each space."""

from __future__ import annotations

from collections import Counter

from ..board import LINES_THROUGH


def _all_windows() -> tuple[tuple[int, int, int, int, int], ...]:
    seen: dict[tuple[int, ...], None] = {}
    for space in range(100):
        for line, _ in LINES_THROUGH[space]:
            for first in range(len(line) - 4):
                seen.setdefault(tuple(line[first : first + 5]), None)
    return tuple(seen)  # type: ignore[arg-type]


#: Every straight window of five spaces (192 of them), each in line order.
WINDOWS: tuple[tuple[int, int, int, int, int], ...] = _all_windows()

#: A window's index by its spaces in either order (as the engine stores sequences).
WINDOW_INDEX: dict[frozenset[int], int] = {frozenset(w): i for i, w in enumerate(WINDOWS)}

#: For each space, the indices of the windows that contain it.
SPACE_WINDOWS: tuple[tuple[int, ...], ...] = tuple(
    tuple(i for i, w in enumerate(WINDOWS) if space in w) for space in range(100)
)

#: For each window, the windows sharing two or more spaces with it (itself included): a team
#: that completed the window can never complete any of these as a new sequence. Counted through
#: :data:`SPACE_WINDOWS` (each window's five spaces, the windows through each) rather than by
#: intersecting every pair of windows: the same sets, built at import in a fraction of the time.
OVERLAPPING: tuple[frozenset[int], ...] = tuple(
    frozenset(
        j for j, shared in Counter(j for s in w for j in SPACE_WINDOWS[s]).items() if shared >= 2
    )
    for w in WINDOWS
)
