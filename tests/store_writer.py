"""A writer for the crash test: plays games through the game service forever (the bot's one
path: lock, draft, one transaction per change), printing each acknowledged change.

Run as ``python -m tests.store_writer DB_PATH SEED``. After each commit it prints and flushes:
``m GAME NUMBER NOTATION`` for a move, ``u GAME NUMBER`` for an undo, ``f GAME`` when that move
ended the game (its status and result row are part of the same commit).
"""

from __future__ import annotations

import asyncio
import random
import sys
import time

from bot.services.games import Draft, GameService
from bot.store import Seat, SQLiteStore
from bot.table.options import TableOptions
from tests.store_util import new_game, push_random

CHANNEL = 1
SEATS = [Seat(1, "ada"), Seat(2, "bob")]


def ack(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


async def undo_last(draft: Draft) -> None:
    draft.undo_last()


async def main(path: str, seed: int) -> None:
    rng = random.Random(seed)
    db = await SQLiteStore.open(path)
    games = GameService(db, time.time)
    await games.load_active()
    await games.reconcile()  # a game whose end a crash cut short is finished now
    while True:
        record = games.find_in_channel(CHANNEL)
        if record is None:
            game = new_game(rng.randrange(1 << 30))
            options = TableOptions()
            record = await db.games.create(1, CHANNEL, game, SEATS, options, None, time.time())
            games.add(record)
        while not record.game.is_over():
            if record.game.moves and rng.random() < 0.03:
                count = len(record.game.moves)
                await games.change(record.id, undo_last)
                ack(f"u {record.id} {count - 1}")
                continue
            draft = record.game.copy()
            move = push_random(draft, rng)
            number = len(record.game.moves)
            outcome = await games.apply(record.id, move, actor_id=None)
            ack(f"m {record.id} {number} {move.notation()}")
            if outcome.finished:
                ack(f"f {record.id}")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
