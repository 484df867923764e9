"""Who ``/sequence find`` seats together: seekers of the same game, close in rating.

Pure functions over :class:`~bot.store.seeks.SeekRecord` values; the service
(:mod:`.seeks`) calls them under its lock, in the transaction that records the match.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.store.seeks import SeekRecord


def same_game(seek: SeekRecord, queue: Sequence[SeekRecord]) -> list[SeekRecord]:
    """The seeks of ``queue`` that look for the game ``seek`` does, oldest first."""
    return sorted((other for other in queue if other.matches(seek)), key=lambda s: s.id)


def queue_place(seek: SeekRecord, queue: Sequence[SeekRecord]) -> int:
    """``seek``'s place (1 for the first) among the seekers of the same game."""
    return 1 + sum(other.id < seek.id for other in same_game(seek, queue))


def pick_group(newest: SeekRecord, candidates: Sequence[SeekRecord]) -> list[SeekRecord] | None:
    """The seekers to seat with ``newest`` (who is among ``candidates``, each of the same game):
    ``newest.players`` of them, whose ratings lie closest together (the smallest spread of
    ratings among groups that hold ``newest``; on a tie, the group that waited longest).
    None while too few wait. In play order: oldest seek first.

    >>> from bot.store.seeks import SeekRecord
    >>> def seek(i, rating, players=2):
    ...     return SeekRecord(i, 1, 10 + i, f"p{i}", players, "live", True, False, rating, 5, 0, 9)
    >>> [s.id for s in pick_group(seek(3, 10.0), [seek(1, 30.0), seek(2, 12.0), seek(3, 10.0)])]
    [2, 3]
    >>> pick_group(seek(1, 0.0, 3), [seek(1, 0.0, 3), seek(2, 0.0, 3)]) is None
    True
    """
    size = newest.players
    if len(candidates) < size:
        return None
    by_rating = sorted(candidates, key=lambda s: (s.rating, s.id))
    best: tuple[float, int, list[SeekRecord]] | None = None
    for start in range(len(by_rating) - size + 1):
        group = by_rating[start : start + size]
        if newest not in group:
            continue
        spread = group[-1].rating - group[0].rating
        waited = sum(s.id for s in group)  # smaller: older seeks
        if best is None or (spread, waited) < best[:2]:
            best = (spread, waited, group)
    if best is None:
        return None
    return sorted(best[2], key=lambda s: s.id)
