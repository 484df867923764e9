"""The static picture under every board image, drawn once per image height and cached.

Table felt, the header and footer panels, the board's frame, the coordinates A-J and 1-10 on
all four margins, and the 100 card faces. Only chips and marks are drawn over it per move.
"""

from __future__ import annotations

from PIL import Image, ImageDraw

from bot.game.board import COLUMNS, SPACE_CARDS

from . import theme
from .caching import cached
from .cardface import PAD, board_card
from .layout import (
    BOARD_AREA,
    BOARD_SIZE,
    BOARD_X,
    BOARD_Y,
    BODY_Y,
    CARD_BOX_SIZE,
    CELL,
    HEADER_H,
    MARGIN,
    WIDTH,
    card_box,
)
from .typeface import font


def _felt(height: int) -> Image.Image:
    """The table: flat dark green felt (flat colours keep the PNG small and fast)."""
    return Image.new("RGB", (WIDTH, height), theme.FELT)


def _frame(image: Image.Image) -> None:
    """The board's raised edge: a dark panel with a thin gold line around the cards."""
    draw = ImageDraw.Draw(image)
    pad = 7
    box = (
        BOARD_X - pad,
        BOARD_Y - pad,
        BOARD_X + BOARD_SIZE + pad - 1,
        BOARD_Y + BOARD_SIZE + pad - 1,
    )
    draw.rounded_rectangle(
        box, 10, fill=theme.PANEL, outline=theme.shade(theme.GOLD, 0.75), width=2
    )


def _coordinates(image: Image.Image) -> None:
    """Column letters above and below the board, row numbers left and right of it."""
    draw = ImageDraw.Draw(image)
    face = font(21, bold=True)
    colour = theme.GOLD_LIGHT
    for i in range(10):
        x = BOARD_X + i * CELL + CELL // 2
        y = BOARD_Y + i * CELL + CELL // 2
        for cy in (BOARD_Y - MARGIN // 2 - 3, BOARD_Y + BOARD_SIZE + MARGIN // 2 + 3):
            draw.text((x, cy), COLUMNS[i], font=face, fill=colour, anchor="mm")
        for cx in (MARGIN // 2 - 3, WIDTH - MARGIN // 2 + 3):
            draw.text((cx, y), str(i + 1), font=face, fill=colour, anchor="mm")


def _panel(image: Image.Image, top: int, bottom: int, line_y: int) -> None:
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, top, WIDTH - 1, bottom - 1), fill=theme.PANEL)
    draw.line((0, line_y, WIDTH - 1, line_y), fill=theme.shade(theme.GOLD, 0.75), width=2)


@cached
def base_image(height: int) -> Image.Image:
    """The static picture of a board image ``height`` pixels tall (never modify it: copy)."""
    image = _felt(height)
    _panel(image, 0, HEADER_H, HEADER_H - 2)
    if height > BODY_Y:
        _panel(image, BODY_Y, height, BODY_Y)
    _frame(image)
    _coordinates(image)
    for space, card in enumerate(SPACE_CARDS):
        face = board_card(card, CARD_BOX_SIZE)
        x, y, _, _ = card_box(space)
        image.paste(face, (x - PAD, y - PAD), face)
    return image


@cached
def board_area_image() -> Image.Image:
    """The static board with its coordinate margins alone (for replay frames; copy it)."""
    return base_image(BOARD_AREA[3]).crop(BOARD_AREA)
