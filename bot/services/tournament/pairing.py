"""Pairing entrants, as pure functions of entrant ids: no store, no clock, no randomness.

* Round robin: the circle method. With an odd count a phantom makes one bye per round, and
  every entrant gets exactly one bye.
* Swiss (the Monrad style): entrants ranked by score (then seed) are paired top-down, each
  with the best-ranked entrant still free that they have not met; when the count is odd the
  lowest-ranked entrant without a bye sits out with a bye (nobody has a second bye while
  someone has had none). Backtracking finds a pairing without rematches whenever one exists;
  only when none does are rematches allowed, and then as few as the search finds, each pair
  meeting as few times as it can (a second meeting before a third).
* Single elimination: a bracket of the next power of two, top seeds placed so that they
  meet as late as possible (1 v 8, 4 v 5, 2 v 7, 3 v 6); the missing places are byes that go
  to the top seeds. Each later round pairs the winners of neighbouring matches.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

#: A pairing: two entrants, or one and ``None`` for a bye.
Pair = tuple[int, int | None]

#: Steps the Swiss search may take before it settles for a pairing with rematches.
SEARCH_BUDGET = 200_000


def round_robin_schedule(entrants: Sequence[int]) -> list[list[Pair]]:
    """Every round of an all-play-all, in order; byes (odd counts) are listed last.

    >>> round_robin_schedule([1, 2, 3, 4])
    [[(1, 4), (2, 3)], [(1, 3), (4, 2)], [(1, 2), (3, 4)]]
    """
    circle: list[int | None] = list(entrants)
    if len(circle) < 2:
        return []
    if len(circle) % 2:
        circle.append(None)
    size = len(circle)
    rounds: list[list[Pair]] = []
    for _ in range(size - 1):
        games: list[Pair] = []
        byes: list[Pair] = []
        for index in range(size // 2):
            a, b = circle[index], circle[size - 1 - index]
            if a is None:
                byes.append((b, None))  # type: ignore[arg-type]
            elif b is None:
                byes.append((a, None))
            else:
                games.append((a, b))
        rounds.append(games + byes)
        circle = [circle[0], circle[-1], *circle[1:-1]]
    return rounds


def swiss_pairings(
    ranked: Sequence[int], played: Iterable[frozenset[int]], had_bye: Iterable[int]
) -> list[Pair]:
    """One Swiss round: ``ranked`` best first; ``played`` has each match's pair, a pair once
    per meeting; the bye (if any) is the last pair.

    >>> swiss_pairings([1, 3, 5, 2, 4, 6], [frozenset({1, 2}), frozenset({3, 4})], [])
    [(1, 3), (5, 2), (4, 6)]
    """
    order = list(ranked)
    met = Counter(played)
    most = max(met.values(), default=0)
    byes = set(had_bye)
    if len(order) % 2:
        # The lowest-ranked entrant without a bye sits out; only if all have had one may
        # anyone: a rematch is fairer than a second free point while others had none.
        fresh = [e for e in reversed(order) if e not in byes]
        candidates: list[int | None] = [*(fresh or reversed(order))]
    else:
        candidates = [None]
    spare = [SEARCH_BUDGET]  # shared by the searches that allow rematches
    for allowed in range(len(order) // 2 + 1):
        for meetings in range(1, most + 1) if allowed else [1]:  # how often a pair has met
            for bye in candidates:
                rest = [e for e in order if e != bye]
                budget = spare if allowed else [SEARCH_BUDGET]
                pairs = _pair_top_down(rest, met, budget, allowed, meetings)
                if pairs is not None:
                    return pairs + ([(bye, None)] if bye is not None else [])
    # The search ran out of steps: top-down, rematches or not.
    bye = candidates[0]
    rest = [e for e in order if e != bye]
    pairs = _pair_top_down(rest, met, [SEARCH_BUDGET], len(rest) // 2, most)
    assert pairs is not None, "any even list pairs when rematches are allowed"
    return pairs + ([(bye, None)] if bye is not None else [])


def _pair_top_down(
    rest: list[int], met: Counter[frozenset[int]], budget: list[int], allowed: int, most: int
) -> list[Pair] | None:
    """The first entrant with the best-ranked opponent they may play, recursively: at most
    ``allowed`` of the pairs may be rematches, of pairs that have met at most ``most`` times."""
    if not rest:
        return []
    budget[0] -= 1
    if budget[0] < 0:
        return None
    first, others = rest[0], rest[1:]
    for index, opponent in enumerate(others):
        meetings = met[frozenset((first, opponent))]
        rematch = meetings > 0
        if rematch and (not allowed or meetings > most):
            continue
        left = others[:index] + others[index + 1 :]
        tail = _pair_top_down(left, met, budget, allowed - rematch, most)
        if tail is not None:
            return [(first, opponent), *tail]
    return None


def bracket_size(entrants: int) -> int:
    """The bracket's places: the next power of two (at least 2)."""
    size = 2
    while size < entrants:
        size *= 2
    return size


def elimination_rounds(entrants: int) -> int:
    """How many rounds a single-elimination bracket of ``entrants`` takes."""
    return bracket_size(entrants).bit_length() - 1


def seed_positions(size: int) -> list[int]:
    """Seeds in bracket order, so that seeds 1 and 2 can only meet in the final.

    >>> seed_positions(8)
    [1, 8, 4, 5, 2, 7, 3, 6]
    """
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [seed for top in order for seed in (top, total - top)]
    return order


def elimination_first_round(seeded: Sequence[int]) -> list[Pair | None]:
    """The first round's matches by bracket place (``seeded`` best first); byes to top seeds.

    >>> elimination_first_round([11, 12, 13])
    [(11, None), (12, 13)]
    """
    size = bracket_size(len(seeded))
    places = [seeded[seed - 1] if seed <= len(seeded) else None for seed in seed_positions(size)]
    return next_elimination_round(places)


def next_elimination_round(winners: Sequence[int | None]) -> list[Pair | None]:
    """The matches fed by neighbouring places: ``winners[2k]`` v ``winners[2k + 1]``.

    A place may be empty (``None``: nobody advanced from it). One entrant facing an empty
    place has a bye; two empty places make an empty match (``None``) that keeps the bracket's
    shape.

    >>> next_elimination_round([5, 6, None, 8, None, None])
    [(5, 6), (8, None), None]
    """
    matches: list[Pair | None] = []
    for index in range(0, len(winners) - 1, 2):
        a, b = winners[index], winners[index + 1]
        if a is None and b is None:
            matches.append(None)
        elif a is None:
            matches.append((b, None))  # type: ignore[arg-type]
        else:
            matches.append((a, b))
    return matches
