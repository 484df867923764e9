"""Store speed on each backend: one move's writes by 1, 2 and 4 writer processes, and the time
to load 1,000 active games.

A move is a real move of a real game, written as the game service writes it: the move with its
snapshot and the next turn's timers in one transaction (``games.append_moves`` and
``timers.replace`` inside ``db.transaction()``). ``--writers 1,2,4`` runs that many writer
processes at once (as the processes of a cluster, each on its own games), each committing
``--moves`` moves: the figures are the committed moves per second of all of them together
(from the first start to the last end, the moves' own computing included) and the median and
p99 of one move's writes. The start-up figure is opening the store plus ``games.active()`` on a
store holding ``--games`` active games of about ``--moves-per-game`` moves each.

Run: ``python bench/store.py`` (SQLite, and PostgreSQL on a throwaway server started with
PostgreSQL's default durability, when its binaries are installed), or ``--backend sqlite``,
``--backend postgresql --url postgresql://...`` (an empty database);
``--synchronous-commit off`` for PostgreSQL's asynchronous commit.

What a crash can lose under each setting (each line prints the one it ran with):
- SQLite WAL, ``synchronous=NORMAL``: a killed bot loses nothing it acknowledged (the OS holds
  the written WAL); a power cut or OS crash may lose the last commits, never the file.
- PostgreSQL ``synchronous_commit=on`` (the default): a commit returns once its WAL is flushed;
  neither a killed bot nor a crashed database server loses an acknowledged move.
- PostgreSQL ``synchronous_commit=off``: a killed bot still loses nothing (the server has the
  commit); a crash of the database server (or its machine) may lose the moves of the last
  ``3 x wal_writer_delay`` (600 ms by default), never consistency: the store comes back as it
  was a moment earlier, each game at a whole move.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from bot.game import Game, GameSettings
from bot.game.randomplay import push_random
from bot.store import Store
from bot.store.connection import Connection
from bot.store.location import open_database
from bot.store.timers import TimerRecord
from bot.store.urls import is_postgres_url
from bot.table.options import TableOptions


async def commit_times(db: Store, count: int, writer: int = 0) -> list[float]:
    """Seconds per move's writes, for ``count`` moves of 4-player games (``writer``: which of
    several writers this is: its own games, in channels of its own)."""
    rng = random.Random(1 + writer)
    settings = GameSettings.create(4)
    times: list[float] = []
    channel = writer * 1_000_000
    while len(times) < count:
        channel += 1
        game = Game.new(settings, channel)
        record = await db.games.create(1, channel, game, [], TableOptions(), None, time.time())
        while not game.is_over() and len(times) < count:
            move = push_random(game, rng)
            number = len(game.moves) - 1
            now = time.time()
            payload = {"turn": game.turn_number, "seat": game.turn}
            timers = [  # a reminder and a time limit, as a game with both options gets
                TimerRecord(record.id, "reminder", now + 3600, payload),
                TimerRecord(record.id, "limit", now + 600, payload),
            ]
            start = time.perf_counter()
            async with db.transaction():
                await db.games.append_moves(record.id, number, [(move, 1)], game, now)
                await db.timers.replace(record.id, timers)
            times.append(time.perf_counter() - start)
        await db.games.finish(record.id, "finished", time.time())
    return times


async def durability(db: Store) -> str:
    """The durability settings the figures were measured with."""
    if db.dialect == "sqlite":
        row = await db.read(_fetch, "PRAGMA synchronous")
        names = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}
        return f"SQLite WAL, synchronous={names.get(row[0], row[0]) if row else '?'}"
    commit = await db.read(_fetch, "SHOW synchronous_commit")
    fsync = await db.read(_fetch, "SHOW fsync")
    return f"PostgreSQL synchronous_commit={commit and commit[0]}, fsync={fsync and fsync[0]}"


async def _fetch(conn: Connection, sql: str) -> tuple[object, ...] | None:
    return await conn.fetchone(sql)


async def fill(db: Store, games: int, moves_per_game: int) -> int:
    """Store ``games`` active games of about ``moves_per_game`` moves; return the move count."""
    rng = random.Random(2)
    total = 0
    for channel in range(games):
        game = Game.new(GameSettings.create(rng.choice([2, 3, 4, 6])), channel)
        for _ in range(moves_per_game + rng.randint(-5, 5)):
            if game.is_over():
                break
            push_random(game, rng)
        await db.games.create(1, 10_000 + channel, game, [], TableOptions(), None, time.time())
        total += len(game.moves)
    return total


async def load_time(location: str | Path) -> tuple[float, int]:
    """Seconds for opening the store + ``games.active()``, and the number of games loaded."""
    start = time.perf_counter()
    db = await open_database(location)
    loaded = await db.games.active()
    elapsed = time.perf_counter() - start
    await db.close()
    return elapsed, len(loaded)


async def writer(location: str, count: int, index: int, synchronous: str) -> None:
    """One writer process: open the store, wait for the go (a line on stdin), commit ``count``
    moves, print its start, end and each move's seconds as JSON."""
    options = {} if is_postgres_url(location) else {"synchronous": synchronous}
    db = await open_database(location, **options)
    try:
        print("ready", flush=True)
        await asyncio.to_thread(sys.stdin.readline)
        start = time.time()
        times = await commit_times(db, count, index)
        end = time.time()
        settings = await durability(db)
    finally:
        await db.close()
    print(json.dumps({"start": start, "end": end, "times": times, "settings": settings}))


async def run_writers(location: str | Path, writers: int, args: argparse.Namespace) -> None:
    """``writers`` writer processes at once on one store; print their figures together."""
    procs = [
        await asyncio.create_subprocess_exec(
            sys.executable, __file__, "--writer", str(location), str(args.moves), str(index),
            "--synchronous", args.synchronous,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        )
        for index in range(writers)
    ]
    for proc in procs:  # every writer opened (and migrated) before any starts
        assert proc.stdout is not None
        assert (await proc.stdout.readline()).strip() == b"ready"
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write(b"go\n")
        await proc.stdin.drain()
    results = []
    for proc in procs:
        out, _ = await proc.communicate()
        results.append(json.loads(out.decode().strip().splitlines()[-1]))
    times = [t for result in results for t in result["times"]]
    wall = max(r["end"] for r in results) - min(r["start"] for r in results)
    ms = sorted(t * 1000 for t in times)
    print(
        f"store[{label_of(location)}]: {writers} writer process{'es' if writers > 1 else ''} "
        f"({results[0]['settings']}): {len(ms) / wall:.0f} moves/s committed, one move's "
        f"writes median {statistics.median(ms):.3f} ms, p99 {ms[int(len(ms) * 0.99)]:.3f} ms, "
        f"max {ms[-1]:.3f} ms over {len(ms)} moves"
    )


def label_of(location: str | Path) -> str:
    return "postgresql" if is_postgres_url(location) else "sqlite"


async def measure(label: str, location: str | Path, args: argparse.Namespace) -> None:
    """Print one backend's figures: a move's writes by 1, 2, 4... writers, then the start-up."""
    for count in args.writers:
        await run_writers(location, count, args)
    if args.games <= 0:
        return
    startup = args.startup_location(label)
    db = await open_database(startup)
    try:
        total = await fill(db, args.games, args.moves_per_game)
    finally:
        await db.close()
    loads = [await load_time(startup) for _ in range(args.runs)]
    seconds = [elapsed for elapsed, _ in loads]
    print(
        f"store[{label}]: start-up (open + load {loads[0][1]} active games, {total} moves): "
        f"median {statistics.median(seconds):.3f} s, best {min(seconds):.3f} s "
        f"over {len(seconds)} runs"
    )


async def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--writer":  # a child of run_writers
        location, count, index = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
        await writer(location, count, index, sys.argv[6] if len(sys.argv) > 6 else "NORMAL")
        return
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--moves", type=int, default=1000, help="moves each writer commits and times"
    )
    parser.add_argument(
        "--writers",
        type=lambda text: [int(n) for n in text.split(",")],
        default=[1, 2, 4],
        help="writer processes at once, a list (default 1,2,4)",
    )
    parser.add_argument("--games", type=int, default=1000, help="active games to load (0: skip)")
    parser.add_argument("--moves-per-game", type=int, default=40)
    parser.add_argument("--runs", type=int, default=3, help="start-up loads to time")
    parser.add_argument("--synchronous", default="NORMAL", help="SQLite: NORMAL (default) or FULL")
    parser.add_argument(
        "--synchronous-commit",
        default=None,
        help="PostgreSQL: on, off, ... for the bench's sessions (default: the server's, on)",
    )
    parser.add_argument("--backend", choices=("sqlite", "postgresql", "both"), default="both")
    parser.add_argument(
        "--url", help="PostgreSQL server URL (default: a throwaway server started here)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder, contextlib.ExitStack() as stack:
        server = args.url
        if args.backend != "sqlite" and server is None:
            sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests' server
            from tests.pg_server import find_bin, temporary_server

            if find_bin() is None:
                if args.backend == "postgresql":
                    raise SystemExit("PostgreSQL is not installed: give --url.")
                print("store[postgresql]: skipped (PostgreSQL is not installed; give --url)")
            else:
                server = stack.enter_context(temporary_server(durable=True))
        locations = {}
        if args.backend in ("sqlite", "both"):
            locations["sqlite"] = (Path(folder) / "moves.db", Path(folder) / "startup.db")
        if args.backend in ("postgresql", "both") and server is not None:
            query = ""
            if args.synchronous_commit:  # asyncpg sends unknown URL parameters as settings
                query = f"?synchronous_commit={args.synchronous_commit}"
            locations["postgresql"] = (
                await _fresh_database(server, "bench_moves") + query,
                await _fresh_database(server, "bench_startup") + query,
            )
        args.startup_location = lambda label: locations[label][1]
        for label, (moves, _) in locations.items():
            await measure(label, moves, args)


async def _fresh_database(server: str, name: str) -> str:
    """A new empty database on the server of ``server`` (dropped first if it exists)."""
    import asyncpg

    conn = await asyncpg.connect(server)
    try:
        await conn.execute(f"DROP DATABASE IF EXISTS {name}")
        await conn.execute(f"CREATE DATABASE {name}")
    finally:
        await conn.close()
    base = urlsplit(server)
    return urlunsplit((base.scheme, base.netloc, "/" + name, base.query, ""))


if __name__ == "__main__":
    asyncio.run(main())
