"""The game service: the one path for every change to a game.

A move, a pass, a time-out, a table-talk ruling, a forfeit, an undo, a resignation, a cancel:
each is a *change*, made by :meth:`GameService.change` on a :class:`Draft` under the game's
lock and committed in one transaction with the events it causes. The modules, one job each:

- :mod:`.draft`: the draft of a change (:class:`Draft`, :class:`ChoiceNeeded`);
- :mod:`.seats`: who sits at a game (:func:`seat_of`, :func:`nobody_playing`, ...);
- :mod:`.registry`: the games this process serves, by id, channel and player;
- :mod:`.cluster`: another process's games, and catching up with its changes to ours;
- :mod:`.commit`: ``change`` and its one transaction;
- :mod:`.results`: a finished game's result row;
- :mod:`.boards`: the bookkeeping of the boards;
- :mod:`.service`: :class:`GameService`, the public API of the changes, built on the above.

What follows a change (timers, computers, tournaments) lives in services of its own.
"""

from __future__ import annotations

from ..events import MoveOutcome
from .cluster import GAMES_CHANNEL
from .commit import RACE_LOST, STALE
from .draft import ChoiceNeeded, Draft
from .seats import computer_seats_to_act, nobody_playing, seat_of
from .service import GameService, ResignVote

__all__ = [
    "GAMES_CHANNEL",
    "RACE_LOST",
    "STALE",
    "ChoiceNeeded",
    "Draft",
    "GameService",
    "MoveOutcome",
    "ResignVote",
    "computer_seats_to_act",
    "nobody_playing",
    "seat_of",
]
