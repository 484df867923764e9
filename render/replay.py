"""An animated GIF of a whole game from its move log: one frame per play, the end held longer.

Frames show the board at half size with a caption; all share the renderer's palette, and the
GIF writer stores only what changed from one frame to the next, so a long game stays small.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from PIL import Image

from bot.game.game import Game
from bot.game.moves import PLAY, Move
from bot.game.outcome import Termination
from bot.game.settings import GameSettings
from bot.game.view import PlayerView, public_view

from . import theme
from .base import board_area_image
from .encode import to_palette
from .layout import HEADER_H
from .overlay import draw_board_state, paste_centred
from .sprites import chip, star
from .text import last_move_text, team_members
from .typeface import draw_text, fit, fit_size

#: Each frame is the board at 1/SHRINK of its posted size.
SHRINK = 2
CAPTION_H = 44
FRAME_MS = 350
FINAL_MS = 4000
#: How a drawn game ended, for the last frame's caption (by the engine's termination).
DRAWS: dict[str, str] = {
    Termination.AGREEMENT: "every team agreed",
    Termination.ENDLESS_PLAY: "endless play",
    Termination.STALEMATE: "nobody can play on",
}


def _caption(
    view: PlayerView, names: Sequence[str], number: int, total: int
) -> tuple[int | None, str]:
    """The caption's icon team (None: a star), and its text."""
    if view.status != "active" and number == total:
        if view.winner is None:
            return None, f"Draw: {DRAWS.get(view.termination or '', 'nobody can play on')}."
        name = theme.team_name(view.winner)
        return view.winner, f"{name} wins! {team_members(view, names, view.winner)}"
    move = view.last_move
    if move is None:
        return None, "No play yet."
    team = view.team_of(move.seat)
    text = last_move_text(view, names).removeprefix("Last move: ").rstrip(".")
    return team, f"{number}/{total} · {text}"


def frame(view: PlayerView, names: Sequence[str], number: int, total: int) -> Image.Image:
    """One replay frame (RGB): the board after a play, halved, with a caption below it."""
    board = board_area_image().copy()
    draw_board_state(board, view.chips, view.locked, view.sequences, view.last_change, HEADER_H)
    board = board.reduce(SHRINK)
    image = Image.new("RGB", (board.width, board.height + CAPTION_H), theme.PANEL)
    image.paste(board, (0, 0))
    team, text = _caption(view, names, number, total)
    cy = board.height + CAPTION_H // 2
    icon = star() if team is None else chip(team, 26)
    paste_centred(image, icon.resize((30, 30)) if team is None else icon, 24, cy)
    room = image.width - 56
    size = fit_size(text, room, 17, 13, bold=True)
    if size is None:
        size, text = 13, fit(text, room, 13, bold=True)
    draw_text(image, (46, cy), text, size, theme.TEXT, bold=True, anchor="lm")
    return image


def _as_move(move: Move | Mapping[str, Any]) -> Move:
    return move if isinstance(move, Move) else Move.from_dict(dict(move))


def render_replay_gif(
    settings: GameSettings,
    seed: int,
    moves: Iterable[Move | Mapping[str, Any]],
    names: Sequence[str],
) -> bytes:
    """The game replayed from its seed and moves as an animated GIF (bytes).

    One frame per play (a chip placed or removed), and one more for the result when no play
    ended the game (a resignation, an agreed draw); the last frame is held for a few seconds.
    Raises the engine's ``IllegalMove`` on a bad log.
    """
    log = [_as_move(move) for move in moves]
    total = sum(1 for move in log if move.kind == PLAY)
    game = Game.new(settings, seed)
    frames: list[Image.Image] = []
    number = 0
    for move in log:
        game.push(move)
        if move.kind == PLAY:
            number += 1
            frames.append(to_palette(frame(public_view(game), names, number, total)))
    if not frames or (game.is_over() and log[-1].kind != PLAY):
        # No card ended it (a resignation, an agreed draw): a last frame shows the end.
        frames.append(to_palette(frame(public_view(game), names, total, total)))
    durations = [FRAME_MS] * (len(frames) - 1) + [FINAL_MS]
    buffer = io.BytesIO()
    frames[0].save(
        buffer,
        "GIF",
        save_all=True,
        append_images=frames[1:],
        duration=durations,
        loop=0,
        disposal=1,
        optimize=True,
        palette=frames[0].getpalette(),
    )
    return buffer.getvalue()
