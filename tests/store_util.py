"""Helpers for the store tests: real games played with random legal moves."""

from __future__ import annotations

import random

from bot.game import Game, GameSettings
from bot.game.randomplay import push_random
from bot.store import GameRecord, Seat, Store
from bot.table.options import TableOptions


def new_game(seed: int = 1, players: int = 2) -> Game:
    """A freshly dealt classic game."""
    return Game.new(GameSettings.create(players), seed)


async def create_game(
    db: Store, channel_id: int, seed: int = 1, *, players: int = 2, guild_id: int = 7
) -> GameRecord:
    """Store a new game in a channel."""
    seats = [Seat(100 + i, f"P{i}") for i in range(players)]
    options = TableOptions(turn_time_limit=60)
    return await db.games.create(
        guild_id, channel_id, new_game(seed, players), seats, options, None, 1000.0
    )


async def play(db: Store, record: GameRecord, count: int, rng: random.Random) -> None:
    """Play and store up to ``count`` moves of the record's game (fewer if it ends)."""
    game = record.game
    for _ in range(count):
        if game.is_over():
            return
        move = push_random(game, rng)
        number = len(game.moves) - 1
        await db.games.append_move(record.id, number, move, 100 + move.seat, game, 2000.0 + number)
