"""Engine speed: random complete games, a uniformly random legal move each turn, on one core.

Prints moves applied per second (move choice, apply and the sequence check included), complete
games per second, a checksum of the final states of the fixed seeds (equal checksums: the very
same games, move for move) and the longest game of each configuration.

``--against REV`` also runs the engine of git revision REV, from a temporary ``git worktree``, in
a second process, interleaved with the current engine's seed by seed, and prints the speed ratio
of each run with their median and spread. Load on the machine moves absolute figures; the
ratio, measured in the same minutes, is the figure to read.

``--guard off`` (the default) plays with the endless-play guard off, the rules of engines from
before it, so that checksums compare with them; ``--guard on`` plays with the guard (the default
of new games). Run: ``python bench/engine.py [--games N] [--against REV --runs R] [--guard on]``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from worktree import ROOT, checkout

CONFIGS = [(players, "classic") for players in (2, 3, 4, 6, 8, 9, 10, 12)] + [
    (players, "convoy") for players in (2, 4, 6, 8)
]
#: Parts of the final state that every engine version has; the checksum hashes them.
STATE_KEYS = ("chips", "sequences", "hands", "deck", "discards", "turn", "status", "winner")


class Runner:
    """Plays seeds with whatever ``bot.game`` this process imports, timing the CPU it takes."""

    def __init__(self, guard: bool) -> None:
        from bot.game import Game, GameSettings
        from bot.game.randomplay import push_random

        self.game_class, self.push_random = Game, push_random
        options = {"endless_play_guard": guard} if _has_guard(GameSettings) else {}
        self.guard = bool(options.get("endless_play_guard"))
        self.settings = [GameSettings.create(p, preset=preset, **options) for p, preset in CONFIGS]

    def seed(self, seed: int) -> dict[str, Any]:
        """One game of each configuration: CPU seconds, moves, checksum and game lengths."""
        import random

        finished = []
        cpu = 0.0
        for setting in self.settings:
            start = time.process_time()
            game = self.game_class.new(setting, seed)
            rng = random.Random(seed)
            push_random = self.push_random
            while not game.is_over():
                push_random(game, rng)
            cpu += time.process_time() - start
            finished.append(game)
        digest = hashlib.sha256()
        for game in finished:
            state = game.state_dict()
            record = [[m.notation() for m in game.moves], [state[key] for key in STATE_KEYS]]
            digest.update(json.dumps(record).encode())
        return {
            "cpu": cpu,
            "moves": sum(len(game.moves) for game in finished),
            "checksum": digest.hexdigest(),
            "lengths": [
                [len(game.moves), game.reshuffles, _endless_play(game)]
                for game in finished
            ],
        }


def _endless_play(game: Any) -> bool:
    """True for a game the endless-play guard drew, in any engine version: a termination
    value since the outcome became one, an end sentence before."""
    termination = getattr(game, "termination", None)
    if termination is not None:
        return bool(termination == "endless_play")
    return str(getattr(game, "end_reason", "")).startswith("Endless play")


class Totals:
    """Results of many seeds added up."""

    def __init__(self) -> None:
        self.cpu = 0.0
        self.moves = self.games = 0
        self.digest = hashlib.sha256()
        #: Per configuration: (moves, seed, reshuffles) of its longest game.
        self.longest: list[tuple[int, int, int]] = [(0, 0, 0)] * len(CONFIGS)
        #: Per configuration: games drawn by the endless-play guard.
        self.endless = [0] * len(CONFIGS)

    def add(self, seed: int, result: dict[str, Any]) -> None:
        self.cpu += result["cpu"]
        self.moves += result["moves"]
        self.games += len(result["lengths"])
        self.digest.update(result["checksum"].encode())
        for index, (moves, reshuffles, endless) in enumerate(result["lengths"]):
            self.endless[index] += endless
            if moves > self.longest[index][0]:
                self.longest[index] = (moves, seed, reshuffles)

    @property
    def rate(self) -> float:
        return self.moves / self.cpu

    @property
    def checksum(self) -> str:
        return self.digest.hexdigest()[:16]


def _has_guard(settings_class: Any) -> bool:
    return "endless_play_guard" in settings_class.__dataclass_fields__


def serve(guard: bool) -> None:
    """Worker: read a seed per line, answer a JSON line (see :meth:`Runner.seed`)."""
    runner = Runner(guard)
    print(json.dumps({"guard": runner.guard}), flush=True)
    for line in sys.stdin:
        print(json.dumps(runner.seed(int(line))), flush=True)


class Worker:
    """A :func:`serve` process importing the engine of one source tree."""

    def __init__(self, tree: Path, guard: bool) -> None:
        command = [sys.executable, __file__, "--serve", "--guard", "on" if guard else "off"]
        env = {**os.environ, "PYTHONPATH": str(tree)}
        self.process = subprocess.Popen(
            command, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        self.guard = self._read()["guard"]

    def seed(self, seed: int) -> dict[str, Any]:
        assert self.process.stdin is not None
        self.process.stdin.write(f"{seed}\n")
        self.process.stdin.flush()
        return self._read()

    def _read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        return json.loads(self.process.stdout.readline())

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait()


def report(label: str, totals: Totals, guard: bool) -> None:
    print(
        f"{label}: {totals.games} games, {totals.moves} moves, {totals.rate:,.0f} moves/s, "
        f"{totals.games / totals.cpu:,.1f} games/s (CPU time, one core), "
        f"guard {'on' if guard else 'off'}, checksum {totals.checksum}"
    )


def longest_games(totals: Totals) -> None:
    print("longest game per configuration (and games drawn by the endless-play guard):")
    per_config = zip(CONFIGS, totals.longest, totals.endless, strict=True)
    for (players, preset), (moves, seed, reshuffles), endless in per_config:
        name = f"{preset}-{players}"
        print(
            f"  {name:>10}: {moves:>6} moves (seed {seed}, {reshuffles} reshuffles); "
            f"{endless} endless-play draws"
        )
    print(f"longest game of all: {max(moves for moves, _, _ in totals.longest)} moves")


def against(rev: str, games: int, runs: int, guard: bool) -> None:
    """Interleave this engine and ``rev``'s seed by seed; print each run's ratio and the spread."""
    with checkout(rev) as tree:
        current, base = Worker(ROOT, guard), Worker(tree, guard)
        ratios = []
        for number in range(1, runs + 1):
            now, then = Totals(), Totals()
            for seed in range(games):
                pair = [(current, now), (base, then)]
                for worker, totals in pair if seed % 2 else reversed(pair):
                    totals.add(seed, worker.seed(seed))
            ratios.append(now.rate / then.rate)
            report(f"run {number} current", now, current.guard)
            report(f"run {number} {rev}", then, base.guard)
            same = "same games" if now.checksum == then.checksum else "DIFFERENT games"
            print(f"run {number}: ratio {ratios[-1]:.2f}x ({same})")
        current.close()
        base.close()
    print(
        f"speed ratio current/{rev} over {runs} runs: median {statistics.median(ratios):.2f}x, "
        f"min {min(ratios):.2f}x, max {max(ratios):.2f}x"
    )
    longest_games(now)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=50, help="games per configuration")
    parser.add_argument("--against", metavar="REV", help="also run the engine of git REV")
    parser.add_argument("--runs", type=int, default=5, help="interleaved runs with --against")
    parser.add_argument("--guard", choices=("on", "off"), default="off", help="endless-play guard")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    guard = args.guard == "on"
    if args.serve:
        serve(guard)
    elif args.against:
        against(args.against, args.games, args.runs, guard)
    else:
        runner, totals = Runner(guard), Totals()
        for seed in range(args.games):
            totals.add(seed, runner.seed(seed))
        print(f"engine: {len(CONFIGS)} configurations x {args.games} seeds")
        report("engine", totals, runner.guard)
        longest_games(totals)


if __name__ == "__main__":
    main()
