"""How fast players move in slow games, and how long a timed table may take (issue #39).

A **slow** game is one with a time limit per turn of an hour or more (:data:`SLOW_TURN`; at a bank
table, an hour or more a turn on average, :func:`time_per_turn`): there a turn's length is the
player's choice, not the clock's. When such a game ends, the seconds each of its turns took are
kept with its result (``summary["turn_seconds"]``, per team and member as the result lists them: no
user id, so forgetting a member changes nothing here), written in the transaction that records it.
A player's pace is the median of their last :data:`PACE_TURNS` turns in the slow games among their
last :data:`PACE_GAMES` results in the server: one indexed read of a bounded number of results,
whatever the history.

A turn lasts from the move that passed it to the player (the last undo, or the start) to the
player's move that passes it on; a turn that ran out of time counts its whole time (it held the
table that long). Moves within a turn (a dead card, a late manual draw) do not end it.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bot.game import Game, GameSettings
from bot.game.moves import AGREE_DRAW, REMOVE, RESIGN, TABLETALK
from bot.table.bank import is_bank

if TYPE_CHECKING:
    from bot.store.base import Store
    from bot.store.games.records import LogEntry
    from bot.store.results import ResultRecord
    from bot.table.options import TableOptions

#: The shortest time limit per turn of a slow game (seconds).
SLOW_TURN = 3600
#: A player's pace is read from at most this many of their latest results ...
PACE_GAMES = 50
#: ... and from at most this many of the turns those hold, the newest.
PACE_TURNS = 200
#: The result summary's key for each member's turn times.
SUMMARY_KEY = "turn_seconds"
#: Turns a game takes, by seats: the median of 12 games played out by computer players at the
#: "easy" level with the official rules (47 turns with 2 seats, 56 with 3, 47 with 4, 58 with 6),
#: rounded up; larger tables are assumed a little longer.
TYPICAL_TURNS = {2: 50, 3: 60, 4: 50, 6: 60, 8: 70, 9: 70, 10: 70, 12: 80}
#: Moves that pass a turn without being its player's move.
_NOT_A_TURN = (RESIGN, REMOVE, AGREE_DRAW, TABLETALK)


def is_slow(turn_time_limit: float) -> bool:
    """Whether a table with this time limit per turn (0: none) is a slow game.

    >>> is_slow(3600), is_slow(600), is_slow(0)
    (True, False, False)
    """
    return turn_time_limit >= SLOW_TURN


def turn_seconds(
    settings: GameSettings, seed: int, started_at: float, log: Iterable[LogEntry]
) -> list[list[int]]:
    """Per seat, the whole seconds each of its turns took, in order, from the move log (undone
    moves included, as stored)."""
    times: list[list[int]] = [[] for _ in range(settings.players)]
    began = started_at
    replay = Game.new(settings, seed)
    for entry in log:
        if entry.undone_at is not None:  # an undo starts the turn it returns to again
            began = max(began, entry.undone_at)
            continue
        turn, seat = replay.turn_number, replay.turn
        replay.push(entry.move)
        if replay.turn_number == turn:
            continue
        if entry.move.seat == seat and entry.move.kind not in _NOT_A_TURN:
            times[seat].append(max(0, round(entry.created_at - began)))
        began = max(began, entry.created_at)
    return times


def by_team(seat_times: Sequence[list[int]], teams: int, computers: Iterable[int]) -> list[Any]:
    """Seat times arranged as a result lists its players (team by team, each team's seats in
    order); a computer's seat keeps none."""
    skip = set(computers)
    return [
        [[] if seat in skip else seat_times[seat] for seat in range(team, len(seat_times), teams)]
        for team in range(teams)
    ]


def recent_turns(results: Iterable[ResultRecord], user_id: int) -> list[int]:
    """The player's turn times in the slow games of ``results`` (newest first), the newest
    :data:`PACE_TURNS` of them."""
    turns: list[int] = []
    for result in results:
        kept = result.summary.get(SUMMARY_KEY)
        team = result.team_of(user_id)
        if not kept or team is None:
            continue
        member = result.teams[team].index(user_id)
        turns.extend(reversed(kept[team][member]))
        if len(turns) >= PACE_TURNS:
            break
    return turns[:PACE_TURNS]


async def player_turns(db: Store, guild_id: int, user_id: int) -> list[int]:
    """The player's latest turn times in slow games in the server, newest first (one bounded,
    indexed read of their last :data:`PACE_GAMES` results)."""
    latest = await db.results.latest_for_user(user_id, guild_id, PACE_GAMES)
    return recent_turns(latest, user_id)


async def player_paces(db: Store, guild_id: int, user_ids: Sequence[int]) -> list[float | None]:
    """Each player's median turn in slow games in the server (None: not known)."""
    return [median_turn(await player_turns(db, guild_id, user)) for user in user_ids]


def median_turn(turns: Sequence[float]) -> float | None:
    """The median of some turn times (None: none).

    >>> median_turn([60, 7200, 600]), median_turn([60, 600]), median_turn([])
    (600, 330.0, None)
    """
    return statistics.median(turns) if turns else None


@dataclass(frozen=True)
class Estimate:
    """How long a timed table may take: ``turns`` turns, at most ``longest`` seconds (every
    turn to the limit), about ``likely`` seconds at the seated players' pace (None when no
    seated person's pace is known), and how many of them are known."""

    turns: int
    longest: float
    likely: float | None
    known: int
    people: int


def typical_turns(players: int) -> int:
    """The turns a game of ``players`` seats typically takes (:data:`TYPICAL_TURNS`)."""
    return next(
        (count for seats, count in sorted(TYPICAL_TURNS.items()) if seats >= players),
        max(TYPICAL_TURNS.values()),
    )


def time_per_turn(options: TableOptions, players: int) -> float:
    """The most a turn of the table may take on average (0: no clock): its time limit per
    turn, or at a bank table each player's starting bank and the increments of their turns
    after the first, spread over their turns in a typical game.

    >>> from bot.table.options import TableOptions
    >>> time_per_turn(TableOptions(turn_time_limit=3600), 2)
    3600
    >>> bank = TableOptions(clock="bank", bank_start=3 * 86400, bank_increment=86400)
    >>> round(time_per_turn(bank, 2) / 3600, 2)  # 25 turns each: 3 days + 24 days
    25.92
    """
    if not is_bank(options):
        return options.turn_time_limit
    own_turns = max(1, typical_turns(players) // max(players, 1))
    spent = options.bank_start + options.bank_increment * (own_turns - 1)
    return spent / own_turns


def estimate(
    players: int, turn_time_limit: float, paces: Sequence[float | None]
) -> Estimate | None:
    """The length of a table of ``players`` seats with this time limit per turn (None: no
    limit), from the people's paces (one per person seated, None: not known; a computer moves
    at once). A known pace counts up to the limit; an unknown one as the whole limit.

    >>> e = estimate(2, 3600, [600, None])
    >>> e.turns, e.longest, e.likely, e.known
    (50, 180000, 105000.0, 1)
    """
    if not turn_time_limit:
        return None
    turns = typical_turns(players)
    longest = turns * turn_time_limit
    known = [pace for pace in paces if pace is not None]
    if not known:
        return Estimate(turns, longest, None, 0, len(paces))
    per_seat = [turn_time_limit if p is None else min(p, turn_time_limit) for p in paces]
    per_seat += [0.0] * (players - len(paces))  # computers
    likely = turns * sum(per_seat) / max(players, 1)
    return Estimate(turns, longest, likely, len(known), len(paces))
