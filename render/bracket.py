"""A single-elimination bracket as a PNG: one column per round, a box per match, lines from
each match to the one its winner plays next, and the champion at the end."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from . import theme
from .encode import png_bytes
from .typeface import clean_text, draw_text, fit, text_width

BOX_W = 230
ROW_H = 28
BOX_H = 2 * ROW_H
GAP_Y = 18
GAP_X = 46
MARGIN = 24
TITLE_H = 56
LABEL_H = 24
NAME_SIZE = 15
NOTE_SIZE = 11


@dataclass(frozen=True)
class BracketMatch:
    """One place of the bracket. ``top``/``bottom`` are names (None: empty or to be decided);
    ``winner`` is 0 (top), 1 (bottom) or None; ``note`` a short tag (``"bye"``, ``"forfeit"``)."""

    top: str | None = None
    bottom: str | None = None
    winner: int | None = None
    note: str = ""


def _centres(rounds: int, first: int) -> list[list[float]]:
    """The vertical centre of every box, round by round (each between its two feeders)."""
    top = TITLE_H + LABEL_H
    columns = [[top + index * (BOX_H + GAP_Y) + BOX_H / 2 for index in range(first)]]
    for _ in range(1, rounds):
        previous = columns[-1]
        columns.append(
            [(previous[2 * i] + previous[2 * i + 1]) / 2 for i in range(len(previous) // 2)]
        )
    return columns


def _name_width(note: str) -> int:
    """The room for a name in a match's row, clear of the row's ``note`` (if any)."""
    room = BOX_W - 70
    return min(room, BOX_W - 26 - text_width(note, NOTE_SIZE)) if note else room


def _name(text: str | None, width: int, bold: bool) -> str:
    if text is None:
        return "—"
    return fit(clean_text(text) or "?", width, NAME_SIZE, bold=bold)


def render_bracket(
    title: str,
    rounds: Sequence[Sequence[BracketMatch]],
    champion: str | None = None,
    round_names: Sequence[str] | None = None,
) -> bytes:
    """The bracket as PNG bytes. ``rounds[0]`` has one match per two first-round places, and
    each later round half as many."""
    if not rounds or not rounds[0]:
        raise ValueError("A bracket needs at least one match.")
    centres = _centres(len(rounds), len(rounds[0]))
    columns = len(rounds) + 1
    width = 2 * MARGIN + columns * BOX_W + (columns - 1) * GAP_X
    height = TITLE_H + LABEL_H + len(rounds[0]) * (BOX_H + GAP_Y) + MARGIN
    image = Image.new("RGB", (width, height), theme.PANEL)
    draw = ImageDraw.Draw(image)
    draw_text(
        image,
        (MARGIN, 18),
        fit(clean_text(title) or "Bracket", width - 2 * MARGIN, 22, bold=True),
        22,
        theme.GOLD_LIGHT,
        bold=True,
    )
    names = list(round_names or [f"Round {n}" for n in range(1, len(rounds) + 1)])
    for column, matches in enumerate(rounds):
        x = MARGIN + column * (BOX_W + GAP_X)
        draw_text(image, (x, TITLE_H), names[column], 14, theme.TEXT_DIM, bold=True)
        for index, match in enumerate(matches):
            cy = centres[column][index]
            y = round(cy - BOX_H / 2)
            draw.rectangle((x, y, x + BOX_W, y + BOX_H), fill=theme.FELT, outline=theme.PANEL_LINE)
            draw.line((x, y + ROW_H, x + BOX_W, y + ROW_H), fill=theme.PANEL_LINE)
            for row, name in enumerate((match.top, match.bottom)):
                won = match.winner == row
                lost = match.winner is not None and not won
                colour = theme.GOLD_LIGHT if won else theme.TEXT_DIM if lost else theme.TEXT
                text = _name(name, _name_width(match.note if row == 0 else ""), won)
                draw_text(
                    image,
                    (x + 10, y + row * ROW_H + ROW_H // 2),
                    text,
                    NAME_SIZE,
                    colour,
                    bold=won,
                    anchor="lm",
                )
            if match.note:
                note = (x + BOX_W - 8, y + ROW_H // 2)
                draw_text(image, note, match.note, NOTE_SIZE, theme.TEXT_DIM, anchor="rm")
            if column + 1 < len(rounds):
                nx = x + BOX_W + GAP_X
                ny = centres[column + 1][index // 2]
                mid = x + BOX_W + GAP_X // 2
                draw.line((x + BOX_W, cy, mid, cy), fill=theme.PANEL_LINE, width=2)
                draw.line((mid, cy, mid, ny), fill=theme.PANEL_LINE, width=2)
                draw.line((mid, ny, nx, ny), fill=theme.PANEL_LINE, width=2)
    x = MARGIN + len(rounds) * (BOX_W + GAP_X)
    cy = centres[-1][0]
    last = MARGIN + (len(rounds) - 1) * (BOX_W + GAP_X) + BOX_W
    draw.line((last, cy, x, cy), fill=theme.PANEL_LINE, width=2)
    draw_text(image, (x, round(cy) - 30), "Champion", 14, theme.TEXT_DIM, bold=True)
    box = (x, round(cy - ROW_H / 2), x + BOX_W, round(cy + ROW_H / 2))
    draw.rectangle(box, fill=theme.FELT, outline=theme.GOLD)
    winner = _name(champion, BOX_W - 20, True) if champion else "—"
    draw_text(
        image, (x + 10, round(cy)), winner, NAME_SIZE, theme.GOLD_LIGHT, bold=True, anchor="lm"
    )
    return png_bytes(image)
