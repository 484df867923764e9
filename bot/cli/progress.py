"""A text progress bar on a stream (stderr): redrawn in place on a terminal, every 10 moves else.

>>> import io
>>> stream = io.StringIO()
>>> bar = ProgressBar(stream, width=10)
>>> bar.update(10, 0.5, "Blue 1/2")
>>> stream.getvalue()
'[#####-----]  50%  move 10  Blue 1/2\\n'
"""

from __future__ import annotations

from typing import TextIO


class ProgressBar:
    """``[########------------]  40%  move 23  Blue 1/2 · Green 0/2``."""

    def __init__(self, stream: TextIO, width: int = 24, *, live: bool | None = None) -> None:
        self.stream = stream
        self.width = width
        self.live = stream.isatty() if live is None else live
        self._last = ""

    def line(self, moves: int, fraction: float, status: str) -> str:
        """The bar as text."""
        fraction = min(max(fraction, 0.0), 1.0)
        filled = round(fraction * self.width)
        bar = "#" * filled + "-" * (self.width - filled)
        return f"[{bar}] {fraction:4.0%}  move {moves}  {status}"

    def update(self, moves: int, fraction: float, status: str) -> None:
        """Show the state after ``moves`` moves."""
        text = self.line(moves, fraction, status)
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
