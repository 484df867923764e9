"""Words on the image: player names made drawable, and the last move in a sentence."""

from __future__ import annotations

from collections.abc import Sequence

from bot.game.board import space_name
from bot.game.cards import card_label, is_one_eyed
from bot.game.view import PlayerView

from .theme import TEAM_NAMES
from .typeface import clean_text


def seat_name(names: Sequence[str], seat: int) -> str:
    """A seat's display name, drawable by the shipped font (``Seat N`` when missing)."""
    name = clean_text(names[seat]) if seat < len(names) else ""
    return name or f"Seat {seat + 1}"


def last_move_text(view: PlayerView, names: Sequence[str]) -> str:
    """``"Last move: Bob played 7♥ on C4."``, or an empty string before the first play."""
    move = view.last_move
    if move is None or move.card is None or move.space is None:
        return ""
    who = seat_name(names, move.seat)
    where = space_name(move.space)
    if is_one_eyed(move.card):
        return f"Last move: {who} removed the chip on {where} with {card_label(move.card)}."
    return f"Last move: {who} played {card_label(move.card)} on {where}."


def team_members(view: PlayerView, names: Sequence[str], team: int, *, short: bool = False) -> str:
    """``"Alice & Carol"``: the names of a team's seats (``short``: each name's first word)."""
    seats = view.settings.seats_of(team)
    return " & ".join(
        _first_word(seat_name(names, seat)) if short else seat_name(names, seat) for seat in seats
    )


def _first_word(name: str) -> str:
    return name.split()[0] if name.split() else name


def team_label(team: int) -> str:
    """``"Blue"``."""
    return TEAM_NAMES[team]
