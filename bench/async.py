"""Many slow games in one process: 1,000 open games, each with a pending reminder and a pending
turn time limit, resumed by a fresh bot at start-up; and the scheduler on its own.

Prints the time from creating the bot to having every game loaded and every timer re-armed
(against the same start-up with an empty database, measured in the same run), and the memory
the process uses. Then the scheduler alone: the time to arm 20,000 timers, and a restart after
a day of downtime (thousands of overdue timers whose callbacks do a little async work): how long
it takes to work through them and the longest stall of the event loop meanwhile (a ticker task
measures its own lag). Run: ``python bench/async.py [--games N] [--timers N] [--overdue N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

# bench/render.py is named like the render package: keep this folder off the import path.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]

import simcord  # noqa: E402

from bot.app import create_bot  # noqa: E402
from bot.config import Settings  # noqa: E402
from bot.game import Game, GameSettings  # noqa: E402
from bot.game.randomplay import push_random  # noqa: E402
from bot.services.scheduler import Scheduler  # noqa: E402
from bot.services.turns import LIMIT, REMINDER  # noqa: E402
from bot.store import Seat, SQLiteStore  # noqa: E402
from bot.table.options import TableOptions  # noqa: E402

DAY = 86400


def rss_mb() -> float:
    """The resident memory of this process now, in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def fill(path: Path, games: int) -> int:
    """Store ``games`` active games (2 to 6 players, about 40 moves) with their two timers."""
    rng = random.Random(7)
    db = await SQLiteStore.open(path)
    now = time.time()
    timers = 0
    try:
        for number in range(games):
            players = rng.choice([2, 3, 4, 6])
            game = Game.new(GameSettings.create(players), number)
            for _ in range(rng.randint(20, 60)):
                if game.is_over():
                    break
                push_random(game, rng)
            if game.is_over():
                game = Game.new(GameSettings.create(players), number)
            seats = [
                Seat(1_000_000 + number * 10 + seat, f"p{seat}")
                for seat in range(players)
            ]
            options = TableOptions(
                reminder_delay=DAY, turn_time_limit=2 * DAY, host_id=seats[0].user_id
            )
            record = await db.games.create(1, 10_000 + number, game, seats, options, None, now)
            payload = {"turn": game.turn_number, "seat": game.turn}
            await db.timers.set(record.id, REMINDER, now + DAY + rng.random() * DAY, payload)
            await db.timers.set(record.id, LIMIT, now + 2 * DAY, payload)
            timers += 2
    finally:
        await db.close()
    return timers


async def start_up(path: Path) -> tuple[float, int, int]:
    """Seconds from ``create_bot`` to ready with every game resumed; games and timers armed."""
    start = time.perf_counter()
    bot = create_bot(Settings(database_path=path, computer_move_delay=0))
    async with simcord.run(bot) as env:
        elapsed = time.perf_counter() - start
        games = len(env.bot.games.records)
        armed = len(env.bot.scheduler)
        await env.bot.close()
    return elapsed, games, armed


async def measure(games: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        empty, _, _ = await start_up(Path(folder) / "empty.db")
        path = Path(folder) / "sequence.db"
        timers = await fill(path, games)
        before = rss_mb()
        elapsed, loaded, armed = await start_up(path)
        after = rss_mb()
    print(f"async: {loaded} open games resumed, {armed} of {timers} timers re-armed")
    print(
        f"async: start-up {elapsed:.2f} s (empty database: {empty:.2f} s; "
        f"the games and timers cost {elapsed - empty:.2f} s)"
    )
    print(
        f"async: memory {after:.0f} MB resident after resuming (peak {peak_mb():.0f} MB; "
        f"{before:.0f} MB before the bot started)"
    )


def arm_ms(timers: int) -> float:
    """Milliseconds to arm ``timers`` timers at random times in the next two days."""
    rng = random.Random(3)
    now = time.time()
    dues = [now + DAY + rng.random() * DAY for _ in range(timers)]

    async def noop() -> None:
        return None

    scheduler = Scheduler(time.time)
    start = time.perf_counter()
    for key, due in enumerate(dues):
        scheduler.at(key, due, noop)
    elapsed = time.perf_counter() - start
    scheduler.close()
    return elapsed * 1000


async def overdue_burst(timers: int) -> tuple[float, float, int]:
    """Work through ``timers`` overdue timers: seconds to finish all, longest loop stall (ms)."""
    done = 0

    async def callback() -> None:  # a little async work, like a reminder's database update
        nonlocal done
        for _ in range(3):
            await asyncio.sleep(0)
            sum(range(300))
        done += 1

    stall = 0.0
    stop = asyncio.Event()

    async def ticker() -> None:
        nonlocal stall
        while not stop.is_set():
            before = time.perf_counter()
            await asyncio.sleep(0.001)
            stall = max(stall, time.perf_counter() - before - 0.001)

    ticking = asyncio.create_task(ticker())
    await asyncio.sleep(0.01)
    scheduler = Scheduler(time.time)
    now = time.time()
    start = time.perf_counter()
    for key in range(timers):
        scheduler.at(key, now - DAY + key, callback)
    while done < timers:
        await asyncio.sleep(0.001)
    elapsed = time.perf_counter() - start
    stop.set()
    await ticking
    scheduler.close()
    return elapsed, stall * 1000, done


async def measure_scheduler(timers: int, overdue: int, runs: int = 5) -> None:
    arms = sorted(arm_ms(timers) for _ in range(runs))
    print(
        f"scheduler: arming {timers} timers takes {arms[len(arms) // 2]:.1f} ms "
        f"(median of {runs}; {arms[0]:.1f} to {arms[-1]:.1f})"
    )
    for _ in range(runs):
        elapsed, stall, done = await overdue_burst(overdue)
        print(
            f"scheduler: {done} overdue timers run in {elapsed * 1000:.0f} ms; "
            f"longest event-loop stall {stall:.1f} ms"
        )


def peak_mb() -> float:
    """The peak resident memory of this process, in MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=1000, help="open games to resume")
    parser.add_argument("--timers", type=int, default=20_000, help="timers to arm")
    parser.add_argument("--overdue", type=int, default=5000, help="overdue timers at a restart")
    parser.add_argument("--scheduler-only", action="store_true", help="skip the bot's start-up")
    args = parser.parse_args()
    if not args.scheduler_only:
        asyncio.run(measure(args.games))
    asyncio.run(measure_scheduler(args.timers, args.overdue))


if __name__ == "__main__":
    main()
