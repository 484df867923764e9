"""A writer for the crash test: plays and stores moves forever, printing each acknowledged one.

Run as ``python -m tests.store_writer DB_PATH SEED``. After each commit it prints and flushes:
``m GAME NUMBER NOTATION`` for a move, ``u GAME NUMBER`` for an undo, ``f GAME`` for a finish.
"""

from __future__ import annotations

import asyncio
import random
import sys
import time

from bot.game import Game
from bot.store import Database
from tests.store_util import new_game, push_random

CHANNEL = 1


def ack(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


async def main(path: str, seed: int) -> None:
    rng = random.Random(seed)
    db = await Database.open(path)
    games = db.games
    while True:
        record = await games.active_for_channel(CHANNEL)
        if record is None:
            game = new_game(rng.randrange(1 << 30))
            record = await games.create(1, CHANNEL, game, [], {}, None, time.time())
        game = record.game
        while not game.is_over():
            if game.moves and rng.random() < 0.03:
                count = len(game.moves)
                before = Game.replay(game.settings, game.seed, game.moves[:-1])
                await games.truncate_last(record.id, count, before, time.time())
                game = record.game = before
                ack(f"u {record.id} {count - 1}")
                continue
            move = push_random(game, rng)
            number = len(game.moves) - 1
            await games.append_move(record.id, number, move, None, game, time.time())
            ack(f"m {record.id} {number} {move.notation()}")
        await games.finish(record.id, "finished", time.time())
        ack(f"f {record.id}")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
