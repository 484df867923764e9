"""Whole pictures in RGB: the posted board and the private hand, from a view.

The reference drawing: :mod:`render.bands` encodes the same pixels row band by row band (a
test holds the two equal); the palette is made from these pictures.
"""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image

from bot.game.view import PlayerView

from .base import base_image
from .handrow import draw_hand_marks, draw_hand_row, hand_marks
from .layout import board_image_size, hand_image_size
from .overlay import draw_board_state
from .panels import draw_footer, draw_header


def compose_board(view: PlayerView, names: Sequence[str]) -> Image.Image:
    """The posted board: header, board with chips and marks, footer with every seat."""
    _, height = board_image_size(view.settings.players, view.settings.teams)
    image = base_image(height).copy()
    draw_board_state(image, view.chips, view.locked, view.sequences, view.last_change)
    draw_header(image, view, names)
    draw_footer(image, view, names)
    return image


def compose_hand(view: PlayerView, names: Sequence[str]) -> Image.Image:
    """The private image: the board with the hand's playable spaces marked, and the hand."""
    marks = hand_marks(view)
    _, height = hand_image_size()
    image = base_image(height).copy()
    draw_board_state(image, view.chips, view.locked, view.sequences, view.last_change)
    draw_hand_marks(image, marks)
    draw_header(image, view, names, private=True)
    draw_hand_row(image, view)
    return image
