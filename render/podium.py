"""A season's podium as a PNG: the top three on steps (second, first, third), each with their
name and rating, under the season's name."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from . import theme
from .encode import png_bytes
from .typeface import clean_text, draw_text, fit

WIDTH, HEIGHT = 720, 400
MARGIN = 24
STEP_W = 200
#: Each place's step height, and the medal colour of its number.
STEPS = {1: 170, 2: 120, 3: 85}
MEDALS = {1: (230, 190, 60), 2: (192, 198, 206), 3: (196, 128, 70)}
NAME_SIZE = 18


@dataclass(frozen=True)
class Placed:
    """One player on the podium: place (1 to 3; equal ratings share one), name, rating shown."""

    place: int
    name: str
    rating: str


def render_podium(title: str, placed: Sequence[Placed]) -> bytes:
    """The podium as PNG bytes (one to three players; none draws the empty steps)."""
    image = Image.new("RGB", (WIDTH, HEIGHT), theme.PANEL)
    draw = ImageDraw.Draw(image)
    heading = fit(clean_text(title) or "Season", WIDTH - 2 * MARGIN, 24, bold=True)
    draw_text(image, (WIDTH // 2, 34), heading, 24, theme.GOLD_LIGHT, bold=True, anchor="mm")
    floor = HEIGHT - MARGIN
    for slot, order in enumerate((1, 0, 2)):  # second on the left, first in the middle
        x = MARGIN + 20 + slot * (STEP_W + 18)
        rank = order + 1
        top = floor - STEPS[rank]
        draw.rectangle((x, top, x + STEP_W, floor), fill=theme.FELT, outline=theme.PANEL_LINE)
        if order >= len(placed):
            draw_text(
                image, (x + STEP_W // 2, top - 22), "—", NAME_SIZE, theme.TEXT_DIM, anchor="mm"
            )
            continue
        each = placed[order]
        medal = MEDALS.get(each.place, theme.TEXT)
        draw_text(
            image, (x + STEP_W // 2, top + 34), str(each.place), 40, medal, bold=True, anchor="mm"
        )
        name = fit(clean_text(each.name) or "?", STEP_W, NAME_SIZE, bold=True)
        draw_text(
            image, (x + STEP_W // 2, top - 44), name, NAME_SIZE, theme.TEXT, bold=True, anchor="mm"
        )
        draw_text(image, (x + STEP_W // 2, top - 20), each.rating, 15, theme.TEXT_DIM, anchor="mm")
    return png_bytes(image)
