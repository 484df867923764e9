"""The fonts shipped in ``render/fonts`` (DejaVu Sans, see LICENSE.txt), and text helpers.

The fonts' basic layout draws characters left to right, one by one. Text in a right-to-left
script (a Hebrew or Arabic name) is put in the order it is seen first (:func:`visual`), by the
Unicode bidirectional algorithm, with Arabic letters in their joined forms; the helpers here
take text in its ordinary (logical) order and draw and measure it that way.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from importlib import resources
from io import BytesIO

import arabic_reshaper
from bidi import get_display
from PIL import Image, ImageDraw, ImageFont

from .caching import cached_lru, cached_resource

Font = ImageFont.FreeTypeFont

_FILES = {"regular": "DejaVuSans.ttf", "bold": "DejaVuSans-Bold.ttf"}


@cached_resource
def _font_bytes(weight: str) -> bytes:
    return resources.files("render").joinpath("fonts", _FILES[weight]).read_bytes()


@cached_resource
def font(size: int, *, bold: bool = False) -> Font:
    """The shipped DejaVu Sans at ``size`` pixels (basic layout: the same output everywhere)."""
    data = BytesIO(_font_bytes("bold" if bold else "regular"))
    return ImageFont.truetype(data, size, layout_engine=ImageFont.Layout.BASIC)


def _glyph_pixels(char: str) -> bytes:
    image = Image.new("L", (32, 32))
    ImageDraw.Draw(image).text((4, 4), char, font=font(20), fill=255)
    return image.tobytes()


@cached_resource
def has_glyph(char: str) -> bool:
    """True when DejaVu Sans draws ``char`` (not the empty box)."""
    if char.isspace():
        return True
    return _glyph_pixels(char) != _glyph_pixels("\U0010fffd")


#: Letters of the right-to-left scripts, and Arabic's presentation forms.
_RIGHT_TO_LEFT = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]")
#: Arabic shaping with the ligatures DejaVu Sans draws: it has no glyph for the word Allah's
#: (the letters are joined one by one instead); the lam-alef ligatures it has.
_ARABIC = arabic_reshaper.ArabicReshaper(configuration={"ARABIC LIGATURE ALLAH": False})


@cached_lru(2048)
def visual(text: str) -> str:
    """``text`` in the order its characters are drawn from left to right: right-to-left runs
    reversed (the Unicode bidirectional algorithm, the direction taken from the first letter)
    and Arabic letters joined; text without such letters is returned as it is.

    >>> visual("Ann")
    'Ann'
    >>> visual("\u05d3\u05d5\u05df 2") == "2 \u05df\u05d5\u05d3"  # Hebrew "Don 2"
    True
    """
    if not _RIGHT_TO_LEFT.search(text):
        return text
    return str(get_display(_ARABIC.reshape(text)))


def clean_text(text: str) -> str:
    """Drop characters the font cannot draw (emoji and the like) and squeeze spaces."""
    kept = "".join(c for c in text if c.isprintable() and has_glyph(c))
    return " ".join(kept.split())


@cached_lru(1024)
def fit(text: str, width: int, size: int, *, bold: bool = False) -> str:
    """``text`` cut with an ellipsis so that it is at most ``width`` pixels wide."""
    face = font(size, bold=bold)
    if face.getlength(visual(text)) <= width:
        return text
    while text and face.getlength(visual(text + "…")) > width:
        text = text[:-1]
    return text.rstrip() + "…"


@cached_lru(2048)
def _text_mask(text: str, size: int, bold: bool, anchor: str) -> tuple[Image.Image, int, int]:
    """The text's coverage as an ``L`` image, and its top-left offset from the anchor point."""
    left, top, right, bottom = map(int, font(size, bold=bold).getbbox(text, anchor=anchor))
    mask = Image.new("L", (max(right - left, 1), max(bottom - top, 1)), 0)
    ImageDraw.Draw(mask).text(
        (-left, -top), text, font=font(size, bold=bold), fill=255, anchor=anchor
    )
    return mask, left, top


def draw_text(
    image: Image.Image,
    xy: tuple[int, int],
    text: str,
    size: int,
    colour: tuple[int, int, int],
    *,
    bold: bool = False,
    anchor: str = "la",
    by_words: bool = False,
) -> None:
    """Draw ``text`` like ``ImageDraw.text`` (integer position), from a cached glyph mask; a
    right-to-left script is drawn in its visual order (:func:`visual`).

    ``by_words`` (``anchor`` on the left): one word at a time, each at its advance in the line,
    so that a line new every move (the last move's) is drawn from the masks of words seen
    before, not rasterised anew; the pixels are the same.
    """
    text = visual(text)
    if by_words:
        space, advance = _drawn_length(" ", size, bold), 0.0
        for word in text.split(" "):
            if word:
                _draw_drawn(
                    image, (xy[0] + round(advance), xy[1]), word, size, colour, bold, anchor
                )
                advance += _drawn_length(word, size, bold)
            advance += space
        return
    _draw_drawn(image, xy, text, size, colour, bold, anchor)


def _draw_drawn(
    image: Image.Image,
    xy: tuple[int, int],
    text: str,
    size: int,
    colour: tuple[int, int, int],
    bold: bool,
    anchor: str,
) -> None:
    """Draw text already in its visual order."""
    if not text:
        return
    mask, left, top = _text_mask(text, size, bold, anchor)
    image.paste(colour, (xy[0] + left, xy[1] + top), mask)


def text_width(text: str, size: int, *, bold: bool = False) -> int:
    """The advance width of ``text`` in pixels, rounded."""
    return round(_length(text, size, bold))


def _length(text: str, size: int, bold: bool) -> float:
    """The advance width of ``text`` as it is drawn (in its visual order)."""
    return _drawn_length(visual(text), size, bold)


@cached_lru(1024)
def _drawn_length(text: str, size: int, bold: bool) -> float:
    return font(size, bold=bold).getlength(text)


def fit_size(text: str, width: int, size: int, smallest: int, *, bold: bool = False) -> int | None:
    """The largest type size from ``size`` down to ``smallest`` at which ``text`` fits in
    ``width`` pixels, or None when it does not fit even at ``smallest``."""
    for candidate in range(size, smallest - 1, -1):
        if _length(text, candidate, bold) <= width:
            return candidate
    return None


def wrap(text: str, width: int, size: int, lines: int, *, bold: bool = False) -> list[str]:
    """``text`` broken into at most ``lines`` lines of at most ``width`` pixels, at spaces where
    it can (inside a word that is too long alone); only the last line is ever cut short."""
    words = text.split()
    result: list[str] = []
    while words and len(result) < lines - 1:
        line = words.pop(0)
        while _length(line, size, bold) > width:
            cut = len(line) - 1
            while cut > 1 and _length(line[:cut], size, bold) > width:
                cut -= 1
            words.insert(0, line[cut:])
            line = line[:cut]
        while words and _length(f"{line} {words[0]}", size, bold) <= width:
            line = f"{line} {words.pop(0)}"
        result.append(line)
    if words:
        result.append(fit(" ".join(words), width, size, bold=bold))
    return result


def wrap_fit(
    text: str, width: int, sizes: Sequence[int], lines: int, *, bold: bool = False
) -> tuple[int, list[str]]:
    """``text`` on at most ``lines`` lines at the first of ``sizes`` where it fits uncut, else
    at the last size, cut on its last line."""
    for size in sizes:
        wrapped = wrap(text, width, size, lines, bold=bold)
        if " ".join(wrapped).replace(" ", "") == text.replace(" ", ""):
            return size, wrapped
    return sizes[-1], wrap(text, width, sizes[-1], lines, bold=bold)
