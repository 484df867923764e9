"""The public entry points for still images: the posted board and the private hand.

Both are pure functions of their inputs, safe to call from ``asyncio.to_thread``.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.game.view import PlayerView

from .bands import board_png, hand_png, prepare_board_png


def render_board(view: PlayerView, names: Sequence[str]) -> bytes:
    """The board image posted after every move, as PNG bytes.

    ``view`` should be the public view (a hand in it is never drawn); ``names[seat]`` is each
    seat's display name.
    """
    return board_png(view, names)


def prepare_board(view: PlayerView) -> None:
    """Encode ahead what the board after the next move will most likely reuse (the rows under
    the last-move frame, without it), so that drawing it costs less on the move's path. Call
    it between moves, off the event loop; it changes no image's bytes.
    """
    prepare_board_png(view)


def render_hand(view: PlayerView, names: Sequence[str]) -> bytes:
    """The private image for ``view.seat``: playable spaces marked and the hand, as PNG bytes.

    Raises :class:`ValueError` when the view has no hand.
    """
    if view.hand is None or view.seat is None:
        raise ValueError("render_hand needs a player's view with a hand (player_view).")
    return hand_png(view, names)
