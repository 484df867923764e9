"""Computer players against each other: win rates with 95% intervals, and move times.

Plays complete 2-player games between each pair of levels, in both presets, every deal twice
with the seats swapped. "random" (a uniformly random legal mover) is a yardstick, not a level.
Hard plays at a fixed work budget (``--samples`` guesses of the hidden cards per move) and no
clock is given to it, so a run is reproducible on any machine and under any load. Prints each
pair's win rate with a Wilson 95% interval (draws count as not-wins) and each level's time per
move (mean, 95th percentile, max), and how many of hard's moves took longer than ``--cap`` (the
safety cap the bot gives it, which would have cut those searches short).
Run: ``python bench/arena.py [--games N] [--pairs random-easy,easy-medium,medium-hard]``.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections import defaultdict
from multiprocessing import Pool

from bot.game import Game, GameSettings, Move, player_view
from bot.game.ai import LEVELS, choose_move, legal_moves
from bot.game.ai.search import DEFAULT_SAMPLES

PAIRS = (("random", "easy"), ("easy", "medium"), ("medium", "hard"))
PLAYERS = ("random", *LEVELS)
PRESETS = ("classic", "convoy")


def random_move(game: Game, seat: int, rng: random.Random) -> Move:
    """A uniformly random legal move (and choice of five) for ``seat``, from its view."""
    move = rng.choice(legal_moves(player_view(game, seat)))
    options = game.sequence_options(move)
    return move._replace(five=rng.choice(options)) if len(options) > 1 else move


def play_game(task: tuple[str, str, str, int, bool, int, int]) -> dict:
    """One game; returns the winner's level (or None), moves made and each level's move times."""
    first, second, preset, seed, swapped, samples, max_moves = task
    levels = [second, first] if swapped else [first, second]
    game = Game.new(GameSettings.create(2, preset=preset), seed)
    rngs = [random.Random(f"{seed}:{seat}:{levels[seat]}") for seat in range(2)]
    times: dict[str, list[float]] = {first: [], second: []}
    while not game.is_over() and len(game.moves) < max_moves:
        seat = game.turn
        view = player_view(game, seat)
        start = time.perf_counter()
        if levels[seat] == "random":
            move = random_move(game, seat, rngs[seat])
        else:
            move = choose_move(view, levels[seat], rngs[seat], samples=samples)
        times[levels[seat]].append((time.perf_counter() - start) * 1000)
        game.push(move)
    winner = None if game.winner is None else levels[game.winner]
    if first == second and winner is not None:
        winner = "seat0" if game.winner == 0 else "seat1"
    return {"task": task, "winner": winner, "moves": len(game.moves), "times": times}


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval for a proportion."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


def percentile(values: list[float], q: float) -> float:
    """The ``q``-th percentile (nearest rank) of ``values``."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(q / 100 * len(ordered)) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=400, help="games per pair (default 400)")
    parser.add_argument("--pairs", default=",".join(f"{a}-{b}" for a, b in PAIRS))
    parser.add_argument("--presets", default=",".join(PRESETS))
    parser.add_argument(
        "--samples", type=int, default=DEFAULT_SAMPLES, help="hard's work budget per move"
    )
    parser.add_argument("--cap", type=float, default=2000.0, help="hard's safety cap, ms")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0, help="first deal's seed")
    parser.add_argument("--max-moves", type=int, default=2000, help="a longer game is a draw")
    args = parser.parse_args()
    pairs = [tuple(p.split("-")) for p in args.pairs.split(",")]
    presets = args.presets.split(",")
    for pair in pairs:
        if len(pair) != 2 or not set(pair) <= set(PLAYERS):
            parser.error(f"bad pair {'-'.join(pair)}: use {', '.join(PLAYERS)}")
    deals = max(1, args.games // (2 * len(presets)))
    tasks = [
        (a, b, preset, args.seed + i, swapped, args.samples, args.max_moves)
        for a, b in pairs
        for preset in presets
        for i in range(deals)
        for swapped in (False, True)
    ]
    results: dict[tuple[str, str, str], list[dict]] = defaultdict(list)
    times: dict[str, list[float]] = defaultdict(list)
    start = time.perf_counter()
    with Pool(args.workers) as pool:
        for result in pool.imap_unordered(play_game, tasks, chunksize=1):
            a, b, preset = result["task"][:3]
            results[(a, b, preset)].append(result)
            for level, values in result["times"].items():
                times[level].extend(values)
    elapsed = time.perf_counter() - start
    print(
        f"{len(tasks)} games in {elapsed:.0f} s ({args.workers} workers); hard's work budget "
        f"{args.samples} guesses per move, no clock\n"
    )
    print(
        f"{'pair (A vs B)':<16}{'preset':<9}{'games':>6}{'A wins':>8}{'B wins':>8}{'draws':>7}"
        f"{'B win rate [95% CI]':>26}{'moves/game':>12}"
    )
    for a, b in pairs:
        for preset in [*presets, "all"]:
            games = [r for p in presets if preset in (p, "all") for r in results[(a, b, p)]]
            n = len(games)
            b_wins = sum(r["winner"] == b for r in games)
            a_wins = sum(r["winner"] == a for r in games)
            draws = n - a_wins - b_wins
            low, high = wilson(b_wins, n)
            rate = f"{b_wins / n:6.1%} [{low:.1%}, {high:.1%}]" if n else "-"
            moves = sum(r["moves"] for r in games) / n if n else 0.0
            print(
                f"{a + '-' + b:<16}{preset:<9}{n:>6}{a_wins:>8}{b_wins:>8}{draws:>7}"
                f"{rate:>26}{moves:>12.1f}"
            )
    print(f"\n{'level':<8}{'moves':>8}{'mean ms':>10}{'p95 ms':>9}{'max ms':>9}{'> cap':>7}")
    for level in PLAYERS:
        values = times.get(level, [])
        if values:
            mean = sum(values) / len(values)
            over = sum(v > args.cap for v in values) if level == "hard" else 0
            print(
                f"{level:<8}{len(values):>8}{mean:>10.2f}{percentile(values, 95):>9.2f}"
                f"{max(values):>9.2f}{over:>7}"
            )
    print(
        f"\nhard's safety cap: {args.cap:.0f} ms, not applied here ('> cap': moves over it)"
    )


if __name__ == "__main__":
    main()
