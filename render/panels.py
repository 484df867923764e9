"""The header (whose turn or the result, the score, the deck) and the footer (each seat)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from PIL import Image, ImageDraw

from bot.game.view import PlayerView

from . import theme
from .cardface import PAD, card_back, empty_slot, mini_card
from .layout import HEADER_H, WIDTH, Box, seat_box
from .overlay import paste_centred
from .sprites import chip, pip, star
from .text import last_move_text, seat_name, team_members
from .typeface import draw_text, fit, fit_size, text_width, wrap_fit


class Segment(NamedTuple):
    """A run of text: its colour, size and weight; ``keep`` runs (a count, "to play") are
    never cut, the others (names) are when even smaller type cannot fit the line."""

    text: str
    colour: theme.RGB
    size: int
    bold: bool
    keep: bool = False


#: The header's icon team (None: a star), title runs, subtitle runs and info line.
Status = tuple[int | None, list[Segment], list[Segment], str]
#: The smallest a line's type may shrink to fit, as a share of its size.
SMALLEST = 0.7

SCORE_W = 200
DECK_W = 124
TITLE_X = 96


def _width(parts: Sequence[Segment]) -> int:
    return sum(text_width(part.text, part.size, bold=part.bold) for part in parts)


def fit_segments(parts: Sequence[Segment], width: int) -> list[Segment]:
    """The runs of a line made to fit in ``width``: the same type if it fits, else smaller type
    (down to ``SMALLEST`` of it), else the names cut short; ``keep`` runs are never cut."""
    steps = round((1 - SMALLEST) * 20)
    sized = list(parts)
    for step in range(steps + 1):
        scale = 1 - step / 20
        sized = [part._replace(size=max(round(part.size * scale), 8)) for part in parts]
        if _width(sized) <= width:
            return sized
    # Each run that may be cut gets a share of the room in proportion to its width.
    room = width - _width([part for part in sized if part.keep])
    cut = [part for part in sized if not part.keep]
    total = max(_width(cut), 1)
    fitted = []
    for part in sized:
        if not part.keep:
            share = room * text_width(part.text, part.size, bold=part.bold) // total
            part = part._replace(text=fit(part.text, max(share, 0), part.size, bold=part.bold))
        fitted.append(part)
    return fitted


def _draw_runs(
    image: Image.Image, x: int, y: int, parts: Sequence[Segment], *, by_words: bool = False
) -> None:
    """Draw text runs side by side on one baseline (``by_words``: see :func:`draw_text`)."""
    for text, colour, size, bold, _ in parts:
        draw_text(image, (x, y), text, size, colour, bold=bold, anchor="ls", by_words=by_words)
        x += text_width(text, size, bold=bold)


def team_text_colour(team: int) -> theme.RGB:
    """A team colour light enough to read on the dark panel."""
    return theme.shade(theme.team_colour(team), 1.35)


def _private_status(view: PlayerView, names: Sequence[str], width: int) -> Status:
    seat = view.seat or 0
    team = view.team_of(seat)
    if view.status != "active":
        turn = [Segment(" · game over", theme.TEXT_DIM, 20, False, keep=True)]
    elif view.turn == seat:
        turn = [Segment(" · your turn!", theme.TEXT_DIM, 20, False, keep=True)]
    else:
        turn = [
            Segment(" · ", theme.TEXT_DIM, 20, False, keep=True),
            Segment(seat_name(names, view.turn), theme.TEXT_DIM, 20, False),
            Segment(" to play", theme.TEXT_DIM, 20, False, keep=True),
        ]
    title = [Segment("Your hand", theme.TEXT, 34, True, keep=True)]
    sub = [
        Segment(seat_name(names, seat), theme.TEXT_DIM, 20, False),
        Segment(" · ", theme.TEXT_DIM, 20, False, keep=True),
        Segment(theme.team_name(team), team_text_colour(team), 20, True, keep=True),
        *turn,
    ]
    return team, title, sub, "Only you see this. A number marks where that card can go."


def _public_status(view: PlayerView, names: Sequence[str], width: int) -> Status:
    info = last_move_text(view, names)
    if view.status == "active":
        team = view.team_of(view.turn)
        title = [
            Segment(seat_name(names, view.turn), theme.TEXT, 34, True),
            Segment("  to play", theme.TEXT_DIM, 26, False, keep=True),
        ]
        sub = [
            Segment(f"{theme.team_name(team)} team", team_text_colour(team), 20, True, keep=True),
            Segment(f" · move {view.move_count}", theme.TEXT_DIM, 20, False, keep=True),
        ]
        return team, title, sub, info
    if view.winner is not None:
        team = view.winner
        count = view.sequence_count(team)
        title = [Segment(f"{theme.team_name(team)} wins!", team_text_colour(team), 36, True)]
        plural = "s" if count != 1 else ""
        tail = [
            Segment(f" · {count} sequence{plural}", theme.TEXT_DIM, 20, False, keep=True),
            Segment(f" · move {view.move_count}", theme.TEXT_DIM, 20, False, keep=True),
        ]
        members = team_members(view, names, team)
        sub = [Segment(members, theme.TEXT, 20, True), *tail]
        if fit_segments(sub, width)[0].text != members:
            sub[0] = sub[0]._replace(text=team_members(view, names, team, short=True))
        return team, title, sub, info
    title = [Segment("Draw", theme.TEXT, 36, True)]
    sub = [
        Segment("Nobody can play on: the game is drawn", theme.TEXT_DIM, 20, False),
        Segment(f" · move {view.move_count}", theme.TEXT_DIM, 20, False, keep=True),
    ]
    return None, title, sub, info


def _score_rows(teams: int) -> list[int]:
    """The centre line of each team's row in the score."""
    row_h = 28
    top = (HEADER_H - 18 - teams * row_h) // 2 + 18
    return [top + team * row_h + row_h // 2 for team in range(teams)]


def _score_static(image: Image.Image, teams: int, x: int) -> None:
    """The score's labels: a chip and the name of each team."""
    rows = _score_rows(teams)
    draw_text(image, (x, rows[0] - 22), "SEQUENCES", 13, theme.TEXT_DIM, bold=True, anchor="ls")
    for team, cy in enumerate(rows):
        paste_centred(image, chip(team, 20), x + 10, cy)
        draw_text(
            image, (x + 28, cy), theme.team_name(team), 18, theme.TEXT, bold=True, anchor="lm"
        )


def _score(image: Image.Image, view: PlayerView, x: int) -> None:
    """Sequences per team against the number needed: pips."""
    needed = view.settings.sequences_to_win
    for team, cy in enumerate(_score_rows(view.settings.teams)):
        done = view.sequence_count(team)
        for i in range(max(needed, done)):
            paste_centred(image, pip(i < done), x + 108 + i * 22, cy)


_DECK_TOP = (HEADER_H - 56) // 2 - 6


def _deck_static(image: Image.Image, x: int) -> None:
    """The draw deck's card back and label."""
    back = card_back(40, 56)
    image.paste(back, (x - PAD, _DECK_TOP - PAD), back)
    draw_text(image, (x + 52, _DECK_TOP + 50), "in deck", 15, theme.TEXT_DIM, anchor="ls")


def _deck(image: Image.Image, view: PlayerView, x: int) -> None:
    """How many cards are left in the deck."""
    count = str(view.deck_count)
    draw_text(image, (x + 52, _DECK_TOP + 26), count, 28, theme.TEXT, bold=True, anchor="ls")


def _title_right() -> int:
    return WIDTH - SCORE_W - DECK_W - 16


def header_lines(
    view: PlayerView, names: Sequence[str], *, private: bool = False
) -> tuple[int | None, list[list[Segment]]]:
    """The header's icon team (None: a star) and its three lines of text as drawn: the title,
    the subtitle and the info line, each fitted to its width."""
    status = _private_status if private else _public_status
    right = _title_right()
    team, title, sub, info = status(view, names, right - TITLE_X)
    lines = [
        fit_segments(title, right - TITLE_X),
        fit_segments(sub, right - TITLE_X),
        fit_segments([Segment(info, theme.TEXT_DIM, 18, False)], right - 22),
    ]
    return team, lines


def draw_header_static(image: Image.Image, teams: int) -> None:
    """What the header shows whatever the move: the score's labels and the deck's card."""
    _score_static(image, teams, WIDTH - SCORE_W - DECK_W)
    _deck_static(image, WIDTH - DECK_W + 4)


def draw_header(
    image: Image.Image,
    view: PlayerView,
    names: Sequence[str],
    *,
    private: bool = False,
    static: bool = True,
) -> None:
    """Whose turn (or the result), the score, the deck and the last move.

    ``static=False``: ``image`` already has :func:`draw_header_static` drawn on it.
    """
    if static:
        draw_header_static(image, view.settings.teams)
    team, lines = header_lines(view, names, private=private)
    if team is None:
        paste_centred(image, star(), 52, 54)
    else:
        paste_centred(image, chip(team, 58), 52, 54)
    title, sub, info = lines
    _draw_runs(image, TITLE_X, 52, title)
    _draw_runs(image, TITLE_X, 82, sub)
    _draw_runs(image, 22, 114, info, by_words=True)  # the last move: new text every move
    _score(image, view, WIDTH - SCORE_W - DECK_W)
    _deck(image, view, WIDTH - DECK_W + 4)


def seat_name_lines(name: str, width: int) -> tuple[int, list[str]]:
    """A seat's name in the footer: its type size and lines. One line from 20 down to 16
    pixels, else two lines from 15 down to 13 pixels, cut short only when even that is full."""
    size = fit_size(name, width, 20, 16, bold=True)
    if size is not None:
        return size, [name]
    return wrap_fit(name, width, (15, 14, 13), 2, bold=True)


def _plate(image: Image.Image, box: Box, team: int, active: bool) -> None:
    """A seat's plate with its team's colour bar; the seat to move is framed."""
    draw = ImageDraw.Draw(image)
    left, top, right, bottom = box
    draw.rounded_rectangle(
        (left + 4, top + 5, right - 5, bottom - 5),
        9,
        fill=theme.shade(theme.PANEL, 1.06),
        outline=theme.HIGHLIGHT if active else theme.PANEL_LINE,
        width=2 if active else 1,
    )
    draw.rounded_rectangle(
        (left + 4, top + 5, left + 10, bottom - 5), 3, fill=theme.team_colour(team)
    )


def _seat(image: Image.Image, view: PlayerView, names: Sequence[str], seat: int, box: Box) -> None:
    """One seat on its plate: its last discard, its name, team and hand size."""
    left, top, right, bottom = box
    team = view.team_of(seat)
    out = view.out[seat]
    active = view.status == "active" and view.turn == seat and not out
    if active:
        _plate(image, box, team, True)
    pile = view.discards[seat]
    card_w, card_h = 40, 56
    cx, cy = left + 18, top + (bottom - top - card_h) // 2
    face = mini_card(pile[-1], card_w, card_h) if pile else empty_slot(card_w, card_h)
    image.paste(face, (cx - PAD, cy - PAD), face)
    x = cx + card_w + 12
    width = right - 12 - x
    colour = theme.TEXT_DIM if out else theme.TEXT
    size, lines = seat_name_lines(seat_name(names, seat), width)
    if len(lines) == 1:
        draw_text(image, (x, top + 33), lines[0], size, colour, bold=True, anchor="ls")
        detail_y = top + 56
    else:
        for i, line in enumerate(lines):
            draw_text(image, (x, top + 25 + 17 * i), line, size, colour, bold=True, anchor="ls")
        detail_y = top + 61
    room = width - text_width(theme.team_name(team), 15, bold=True)
    if out:
        detail = " · left the game"
    else:
        count = view.hand_sizes[seat]
        detail = f" · {count} card{'s' if count != 1 else ''}"
        if active and text_width(detail + " · to play", 15) <= room:
            detail += " · to play"
    team_run = Segment(theme.team_name(team), team_text_colour(team), 15, True, keep=True)
    detail_run = Segment(detail, theme.TEXT_DIM, 15, False, keep=True)
    _draw_runs(image, x, detail_y, fit_segments([team_run, detail_run], width))


def _seat_boxes(players: int, teams: int, dy: int) -> list[Box]:
    boxes = [seat_box(seat, players, teams) for seat in range(players)]
    return [Box(left, top - dy, right, bottom - dy) for left, top, right, bottom in boxes]


def draw_footer_static(image: Image.Image, players: int, teams: int, dy: int = 0) -> None:
    """Every seat's plate, none framed (``image`` starts ``dy`` rows down)."""
    for seat, box in enumerate(_seat_boxes(players, teams, dy)):
        _plate(image, box, seat % teams, False)


def draw_footer(
    image: Image.Image, view: PlayerView, names: Sequence[str], dy: int = 0, static: bool = True
) -> None:
    """Every seat, in play order, with its last discard (``image`` starts ``dy`` rows down).

    ``static=False``: ``image`` already has :func:`draw_footer_static` drawn on it.
    """
    players, teams = view.settings.players, view.settings.teams
    if static:
        draw_footer_static(image, players, teams, dy)
    for seat, box in enumerate(_seat_boxes(players, teams, dy)):
        _seat(image, view, names, seat, box)
