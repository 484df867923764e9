"""Pillow rendering of game snapshots: the posted board, the private hand, replay GIFs.

The entry points are :func:`render.board.render_board`, :func:`render.board.render_hand` and
:func:`render.replay.render_replay_gif`. Team names and colours live in :mod:`render.theme`.
"""

from .theme import TEAM_COLOUR_VALUES, TEAM_COLOURS, TEAM_EMOJI, TEAM_LETTERS, TEAM_NAMES

__all__ = ["TEAM_COLOURS", "TEAM_COLOUR_VALUES", "TEAM_EMOJI", "TEAM_LETTERS", "TEAM_NAMES"]
