"""The header (whose turn or the result, the score, the deck) and the footer (each seat)."""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image, ImageDraw

from bot.game.view import PlayerView

from . import theme
from .cardface import PAD, card_back, empty_slot, mini_card
from .layout import HEADER_H, WIDTH, Box, seat_box
from .overlay import paste_centred
from .sprites import chip, pip, star
from .text import last_move_text, seat_name, team_members
from .typeface import draw_text, fit, text_width

#: A run of text: the text, its colour, its size, bold or not.
Segment = tuple[str, theme.RGB, int, bool]
#: The header's icon team (None: a star), title runs, subtitle runs and info line.
Status = tuple[int | None, list[Segment], list[Segment], str]

SCORE_W = 200
DECK_W = 124
TITLE_X = 96


def _segments(image: Image.Image, x: int, y: int, parts: Sequence[Segment], width: int) -> None:
    """Draw text runs side by side on one baseline, each cut to fit in ``width``."""
    right = x + width
    for text, colour, size, bold in parts:
        text = fit(text, right - x, size, bold=bold)
        draw_text(image, (x, y), text, size, colour, bold=bold, anchor="ls")
        x += text_width(text, size, bold=bold)


def team_text_colour(team: int) -> theme.RGB:
    """A team colour light enough to read on the dark panel."""
    return theme.shade(theme.team_colour(team), 1.35)


def _private_status(view: PlayerView, names: Sequence[str]) -> Status:
    seat = view.seat or 0
    team = view.team_of(seat)
    if view.status != "active":
        turn = "game over"
    elif view.turn == seat:
        turn = "your turn!"
    else:
        turn = f"{seat_name(names, view.turn)} to play"
    title = [("Your hand", theme.TEXT, 34, True)]
    sub = [
        (f"{seat_name(names, seat)} · ", theme.TEXT_DIM, 20, False),
        (theme.team_name(team), team_text_colour(team), 20, True),
        (f" · {turn}", theme.TEXT_DIM, 20, False),
    ]
    return team, title, sub, "Only you see this. A number marks where that card can go."


def _public_status(view: PlayerView, names: Sequence[str]) -> Status:
    info = last_move_text(view, names)
    if view.status == "active":
        team = view.team_of(view.turn)
        title = [
            (seat_name(names, view.turn), theme.TEXT, 34, True),
            ("  to play", theme.TEXT_DIM, 26, False),
        ]
        sub = [
            (f"{theme.team_name(team)} team", team_text_colour(team), 20, True),
            (f" · turn {view.turn_number + 1}", theme.TEXT_DIM, 20, False),
        ]
        return team, title, sub, info
    if view.winner is not None:
        team = view.winner
        count = view.sequence_count(team)
        title = [(f"{theme.team_name(team)} wins!", team_text_colour(team), 36, True)]
        sub = [
            (team_members(view, names, team), theme.TEXT, 20, True),
            (f" · {count} sequence{'s' if count != 1 else ''}", theme.TEXT_DIM, 20, False),
        ]
        return team, title, sub, info
    title = [("Draw", theme.TEXT, 36, True)]
    sub = [("Nobody can play on: the game is drawn.", theme.TEXT_DIM, 20, False)]
    return None, title, sub, info


def _score(image: Image.Image, view: PlayerView, x: int) -> None:
    """Sequences per team against the number needed: a chip, the name and pips."""
    teams, needed = view.settings.teams, view.settings.sequences_to_win
    row_h = 28
    top = (HEADER_H - 18 - teams * row_h) // 2 + 18
    draw_text(image, (x, top - 8), "SEQUENCES", 13, theme.TEXT_DIM, bold=True, anchor="ls")
    for team in range(teams):
        cy = top + team * row_h + row_h // 2
        paste_centred(image, chip(team, 20), x + 10, cy)
        draw_text(
            image, (x + 28, cy), theme.team_name(team), 18, theme.TEXT, bold=True, anchor="lm"
        )
        done = view.sequence_count(team)
        for i in range(max(needed, done)):
            paste_centred(image, pip(i < done), x + 108 + i * 22, cy)


def _deck(image: Image.Image, view: PlayerView, x: int) -> None:
    """The draw deck: a card back and how many cards are left."""
    back = card_back(40, 56)
    top = (HEADER_H - 56) // 2 - 6
    image.paste(back, (x - PAD, top - PAD), back)
    draw_text(
        image, (x + 52, top + 26), str(view.deck_count), 28, theme.TEXT, bold=True, anchor="ls"
    )
    draw_text(image, (x + 52, top + 50), "in deck", 15, theme.TEXT_DIM, anchor="ls")


def draw_header(
    image: Image.Image, view: PlayerView, names: Sequence[str], *, private: bool = False
) -> None:
    """Whose turn (or the result), the score, the deck and the last move."""
    status = _private_status if private else _public_status
    team, title, sub, info = status(view, names)
    if team is None:
        paste_centred(image, star(), 52, 54)
    else:
        paste_centred(image, chip(team, 58), 52, 54)
    right = WIDTH - SCORE_W - DECK_W - 16
    _segments(image, TITLE_X, 52, title, right - TITLE_X)
    _segments(image, TITLE_X, 82, sub, right - TITLE_X)
    _segments(image, 22, 114, [(info, theme.TEXT_DIM, 18, False)], right - 22)
    _score(image, view, WIDTH - SCORE_W - DECK_W)
    _deck(image, view, WIDTH - DECK_W + 4)


def _seat(image: Image.Image, view: PlayerView, names: Sequence[str], seat: int, box: Box) -> None:
    """One seat: its last discard, its name, team and hand size; the seat to move is framed."""
    draw = ImageDraw.Draw(image)
    left, top, right, bottom = box
    team = view.team_of(seat)
    out = view.out[seat]
    active = view.status == "active" and view.turn == seat and not out
    outline = theme.HIGHLIGHT if active else theme.PANEL_LINE
    draw.rounded_rectangle(
        (left + 4, top + 5, right - 5, bottom - 5),
        9,
        fill=theme.shade(theme.PANEL, 1.06),
        outline=outline,
        width=2 if active else 1,
    )
    draw.rounded_rectangle(
        (left + 4, top + 5, left + 10, bottom - 5), 3, fill=theme.team_colour(team)
    )
    pile = view.discards[seat]
    card_w, card_h = 40, 56
    cx, cy = left + 18, top + (bottom - top - card_h) // 2
    face = mini_card(pile[-1], card_w, card_h) if pile else empty_slot(card_w, card_h)
    image.paste(face, (cx - PAD, cy - PAD), face)
    x = cx + card_w + 12
    name = fit(seat_name(names, seat), right - 12 - x, 20, bold=True)
    draw_text(
        image,
        (x, top + 33),
        name,
        20,
        theme.TEXT_DIM if out else theme.TEXT,
        bold=True,
        anchor="ls",
    )
    room = right - 12 - x - text_width(theme.team_name(team), 15, bold=True)
    if out:
        detail = " · left the game"
    else:
        count = view.hand_sizes[seat]
        detail = f" · {count} card{'s' if count != 1 else ''}"
        if active and text_width(detail + " · to play", 15) <= room:
            detail += " · to play"
    team_run = (theme.team_name(team), team_text_colour(team), 15, True)
    _segments(image, x, top + 56, [team_run, (detail, theme.TEXT_DIM, 15, False)], right - 12 - x)


def draw_footer(image: Image.Image, view: PlayerView, names: Sequence[str], dy: int = 0) -> None:
    """Every seat, in play order, with its last discard (``image`` starts ``dy`` rows down)."""
    players, teams = view.settings.players, view.settings.teams
    for seat in range(players):
        left, top, right, bottom = seat_box(seat, players, teams)
        _seat(image, view, names, seat, Box(left, top - dy, right, bottom - dy))
