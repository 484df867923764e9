"""Card faces: the board's square cards, the hand's tall cards, the footer's small discards.

Each face is an RGBA sprite with a soft shadow, cached by card and size. Shapes are drawn at
three times the size and scaled down; text is drawn at the final size, for crisp glyphs.
"""

from __future__ import annotations

from PIL import Image, ImageDraw, ImageFilter

from bot.game.cards import SUIT_SYMBOLS, is_one_eyed, is_red, is_two_eyed

from . import theme
from .caching import cached
from .typeface import font

SCALE = 3
#: Transparent border around a face, for its shadow.
PAD = 4


def rank_text(card: str) -> str:
    """``"10"`` for a ten, otherwise the rank letter."""
    return "10" if card[0] == "T" else card[0]


def ink(card: str) -> theme.RGB:
    """Red for hearts and diamonds, black for spades and clubs."""
    return theme.INK_RED if is_red(card) else theme.INK_BLACK


def _blank(width: int, height: int, fill: theme.RGB, radius: int) -> Image.Image:
    """A rounded card of ``fill`` with an edge and a shadow, ``PAD`` pixels around it."""
    size = (width + 2 * PAD, height + 2 * PAD)
    shadow = Image.new("RGBA", size, (0, 0, 0, 0))
    ImageDraw.Draw(shadow).rounded_rectangle(
        (PAD, PAD + 1.5, PAD + width, PAD + height + 1.5), radius, fill=(0, 0, 0, 120)
    )
    image = shadow.filter(ImageFilter.GaussianBlur(1.6))
    big = Image.new("RGBA", (size[0] * SCALE, size[1] * SCALE), (0, 0, 0, 0))
    s = SCALE
    box = (PAD * s, PAD * s, (PAD + width) * s - 1, (PAD + height) * s - 1)
    draw = ImageDraw.Draw(big)
    draw.rounded_rectangle(box, radius * s, fill=(*theme.CARD_EDGE, 255))
    inner = (box[0] + s, box[1] + s, box[2] - s, box[3] - s)
    draw.rounded_rectangle(inner, (radius - 1) * s, fill=(*fill, 255))
    image.alpha_composite(big.resize(size, Image.Resampling.LANCZOS))
    return image


@cached
def board_card(card: str, size: int) -> Image.Image:
    """A square board card (or ``"XX"``, a free corner): big rank over big suit."""
    image = _blank(size, size, theme.CARD, 8)
    draw = ImageDraw.Draw(image)
    cx = PAD + size / 2
    top = PAD
    if card == "XX":
        draw.text((cx, top + size * 0.42), "★", font=font(50), fill=theme.GOLD, anchor="mm")
        draw.text(
            (cx, top + size * 0.80),
            "FREE",
            font=font(14, bold=True),
            fill=theme.FREE_LABEL,
            anchor="mm",
        )
        return image
    colour = ink(card)
    rank = rank_text(card)
    draw.text((cx, top + size * 0.33), rank, font=font(33, bold=True), fill=colour, anchor="mm")
    draw.text(
        (cx, top + size * 0.71), SUIT_SYMBOLS[card[1]], font=font(34), fill=colour, anchor="mm"
    )
    return image


def _jack_label(card: str) -> str:
    if is_two_eyed(card):
        return "WILD"
    if is_one_eyed(card):
        return "REMOVE"
    return ""


@cached
def hand_card(card: str, width: int, height: int, dead: bool = False) -> Image.Image:
    """A tall hand card: corner index, a big centre symbol, and for jacks what they do."""
    image = _blank(width, height, theme.CARD, 10)
    draw = ImageDraw.Draw(image)
    colour = ink(card)
    left, top = PAD + 9, PAD + 6
    rank, suit = rank_text(card), SUIT_SYMBOLS[card[1]]
    index_font = font(round(width * 0.24), bold=True)
    draw.text((left, top), rank, font=index_font, fill=colour)
    draw.text((left, top + width * 0.27), suit, font=font(round(width * 0.22)), fill=colour)
    cx, cy = PAD + width / 2, PAD + height * 0.56
    label = _jack_label(card)
    if label:
        draw.text(
            (cx + 6, cy - 4),
            "J",
            font=font(round(width * 0.5), bold=True),
            fill=colour,
            anchor="mm",
        )
        draw.text(
            (cx, PAD + height - 15),
            label,
            font=font(round(width * 0.13), bold=True),
            fill=colour,
            anchor="mm",
        )
    else:
        draw.text((cx + 6, cy), suit, font=font(round(width * 0.55)), fill=colour, anchor="mm")
    if dead:
        veil = Image.new("RGBA", image.size, (0, 0, 0, 0))
        ImageDraw.Draw(veil).rounded_rectangle(
            (PAD, PAD, PAD + width - 1, PAD + height - 1), 10, fill=(40, 40, 40, 120)
        )
        image.alpha_composite(veil)
        ImageDraw.Draw(image).text(
            (cx, PAD + height / 2),
            "DEAD",
            font=font(round(width * 0.2), bold=True),
            fill=(255, 255, 255),
            anchor="mm",
            stroke_width=2,
            stroke_fill=(60, 20, 20),
        )
    return image


@cached
def mini_card(card: str, width: int, height: int) -> Image.Image:
    """A small card (a discard): rank over suit."""
    image = _blank(width, height, theme.CARD, 6)
    draw = ImageDraw.Draw(image)
    colour = ink(card)
    cx = PAD + width / 2
    draw.text(
        (cx, PAD + height * 0.32),
        rank_text(card),
        font=font(round(width * 0.42), bold=True),
        fill=colour,
        anchor="mm",
    )
    draw.text(
        (cx, PAD + height * 0.70),
        SUIT_SYMBOLS[card[1]],
        font=font(round(width * 0.46)),
        fill=colour,
        anchor="mm",
    )
    return image


@cached
def empty_slot(width: int, height: int) -> Image.Image:
    """Where a card would be: a faint dashed outline (no discard yet)."""
    image = Image.new("RGBA", (width + 2 * PAD, height + 2 * PAD), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    x0, y0, x1, y1 = PAD, PAD, PAD + width - 1, PAD + height - 1
    colour = (*theme.PANEL_LINE, 255)
    for x in range(x0 + 4, x1 - 4, 8):
        draw.line((x, y0, min(x + 4, x1 - 4), y0), fill=colour, width=2)
        draw.line((x, y1, min(x + 4, x1 - 4), y1), fill=colour, width=2)
    for y in range(y0 + 4, y1 - 4, 8):
        draw.line((x0, y, x0, min(y + 4, y1 - 4)), fill=colour, width=2)
        draw.line((x1, y, x1, min(y + 4, y1 - 4)), fill=colour, width=2)
    return image


@cached
def card_back(width: int, height: int) -> Image.Image:
    """The back of a card (the draw deck): wine red with a gold inner frame."""
    image = _blank(width, height, theme.CARD_BACK, 6)
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle(
        (PAD + 4, PAD + 4, PAD + width - 5, PAD + height - 5), 4, outline=theme.GOLD, width=1
    )
    cx, cy = PAD + width / 2, PAD + height / 2
    draw.text((cx, cy), "◆", font=font(round(width * 0.45)), fill=theme.GOLD, anchor="mm")
    return image
