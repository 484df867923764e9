"""The random soak of tests/chaos.py, long: many seeds, many steps, each seed a fresh bot.

Prints, for each seed, the steps run, the games started and finished, the time taken and every
finding (``[fault injected]`` marks a finding in a step where a request to Discord was made to
fail: some of those are Discord's failure shown as such, not the bot's). The exit code is 1 when
a finding without an injected fault was made.
Run: ``python bench/chaos.py [--seeds 1-20] [--steps 300] [--play-out-every 100] [--hard]``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import simcord  # noqa: E402

from bot.app import create_bot  # noqa: E402
from tests.chaos import LEVELS, Finding, LogCapture, Soak  # noqa: E402
from tests.conftest import make_settings  # noqa: E402


def seed_list(text: str) -> list[int]:
    """``"1-5,9"`` -> ``[1, 2, 3, 4, 5, 9]``."""
    seeds: list[int] = []
    for part in text.split(","):
        first, _, last = part.partition("-")
        seeds += range(int(first), int(last or first) + 1)
    return seeds


async def soak(
    seed: int, steps: int, play_out_every: int, hard: bool, trace: bool
) -> list[Finding]:
    """One seed on a fresh bot and database."""
    with tempfile.TemporaryDirectory() as folder:
        settings = make_settings(Path(folder), create_rate_limit=(100, 600))
        async with simcord.run(create_bot(settings), check_errors=False, settle_timeout=60) as env:
            with LogCapture() as logs:
                levels = LEVELS if hard else ("easy", "medium")
                runner = Soak(env, lambda: create_bot(settings), seed, logs, levels=levels)
                if trace:
                    runner.trace = lambda number, action: print(f"  {number}: {action}", flush=True)
                runner.setup()
                started = time.perf_counter()
                try:
                    findings = await runner.run(steps, play_out_every=play_out_every)
                    await runner.play_out()
                except TimeoutError as error:  # SimCord gave up waiting for the bot: the seed ends
                    lines = str(error).split("\n")  # the first, and what is stuck on what
                    stuck = [line.strip() for line in lines if "bot-owned" in line]
                    runner.find("settle-timeout", "; ".join([lines[0], *stuck]))
                    findings = runner.findings
                took = time.perf_counter() - started
            await env.bot.close()
        print(f"seed {seed}: {steps} steps in {took:.1f} s, {len(findings)} finding(s)", flush=True)
        return findings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", default="1-5", help="seeds, like 1-20 or 3,7,9")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--play-out-every", type=int, default=0)
    parser.add_argument("--hard", action="store_true", help="seat hard computers too")
    parser.add_argument("--trace", action="store_true", help="print each step's action")
    args = parser.parse_args()
    real = 0
    for seed in seed_list(args.seeds):
        for finding in asyncio.run(
            soak(seed, args.steps, args.play_out_every, args.hard, args.trace)
        ):
            print(f"  {finding}", flush=True)
            real += not finding.expected
    return 1 if real else 0


if __name__ == "__main__":
    sys.exit(main())
