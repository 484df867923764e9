"""A cluster's start-up: one process of a cluster of 4 loads only its share of the active games.

Fills a PostgreSQL database with ``--games`` active games (random legal moves, 2 to 6 players,
about ``--moves-per-game`` moves each) in guilds spread evenly over 4 shards, then starts fresh
processes, each doing what the bot's start-up does with the store (open it, then
``GameService.load_active()``), and prints each one's start-up time and resident memory:

- an empty process: the same start-up on an empty database (the baseline);
- one process holding every game (no ``SHARD_IDS``);
- one process of a cluster of 4 (``SHARD_COUNT=4``, ``SHARD_IDS=0``).

The figures above the empty process are compared: the cluster process must need at most a
third of what the single process needs. Runs are interleaved; medians and ranges are printed.
Run: ``python bench/cluster.py [--games 10000] [--runs 3] [--url postgresql://...]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARDS = 4


def rss_bytes() -> int:
    """This process's resident memory now."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


async def child(url: str, shard_ids: str) -> None:
    """One start-up: open the store (on these shards) and load the active games."""
    from bot.services.dispatch import Dispatcher
    from bot.services.games import GameService
    from bot.store.location import open_database
    from bot.store.shards import Shards

    gc.collect()
    before = rss_bytes()
    start = time.perf_counter()
    shards = Shards(SHARDS, tuple(int(s) for s in shard_ids.split(","))) if shard_ids else None
    db = await open_database(url, shards=shards)
    games = GameService(db, time.time, Dispatcher(time.time))
    loaded = await games.load_active()
    seconds = time.perf_counter() - start
    gc.collect()
    after = rss_bytes()
    await db.close()
    print(json.dumps({"seconds": seconds, "rss": after, "before": before, "games": len(loaded)}))


async def fill(url: str, games: int, moves_per_game: int) -> int:
    """``games`` active games in guilds spread over the shards; the number of moves stored."""
    from bot.game import Game, GameSettings
    from bot.game.randomplay import push_random
    from bot.store.location import open_database
    from bot.store.seats import Seat
    from bot.table.options import TableOptions

    rng = random.Random(3)
    db = await open_database(url)
    total = 0
    try:
        for number in range(games):
            game = Game.new(GameSettings.create(rng.choice([2, 3, 4, 6])), number)
            for _ in range(moves_per_game + rng.randint(-10, 10)):
                if game.is_over():
                    break
                push_random(game, rng)
            if game.is_over():  # an active game: take back the final move
                game = Game.replay(game.settings, game.seed, game.moves[:-1])
            guild = (1_300_000_000_000 + number) << 22  # shard: number % 4
            seats = [
                Seat(10**17 + number * 12 + s, f"p{s}") for s in range(game.settings.players)
            ]
            options = TableOptions()
            await db.games.create(guild, 10**17 + number, game, seats, options, None, time.time())
            total += len(game.moves)
    finally:
        await db.close()
    return total


def start_up(url: str, shard_ids: str) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", url, shard_ids],
        check=True, capture_output=True, text=True, cwd=ROOT,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def spread(values: list[float], unit: str, scale: float = 1.0) -> str:
    shown = [v / scale for v in values]
    return f"{statistics.median(shown):.2f} {unit} (range {min(shown):.2f}-{max(shown):.2f})"


async def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        await child(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "")
        return
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--moves-per-game", type=int, default=40)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--url", help="a PostgreSQL server URL (default: a throwaway server)")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from tests.pg_server import create_database, temporary_server

    with contextlib.ExitStack() as stack:
        server = args.url or stack.enter_context(temporary_server())
        tag = str(int(time.time()))
        empty = await create_database(server, f"bench_empty_{tag}")
        full = await create_database(server, f"bench_cluster_{tag}")
        start = time.perf_counter()
        moves = await fill(full, args.games, args.moves_per_game)
        print(
            f"cluster: filled {args.games} active games ({moves} moves) over {SHARDS} shards "
            f"in {time.perf_counter() - start:.0f} s"
        )
        runs: dict[str, list[dict[str, float]]] = {"empty": [], "all": [], "shard": []}
        for _ in range(args.runs):  # interleaved, so the machine's load hits each alike
            runs["empty"].append(start_up(empty, ""))
            runs["all"].append(start_up(full, ""))
            runs["shard"].append(start_up(full, "0"))
        base_s = statistics.median(r["seconds"] for r in runs["empty"])
        base_rss = statistics.median(r["rss"] for r in runs["empty"])
        print(
            f"cluster: empty process: start-up {spread([r['seconds'] for r in runs['empty']], 's')}"
            f", memory {spread([r['rss'] for r in runs['empty']], 'MB', 2**20)}"
        )
        above: dict[str, tuple[float, float]] = {}
        for key, label in (("all", "one process, every game"), ("shard", "cluster of 4, shard 0")):
            rows = runs[key]
            secs = [r["seconds"] - base_s for r in rows]
            mem = [r["rss"] - base_rss for r in rows]
            above[key] = (statistics.median(secs), statistics.median(mem))
            print(
                f"cluster: {label}: {int(rows[0]['games'])} games loaded; start-up above empty "
                f"{spread(secs, 's')}, memory above empty {spread(mem, 'MB', 2**20)}"
            )
        time_ratio = above["shard"][0] / above["all"][0]
        mem_ratio = above["shard"][1] / above["all"][1]
        verdict = "ok" if time_ratio <= 1 / 3 and mem_ratio <= 1 / 3 else "ABOVE A THIRD"
        print(
            f"cluster: the shard process needs {time_ratio:.2f} of the time and {mem_ratio:.2f} "
            f"of the memory (above empty) of the single process: {verdict}"
        )


if __name__ == "__main__":
    asyncio.run(main())
