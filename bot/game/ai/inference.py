"""Reading the last play: what the seat that made it was very likely not holding.

Every sensible player blocks a line of four when they can, and else completes a sequence when
they can. So when the last play did neither, the player held no card that would have: no card
of an open space of their own fours or of the viewer's fours, and no jack that could have done
it. A play that blocked shows nothing about the cards that complete their own fours.
Only the card drawn since can be one of them. This reads public information only: the board,
the sequences and the last play (two teams only).
"""

from __future__ import annotations

from ..board import SPACE_CARDS
from ..cards import is_one_eyed
from ..moves import PLAY
from ..sequences import EMPTY
from ..view import PlayerView
from .evaluate import Analysis
from .lines import WINDOWS
from .position import Position

_WILD = ("JD", "JC")
_REMOVERS = ("JH", "JS")


def unlikely_cards(view: PlayerView) -> tuple[int, frozenset[str]] | None:
    """The seat of the last play and the cards it very likely did not hold before it, if any."""
    move = view.last_move
    me = view.seat
    if move is None or move.kind != PLAY or me is None or move.space is None:
        return None
    if view.settings.teams != 2 or view.last_change is None or view.last_change[1] != move.space:
        return None
    player_team, my_team = view.team_of(move.seat), view.team_of(me)
    if player_team == my_team:
        return None
    if any(team == player_team and move.space in window for team, window in view.sequences):
        return None  # the play completed a sequence
    position = Position.from_view(view)
    chips = list(position.chips)
    chips[move.space] = my_team if is_one_eyed(move.card or "") else EMPTY
    before = Analysis(Position(chips, position.sequences, position.teams, position.to_win))
    missing: set[str] = set()
    my_fours = before.fours(my_team)
    blocked = any(move.space in WINDOWS[w] for w in my_fours)
    own_fours = before.fours(player_team)
    if own_fours and not blocked:  # a block comes before completing: it proves nothing
        missing.update(_WILD)
        missing.update(SPACE_CARDS[before.empties[w][0]] for w in own_fours)
    if my_fours and not blocked:
        missing.update(_WILD + _REMOVERS)
        missing.update(SPACE_CARDS[before.empties[w][0]] for w in my_fours)
    return (move.seat, frozenset(missing)) if missing else None
