"""Board image speed and size: draw and encode the posted image of a mid-game, many times.

Prints the median and 95th-percentile wall time per posted image (compose + PNG encode), its
size in bytes, the CPU time per image, and the ratio against drawing every element from
scratch (every cache cleared: fonts, base board, sprites, palette). Also the private hand image
and the replay GIF of a complete game. Run: ``python bench/render.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

# This file is named like the package it measures: keep its folder off the import path.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]

from bot.game import GameSettings, player_view, public_view  # noqa: E402
from render.board import render_board, render_hand  # noqa: E402
from render.caching import clear_caches  # noqa: E402
from render.replay import render_replay_gif  # noqa: E402
from render.samples import midgame, random_game, sample_names  # noqa: E402


def _times(function: Callable[[], bytes], runs: int, before: Callable[[], None] | None = None):
    """Wall times (ms) of ``runs`` calls, the CPU time per call (ms) and the last output."""
    walls: list[float] = []
    cpu = 0.0
    output = b""
    for _ in range(runs):
        if before:
            before()
        wall, start = time.perf_counter(), time.process_time()
        output = function()
        cpu += time.process_time() - start
        walls.append((time.perf_counter() - wall) * 1000)
    return walls, cpu * 1000 / runs, output


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=300, help="posted images to time")
    parser.add_argument("--scratch-runs", type=int, default=8, help="from-scratch images to time")
    args = parser.parse_args()

    game = midgame(2)
    view, names = public_view(game), sample_names(2)
    chips = sum(1 for chip in view.chips if chip >= 0)
    render_board(view, names)  # warm the caches: the base board, sprites, palette, fonts
    walls, cpu, png = _times(lambda: render_board(view, names), args.runs)
    median = statistics.median(walls)
    print(f"board: mid-game, {chips} chips, {len(view.sequences)} sequences, {args.runs} runs")
    print(
        f"board: median {median:.1f} ms, p95 {_p95(walls):.1f} ms, CPU {cpu:.1f} ms/image, "
        f"{len(png):,} bytes"
    )
    scratch, scratch_cpu, _ = _times(
        lambda: render_board(view, names),
        args.scratch_runs,
        before=lambda: clear_caches(resources=False),
    )
    scratch_median = statistics.median(scratch)
    print(
        f"board drawn from scratch (base, cards, chips, text; fonts and palette kept): "
        f"median {scratch_median:.0f} ms, CPU {scratch_cpu:.0f} ms; "
        f"ratio {scratch_median / median:.0f}x"
    )
    cold, _, _ = _times(lambda: render_board(view, names), 3, before=clear_caches)
    print(f"board cold start (every cache cleared): median {statistics.median(cold):.0f} ms")

    hand_view = player_view(game, game.turn)
    render_hand(hand_view, names)
    hand_walls, hand_cpu, hand_png = _times(lambda: render_hand(hand_view, names), args.runs // 3)
    print(
        f"hand: median {statistics.median(hand_walls):.1f} ms, p95 {_p95(hand_walls):.1f} ms, "
        f"CPU {hand_cpu:.1f} ms/image, {len(hand_png):,} bytes"
    )

    settings = GameSettings.create(2)
    full = random_game(settings, 11)
    plays = sum(1 for move in full.moves if move.kind == "play")
    gif_walls, _, gif = _times(lambda: render_replay_gif(settings, 11, full.moves, names), 1)
    print(
        f"replay GIF: {plays} plays, {gif_walls[0] / 1000:.2f} s, {len(gif):,} bytes "
        f"({len(gif) / max(plays, 1) / 1024:.1f} KiB per frame)"
    )


if __name__ == "__main__":
    main()
