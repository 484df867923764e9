"""Geometry: where the header, the board, each space and the footer or hand row go (pixels)."""

from __future__ import annotations

from typing import NamedTuple

WIDTH = 1040
HEADER_H = 128
CELL = 96
#: Space around each card inside its cell.
INSET = 3
CARD_BOX_SIZE = CELL - 2 * INSET
#: The coordinate margins (A-J above and below, 1-10 left and right).
MARGIN = (WIDTH - 10 * CELL) // 2
BOARD_X = MARGIN
BOARD_Y = HEADER_H + MARGIN
BOARD_SIZE = 10 * CELL
#: The board with its coordinate margins: the part the replay GIF shows.
BOARD_AREA = (0, HEADER_H, WIDTH, HEADER_H + BOARD_SIZE + 2 * MARGIN)
BODY_Y = BOARD_AREA[3]

CHIP_D = 66
SEAT_ROW_H = 78
FOOTER_PAD = 14

HAND_CARD_W = 112
HAND_CARD_H = 156
HAND_GAP = 16
HAND_TOP = 20
HAND_LABEL_H = 36
HAND_H = HAND_TOP + HAND_CARD_H + HAND_LABEL_H + 18


class Box(NamedTuple):
    """A rectangle: left, top, right, bottom (right and bottom exclusive)."""

    left: int
    top: int
    right: int
    bottom: int


def cell_box(space: int) -> Box:
    """The cell of a space on the posted image."""
    row, col = divmod(space, 10)
    x, y = BOARD_X + col * CELL, BOARD_Y + row * CELL
    return Box(x, y, x + CELL, y + CELL)


def card_box(space: int) -> Box:
    """The card face drawn in a space's cell."""
    x0, y0, x1, y1 = cell_box(space)
    return Box(x0 + INSET, y0 + INSET, x1 - INSET, y1 - INSET)


def centre(space: int) -> tuple[int, int]:
    """The centre of a space (where its chip goes)."""
    x0, y0, _, _ = cell_box(space)
    return x0 + CELL // 2, y0 + CELL // 2


def seat_columns(players: int, teams: int) -> int:
    """How many seats share one footer row."""
    if players <= 4:
        return players
    return 3 if teams == 3 else 4


def footer_height(players: int, teams: int) -> int:
    """The footer's height: one row of seats per ``seat_columns`` players."""
    rows = -(-players // seat_columns(players, teams))
    return 2 * FOOTER_PAD + rows * SEAT_ROW_H


def seat_box(seat: int, players: int, teams: int) -> Box:
    """A seat's slot in the footer."""
    columns = seat_columns(players, teams)
    row, col = divmod(seat, columns)
    width = (WIDTH - 2 * FOOTER_PAD) // columns
    x = FOOTER_PAD + col * width
    y = BODY_Y + FOOTER_PAD + row * SEAT_ROW_H
    return Box(x, y, x + width, y + SEAT_ROW_H)


def board_image_size(players: int, teams: int) -> tuple[int, int]:
    """The size of the posted board image."""
    return WIDTH, BODY_Y + footer_height(players, teams)


def hand_card_boxes(count: int) -> list[Box]:
    """The cards of a hand of ``count`` cards, centred in one row below the board."""
    width = min(HAND_CARD_W, (WIDTH - 2 * HAND_GAP) // max(count, 1) - HAND_GAP)
    height = round(width * HAND_CARD_H / HAND_CARD_W)
    total = count * width + (count - 1) * HAND_GAP
    x = (WIDTH - total) // 2
    y = BODY_Y + HAND_TOP
    return [
        Box(x + i * (width + HAND_GAP), y, x + i * (width + HAND_GAP) + width, y + height)
        for i in range(count)
    ]


def hand_image_size() -> tuple[int, int]:
    """The size of the private hand image."""
    return WIDTH, BODY_Y + HAND_H
