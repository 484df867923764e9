"""Engine speed: random complete games, a uniformly random legal move each turn, on one core.

Prints moves applied per second (move choice, apply and the sequence check included), complete
games per second, a checksum of the final states of the fixed seeds (equal checksums: the very
same games, move for move) and the longest game of each configuration.

``--against REV`` also runs the engine of git revision REV, from a temporary ``git worktree``, in
runs interleaved with the current engine's (each run a fresh process), and prints the speed
ratio of each pair with its median and spread. Load on the machine moves absolute figures; the
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
import tempfile
import time
from pathlib import Path
from typing import Any

CONFIGS = [(players, "classic") for players in (2, 3, 4, 6, 8, 9, 10, 12)] + [
    (players, "convoy") for players in (2, 4, 6, 8)
]
#: Parts of the final state that every engine version has; the checksum hashes them.
STATE_KEYS = ("chips", "sequences", "hands", "deck", "discards", "turn", "status", "winner")
ROOT = Path(__file__).resolve().parents[1]


def run(games: int, guard: bool) -> dict[str, Any]:
    """Play ``games`` seeds of every configuration with whatever ``bot.game`` imports."""
    import random

    from bot.game import Game, GameSettings
    from bot.game.randomplay import push_random

    options = {"endless_play_guard": guard} if _has_guard(GameSettings) else {}
    settings = [GameSettings.create(p, preset=preset, **options) for p, preset in CONFIGS]
    finished: list[tuple[int, Any]] = []
    cpu = 0.0
    for seed in range(games):
        for index, setting in enumerate(settings):
            start = time.process_time()
            game = Game.new(setting, seed)
            rng = random.Random(seed)
            while not game.is_over():
                push_random(game, rng)
            cpu += time.process_time() - start
            finished.append((index, game))
    digest = hashlib.sha256()
    longest: dict[str, list[int]] = {}
    moves = 0
    for index, game in finished:
        state = game.state_dict()
        record = [[m.notation() for m in game.moves], [state[key] for key in STATE_KEYS]]
        digest.update(json.dumps(record).encode())
        moves += len(game.moves)
        name = "{1}-{0}".format(*CONFIGS[index])
        if len(game.moves) > longest.get(name, [0])[0]:
            longest[name] = [len(game.moves), game.seed, game.reshuffles]
    return {
        "games": len(finished),
        "moves": moves,
        "cpu": cpu,
        "checksum": digest.hexdigest()[:16],
        "longest": longest,
        "guard": bool(options.get("endless_play_guard")),
    }


def _has_guard(settings_class: Any) -> bool:
    return "endless_play_guard" in settings_class.__dataclass_fields__


def run_in(tree: Path, games: int, guard: bool) -> dict[str, Any]:
    """:func:`run` in a fresh process that imports the engine of ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    command = [sys.executable, __file__, "--worker", "--games", str(games)]
    command += ["--guard", "on" if guard else "off"]
    done = subprocess.run(command, env=env, check=True, capture_output=True, text=True)
    return json.loads(done.stdout)


def report(label: str, result: dict[str, Any]) -> None:
    rate = result["moves"] / result["cpu"]
    print(
        f"{label}: {result['games']} games, {result['moves']} moves, {rate:,.0f} moves/s, "
        f"{result['games'] / result['cpu']:,.1f} games/s (CPU time, one core), "
        f"guard {'on' if result['guard'] else 'off'}, checksum {result['checksum']}"
    )


def longest_games(result: dict[str, Any]) -> None:
    print("longest game (moves, seed, reshuffles) per configuration:")
    for name, (moves, seed, reshuffles) in result["longest"].items():
        print(f"  {name:>10}: {moves:>6} moves (seed {seed}, {reshuffles} reshuffles)")


def against(rev: str, games: int, runs: int, guard: bool) -> None:
    """Interleave runs of this engine and of ``rev``'s; print each ratio, median and spread."""
    with tempfile.TemporaryDirectory(prefix="engine-bench-") as scratch:
        tree = Path(scratch) / "tree"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), rev],
            check=True,
            capture_output=True,
        )
        try:
            ratios = []
            for number in range(runs):
                order = [(ROOT, "current"), (tree, rev)]
                if number % 2:
                    order.reverse()
                results = {label: run_in(path, games, guard) for path, label in order}
                now, base = results["current"], results[rev]
                ratio = (now["moves"] / now["cpu"]) / (base["moves"] / base["cpu"])
                ratios.append(ratio)
                report(f"run {number + 1} current", now)
                report(f"run {number + 1} {rev:>7}", base)
                same = "same games" if now["checksum"] == base["checksum"] else "DIFFERENT games"
                print(f"run {number + 1}: ratio {ratio:.2f}x ({same})")
            print(
                f"ratio current/{rev} over {runs} runs: median {statistics.median(ratios):.2f}x, "
                f"min {min(ratios):.2f}x, max {max(ratios):.2f}x"
            )
            longest_games(now)
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)],
                check=False,
                capture_output=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=50, help="games per configuration")
    parser.add_argument("--against", metavar="REV", help="also run the engine of git REV")
    parser.add_argument("--runs", type=int, default=5, help="interleaved runs with --against")
    parser.add_argument("--guard", choices=("on", "off"), default="off", help="endless-play guard")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    guard = args.guard == "on"
    if args.worker:
        print(json.dumps(run(args.games, guard)))
    elif args.against:
        against(args.against, args.games, args.runs, guard)
    else:
        result = run(args.games, guard)
        print(f"engine: {len(CONFIGS)} configurations x {args.games} seeds")
        report("engine", result)
        longest_games(result)


if __name__ == "__main__":
    main()
