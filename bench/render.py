"""Board image speed and size: draw and encode the posted image, move after move.

Prints, per posted image (compose + PNG encode):

* ``board``: the median and 95th-percentile wall time over a run of consecutive mid-game
  positions, each rendered once, in order, as the bot posts them after every move (a board row
  that did not change keeps its encoded bytes, as in play), the CPU time, and the size of the
  standard mid-game board (``render.samples.midgame``). Between two positions the rows under
  the last-move frame are encoded ahead, as the bot does once a board is posted
  (``render.board.prepare_board``): that work is timed on its own and printed, with the CPU
  time of both per move, and the same positions rendered without it in a pass before. Each
  timed pass starts from the caches of a bot that has drawn other games (fonts, sprites, common
  texts), never holding the timed positions' own rows or texts (a move's line, the deck's
  count), which the bot draws once, on that move;
* ``floor``: an image of the same size holding 100 flat rectangles, encoded the same way (same
  bands, same levels, no cache), timed between the boards of the pass not prepared; and the
  board's ratio to it; also
  the same rectangles through the former encoder (RGB, palette mapped, Pillow's PNG);
* the same board with every row re-encoded (each move's caches cleared: the worst move), the
  board drawn from scratch (every drawing cache cleared) and a cold start;
* the private hand image and the replay GIF of a complete game.

Run: ``python bench/render.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import io
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

# This file is named like the package it measures: keep its folder off the import path.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]

from PIL import Image, ImageDraw  # noqa: E402

from bot.game import Game, GameSettings, PlayerView, player_view, public_view  # noqa: E402
from bot.game.randomplay import push_random  # noqa: E402
from render.bands import board_like_png  # noqa: E402
from render.board import prepare_board, render_board, render_hand  # noqa: E402
from render.caching import clear_caches, clear_outputs  # noqa: E402
from render.encode import to_palette  # noqa: E402
from render.layout import board_image_size, cell_box  # noqa: E402
from render.palette import palette  # noqa: E402
from render.replay import render_replay_gif  # noqa: E402
from render.samples import midgame, random_game, sample_names  # noqa: E402


def _interleaved(
    first: Callable[[], bytes],
    others: list[Callable[[], bytes]],
    runs: int,
    block: int = 10,
    after: Callable[[], None] | None = None,
) -> tuple[list[float], float, list[list[float]], list[float], float]:
    """Wall times (ms) of ``runs`` calls of ``first`` and of each of ``others``, taken in turns
    of ``block`` calls so that all see the same load (a turn of each keeps its own data in the
    processor's caches, as a run of it alone would), and the CPU time per call of ``first``;
    then the wall times and CPU time per call of ``after``, called after each ``first``."""
    walls: list[float] = []
    other_walls: list[list[float]] = [[] for _ in others]
    after_walls: list[float] = []
    cpu = after_cpu = 0.0
    for done in range(0, runs, block):
        count = min(block, runs - done)
        for _ in range(count):
            wall, start = time.perf_counter(), time.process_time()
            first()
            cpu += time.process_time() - start
            walls.append((time.perf_counter() - wall) * 1000)
            if after is not None:
                wall, start = time.perf_counter(), time.process_time()
                after()
                after_cpu += time.process_time() - start
                after_walls.append((time.perf_counter() - wall) * 1000)
        for function, times in zip(others, other_walls, strict=True):
            for _ in range(count):
                wall = time.perf_counter()
                function()
                times.append((time.perf_counter() - wall) * 1000)
    return walls, cpu * 1000 / runs, other_walls, after_walls, after_cpu * 1000 / runs


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


#: The first seed of the games drawn before each timed pass (none of the timed positions).
WARM_SEED = 5000


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


def positions(
    count: int, first: int = 24, last: int = 74, seed: int = 100
) -> list[tuple[PlayerView, PlayerView]]:
    """The public view and the hand of the seat to move after each move from move ``first`` to
    ``last`` of seeded 2-player games (from ``seed`` on), game after game, until there are
    ``count`` of them."""
    views: list[tuple[PlayerView, PlayerView]] = []
    while len(views) < count:
        game = Game.new(GameSettings.create(2), seed)
        rng = random.Random(seed)
        while not game.is_over() and len(game.moves) < last and len(views) < count:
            push_random(game, rng)
            if len(game.moves) >= first:
                views.append((public_view(game), player_view(game, game.turn)))
        seed += 1
    return views


def floor_image(size: tuple[int, int]) -> Image.Image:
    """A palette image of ``size`` with 100 flat rectangles where the board's cards are."""
    colours = palette().getpalette() or []
    image = Image.new("P", size, 0)
    image.putpalette(colours)
    draw = ImageDraw.Draw(image)
    for space in range(100):
        left, top, right, bottom = cell_box(space)
        fill = (space * 7) % (len(colours) // 3)
        draw.rectangle((left + 3, top + 3, right - 4, bottom - 4), fill=fill)
    return image


def _legacy_floor(size: tuple[int, int]) -> bytes:
    """The floor through the former encoder: RGB, palette mapped, Pillow's PNG at level 1."""
    image = Image.new("RGB", size, (16, 66, 48))
    draw = ImageDraw.Draw(image)
    for space in range(100):
        left, top, right, bottom = cell_box(space)
        draw.rectangle((left + 3, top + 3, right - 4, bottom - 4), fill=(space * 2, 200, 90))
    buffer = io.BytesIO()
    to_palette(image).save(buffer, "PNG", optimize=False, compress_level=1)
    return buffer.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=300, help="posted images to time")
    parser.add_argument("--scratch-runs", type=int, default=8, help="from-scratch images to time")
    args = parser.parse_args()

    game = midgame(2)
    view, names = public_view(game), sample_names(2)
    chips = sum(1 for chip in view.chips if chip >= 0)
    png = render_board(view, names)  # warm the caches: the base board, sprites, palette, fonts
    moves = positions(args.runs + 1)
    size = board_image_size(2, 2)
    floor = floor_image(size)

    # Each timed pass starts from the caches of a bot that has drawn other games (fonts,
    # sprites, common texts): never from these positions' own texts and rows, which a player
    # sees drawn once, on their move.
    others = positions(args.runs, seed=WARM_SEED)

    def warm_up() -> None:
        clear_outputs()
        for public, _ in others:
            render_board(public, names)
            prepare_board(public)

    warm_up()
    render_board(moves[0][0], names)  # the position before the first timed one
    plain = iter(public for public, _ in moves[1:])
    unprepared, unprepared_cpu, (floor_walls, legacy), _, _ = _interleaved(
        lambda: render_board(next(plain), names),
        [lambda: board_like_png(floor), lambda: _legacy_floor(size)],
        args.runs,
    )

    warm_up()
    render_board(moves[0][0], names)
    prepare_board(moves[0][0])
    stream = iter(public for public, _ in moves[1:])
    shown: list[PlayerView] = []

    def post() -> bytes:
        shown.append(next(stream))
        return render_board(shown[-1], names)

    walls, cpu, _, prepared, prepared_cpu = _interleaved(
        post, [], args.runs, after=lambda: prepare_board(shown[-1])
    )
    median = statistics.median(walls)
    print(
        f"board: {args.runs} consecutive positions (moves 24-74 of 2-player games); "
        f"size at the mid-game board ({chips} chips, {len(view.sequences)} sequences)"
    )
    print(
        f"board: median {median:.1f} ms, p95 {_p95(walls):.1f} ms, CPU {cpu:.1f} ms/image, "
        f"{len(png):,} bytes"
    )
    print(
        f"board: prepared between moves (the rows under the last-move frame, encoded ahead): "
        f"median {statistics.median(prepared):.1f} ms, CPU {prepared_cpu:.1f} ms/move; "
        f"CPU per move, the board and its preparation: {cpu + prepared_cpu:.1f} ms"
    )
    print(
        f"board: not prepared (the same positions, in a pass before): median "
        f"{statistics.median(unprepared):.1f} ms, p95 {_p95(unprepared):.1f} ms, CPU "
        f"{unprepared_cpu:.1f} ms/image; prepared/not prepared median ratio "
        f"{median / statistics.median(unprepared):.2f}x"
    )
    floor_median = statistics.median(floor_walls)
    print(
        f"floor: {size[0]}x{size[1]}, 100 rectangles, same bands and levels, no cache "
        f"(timed in turns with the boards not prepared): median {floor_median:.1f} ms, "
        f"{len(board_like_png(floor)):,} bytes; board/floor ratio {median / floor_median:.2f}x"
    )
    legacy_median = statistics.median(legacy)
    print(
        f"floor through the former encoder (RGB, palette mapped, Pillow PNG level 1): "
        f"median {legacy_median:.1f} ms; board/former floor ratio {median / legacy_median:.2f}x"
    )
    worst, worst_cpu, _ = _times(
        lambda: render_board(view, names), max(args.runs // 3, 5), before=clear_outputs
    )
    print(
        f"board with every row re-encoded (the mid-game board, move caches cleared): "
        f"median {statistics.median(worst):.1f} ms, p95 {_p95(worst):.1f} ms, "
        f"CPU {worst_cpu:.1f} ms/image"
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
    warm_up()
    for _, hand in others[: args.runs // 3]:
        render_hand(hand, names)
    hand_moves = [hand for _, hand in moves[: args.runs // 3 + 1]]
    render_hand(hand_moves[0], names)
    hand_stream = iter(hand_moves[1:])
    hand_walls, hand_cpu, _ = _times(
        lambda: render_hand(next(hand_stream), names), len(hand_moves) - 1
    )
    hand_png = render_hand(hand_view, names)
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
