"""A text progress bar on a stream (stderr): redrawn in place on a terminal, every 10 moves else.

The bar only moves forward: it shows how much of the draw deck has been used, beside the move
count and a short status (the cards left and the leading team's sequences).

>>> import io
>>> stream = io.StringIO()
>>> bar = ProgressBar(stream, width=10)
>>> bar.update(10, 0.5, "38 cards left in the deck · Blue leads 1/2")
>>> stream.getvalue()
'[#####-----]  move 10 · 38 cards left in the deck · Blue leads 1/2\\n'
"""

from __future__ import annotations

from typing import TextIO


class ProgressBar:
    """``[########----------------]  move 23 · 58 cards left in the deck · Blue leads 1/2``."""

    def __init__(self, stream: TextIO, width: int = 24, *, live: bool | None = None) -> None:
        self.stream = stream
        self.width = width
        self.live = stream.isatty() if live is None else live
        self._last = ""
        self._fraction = 0.0

    def line(self, moves: int, fraction: float, status: str) -> str:
        """The bar as text."""
        filled = round(min(max(fraction, 0.0), 1.0) * self.width)
        bar = "#" * filled + "-" * (self.width - filled)
        return f"[{bar}]  move {moves} · {status}"

    def update(self, moves: int, fraction: float, status: str) -> None:
        """Show the state after ``moves`` moves (the bar never goes back)."""
        self._fraction = max(self._fraction, fraction)
        text = self.line(moves, self._fraction, status)
        if self.live:
            padding = " " * max(0, len(self._last) - len(text))
            self.stream.write(f"\r{text}{padding}")
        elif moves % 10 == 0 or fraction >= 1.0:
            self.stream.write(text + "\n")
        else:
            self._last = text
            return
        self._last = text
        self.stream.flush()

    def finish(self) -> None:
        """End the bar's line."""
        if self.live and self._last:
            self.stream.write("\n")
            self.stream.flush()
