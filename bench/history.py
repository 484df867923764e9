"""Years of history: leaderboard, stats, history and tournament seeding at 1k / 10k / 100k
finished games, on SQLite and PostgreSQL.

One server's store is filled through the store's own API (``games.create`` with a real game's
moves and snapshot, ``games.finish``, ``results.record``: the bot's encoders, as the game service
writes them; 500 games a transaction): real 2- and 4-player games played to their end by random
legal moves (a pool of 40, dealt to players drawn from 400 people, one of them in about 4% of the
games, as the issue's heavy player), 90% rated, one an hour; half of them slow games whose results
keep each person's turn times (issue #39's pace, when the code has it). At each size it prints,
per command, the median seconds cold (fresh services: what the first call after a restart
finds) and warm (the same services again), the event loop's longest single callback during the
calls (``Handle._run`` timed), then the growth (largest size ÷ 1k), the database's size per
1,000 games and the time of a backup (``sequence-bot backup``'s function on SQLite;
``pg_dump`` of the database on PostgreSQL, when it is installed).

The commands are the services the cogs call: ``StatsService.leaderboard`` (page 1; and, where the
code has it, only the players with a rated game in the last 60 days: "leaderboard60"), the
running season's leaderboard where the code has seasons ("season": ``SeasonBoards.page``, page 1
of the quarter the last result ended in; the server's plan is quarterly from the start; before
seasons, the all-time "leaderboard" is the query to compare it with),
``StatsService.player`` (with the heavy player's pace in slow games, where the code has it) and
``StatsService.history`` for the heavy player, the heavy player's pace alone ("pace"), and the
tournament's seeding (``Rounds._strength`` for 16 entrants). The cost of writing a result
("result write") is the median time of ``results.record`` for 20 more finished games, each in a
transaction of its own as the game service writes it (with seasons: the season's ratings too;
its third figure is the slowest of the 20). Where the code has seasons, the time of a change of
the plan (the server's season ratings computed again from its results in the
change's transaction) follows.

Run: ``python bench/history.py`` (1k, 10k, 100k on both backends), ``--quick`` (stop at 10k),
``--sizes 1000,10000``, ``--backend sqlite``, ``--runs 5``.
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.game import Game, GameSettings
from bot.game.randomplay import push_random
from bot.services.ratings import RatingService
from bot.services.stats import StatsService
from bot.services.tournament.rounds import Rounds
from bot.store import Store
from bot.store.location import open_database
from bot.store.seats import Seat

try:  # the code of issues #39 and #41: a pace in slow games, an activity window
    from bot.services.pace import SUMMARY_KEY, player_paces
except ImportError:
    SUMMARY_KEY, player_paces = "", None  # type: ignore[assignment]

try:  # the code of issue #41's seasons
    from bot.seasons import QUARTERLY, season_at
    from bot.services.season_boards import SeasonBoards
except ImportError:
    SeasonBoards = None  # type: ignore[assignment,misc]

try:
    from bot.table.options import TableOptions

    OPTIONS: Any = TableOptions(rated=True)
except ImportError:  # an older revision of the bot (a 'before' run): options were a dict
    OPTIONS = {"rated": True}

GUILD = 1_400_000_000_000_000_001
HEAVY = 10_001
PLAYERS = 400
BATCH = 500
EPOCH = 1_767_225_600.0
#: The last games of each size, each written alone and timed (the cost of a result's write).
WRITES = 20
#: One finished game an hour.
SPACING = 3600.0
DAY = 86_400.0


class LoopWatch:
    """The longest single callback the event loop ran while on (``Handle._run`` timed)."""

    def __init__(self) -> None:
        self.longest = 0.0
        self.on = False
        original = asyncio.events.Handle._run
        watch = self

        def timed(handle: asyncio.events.Handle) -> None:
            start = time.perf_counter()
            original(handle)
            if watch.on:
                watch.longest = max(watch.longest, time.perf_counter() - start)

        asyncio.events.Handle._run = timed  # type: ignore[method-assign]


def templates(count: int = 40) -> list[Game]:
    """Finished games to store again and again: 2 players (1v1) and 4 (2v2)."""
    games = []
    for seed in range(count):
        players = 4 if seed % 4 == 3 else 2
        game, rng = Game.new(GameSettings.create(players), seed), random.Random(seed)
        while not game.is_over():
            push_random(game, rng)
        games.append(game)
    return games


def pick_players(rng: random.Random, count: int) -> list[int]:
    """``count`` distinct people; the heavy player in about 4% of games."""
    chosen: list[int] = [HEAVY] if rng.random() < 0.04 else []
    while len(chosen) < count:
        user = 20_000 + rng.randrange(PLAYERS)
        if user not in chosen:
            chosen.append(user)
    rng.shuffle(chosen)
    return chosen


async def fill(
    db: Store, start: int, end: int, pool: list[Game], writes: list[float] | None = None
) -> None:
    """Store finished games number ``start`` .. ``end - 1`` (``writes``: each in a transaction
    of its own, the seconds of each ``results.record`` appended)."""
    rng = random.Random(start)
    batch = 1 if writes is not None else BATCH
    record_params = inspect.signature(db.results.record).parameters
    tallies_of = None
    if "tallies" in record_params:  # the code that keeps tallies: the bot's own count
        from bot.services.stats import tally_game as tallies_of
    for first in range(start, end, batch):
        async with db.transaction():
            for number in range(first, min(end, first + batch)):
                game = pool[rng.randrange(len(pool))]
                teams_count = game.settings.teams
                users = pick_players(rng, len(game.settings.seats_of(0)) * teams_count)
                seats = [Seat(user, f"p{user}") for user in users]
                now = EPOCH + number * SPACING
                record = await db.games.create(
                    GUILD, 1 + number % 400, game, seats, OPTIONS, None, now
                )
                await db.games.finish(record.id, "finished", now + 1800)
                teams = [users[team::teams_count] for team in range(teams_count)]
                summary = {
                    "moves": len(game.moves),
                    "duration": 1800.0,
                    "sequences": [game.sequence_count(t) for t in range(teams_count)],
                    "left": [],
                    "termination": game.termination,
                    "leaving_team": None,
                    "preset": game.settings.preset,
                }
                if SUMMARY_KEY and rng.random() < 0.5:  # a slow game: each turn's seconds
                    turns = len(game.moves) // len(users) or 1
                    summary[SUMMARY_KEY] = [
                        [[rng.randrange(60, 7200) for _ in range(turns)] for _ in team]
                        for team in teams
                    ]
                extra: dict[str, Any] = {}
                if tallies_of is not None:
                    extra["tallies"] = tallies_of(game.settings, game.seed, game.moves, seats)
                began = time.perf_counter()
                await db.results.record(
                    record.id, GUILD, teams, game.winner, rng.random() < 0.9, summary,
                    now=now + 1800, **extra,
                )
                if writes is not None:
                    writes.append(time.perf_counter() - began)


def commands(db: Store, stored: int) -> dict[str, Callable[[Any], Awaitable[Any]]]:
    """The measured calls, each on the services given (``stored``: the games stored)."""
    entrants = [SimpleNamespace(id=n, user_ids=[20_000 + n]) for n in range(15)]
    entrants.append(SimpleNamespace(id=15, user_ids=[HEAVY]))
    calls: dict[str, Callable[[Any], Awaitable[Any]]] = {
        "leaderboard": lambda s: s.stats.leaderboard(GUILD, 1),
    }
    window = EPOCH + stored * SPACING - 60 * DAY  # the last 60 days of the history
    if "active_since" in inspect.signature(StatsService.leaderboard).parameters:
        calls["leaderboard60"] = lambda s: s.stats.leaderboard(GUILD, 1, window)
    if SeasonBoards is not None:
        last = EPOCH + stored * SPACING
        season = season_at(QUARTERLY, last)
        boards = SeasonBoards(db, None, lambda: last)  # type: ignore[arg-type]
        calls["season"] = lambda s: boards.page(GUILD, season, 1)
    calls["stats"] = lambda s: s.stats.player(GUILD, HEAVY)
    if player_paces is not None:
        calls["pace"] = lambda s: player_paces(s.db, GUILD, [HEAVY])
    calls["history"] = lambda s: s.stats.history(GUILD, HEAVY)
    calls["seeding"] = lambda s: Rounds._strength(s, GUILD, entrants)  # type: ignore[arg-type]
    return calls


def services(db: Store) -> SimpleNamespace:
    ratings = RatingService(db)
    return SimpleNamespace(db=db, ratings=ratings, stats=StatsService(db, ratings))


async def measure(
    db: Store, runs: int, watch: LoopWatch, stored: int
) -> dict[str, tuple[float, float, float]]:
    """Per command: (cold median, warm median, the loop's longest block)."""
    figures = {}
    for name, call in commands(db, stored).items():
        cold, warm = [], []
        watch.longest, watch.on = 0.0, True
        for _ in range(runs):
            fresh = services(db)
            start = time.perf_counter()
            await call(fresh)
            cold.append(time.perf_counter() - start)
            start = time.perf_counter()
            await call(fresh)
            warm.append(time.perf_counter() - start)
        watch.on = False
        figures[name] = (statistics.median(cold), statistics.median(warm), watch.longest)
    return figures


async def size_and_backup(
    db: Store, location: str | Path, work: Path, *, backup: bool = True
) -> tuple[int, float]:
    """The database's size in bytes and the seconds a backup takes (0 when not measured)."""
    if db.dialect == "sqlite":
        from bot.store.backup import backup_sqlite
        from bot.store.connection import Connection

        async def checkpoint(conn: Connection) -> None:
            await conn.fetchall("PRAGMA wal_checkpoint(TRUNCATE)")

        await db.read(checkpoint)
        size = os.path.getsize(location)
        if not backup:
            return size, 0.0
        dest = work / "backup.db"
        dest.unlink(missing_ok=True)
        start = time.perf_counter()
        await asyncio.to_thread(backup_sqlite, Path(location), dest)
        took = time.perf_counter() - start
        dest.unlink(missing_ok=True)
        return size, took

    async def db_size(conn: Any) -> Any:
        return await conn.fetchone("SELECT pg_database_size(current_database())")

    row = await db.read(db_size)
    took = 0.0
    dump = shutil.which("pg_dump") or "/usr/lib/postgresql/15/bin/pg_dump"
    if backup and os.path.exists(dump):
        start = time.perf_counter()
        await asyncio.to_thread(
            subprocess.run, [dump, "-Fc", "-f", str(work / "dump"), str(location)], check=True
        )
        took = time.perf_counter() - start
    return int(row[0]), took


async def run_backend(location: str | Path, sizes: list[int], runs: int, work: Path) -> None:
    watch = LoopWatch()
    db = await open_database(location)
    pool = await asyncio.to_thread(templates)
    stored = 0
    by_size: dict[int, dict[str, tuple[float, float, float]]] = {}
    try:
        print(f"\n== {db.dialect} ==", flush=True)
        if SeasonBoards is not None:  # seasons from the start: each result also rates its season
            await db.season_ends.replan(GUILD, "season_plan", QUARTERLY, 1, EPOCH)
        empty, _ = await size_and_backup(db, location, work, backup=False)
        for size in sizes:
            start = time.perf_counter()
            await fill(db, stored, size - WRITES, pool)
            writes: list[float] = []
            await fill(db, size - WRITES, size, pool, writes)
            stored = size
            print(f"filled to {size} games in {time.perf_counter() - start:.0f} s", flush=True)
            by_size[size] = figures = await measure(db, runs, watch, size)
            write = statistics.median(writes)
            figures["result write"] = (write, write, max(writes))
            nbytes, backup = await size_and_backup(db, location, work)
            for name, (cold, warm, block) in figures.items():
                print(
                    f"{size:>7} {name:<12} cold {cold * 1000:8.1f} ms  warm {warm * 1000:8.1f} ms"
                    f"  longest block {block * 1000:7.1f} ms",
                    flush=True,
                )
            if SeasonBoards is not None:  # a new plan: the server's ratings computed again
                began = time.perf_counter()
                await db.season_ends.replan(GUILD, "season_plan", QUARTERLY, 1, EPOCH)
                took = time.perf_counter() - began
                print(f"{size:>7} plan change (season ratings recomputed) {took:.2f} s", flush=True)
            print(
                f"{size:>7} size {nbytes / 1e6:8.1f} MB ({(nbytes - empty) / 1e6 / size * 1000:.2f}"
                f" MB per 1,000 games, above the empty store)  backup {backup:.2f} s",
                flush=True,
            )
        low, high = sizes[0], sizes[-1]
        for name in by_size[low]:
            growth = [
                by_size[high][name][i] / max(by_size[low][name][i], 1e-9) for i in range(3)
            ]
            print(
                f"growth {high} / {low} {name:<12} cold x{growth[0]:.1f}  warm x{growth[1]:.1f}"
                f"  block x{growth[2]:.1f}",
                flush=True,
            )
    finally:
        await db.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--quick", action="store_true", help="stop at 10,000 games")
    parser.add_argument("--backend", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    if args.quick:
        sizes = [size for size in sizes if size <= 10_000]
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        if args.backend in ("sqlite", "both"):
            await run_backend(work / "history.db", sizes, args.runs, work)
        if args.backend in ("postgresql", "both"):
            from tests.pg_server import create_database, find_bin, temporary_server

            if find_bin() is None:
                print("PostgreSQL is not installed: its figures are left out")
                return
            with temporary_server() as server:
                url = await create_database(server, "history")
                await run_backend(url, sizes, args.runs, work)


if __name__ == "__main__":
    asyncio.run(main())
