"""A member with 10,000 finished games: ``/sequence-me export`` and ``forget-me``, timed.

The store is filled through its own API (``bench/history.py``'s real games played to their end
by random legal moves, 2 and 4 players, as the game service stores them, 500 a transaction);
the member sits in every game, with people drawn from 400 others. Then it prints, for the
export service the cog calls (``ExportService.export``): the seconds to read (the store's
repositories) and to build the JSON (off the loop), the bytes, the number of parts at the
8 MiB limit and the largest part, the moves exported; and for the forget-me
(``ForgetService.forget``: the whole transaction): its seconds and what it changed, then the
check that ratings and totals still equal a replay of the results. Figures only: nothing is
asserted about time.

Run: ``python bench/export.py`` (10,000 games, SQLite), ``--games 2000``, ``--backend
postgresql`` (a throwaway server, when PostgreSQL is installed).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from history import BATCH, EPOCH, GUILD, OPTIONS, LoopWatch, templates  # bench/history.py

from bot.game import Game
from bot.services.export import PART_LIMIT, ExportService, build_parts
from bot.services.forget import ForgetService
from bot.services.ratings import RatingService
from bot.services.stats import tally_game
from bot.store import Store
from bot.store.location import open_database
from bot.store.rebuild import stored_problems
from bot.store.seats import Seat

#: The member (a Discord-sized id) and the others.
MEMBER = 1_400_000_000_000_000_777
OTHERS = 400


async def fill(db: Store, count: int, pool: list[Game]) -> None:
    """``count`` finished games, the member at each."""
    rng = random.Random(count)
    for first in range(0, count, BATCH):
        async with db.transaction():
            for number in range(first, min(count, first + BATCH)):
                game = pool[rng.randrange(len(pool))]
                teams_count = game.settings.teams
                users = [MEMBER]
                while len(users) < game.settings.players:
                    other = 1_400_000_000_000_100_000 + rng.randrange(OTHERS)
                    if other not in users:
                        users.append(other)
                rng.shuffle(users)
                seats = [Seat(user, f"p{user % 1000}") for user in users]
                now = EPOCH + number * 60.0
                record = await db.games.create(
                    GUILD, 1 + number % 400, game, seats, OPTIONS, None, now
                )
                await db.games.finish(record.id, "finished", now + 1800)
                summary = {
                    "moves": len(game.moves),
                    "sequences": [game.sequence_count(t) for t in range(teams_count)],
                    "termination": game.termination,
                }
                await db.results.record(
                    record.id,
                    GUILD,
                    [users[team::teams_count] for team in range(teams_count)],
                    game.winner,
                    rng.random() < 0.9,
                    summary,
                    now=now + 1800,
                    tallies=tally_game(game.settings, game.seed, game.moves, seats),
                )


class NoGames:
    """The game service's part a forget-me uses (no game is in memory here)."""

    def drop_ended_of(self, user_id: int) -> None:
        """Nothing ended in this process."""


async def run(location: str | Path, count: int) -> None:
    db = await open_database(location)
    try:
        pool = await asyncio.to_thread(templates)
        start = time.perf_counter()
        await fill(db, count, pool)
        print(f"{db.dialect}: filled {count} games in {time.perf_counter() - start:.0f} s")

        service = ExportService(db)
        watch = LoopWatch()
        watch.on = True
        start = time.perf_counter()
        data = await service.gather(MEMBER)
        read = time.perf_counter() - start
        watch.on = False
        start = time.perf_counter()
        parts = await asyncio.to_thread(build_parts, data, time.time(), PART_LIMIT)
        built = time.perf_counter() - start
        moves = sum(len(m) for m in data.moves.values())
        total = sum(len(p) for p in parts)
        print(
            f"export: {len(data.games)} games, {moves} moves; read {read:.2f} s, JSON {built:.2f} s"
            f" (total {read + built:.2f} s); {total / 2**20:.2f} MiB in {len(parts)} part(s) at"
            f" {PART_LIMIT / 2**20:.0f} MiB, the largest {max(map(len, parts)) / 2**20:.2f} MiB;"
            f" the event loop's longest block while reading {watch.longest * 1000:.0f} ms"
        )

        ratings = RatingService(db)
        forget = ForgetService(db, NoGames(), ratings)  # type: ignore[arg-type]
        watch.longest, watch.on = 0.0, True
        start = time.perf_counter()
        report = await forget.forget(MEMBER)
        took = time.perf_counter() - start
        watch.on = False
        print(
            f"forget-me: {took:.2f} s in one transaction; {len(report.games)} games,"
            f" {report.results} results, ratings in {report.ratings} server(s) -> {report.label};"
            f" the event loop's longest block {watch.longest * 1000:.0f} ms"
        )
        problems = await db.read(stored_problems, GUILD)
        print(f"after forget-me, ratings and totals against a replay: {problems or 'equal'}")
    finally:
        await db.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--backend", choices=["sqlite", "postgresql"], default="sqlite")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        if args.backend == "sqlite":
            await run(Path(folder) / "export.db", args.games)
            return
        from tests.pg_server import create_database, find_bin, temporary_server

        if find_bin() is None:
            print("PostgreSQL is not installed")
            return
        with temporary_server() as server:
            await run(await create_database(server, "export"), args.games)


if __name__ == "__main__":
    asyncio.run(main())
