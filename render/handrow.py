"""The private hand: where each card can go, the marks on the board, the row of cards."""

from __future__ import annotations

from typing import NamedTuple

from PIL import Image

from bot.game.board import CARD_SPACES, space_name
from bot.game.cards import is_one_eyed, is_two_eyed
from bot.game.sequences import EMPTY
from bot.game.view import PlayerView

from . import sprites, theme
from .cardface import PAD, hand_card
from .layout import CHIP_D, cell_box, centre, hand_card_boxes
from .overlay import paste_centred
from .typeface import draw_text, fit


def card_targets(view: PlayerView, card: str, team: int) -> list[int]:
    """The spaces ``card`` can be played on now by a seat of ``team``."""
    chips = view.chips
    if is_two_eyed(card):
        return [s for s in range(100) if chips[s] == EMPTY]
    if is_one_eyed(card):
        return [s for s in range(100) if chips[s] >= 0 and chips[s] != team and not view.locked[s]]
    return [s for s in CARD_SPACES[card] if chips[s] == EMPTY]


class HandMarks(NamedTuple):
    """What the hand image marks: spaces by hand-card number, wild spaces, removable chips."""

    numbered: dict[int, int]
    wild: frozenset[int]
    remove: frozenset[int]


def hand_marks(view: PlayerView) -> HandMarks:
    """The playable spaces of ``view.hand``; normal cards numbered 1.. in hand order."""
    if view.hand is None or view.seat is None:
        raise ValueError("This view has no hand: make it with player_view(game, seat).")
    team = view.team_of(view.seat)
    numbered: dict[int, int] = {}
    wild: set[int] = set()
    remove: set[int] = set()
    for number, card in enumerate(view.hand, start=1):
        targets = card_targets(view, card, team)
        if is_two_eyed(card):
            wild.update(targets)
        elif is_one_eyed(card):
            remove.update(targets)
        else:
            for space in targets:
                numbered.setdefault(space, number)
    return HandMarks(numbered, frozenset(wild - set(numbered)), frozenset(remove))


def draw_hand_marks(image: Image.Image, marks: HandMarks, dy: int = 0) -> None:
    """Frame and number the spaces of normal cards, dot the wild ones, target removable chips.

    ``image`` starts ``dy`` rows below the top of the posted image.
    """
    for space in sorted(marks.wild):
        x, y, _, _ = cell_box(space)
        image.paste(sprites.wild_mark(), (x, y - dy), sprites.wild_mark())
    for space, number in sorted(marks.numbered.items()):
        frame = sprites.target_frame(number)
        x, y, _, _ = cell_box(space)
        image.paste(frame, (x, y - dy), frame)
    for space in sorted(marks.remove):
        x, y = centre(space)
        paste_centred(image, sprites.remove_mark(CHIP_D), x, y, dy)


def _label(view: PlayerView, card: str, team: int) -> tuple[str, bool]:
    """What a hand card can do, in words, and whether it can be played at all."""
    targets = card_targets(view, card, team)
    if is_two_eyed(card):
        return ("any space", True) if targets else ("no space", False)
    if is_one_eyed(card):
        return ("remove chip", True) if targets else ("no chip", False)
    if not targets:
        return "dead card", False
    return " · ".join(space_name(s) for s in targets), True


def draw_hand_row(image: Image.Image, view: PlayerView, dy: int = 0) -> None:
    """The hand as a row of cards, each numbered, with where it goes written below it.

    ``image`` starts ``dy`` rows below the top of the posted image.
    """
    assert view.hand is not None and view.seat is not None
    team = view.team_of(view.seat)
    boxes = hand_card_boxes(len(view.hand))
    for number, (card, box) in enumerate(zip(view.hand, boxes, strict=True), start=1):
        left, top, right, bottom = box
        top, bottom = top - dy, bottom - dy
        width, height = right - left, bottom - top
        label, playable = _label(view, card, team)
        dead = not playable and not (is_two_eyed(card) or is_one_eyed(card))
        face = hand_card(card, width, height, dead)
        image.paste(face, (left - PAD, top - PAD), face)
        paste_centred(image, sprites.number_badge(number, playable), right - 4, top + 4)
        colour = theme.TEXT if playable else theme.TEXT_DIM
        text = fit(label, width + 12, 17, bold=True)
        draw_text(
            image, ((left + right) // 2, bottom + 24), text, 17, colour, bold=True, anchor="ms"
        )
