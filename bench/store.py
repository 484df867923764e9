"""Store speed: the median time to commit one move, and the time to load 1,000 active games.

A move is a real move of a real game, committed with its snapshot (``games.append_move``). The
start-up figure is ``Database.open`` plus ``games.active()`` on a file holding ``--games`` active
games of about ``--moves-per-game`` moves each. Run: ``python bench/store.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from pathlib import Path

from bot.game import Game, GameSettings
from bot.game.randomplay import push_random
from bot.store import Database


async def commit_times(path: Path, count: int, synchronous: str) -> list[float]:
    """Seconds per ``append_move``, for ``count`` moves of 4-player games."""
    rng = random.Random(1)
    settings = GameSettings.create(4)
    db = await Database.open(path, synchronous=synchronous)
    times: list[float] = []
    channel = 0
    try:
        while len(times) < count:
            channel += 1
            game = Game.new(settings, channel)
            record = await db.games.create(1, channel, game, [], {}, None, time.time())
            while not game.is_over() and len(times) < count:
                move = push_random(game, rng)
                number = len(game.moves) - 1
                start = time.perf_counter()
                await db.games.append_move(record.id, number, move, 1, game, time.time())
                times.append(time.perf_counter() - start)
            await db.games.finish(record.id, "finished", time.time())
    finally:
        await db.close()
    return times


async def fill(path: Path, games: int, moves_per_game: int) -> int:
    """Store ``games`` active games of about ``moves_per_game`` moves; return the move count."""
    rng = random.Random(2)
    db = await Database.open(path)
    total = 0
    try:
        for channel in range(games):
            game = Game.new(GameSettings.create(rng.choice([2, 3, 4, 6])), channel)
            for _ in range(moves_per_game + rng.randint(-5, 5)):
                if game.is_over():
                    break
                push_random(game, rng)
            await db.games.create(1, 10_000 + channel, game, [], {}, None, time.time())
            total += len(game.moves)
    finally:
        await db.close()
    return total


async def load_time(path: Path) -> tuple[float, int]:
    """Seconds for ``Database.open`` + ``games.active()``, and the number of games loaded."""
    start = time.perf_counter()
    db = await Database.open(path)
    loaded = await db.games.active()
    elapsed = time.perf_counter() - start
    await db.close()
    return elapsed, len(loaded)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--moves", type=int, default=1000, help="moves to commit and time")
    parser.add_argument("--games", type=int, default=1000, help="active games to load")
    parser.add_argument("--moves-per-game", type=int, default=40)
    parser.add_argument("--runs", type=int, default=3, help="start-up loads to time")
    parser.add_argument("--synchronous", default="NORMAL", help="NORMAL (default) or FULL")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        times = await commit_times(Path(folder) / "moves.db", args.moves, args.synchronous)
        ms = sorted(t * 1000 for t in times)
        print(
            f"store: commit one move (synchronous={args.synchronous.upper()}): median "
            f"{statistics.median(ms):.3f} ms, p90 {ms[int(len(ms) * 0.9)]:.3f} ms, "
            f"max {ms[-1]:.3f} ms over {len(ms)} moves"
        )
        path = Path(folder) / "startup.db"
        total = await fill(path, args.games, args.moves_per_game)
        size = path.stat().st_size / 1e6
        loads = [await load_time(path) for _ in range(args.runs)]
        seconds = [elapsed for elapsed, _ in loads]
        print(
            f"store: start-up (open + load {loads[0][1]} active games, {total} moves, "
            f"{size:.1f} MB): median {statistics.median(seconds):.3f} s, "
            f"best {min(seconds):.3f} s over {len(seconds)} runs"
        )


if __name__ == "__main__":
    asyncio.run(main())
