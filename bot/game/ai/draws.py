"""Draw offers: when a computer player accepts one, and when it offers one.

Both judge the board alone, from a player's view: each team's sequences and open windows
(:data:`.evaluate.OWN`, the same for every team, so a level position is worth zero).
"""

from __future__ import annotations

from ..view import PlayerView
from .determinize import own_hand
from .evaluate import SEQUENCE, Analysis
from .position import Position

#: A lead this large (half a sequence) is clearly winning: no draw is offered then.
CLEAR_LEAD = SEQUENCE / 2


def lead(view: PlayerView) -> float:
    """How far the viewer's team is ahead of the best other team (negative: behind)."""
    own_hand(view)  # a player's view only
    position = Position.from_view(view)
    analysis = Analysis(position)
    worth = [
        SEQUENCE * len(position.sequences[team]) + analysis.potential[team]
        for team in range(position.teams)
    ]
    team = view.team_of(view.seat)  # type: ignore[arg-type]
    return worth[team] - max(w for t, w in enumerate(worth) if t != team)


def accepts_draw(view: PlayerView) -> bool:
    """True when the viewer's team is not ahead, so a draw offer is welcome."""
    return lead(view) <= 0


def offers_draw(view: PlayerView, endless: bool) -> bool:
    """True when play could go on forever (``endless``, the engine's condition) and the
    viewer's team is not clearly winning."""
    return endless and lead(view) < CLEAR_LEAD
