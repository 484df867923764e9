"""Pairing and standings, by hand: round robin, Swiss (Monrad style) and single elimination."""

from __future__ import annotations

import doctest
import itertools

import pytest

from bot.services.tournament import pairing, standings
from bot.services.tournament.model import swiss_rounds
from bot.services.tournament.pairing import (
    bracket_size,
    elimination_first_round,
    elimination_rounds,
    next_elimination_round,
    round_robin_schedule,
    seed_positions,
    swiss_pairings,
)
from bot.services.tournament.standings import (
    BYE,
    DOUBLE_FORFEIT,
    FORFEIT,
    REPORTED,
    WIN,
    MatchResult,
)
from bot.services.tournament.standings import (
    standings as table,
)


@pytest.mark.parametrize("module", [pairing, standings])
def test_doctests(module) -> None:
    assert doctest.testmod(module).failed == 0


# ---------------------------------------------------------------------- round robin
def test_round_robin_of_four_by_hand() -> None:
    assert round_robin_schedule([1, 2, 3, 4]) == [
        [(1, 4), (2, 3)],
        [(1, 3), (4, 2)],
        [(1, 2), (3, 4)],
    ]


def test_round_robin_of_three_gives_each_one_bye() -> None:
    assert round_robin_schedule([1, 2, 3]) == [
        [(2, 3), (1, None)],
        [(1, 3), (2, None)],
        [(1, 2), (3, None)],
    ]


@pytest.mark.parametrize("count", [2, 5, 6, 7, 10])
def test_round_robin_everyone_meets_everyone_once(count: int) -> None:
    entrants = list(range(1, count + 1))
    rounds = round_robin_schedule(entrants)
    assert len(rounds) == (count - 1 if count % 2 == 0 else count)
    games = [frozenset(pair) for r in rounds for pair in r if pair[1] is not None]
    assert sorted(map(sorted, games)) == sorted(map(sorted, itertools.combinations(entrants, 2)))
    for r in rounds:  # each entrant once per round
        seen = [e for pair in r for e in pair if e is not None]
        assert sorted(seen) == entrants
    byes = [pair[0] for r in rounds for pair in r if pair[1] is None]
    assert sorted(byes) == (entrants if count % 2 else [])


# ---------------------------------------------------------------------- Swiss
def test_swiss_first_round_pairs_neighbours() -> None:
    assert swiss_pairings([1, 2, 3, 4, 5, 6], [], []) == [(1, 2), (3, 4), (5, 6)]


def test_swiss_bye_goes_to_the_lowest_ranked_without_one() -> None:
    assert swiss_pairings([1, 2, 3, 4, 5], [], []) == [(1, 2), (3, 4), (5, None)]
    assert swiss_pairings([1, 2, 3, 4, 5], [], [5]) == [(1, 2), (3, 5), (4, None)]
    # everybody had a bye: the lowest-ranked sits out again
    assert swiss_pairings([1, 2, 3], [], [1, 2, 3]) == [(1, 2), (3, None)]


def test_swiss_skips_rematches() -> None:
    played = [frozenset({1, 2}), frozenset({3, 4}), frozenset({1, 3})]
    assert swiss_pairings([1, 2, 3, 4], played, []) == [(1, 4), (2, 3)]


def test_swiss_backtracks_when_the_greedy_choice_strands_someone() -> None:
    # 2 has met everyone but 3: taking (1, 3) first would leave 2 without a partner.
    played = [frozenset(p) for p in ({1, 2}, {2, 4}, {2, 5}, {2, 6})]
    assert swiss_pairings([1, 2, 3, 4, 5, 6], played, []) == [(1, 4), (2, 3), (5, 6)]


def test_swiss_bye_moves_up_when_the_pairing_needs_it() -> None:
    # 4 and 5 have met; 5 cannot sit out (it had the bye), so 4 does.
    assert swiss_pairings([1, 2, 3, 4, 5], [frozenset({1, 2})], [5]) == [
        (1, 3),
        (2, 5),
        (4, None),
    ]


def test_swiss_allows_a_rematch_only_when_nothing_else_works() -> None:
    assert swiss_pairings([1, 2], [frozenset({1, 2})], []) == [(1, 2)]


def test_swiss_pairs_as_few_rematches_as_it_must() -> None:
    # no round 4 of these six avoids every rematch; one is enough (not three: round 2 again)
    met = [frozenset(p) for p in ({1, 2}, {3, 4}, {5, 6}, {1, 3}, {5, 2}, {4, 6}, {3, 5})]
    met += [frozenset({1, 6}), frozenset({2, 4})]
    assert swiss_pairings([3, 1, 5, 2, 6, 4], met, []) == [(3, 1), (5, 4), (2, 6)]


def test_swiss_prefers_a_second_meeting_to_a_third() -> None:
    # all four have met; 1 v 2 and 3 v 4 twice: the rematches are 1 v 3 and 2 v 4
    met = [frozenset(p) for p in ({1, 2}, {3, 4}, {1, 3}, {2, 4}, {1, 4}, {2, 3})]
    met += [frozenset({1, 2}), frozenset({3, 4})]
    assert swiss_pairings([1, 2, 3, 4], met, []) == [(1, 3), (2, 4)]


def test_swiss_gives_no_second_bye_while_someone_had_none() -> None:
    # 5 sat out in round 1; 4 (last) and 1 never did: 4 sits out, at the cost of a rematch
    met = [frozenset(p) for p in ({1, 2}, {3, 4}, {1, 3}, {5, 4}, {1, 5}, {2, 4})]
    assert swiss_pairings([1, 2, 3, 5, 4], met, [5, 2, 3]) == [(1, 2), (3, 5), (4, None)]


def test_swiss_rounds() -> None:
    assert [swiss_rounds(n, None) for n in (2, 3, 4, 5, 6, 8, 9, 16)] == [1, 2, 2, 3, 3, 3, 4, 4]
    assert swiss_rounds(6, 5) == 5 and swiss_rounds(6, 9) == 5 and swiss_rounds(4, 1) == 1


# ---------------------------------------------------------------------- elimination
def test_bracket_shapes() -> None:
    assert [bracket_size(n) for n in (2, 3, 4, 5, 8, 9)] == [2, 4, 4, 8, 8, 16]
    assert [elimination_rounds(n) for n in (2, 3, 4, 5, 8, 9)] == [1, 2, 2, 3, 3, 4]
    assert seed_positions(4) == [1, 4, 2, 3]
    assert seed_positions(16) == [1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11]


def test_elimination_seeds_and_byes() -> None:
    assert elimination_first_round([10, 20, 30, 40]) == [(10, 40), (20, 30)]
    # 5 entrants in 8 places: seeds 1, 2 and 3 have byes; 4 plays 5
    assert elimination_first_round([10, 20, 30, 40, 50]) == [
        (10, None),
        (40, 50),
        (20, None),
        (30, None),
    ]


def test_elimination_later_rounds_keep_the_bracket() -> None:
    assert next_elimination_round([10, 40, 20, 30]) == [(10, 40), (20, 30)]
    assert next_elimination_round([10, None, None, None]) == [(10, None), None]
    assert next_elimination_round([None, 30]) == [(30, None)]


# ---------------------------------------------------------------------- standings
#: The 6-entrant Swiss of tests/test_e2e_tournament.py: every game won by its second side,
#: 4 a no-show in round 1 and dropped in round 2, a bye for 6 in round 3.
SWISS_RESULTS = [
    MatchResult(1, 1, 2, 2, WIN),
    MatchResult(1, 3, 4, 3, FORFEIT),
    MatchResult(1, 5, 6, 6, WIN),
    MatchResult(2, 2, 3, 3, WIN),
    MatchResult(2, 6, 1, 1, WIN),
    MatchResult(2, 4, 5, 5, FORFEIT),
    MatchResult(3, 3, 1, 1, WIN),
    MatchResult(3, 2, 5, 5, WIN),
    MatchResult(3, 6, None, 6, BYE),
]


def test_swiss_standings_with_buchholz_by_hand() -> None:
    # points: 1: 0+1+1, 3: 1+1+0, 5: 0+1+1, 6: 1+0+1 (bye) = 2 each; 2: 1; 4: 0.
    # Buchholz (opponents' points, byes add nothing):
    #   1: 2(1) + 6(2) + 3(2) = 5    6: 5(2) + 1(2) = 4
    #   3: 4(0) + 2(1) + 1(2) = 3    5: 6(2) + 4(0) + 2(1) = 3
    #   2: 1(2) + 3(2) + 5(2) = 6    4: 3(2) + 5(2) = 4
    # 3 and 5 tie on Buchholz and wins (2 each, a forfeit win each): seed 3 first.
    rows = table("swiss", [1, 2, 3, 4, 5, 6], SWISS_RESULTS)
    assert [(r.entrant, r.points, r.tiebreak) for r in rows] == [
        (1, 2.0, 5.0),
        (6, 2.0, 4.0),
        (3, 2.0, 3.0),
        (5, 2.0, 3.0),
        (2, 1.0, 6.0),
        (4, 0.0, 4.0),
    ]
    six = next(r for r in rows if r.entrant == 6)
    assert (six.wins, six.byes, six.losses) == (1, 1, 1)


def test_swiss_pairing_of_that_tournament_by_hand() -> None:
    # after round 1: 2, 3, 6 on 1 point; 1, 4, 5 on 0
    assert swiss_pairings(
        [2, 3, 6, 1, 4, 5], [frozenset(p) for p in ({1, 2}, {3, 4}, {5, 6})], []
    ) == [
        (2, 3),
        (6, 1),
        (4, 5),
    ]
    # after round 2 (4 dropped): 3 on 2; 1, 2, 5, 6 on 1 -> 6 has the bye, 3 v 1, 2 v 5
    met = [frozenset(p) for p in ({1, 2}, {3, 4}, {5, 6}, {2, 3}, {6, 1}, {4, 5})]
    assert swiss_pairings([3, 1, 2, 5, 6], met, []) == [(3, 1), (2, 5), (6, None)]


def test_round_robin_head_to_head_breaks_a_tie() -> None:
    # 2 beats 3 and 4, 4 beats 1 and 3, 1 beats 2, 3 beats 1.
    # 2 and 4 end on 2 points and 2 won their game: 2 first (seed order agrees).
    # 1 and 3 end on 1 point and 3 won their game: 3 before 1, against seed order.
    results = [
        MatchResult(1, 1, 4, 4),
        MatchResult(1, 2, 3, 2),
        MatchResult(2, 1, 3, 3),
        MatchResult(2, 4, 2, 2),
        MatchResult(3, 1, 2, 1),
        MatchResult(3, 3, 4, 4),
    ]
    rows = table("round_robin", [1, 2, 3, 4], results)
    assert [(r.entrant, r.points, r.tiebreak) for r in rows] == [
        (2, 2.0, 1.0),
        (4, 2.0, 0.0),
        (3, 1.0, 1.0),
        (1, 1.0, 0.0),
    ]


def test_draws_reports_and_double_forfeits_score() -> None:
    results = [
        MatchResult(1, 1, 2, None, WIN),  # a drawn game
        MatchResult(1, 3, 4, None, DOUBLE_FORFEIT),
        MatchResult(2, 1, 3, None, REPORTED),  # a draw entered by hand
    ]
    rows = {r.entrant: r for r in table("swiss", [1, 2, 3, 4], results)}
    assert rows[1].points == 1.0 and rows[1].draws == 2
    assert rows[2].points == 0.5 and rows[3].points == 0.5
    assert rows[4].points == 0.0 and rows[4].losses == 1 and rows[3].losses == 1


def test_elimination_standings_by_round_reached() -> None:
    # 4 entrants: 1 v 4 (4 wins), 2 v 3 (2 wins), final 4 v 2 (2 wins)
    results = [
        MatchResult(1, 1, 4, 4),
        MatchResult(1, 2, 3, 2),
        MatchResult(2, 4, 2, 2),
    ]
    rows = table("elimination", [1, 2, 3, 4], results)
    assert [(r.entrant, r.tiebreak) for r in rows] == [(2, 3.0), (4, 2.0), (1, 1.0), (3, 1.0)]
