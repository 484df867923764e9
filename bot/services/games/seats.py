"""Who sits at a game: a user's seat, the computers that must act, whether any person plays."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.table.away import computer_covers

if TYPE_CHECKING:
    from bot.game import Game
    from bot.store.games.records import GameRecord


def nobody_playing(record: GameRecord, game: Game) -> bool:
    """True when a game still on has no person playing: only computers, or nobody, are left
    (a game never starts so: a lobby with no person closes)."""
    return not game.is_over() and all(
        game.out[seat] or info.is_computer for seat, info in enumerate(record.seats)
    )


def computer_seats_to_act(record: GameRecord, now: float | None = None) -> list[int]:
    """Computer seats that must act now: the one to move, and any owing a forfeit or a draw;
    with ``now``, also the seats of players away whom a computer covers then."""
    game = record.game
    if game.is_over():
        return []

    def computer(seat: int) -> bool:
        return record.seats[seat].is_computer or (
            now is not None and computer_covers(record.options, seat, now)
        )

    seats = [
        seat
        for seat in range(len(record.seats))
        if computer(seat)
        and not game.out[seat]
        and (game.owed_forfeits[seat] or seat in game.owed_draws)
    ]
    if computer(game.turn) and game.turn not in seats:
        seats.append(game.turn)
    return seats


def seat_of(record: GameRecord, user_id: int) -> int | None:
    """The seat of a user in a game, or ``None``."""
    for index, seat in enumerate(record.seats):
        if seat.user_id == user_id:
            return index
    return None
