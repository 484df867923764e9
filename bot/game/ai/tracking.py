"""Card counting: which open spaces each team can still hope to fill, from one player's view.

A space whose card has no copy left unseen can only be filled with a two-eyed jack; a space
whose card the viewer holds is as good as the viewer's own (and lost to everyone else).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from ..board import CARD_SPACES
from ..view import PlayerView
from .evaluate import Fill

#: Factors for an open space: the viewer holds its card; no copy is left for anyone to draw;
#: one copy is left.
HELD = 2.0
GONE = 0.2
ONE_LEFT = 0.9


def fill_factors(view: PlayerView, unseen: list[str], hand: Iterable[str] | None = None) -> Fill:
    """Per team, per space: how likely that team is to fill the space (1 when nothing is known).

    ``hand`` is the viewer's cards (by default the view's hand; the search passes the hand
    without the card it tries).
    """
    left = Counter(unseen)
    held = set((view.hand or ()) if hand is None else hand)
    me = view.team_of(view.seat)  # type: ignore[arg-type]
    mine = [1.0] * 100
    theirs = [1.0] * 100
    for card, spaces in CARD_SPACES.items():
        copies = left[card]
        other = GONE if copies == 0 else ONE_LEFT if copies == 1 else 1.0
        own = HELD if card in held else other
        for space in spaces:
            mine[space] = own
            theirs[space] = other
    return [mine if team == me else theirs for team in range(view.settings.teams)]
