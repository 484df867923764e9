"""The cost of a loaded game: bytes it keeps in memory and the time to rebuild it from the store.

Makes ``--games`` active games (every configuration in turn, 20 to 150 random moves each) and
stores each as the store does: JSON texts for the settings, the seed, each move and the state
snapshot. Then loads them all the way the store does (parse, then ``Game.from_dict``) and prints
the bytes each loaded game keeps (tracemalloc, after the JSON texts and parsed dicts are freed),
and the time per game of ``from_dict`` alone and of parse plus ``from_dict``.

``--against REV`` runs the same in a process importing git revision REV's engine (a temporary
``git worktree``), in runs interleaved with the current engine, and prints the ratios.
Run: ``python bench/load.py [--games N] [--against REV --runs R]``.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import subprocess
import sys
import time
import tracemalloc
from typing import Any

from worktree import ROOT, checkout

CONFIGS = [(players, "classic") for players in (2, 3, 4, 6, 8, 9, 10, 12)] + [
    (players, "convoy") for players in (2, 4, 6, 8)
]


def stored_games(count: int) -> list[tuple[str, str, list[str], str]]:
    """``count`` active games as the store keeps them: settings, seed, moves, state (JSON)."""
    from bot.game import Game, GameSettings
    from bot.game.randomplay import push_random

    options: dict[str, Any] = {}
    if "endless_play_guard" in GameSettings.__dataclass_fields__:
        options["endless_play_guard"] = False  # the same games as engines from before the guard
    texts = []
    for number in range(count):
        players, preset = CONFIGS[number % len(CONFIGS)]
        settings = GameSettings.create(players, preset=preset, **options)
        rng = random.Random(number)
        length = rng.randrange(20, 151)
        game = Game.new(settings, number)
        while not game.is_over() and len(game.moves) < length:
            push_random(game, rng)
        texts.append(
            (
                json.dumps(settings.to_dict()),
                json.dumps(number),
                [json.dumps(move.to_dict()) for move in game.moves],
                json.dumps(game.state_dict()),
            )
        )
    return texts


def load(stored: list[tuple[str, str, list[str], str]]) -> tuple[list[Any], float, float]:
    """Every game rebuilt as the store does; (games, parse seconds, from_dict seconds)."""
    from bot.game import Game

    games = []
    parse = rebuild = 0.0
    for settings, seed, moves, state in stored:
        start = time.process_time()
        data = {
            "settings": json.loads(settings),
            "seed": json.loads(seed),
            "moves": json.loads("[" + ",".join(moves) + "]"),
            "state": json.loads(state),
        }
        middle = time.process_time()
        games.append(Game.from_dict(data))
        rebuild += time.process_time() - middle
        parse += middle - start
    return games, parse, rebuild


def measure(count: int) -> dict[str, Any]:
    """Bytes kept per loaded game, and from_dict times (first load, then best of three)."""
    stored = stored_games(count)
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    games, _, _ = load(stored)
    gc.collect()
    kept = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    del games
    gc.collect()
    times = [load(stored)[1:] for _ in range(3)]
    moves = sum(len(moves) for _, _, moves, _ in stored)
    return {
        "games": count,
        "moves": moves,
        "bytes": kept / count,
        "parse": min(parse for parse, _ in times) / count,
        "rebuild": min(rebuild for _, rebuild in times) / count,
    }


def run_in(tree: Any, count: int) -> dict[str, Any]:
    """:func:`measure` in a fresh process importing the engine of ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    command = [sys.executable, __file__, "--worker", "--games", str(count)]
    done = subprocess.run(command, env=env, check=True, capture_output=True, text=True)
    return json.loads(done.stdout)


def report(label: str, result: dict[str, Any]) -> None:
    print(
        f"{label}: {result['games']} games ({result['moves']} moves), "
        f"{result['bytes'] / 1000:.1f} kB kept per loaded game, "
        f"from_dict {result['rebuild'] * 1e6:.0f} us, "
        f"parse + from_dict {(result['parse'] + result['rebuild']) * 1e6:.0f} us per game; "
        f"10,000 games: {result['bytes'] * 10_000 / 1e6:.0f} MB, "
        f"{(result['parse'] + result['rebuild']) * 10_000:.1f} s (CPU)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=1000, help="active games to load")
    parser.add_argument("--against", metavar="REV", help="also measure the engine of git REV")
    parser.add_argument("--runs", type=int, default=3, help="interleaved runs with --against")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(measure(args.games)))
    elif not args.against:
        report("load", measure(args.games))
    else:
        memory, rebuild, total = [], [], []
        with checkout(args.against) as tree:
            for number in range(1, args.runs + 1):
                order = [(ROOT, "current"), (tree, args.against)]
                results = {
                    label: run_in(path, args.games)
                    for path, label in (order if number % 2 else order[::-1])
                }
                now, then = results["current"], results[args.against]
                report(f"run {number} current", now)
                report(f"run {number} {args.against}", then)
                memory.append(now["bytes"] / then["bytes"])
                rebuild.append(now["rebuild"] / then["rebuild"])
                total.append((now["parse"] + now["rebuild"]) / (then["parse"] + then["rebuild"]))
        for name, ratios in (
            ("memory per game", memory),
            ("from_dict time", rebuild),
            ("parse + from_dict time", total),
        ):
            print(
                f"{name}, current/{args.against}: median {statistics.median(ratios):.2f}x "
                f"(min {min(ratios):.2f}x, max {max(ratios):.2f}x)"
            )


if __name__ == "__main__":
    main()
