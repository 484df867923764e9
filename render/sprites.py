"""Small RGBA pictures drawn once and cached: chips, sequence lines, highlights and marks.

Shapes are drawn at four times the size and scaled down, for smooth edges.
"""

from __future__ import annotations

from PIL import Image, ImageDraw, ImageFilter

from . import theme
from .caching import cached
from .layout import CELL, INSET
from .typeface import font

SCALE = 4
RGBA = tuple[int, int, int, int]


def _canvas(size: int) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    image = Image.new("RGBA", (size * SCALE, size * SCALE), (0, 0, 0, 0))
    return image, ImageDraw.Draw(image)


def _down(image: Image.Image, size: int | tuple[int, int]) -> Image.Image:
    if isinstance(size, int):
        size = (size, size)
    return image.resize(size, Image.Resampling.LANCZOS)


def _disc(draw: ImageDraw.ImageDraw, cx: float, cy: float, r: float, fill: RGBA) -> None:
    s = SCALE
    draw.ellipse(((cx - r) * s, (cy - r) * s, (cx + r) * s, (cy + r) * s), fill=fill)


def _ring(draw: ImageDraw.ImageDraw, cx: float, cy: float, r: float, width: float, fill: RGBA):
    s = SCALE
    box = ((cx - r) * s, (cy - r) * s, (cx + r) * s, (cy + r) * s)
    draw.ellipse(box, outline=fill, width=round(width * s))


#: Each team's emblem around the letter, so that chips differ by more than colour.
EMBLEMS: tuple[str, ...] = ("solid", "ring", "cross")


def _emblem(draw: ImageDraw.ImageDraw, emblem: str, c: float, r: float, fill: RGBA) -> None:
    """A light emblem on a chip's face, clear of the letter: a broad ring or a diagonal cross."""
    if emblem == "ring":
        _ring(draw, c, c, r * 0.78, r * 0.2, fill)
    elif emblem == "cross":
        s = SCALE
        for dx, dy in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
            inner, outer = r * 0.46 / 2**0.5, r * 0.94 / 2**0.5
            start = ((c + dx * inner) * s, (c + dy * inner) * s)
            draw.line(
                (start, ((c + dx * outer) * s, (c + dy * outer) * s)),
                fill=fill,
                width=round(r * 0.34 * s),
            )


@cached
def chip(team: int, diameter: int, locked: bool = False) -> Image.Image:
    """A chip in ``diameter + 16`` pixels: its team's colour, emblem and letter.

    Flat colours with a dark rim (cheap to compress); a locked chip (part of a completed
    sequence) wears a gold ring.
    """
    size = diameter + 16
    c = size / 2
    r = diameter / 2
    colour = theme.team_colour(team)
    image, draw = _canvas(size)
    _disc(draw, c + 0.5, c + 1.5, r + (4 if locked else 1), (0, 0, 0, 90))
    if locked:
        _disc(draw, c, c, r + 4, (*theme.shade(theme.GOLD, 0.7), 255))
        _disc(draw, c, c, r + 3, (*theme.GOLD_LIGHT, 255))
    _disc(draw, c, c, r, (*theme.shade(colour, 0.5), 255))
    _disc(draw, c, c, r - max(1.5, r * 0.07), (*colour, 255))
    _emblem(draw, EMBLEMS[team], c, r, (*theme.shade(colour, 1.75), 255))
    image = _down(image, size)
    letter = theme.TEAM_LETTERS[team]
    face = font(round(diameter * 0.42), bold=True)
    text = ImageDraw.Draw(image)
    text.text((c, c), letter, font=face, fill=(255, 255, 255, 255), anchor="mm")
    return image


@cached
def sequence_line(team: int, step: int) -> Image.Image:
    """The line through a completed sequence, from the first to the fifth cell's centre.

    ``step`` is the space difference along the line (1, 10, 11 or 9); the image covers the
    bounding box of the five cells.
    """
    d_row, d_col = {1: (0, 1), 10: (1, 0), 11: (1, 1), 9: (1, -1)}[step]
    width = CELL * (5 if d_col else 1)
    height = CELL * (5 if d_row else 1)
    image = Image.new("RGBA", (width * SCALE, height * SCALE), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    half = CELL / 2
    x0 = half if d_col >= 0 else width - half
    y0 = half
    x1, y1 = x0 + 4 * CELL * d_col, y0 + 4 * CELL * d_row
    s = SCALE
    points = [(x0 * s, y0 * s), (x1 * s, y1 * s)]
    colour = theme.team_colour(team)
    layers = (
        (24, (*theme.shade(theme.GOLD, 0.5), 255)),
        (20, (*theme.GOLD_LIGHT, 255)),
        (14, (*theme.shade(colour, 0.8), 255)),
    )
    for w, fill in layers:
        draw.line(points, fill=fill, width=w * s)
        for x, y in ((x0, y0), (x1, y1)):
            _disc(draw, x, y, w / 2, fill)
    return _down(image, (width, height))


def _rounded_outline(size: int, inset: float, width: float, fill: RGBA, radius: float):
    image, draw = _canvas(size)
    s = SCALE
    box = (inset * s, inset * s, (size - inset) * s, (size - inset) * s)
    draw.rounded_rectangle(box, radius * s, outline=fill, width=round(width * s))
    return _down(image, size)


@cached
def free_corner() -> Image.Image:
    """A free corner's star and "FREE" label, drawn again over a sequence line through it.

    The image is ``CELL`` square, pasted on the cell: a card-coloured plate keeps the label
    readable, and a dark edge the star.
    """
    image = Image.new("RGBA", (CELL, CELL), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    card = CELL - 2 * INSET
    cx = CELL / 2
    label_y = INSET + card * 0.80
    draw.rounded_rectangle(
        (cx - 25, label_y - 10, cx + 25, label_y + 9), 6, fill=(*theme.CARD, 255)
    )
    draw.text(
        (cx, INSET + card * 0.42),
        "★",
        font=font(50),
        fill=theme.GOLD,
        anchor="mm",
        stroke_width=2,
        stroke_fill=theme.shade(theme.GOLD, 0.5),
    )
    draw.text((cx, label_y), "FREE", font=font(14, bold=True), fill=theme.FREE_LABEL, anchor="mm")
    return image


@cached
def last_move_frame() -> Image.Image:
    """A bright gold frame on a cell's card edge: the space the last move changed.

    The image is ``CELL`` square, pasted on the cell; it stays inside the cell.
    """
    glow = _rounded_outline(CELL, 1, 9, (*theme.HIGHLIGHT, 150), 12)
    image = glow.filter(ImageFilter.GaussianBlur(2))
    image.alpha_composite(_rounded_outline(CELL, INSET - 1, 5, (*theme.HIGHLIGHT, 255), 11))
    return image


@cached
def removed_ghost(diameter: int) -> Image.Image:
    """A dashed ring with a cross where a one-eyed jack removed a chip (``diameter + 16``)."""
    size = diameter + 16
    image, draw = _canvas(size)
    c, r, s = size / 2, diameter / 2 - 2, SCALE
    box = ((c - r) * s, (c - r) * s, (c + r) * s, (c + r) * s)
    for start in range(0, 360, 30):
        draw.arc(box, start, start + 18, fill=(*theme.HIGHLIGHT, 255), width=4 * s)
    arm = r * 0.38
    for dx, dy in ((arm, arm), (arm, -arm)):
        draw.line(
            ((c - dx) * s, (c - dy) * s, (c + dx) * s, (c + dy) * s),
            fill=(*theme.HIGHLIGHT, 255),
            width=5 * s,
        )
    return _down(image, size)


@cached
def number_badge(number: int, lit: bool = True, radius: int = 15) -> Image.Image:
    """A hand card's number in a disc: orange when the card can be played, grey when not."""
    size = 2 * radius + 6
    image, draw = _canvas(size)
    fill = theme.TARGET if lit else theme.TEXT_DIM
    c = size / 2
    _disc(draw, c, c, radius, (*theme.shade(fill, 0.5), 255))
    _disc(draw, c, c, radius - 1.5, (*fill, 255))
    image = _down(image, size)
    face = font(round(radius * 1.2), bold=True)
    ImageDraw.Draw(image).text((c, c), str(number), font=face, fill=theme.INK_BLACK, anchor="mm")
    return image


@cached
def target_frame(number: int) -> Image.Image:
    """A playable space of a hand card: an orange frame and the card's number (``CELL``)."""
    image = _rounded_outline(CELL, INSET + 1, 4, (*theme.TARGET, 255), 9)
    badge = number_badge(number, True, 13)
    corner = CELL - INSET - badge.width + 4
    image.alpha_composite(badge, (corner, corner))
    return image


@cached
def wild_mark() -> Image.Image:
    """An open space a two-eyed jack in hand can take: a small orange dot in the corner."""
    image, draw = _canvas(CELL)
    r = 7
    cx = cy = CELL - INSET - r - 3
    _disc(draw, cx, cy, r + 1.5, (*theme.shade(theme.TARGET, 0.5), 255))
    _disc(draw, cx, cy, r, (*theme.TARGET, 255))
    return _down(image, CELL)


@cached
def remove_mark(diameter: int) -> Image.Image:
    """A chip a one-eyed jack in hand can remove: a red target ring (``diameter + 16``)."""
    size = diameter + 16
    image, draw = _canvas(size)
    c, r = size / 2, diameter / 2 + 4
    _ring(draw, c, c, r, 4, (*theme.REMOVE_MARK, 255))
    s = SCALE
    for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        inner, outer = r - 6, r + 5
        draw.line(
            (
                (c + dx * inner) * s,
                (c + dy * inner) * s,
                (c + dx * outer) * s,
                (c + dy * outer) * s,
            ),
            fill=(*theme.REMOVE_MARK, 255),
            width=4 * s,
        )
    return _down(image, size)


@cached
def pip(done: bool) -> Image.Image:
    """One sequence in the score: a gold disc when made, a hollow ring when still needed."""
    image, draw = _canvas(20)
    if done:
        _disc(draw, 10, 10, 8, (*theme.shade(theme.GOLD, 0.6), 255))
        _disc(draw, 10, 10, 7, (*theme.GOLD_LIGHT, 255))
    else:
        _ring(draw, 10, 10, 8, 2, (*theme.TEXT_DIM, 255))
    return _down(image, 20)


@cached
def star() -> Image.Image:
    """The gold star shown in the header when the game is a draw."""
    image = Image.new("RGBA", (64, 64), (0, 0, 0, 0))
    ImageDraw.Draw(image).text((32, 32), "★", font=font(52), fill=theme.GOLD, anchor="mm")
    return image
