"""Who ``/sequence find`` seats together (bot/services/seek_matching.py): property tests."""

from __future__ import annotations

import doctest

from hypothesis import given
from hypothesis import strategies as st

from bot.services import seek_matching
from bot.services.seek_matching import pick_group, queue_place
from bot.store.seeks import SeekRecord
from cogs.common import open_tables


def seek(index: int, rating: float, players: int) -> SeekRecord:
    return SeekRecord(
        index, 1, 100 + index, f"p{index}", players, "live", True, False, rating, 5, 0, 9
    )


def test_doctests() -> None:
    assert doctest.testmod(seek_matching).failed == 0
    assert doctest.testmod(open_tables).failed == 0  # the listing's sections


@given(
    ratings=st.lists(st.floats(-50, 50, allow_nan=False), min_size=1, max_size=12),
    players=st.sampled_from([2, 3, 4, 6]),
    data=st.data(),
)
def test_the_group_holds_the_newest_and_has_the_smallest_spread(ratings, players, data):
    queue = [seek(i + 1, rating, players) for i, rating in enumerate(ratings)]
    newest = data.draw(st.sampled_from(queue))
    group = pick_group(newest, queue)
    if len(queue) < players:
        assert group is None
        return
    assert group is not None and len(group) == players and newest in group
    assert [s.id for s in group] == sorted(s.id for s in group)  # oldest seek first
    spread = max(s.rating for s in group) - min(s.rating for s in group)
    # No other group of that size holding the newest lies closer together.
    others = sorted(queue, key=lambda s: s.rating)
    for start in range(len(others) - players + 1):
        window = others[start : start + players]
        if newest in window:
            assert spread <= window[-1].rating - window[0].rating + 1e-9


def test_a_place_counts_the_older_seeks_of_the_same_game() -> None:
    queue = [seek(1, 0, 2), seek(2, 0, 4), seek(3, 0, 2)]
    assert [queue_place(s, queue) for s in queue] == [1, 1, 2]
