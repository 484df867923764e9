"""Rules revision 1: the rules of games started before the fixes of 26 November 2026.

Such a game (its stored settings say ``rules: 1``) plays on, and replays, as it was played:
:class:`Revision1Game` overrides the three rules that changed in revision 2 (see
``docs/rules-house.md``), and :meth:`Game.new`, :meth:`Game.replay` and :meth:`Game.from_dict`
make one for settings of revision 1.
"""

from __future__ import annotations

from .game import Game
from .moves import SKIP


class Revision1Game(Game, revision=1):
    """A game of rules revision 1; everything not overridden here is as in :class:`Game`."""

    def _count_pass(self, seat: int, kind: str) -> None:
        """Every pass counts towards a stalemate, even one holding a dead card, and a skip
        (the time ran out) neither counts nor starts the count again. Revision 2 counts a pass
        or a skip only by a seat holding no playable card and no dead card; any other starts
        the count again."""
        if kind == SKIP:
            self._end_turn()
            return
        self.passes_in_row += 1
        self._end_turn()
        self._finish_if_stalled()

    def _take_draw(self, seat: int) -> None:
        """Manual draw: the seat before always loses its own draw, and the count of passes
        goes on. Revision 2 takes it only when that seat earned it earlier, and starts the
        count again (the new card may be playable)."""
        self.owed_draws.pop(seat)
        self._draw(seat)
        self.owed_draws.pop(self._previous_seat(seat), None)

    def _leave(self, seat: int) -> None:
        """A seat leaving keeps the count of passes. Revision 2 starts it again."""
        passes = self.passes_in_row
        super()._leave(seat)
        self.passes_in_row = passes
