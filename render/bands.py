"""The posted images as PNG bytes, assembled from horizontal bands.

An image is cut into the header, one band per board row (the first and last with the board's
margin) and the footer (or the hand). Each board row is drawn, mapped to the palette and
compressed only when what lies on it changed: its band is cached under a key made of exactly
what is drawn on it (chips, locked flags, the sequence lines and last-move frame that reach
it, the hand's marks). A move usually changes one or two rows, so a move re-encodes those
and the header and footer only; and once a board is posted, :func:`prepare_board_png` encodes
ahead the row the next board needs anyway (the last move's, without its frame). The pixels
are those of :mod:`render.compose` mapped to the palette, row for row (a test holds the two
paths equal).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import pairwise

from PIL import Image

from bot.game.sequences import EMPTY
from bot.game.view import PlayerView

from .base import base_image
from .caching import cached, cached_output
from .encode import to_palette
from .handrow import HandMarks, draw_hand_marks, draw_hand_row, hand_marks
from .layout import BOARD_Y, BODY_Y, CELL, HEADER_H, WIDTH, board_image_size, hand_image_size
from .overlay import Window, draw_board_state
from .palette import palette
from .panels import draw_footer, draw_footer_static, draw_header, draw_header_static
from .pngwrite import Band, compress_band, png_from_bands

#: zlib levels, chosen by measurement (bench/render.py): a board row is encoded once and then
#: reused while nothing on it changes, so it can afford a slow, small level. A row with the
#: last-move frame or a hand's marks is shown once, like the header and footer: fast level.
ROW_LEVEL = 6
PANEL_LEVEL = 2
FLEETING_ROW_LEVEL = 2
#: How far beyond its cell a last-move frame reaches (it stays inside).
_FRAME_REACH = 0

Sequences = tuple[tuple[int, Window], ...]
#: A row's hand marks, hashable: (space, number) pairs, wild spaces, removable chips.
RowMarks = tuple[tuple[tuple[int, int], ...], frozenset[int], frozenset[int]]


@cached
def _palette_bytes() -> bytes:
    return bytes(palette().getpalette() or [])


def _rgb_rows(top: int, bottom: int, height: int) -> Image.Image:
    """A copy of the static picture's rows ``top`` to ``bottom`` (an image ``height`` tall)."""
    return base_image(height).crop((0, top, WIDTH, bottom))


def _row_span(row: int) -> tuple[int, int]:
    """The image rows of a board row's band: its cells, and the margin above the first row
    and below the last (where a last-move frame can reach)."""
    top = BOARD_Y + row * CELL
    return (HEADER_H if row == 0 else top), (BODY_Y if row == 9 else top + CELL)


def _reaches(row: int, space: int) -> bool:
    """True when the last-move frame on ``space`` touches the band of ``row``."""
    top = BOARD_Y + space // 10 * CELL
    row_top, row_bottom = _row_span(row)
    return top - _FRAME_REACH < row_bottom and top + CELL + _FRAME_REACH > row_top


@cached_output(1024)
def _row_band(
    row: int,
    chips: tuple[int, ...],
    locked: tuple[bool, ...],
    sequences: Sequences,
    last_change: tuple[str, int] | None,
    marks: RowMarks | None,
) -> Band:
    """One board row, encoded: ``chips`` and ``locked`` are the row's ten spaces; the other
    arguments hold only what reaches the row."""
    top, bottom = _row_span(row)
    image = _rgb_rows(top, bottom, BODY_Y)
    before, after = (EMPTY,) * (row * 10), (EMPTY,) * (90 - row * 10)
    all_chips = before + chips + after
    all_locked = (False,) * (row * 10) + locked + (False,) * (90 - row * 10)
    draw_board_state(image, all_chips, all_locked, sequences, last_change, top)
    if marks is not None:
        numbered, wild, remove = marks
        draw_hand_marks(image, HandMarks(dict(numbered), wild, remove), top)
    lasting = marks is None and last_change is None
    return compress_band(to_palette(image), ROW_LEVEL if lasting else FLEETING_ROW_LEVEL)


def _row_marks(marks: HandMarks | None, row: int) -> RowMarks | None:
    """A row's share of the hand's marks; None when it has none (it is then a board row)."""
    if marks is None:
        return None
    numbered = tuple(sorted((s, n) for s, n in marks.numbered.items() if s // 10 == row))
    wild = frozenset(s for s in marks.wild if s // 10 == row)
    remove = frozenset(s for s in marks.remove if s // 10 == row)
    return (numbered, wild, remove) if numbered or wild or remove else None


def _row_bands(
    view: PlayerView, marks: HandMarks | None, frame: bool = True, rows: Iterable[int] = range(10)
) -> list[Band]:
    """The bands of board ``rows``, each from the cache when what lies on it was drawn before
    (``frame=False``: as they look once the last-move frame has moved on)."""
    reach: dict[int, list[tuple[int, Window]]] = {}
    for team, window in view.sequences:
        for row in {s // 10 for s in window}:
            reach.setdefault(row, []).append((team, tuple(window)))
    change = view.last_change if frame else None
    bands = []
    for row in rows:
        first = row * 10
        row_change = change if change is not None and _reaches(row, change[1]) else None
        bands.append(
            _row_band(
                row,
                view.chips[first : first + 10],
                view.locked[first : first + 10],
                tuple(reach.get(row, ())),
                row_change,
                _row_marks(marks, row),
            )
        )
    return bands


def prepare_board_png(view: PlayerView) -> None:
    """Encode ahead the rows the next board will most likely need and this one did not: the
    rows under the last-move frame, as they look once the frame moves on. Meant for the time
    between moves; the next board's bytes are the same with or without it."""
    change = view.last_change
    if change is not None:
        _row_bands(view, None, frame=False, rows=[r for r in range(10) if _reaches(r, change[1])])


@cached
def _header_base(height: int, teams: int) -> Image.Image:
    """The header's static picture for ``teams`` (copy it)."""
    image = _rgb_rows(0, HEADER_H, height)
    draw_header_static(image, teams)
    return image


@cached
def _footer_base(height: int, players: int, teams: int) -> Image.Image:
    """The footer's static picture: the seats' plates (copy it)."""
    image = _rgb_rows(BODY_Y, height, height)
    draw_footer_static(image, players, teams, BODY_Y)
    return image


def _bands(
    view: PlayerView,
    head: Image.Image,
    header: Callable[[Image.Image], None],
    foot: Image.Image,
    body: Callable[[Image.Image], None],
    marks: HandMarks | None,
) -> list[Band]:
    """The encoded bands: ``header`` and ``body`` draw on copies of ``head`` and ``foot``."""
    head = head.copy()
    header(head)
    bands = [compress_band(to_palette(head), PANEL_LEVEL), *_row_bands(view, marks)]
    foot = foot.copy()
    body(foot)
    bands.append(compress_band(to_palette(foot), PANEL_LEVEL))
    return bands


def board_png(view: PlayerView, names: Sequence[str]) -> bytes:
    """The posted board image as PNG bytes (the pixels of ``compose_board``, palette mapped)."""
    players, teams = view.settings.players, view.settings.teams
    width, height = board_image_size(players, teams)
    bands = _bands(
        view,
        _header_base(height, teams),
        lambda image: draw_header(image, view, names, static=False),
        _footer_base(height, players, teams),
        lambda image: draw_footer(image, view, names, BODY_Y, static=False),
        None,
    )
    return png_from_bands(width, _palette_bytes(), bands)


def hand_png(view: PlayerView, names: Sequence[str]) -> bytes:
    """The private hand image as PNG bytes (the pixels of ``compose_hand``, palette mapped)."""
    width, height = hand_image_size()
    bands = _bands(
        view,
        _header_base(height, view.settings.teams),
        lambda image: draw_header(image, view, names, private=True, static=False),
        _rgb_rows(BODY_Y, height, height),
        lambda image: draw_hand_row(image, view, BODY_Y),
        hand_marks(view),
    )
    return png_from_bands(width, _palette_bytes(), bands)


def board_like_png(image: Image.Image) -> bytes:
    """A ``P`` picture of a board image's size, cut into the same bands and encoded at the same
    levels as a board, with no cache (the bench's floor)."""
    edges = [0] + [_row_span(row)[0] for row in range(10)] + [BODY_Y, image.height]
    bands = [
        compress_band(
            image.crop((0, top, image.width, bottom)),
            ROW_LEVEL if HEADER_H <= top < BODY_Y else PANEL_LEVEL,
        )
        for top, bottom in pairwise(edges)
    ]
    return png_from_bands(image.width, bytes(image.getpalette() or []), bands)
