"""Tournaments: the event, its entrants (a user or a fixed team) and its matches, round by round.

Each has its repository and its own tables' SQL: :mod:`.tournament`, :mod:`.entrants` and
:mod:`.matches`; their records are in :mod:`.records`. ``db.tournaments`` is the three as one.
"""

from __future__ import annotations

from .entrants import Entrants
from .matches import Matches
from .tournament import TournamentRows


class Tournaments(TournamentRows, Entrants, Matches):
    """``db.tournaments``: a tournament's repositories (its own rows, its entrants, its
    matches) as one object, as the services use them."""
