"""The result of a finished game: its row, written in the transaction of the change that ends it."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.game import Game
    from bot.store.base import Store
    from bot.store.games.records import GameRecord
    from bot.table.options import TableOptions


async def record_result(
    db: Store, record: GameRecord, game: Game, options: TableOptions, now: float
) -> None:
    """Write the result of ``game``, just finished: the teams, the winner, whether it is rated
    (no computer played) and its summary."""
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
    await db.results.record(record.id, record.guild_id, teams, game.winner, rated, summary, now=now)
