"""The garbage collector across start-up: no full collection while the bot builds what lives as
long as it does, and then that is frozen.

Start-up loads every active game, arms every timer and, after a downtime, works through the
timers that fell due meanwhile: tens of thousands of long-lived objects. A full collection scans
every tracked object that is not frozen, so with 10,000 games one takes a hundred milliseconds
or more, and start-up's allocations would trigger several, each holding the event loop that
long. So from the start of ``setup_hook`` until the overdue timers have run, only the young
generations are collected (they hold most cyclic garbage: it dies young); then they are
collected once more and everything alive is frozen (``gc.freeze``): later collections, full ones
included, no longer scan it. The price: cyclic garbage that reached the old generation during
start-up is frozen with the rest (in ``bench/startup.py``'s SimCord restart, some 2% of the old
generation, from SimCord's bookkeeping; none from the bot's own work) until :meth:`close`, and
so is a frozen object that becomes cyclic garbage later (a bot that is never closed, as SimCord's
``restart_bot`` leaves the old one, keeps its connections until a later bot closes).
"""

from __future__ import annotations

import gc

#: A full-collection threshold no start-up reaches (gen-1 collections between full ones).
NEVER = 1 << 30


class StartupCollector:
    """No full collection during start-up; what start-up built is frozen at its end."""

    def __init__(self) -> None:
        self._thresholds: tuple[int, int, int] | None = None

    def pause(self) -> None:
        """Start-up begins: only young collections until :meth:`started`."""
        if self._thresholds is None:
            self._thresholds = gc.get_threshold()
            young, middle, _ = self._thresholds
            gc.set_threshold(young, middle, NEVER)

    def started(self) -> None:
        """Start-up is over: what is alive now lives long; collect as usual from here."""
        gc.collect(1)
        gc.freeze()
        self._restore()

    def close(self) -> None:
        """The bot closes: what start-up froze may be garbage from now on."""
        gc.unfreeze()
        self._restore()

    def _restore(self) -> None:
        if self._thresholds is not None:
            gc.set_threshold(*self._thresholds)
            self._thresholds = None
