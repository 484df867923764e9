"""Colours and team identity in one place: the renderer and the Discord cogs both import these."""

from __future__ import annotations

from bot.game.settings import TEAM_NAMES as _ENGINE_TEAM_NAMES

RGB = tuple[int, int, int]

#: Team names by team number (team = seat % teams): the engine's, in one place.
TEAM_NAMES = _ENGINE_TEAM_NAMES
#: The second cue on every chip, so the board reads without colour.
TEAM_LETTERS: tuple[str, ...] = ("B", "G", "R")
#: Chip colours by team number.
TEAM_COLOURS: tuple[RGB, ...] = ((47, 111, 224), (31, 158, 84), (214, 52, 52))
#: The same colours as ``0xRRGGBB`` ints, for ``discord.Embed(colour=...)``.
TEAM_COLOUR_VALUES: tuple[int, ...] = tuple((r << 16) | (g << 8) | b for r, g, b in TEAM_COLOURS)
#: Emoji for plain-text messages.
TEAM_EMOJI: tuple[str, ...] = ("🔵", "🟢", "🔴")

FELT: RGB = (16, 66, 48)
PANEL: RGB = (9, 34, 26)
PANEL_LINE: RGB = (34, 86, 66)
GOLD: RGB = (226, 180, 84)
GOLD_LIGHT: RGB = (247, 214, 128)
CARD: RGB = (248, 242, 226)
CARD_EDGE: RGB = (205, 192, 160)
INK_BLACK: RGB = (28, 30, 36)
INK_RED: RGB = (196, 28, 44)
TEXT: RGB = (244, 238, 222)
TEXT_DIM: RGB = (160, 184, 170)
HIGHLIGHT: RGB = (255, 206, 40)
TARGET: RGB = (255, 170, 30)
REMOVE_MARK: RGB = (255, 84, 84)
CARD_BACK: RGB = (126, 34, 48)
FREE_LABEL: RGB = (150, 120, 60)


def team_name(team: int) -> str:
    """``"Blue"``, ``"Green"`` or ``"Red"``."""
    return TEAM_NAMES[team]


def team_colour(team: int) -> RGB:
    """The RGB chip colour of a team."""
    return TEAM_COLOURS[team]


def shade(colour: RGB, factor: float) -> RGB:
    """Darken (factor < 1) or lighten towards white (factor > 1) a colour."""
    if factor <= 1:
        return tuple(round(c * factor) for c in colour)  # type: ignore[return-value]
    mix = factor - 1
    return tuple(round(c + (255 - c) * mix) for c in colour)  # type: ignore[return-value]
