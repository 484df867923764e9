"""The fixed palette every posted image is mapped to (fast to encode, small PNG).

It is computed once, deterministically, from reference pictures that use every colour the
renderer draws: three teams' chips (locked and not), lines, marks, header, footer and a hand.
"""

from __future__ import annotations

from dataclasses import replace

from PIL import Image

from bot.game.game import Game
from bot.game.sequences import EMPTY
from bot.game.settings import GameSettings
from bot.game.view import PlayerView, player_view

from . import theme
from .caching import cached_resource
from .compose import compose_board, compose_hand

_NAMES = ("Ada", "Grace", "Linus")
#: One sequence per team, in three directions.
_SEQUENCES = ((0, (11, 12, 13, 14, 15)), (1, (27, 37, 47, 57, 67)), (2, (50, 61, 72, 83, 94)))


def reference_view() -> PlayerView:
    """A three-team view with chips of every team, a locked sequence each and a varied hand."""
    view = player_view(Game.new(GameSettings.create(3), 1), 0)
    chips = list(view.chips)
    locked = [False] * 100
    for space in range(100):
        if chips[space] == EMPTY and space % 3 != 1:
            chips[space] = (space * 7) % 3
    for team, window in _SEQUENCES:
        for space in window:
            chips[space] = team
            locked[space] = True
    chips[33] = chips[44] = EMPTY
    return replace(
        view,
        chips=tuple(chips),
        locked=tuple(locked),
        sequences=_SEQUENCES,
        hand=("JD", "JH", "7S", "QH", "KD", "2C"),
        discards=(("5H",), ("TS",), ()),
        last_change=("placed", 88),
    )


def _swatch() -> Image.Image:
    view = reference_view()
    board = compose_board(view, _NAMES)
    removed = replace(view, last_change=("removed", 33), status="won", winner=1)
    hand = compose_hand(removed, _NAMES)
    swatch = Image.new("RGB", (board.width, board.height + hand.height))
    swatch.paste(board, (0, 0))
    swatch.paste(hand, (0, board.height))
    return swatch


#: Colours in the palette: fewer colours, fewer distinct edge pixels, a smaller PNG; 127 keep
#: text and edges smooth (one index of 128 stays free for the GIF writer's "unchanged" pixels).
COLOURS = 127


def key_colours() -> list[theme.RGB]:
    """The flat colours the renderer fills with, kept exact in the palette."""
    colours = [value for value in vars(theme).values() if _is_rgb(value)]
    for team in range(len(theme.TEAM_COLOURS)):
        colour = theme.team_colour(team)
        for factor in (0.5, 0.8, 1.35, 1.75):
            colours.append(theme.shade(colour, factor))
    for factor in (0.5, 0.6, 0.7, 0.75):
        colours.append(theme.shade(theme.GOLD, factor))
    colours += [theme.shade(theme.PANEL, 1.06), theme.FREE_LABEL, (255, 255, 255)]
    return list(dict.fromkeys(colours))


def _is_rgb(value: object) -> bool:
    return (
        isinstance(value, tuple)
        and len(value) == 3
        and all(isinstance(c, int) and 0 <= c <= 255 for c in value)
    )


@cached_resource
def palette() -> Image.Image:
    """A ``P`` image whose palette the renderer quantizes to: the key colours exactly, and the
    most used blends of them (edges, text) from reference pictures, ``COLOURS`` in all."""
    keys = key_colours()
    blends = _swatch().quantize(
        COLOURS - len(keys), method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE
    )
    colours = [c for rgb in keys for c in rgb]
    colours += (blends.getpalette() or [])[: 3 * (COLOURS - len(keys))]
    image = Image.new("P", (1, 1))
    image.putpalette(colours)
    return image
