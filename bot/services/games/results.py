"""The result of a finished game: its row, written in the transaction of the change that ends it."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from bot.services.pace import SUMMARY_KEY, by_team, is_slow, time_per_turn, turn_seconds
from bot.store.games.records import LogEntry
from bot.store.tallies import Tally, seat_tallies

if TYPE_CHECKING:
    from bot.game import Game, Move
    from bot.store.base import Store
    from bot.store.games.records import GameRecord
    from bot.table.options import TableOptions


log = logging.getLogger(__name__)

#: Longer games are counted on a worker thread.
INLINE_MOVES = 200


async def count_tallies(record: GameRecord, game: Game) -> dict[int, Tally]:
    """What each player of a finished game did (its log replayed: a long one off the loop),
    by user id; counted before the transaction that records the end. A log that does not
    replay counts nothing (logged): the game still ends."""
    try:
        if len(game.moves) > INLINE_MOVES:
            tallies = await asyncio.to_thread(seat_tallies, game.settings, game.seed, game.moves)
        else:
            tallies = seat_tallies(game.settings, game.seed, game.moves)
    except Exception:
        log.exception("Game %d cannot be replayed for statistics; counted as none", record.id)
        return {}
    return {seat.user_id: tally for seat, tally in zip(record.seats, tallies, strict=False)}


async def count_turns(
    db: Store,
    record: GameRecord,
    game: Game,
    options: TableOptions,
    moves: Sequence[Move],
    now: float,
) -> list[Any] | None:
    """The seconds each person's turns took in a slow game just finished (its stored log, then
    ``moves``, the change that ends it, made ``now``), as the result lists its players; None for
    a game that is not slow (:mod:`bot.services.pace`). Read before the transaction that
    records the end; a log that does not replay counts nothing (logged)."""
    if not is_slow(time_per_turn(options, len(record.seats))):
        return None
    try:
        entries = await db.games.log(record.id)
        entries += [LogEntry(0, move, move.seat, None, now, None) for move in moves]
        args = (game.settings, game.seed, record.created_at, entries)
        if len(entries) > INLINE_MOVES:
            times = await asyncio.to_thread(turn_seconds, *args)
        else:
            times = turn_seconds(*args)
    except Exception:
        log.exception("Game %d's turn times cannot be counted; none kept", record.id)
        return None
    computers = [index for index, seat in enumerate(record.seats) if seat.is_computer]
    return by_team(times, game.settings.teams, computers)


async def record_result(
    db: Store,
    record: GameRecord,
    game: Game,
    options: TableOptions,
    now: float,
    tallies: dict[int, Tally] | None = None,
    turns: list[Any] | None = None,
) -> None:
    """Write the result of ``game``, just finished: the teams, the winner, whether it is rated
    (no computer played), its summary and what each player did (``tallies``, from
    :func:`count_tallies`); the store updates the server's standings in the same
    transaction. A slow game keeps each person's turn times (``turns``, from
    :func:`count_turns`) in its summary."""
    teams = [
        [seat.user_id for seat in record.seats[team :: game.settings.teams]]
        for team in range(game.settings.teams)
    ]
    rated = options.rated and not any(seat.is_computer for seat in record.seats)
    summary = {
        "moves": len(game.moves),
        "duration": now - record.created_at,
        "sequences": [game.sequence_count(t) for t in range(game.settings.teams)],
        # Teams that resigned or left: they lose a game the others then draw.
        "left": [t for t in range(game.settings.teams) if t not in game.active_teams()],
        "termination": game.termination,
        "leaving_team": game.leaving_team,
        "preset": game.settings.preset,
    }
    if turns:
        summary[SUMMARY_KEY] = turns
    await db.results.record(
        record.id, record.guild_id, teams, game.winner, rated, summary, now=now, tallies=tallies
    )
