"""What changes on the board from move to move: sequence lines, chips, the last-move marks.

All drawing is pasting cached sprites onto a copy of the base image.
"""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image

from bot.game.board import CORNERS
from bot.game.sequences import EMPTY

from . import sprites
from .layout import BOARD_X, BOARD_Y, CELL, CHIP_D, cell_box, centre

Window = Sequence[int]


def paste_centred(image: Image.Image, sprite: Image.Image, x: int, y: int, dy: int = 0) -> None:
    """Paste ``sprite`` with its centre at ``(x, y)`` (offset ``dy`` from the image top)."""
    width, height = sprite.size
    image.paste(sprite, (x - width // 2, y - height // 2 - dy), sprite)


def draw_sequences(
    image: Image.Image, sequences: Sequence[tuple[int, Window]], dy: int = 0
) -> None:
    """A gold-edged line through the five spaces of each completed sequence; a free corner on
    a line keeps its star and label on top."""
    corners: set[int] = set()
    for team, window in sequences:
        step = window[1] - window[0]
        rows = [s // 10 for s in window]
        cols = [s % 10 for s in window]
        x = BOARD_X + min(cols) * CELL
        y = BOARD_Y + min(rows) * CELL - dy
        line = sprites.sequence_line(team, step)
        image.paste(line, (x, y), line)
        corners.update(CORNERS.intersection(window))
    for space in sorted(corners):
        x0, y0, _, _ = cell_box(space)
        image.paste(sprites.free_corner(), (x0, y0 - dy), sprites.free_corner())


def draw_chips(
    image: Image.Image, chips: Sequence[int], locked: Sequence[bool], dy: int = 0
) -> None:
    """Every chip, in its team's colour and letter; locked chips with a gold ring."""
    for space, team in enumerate(chips):
        if team >= 0:
            x, y = centre(space)
            paste_centred(image, sprites.chip(team, CHIP_D, locked[space]), x, y, dy)


def draw_last_change(
    image: Image.Image, last_change: tuple[str, int] | None, chips: Sequence[int], dy: int = 0
) -> None:
    """A glowing frame on the space the last move changed; a ghost ring if a chip was removed."""
    if last_change is None:
        return
    kind, space = last_change
    x0, y0, _, _ = cell_box(space)
    frame = sprites.last_move_frame()
    image.paste(frame, (x0, y0 - dy), frame)
    if kind == "removed" and chips[space] == EMPTY:
        x, y = centre(space)
        paste_centred(image, sprites.removed_ghost(CHIP_D), x, y, dy)


def draw_board_state(
    image: Image.Image,
    chips: Sequence[int],
    locked: Sequence[bool],
    sequences: Sequence[tuple[int, Window]],
    last_change: tuple[str, int] | None,
    dy: int = 0,
) -> None:
    """Sequences, then the last-move frame, then the chips on top."""
    draw_sequences(image, sequences, dy)
    draw_last_change(image, last_change, chips, dy)
    draw_chips(image, chips, locked, dy)
