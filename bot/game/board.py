"""The board: the official 10x10 layout, space names (A1..J10) and the lines through each space.

A space is an ``int`` from 0 to 99: ``row * 10 + column``, row 0 at the top, column 0 at the left.
Players name it by column letter then row number, so space 0 is ``A1`` and space 99 is ``J10``.
"""

from __future__ import annotations

import re

from .echo import echo

_LAYOUT_TEXT = """
XX 2S 3S 4S 5S 6S 7S 8S 9S XX
6C 5C 4C 3C 2C AH KH QH TH TS
7C AS 2D 3D 4D 5D 6D 7D 9H QS
8C KS 6C 5C 4C 3C 2C 8D 8H KS
9C QS 7C 6H 5H 4H AH 9D 7H AS
TC TS 8C 7H 2H 3H KH TD 6H 2D
QC 9S 9C 8H 9H TH QH QD 5H 3D
KC 8S TC QC KC AC AD KD 4H 4D
AC 7S 6S 5S 4S 3S 2S 2H 3H 5D
XX AD KD QD TD 9D 8D 7D 6D XX
"""

SIZE = 10
FREE = "XX"

#: The official layout: 10 rows of 10 card codes, ``"XX"`` for a free corner, row 0 at the top.
LAYOUT: tuple[tuple[str, ...], ...] = tuple(
    tuple(line.split()) for line in _LAYOUT_TEXT.strip().splitlines()
)

#: The card code on each of the 100 spaces, by space number.
SPACE_CARDS: tuple[str, ...] = tuple(code for row in LAYOUT for code in row)

#: The four free corners, which count for every team and never hold a chip.
CORNERS: frozenset[int] = frozenset({0, 9, 90, 99})

#: For each non-jack card, its two spaces (in reading order).
CARD_SPACES: dict[str, tuple[int, int]] = {}
for _space, _code in enumerate(SPACE_CARDS):
    if _code != FREE:
        CARD_SPACES[_code] = (*CARD_SPACES.get(_code, ()), _space)

COLUMNS = "ABCDEFGHIJ"

#: The four line directions: row, column, diagonal down-right, diagonal down-left.
DIRECTIONS: tuple[tuple[int, int], ...] = ((0, 1), (1, 0), (1, 1), (1, -1))


#: Longer input is not a space (it is cut to this length before parsing).
MAX_SPACE_TEXT = 8


class SpaceError(ValueError):
    """A text that does not name a space."""


_SPACE_RE = re.compile(r"^\s*([A-Ja-j])\s*(10|[1-9])\s*$")


def parse_space(text: str) -> int:
    """Parse a space name (``"A1"``..``"J10"``, any case) into a space number.

    >>> parse_space("a1"), parse_space("J10"), parse_space("c4")
    (0, 99, 32)
    """
    match = _SPACE_RE.match(text[:MAX_SPACE_TEXT])
    if not match or len(text) > MAX_SPACE_TEXT:
        raise SpaceError(
            f"{echo(text)} is not a space: write a column A-J then a row 1-10, like C4 or J10."
        )
    column = COLUMNS.index(match.group(1).upper())
    row = int(match.group(2)) - 1
    return row * SIZE + column


def space_name(space: int) -> str:
    """The name of a space number: ``space_name(32) == "C4"``."""
    row, column = divmod(space, SIZE)
    return f"{COLUMNS[column]}{row + 1}"


def _line_through(space: int, direction: tuple[int, int]) -> tuple[tuple[int, ...], int]:
    """The whole board line through ``space`` in ``direction`` and the space's index in it."""
    d_row, d_col = direction
    row, col = divmod(space, SIZE)
    while 0 <= row - d_row < SIZE and 0 <= col - d_col < SIZE:
        row, col = row - d_row, col - d_col
    line = []
    while 0 <= row < SIZE and 0 <= col < SIZE:
        line.append(row * SIZE + col)
        row, col = row + d_row, col + d_col
    return tuple(line), line.index(space)


#: For each space, for each direction: (the line through it, the space's index in that line).
LINES_THROUGH: tuple[tuple[tuple[tuple[int, ...], int], ...], ...] = tuple(
    tuple(_line_through(space, direction) for direction in DIRECTIONS) for space in range(100)
)
