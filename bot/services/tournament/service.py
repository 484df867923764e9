"""Tournaments as use cases: sign-up, start, pairing each round, match lobbies, results,
no-shows, hand-reported results, drops and the end. No Discord here: the cog turns what each
call returns (a :class:`Progress`) into threads and messages.

Rules chosen:

* **Entrants.** One player, or a fixed team of 2 or 3 named by whoever signs up
  (``/tournament join partner:... partner2:...``); any member can withdraw the team before
  the start. Seeds are fixed at the start: server rating (the members' mean), then sign-up order.
* **Matches** are ordinary rated games, one per pairing, the first entrant's players on Blue.
* **Show-up.** Each player presses *I'm here* in the match thread; when all have, the game starts
  itself (the host may also press Start). If the game has not started when the show-up time
  runs out, an entrant all of whose players checked in wins by forfeit; if neither did, both
  lose (a double forfeit: nobody advances in a knockout).
* **A cancelled game** is replayed: a fresh lobby, a fresh show-up time. So is a drawn
  knockout game; in round robin and Swiss a draw scores ½ each.
* **Best-of matches** (``best_of`` 3 or 5, from ``best_of_from`` on): the games of a match are a
  series in its thread, each seated when the one before ends (a fresh show-up time; the first
  deal alternates), until a side has more than half of the points (a drawn game is half a point
  each). Level once all are played: a draw in round robin and Swiss, one more game at a time in
  a knockout. The match's result is the series'; every game is rated. A report decides the match
  at any point (a game being played is stopped); a deleted thread seats no next game.
* **Byes** score as a win; in Swiss at most one per entrant (while anyone is left without one).
* **Dropping** an entrant forfeits its open match; it is never paired again (round-robin games
  against it are forfeits).
* **Corrections.** The organiser may replace a decided match's result by hand while its round
  is the current one (the next is paired as a round's last result comes, so in practice while
  the round is still being played); ratings keep the games' results.
* **Ending early** voids the unfinished round (its open matches and its byes); every decided
  match counts.
"""

from __future__ import annotations

from .core import CheckIn, Correction, Progress, require_organiser
from .matches import Matches
from .rounds import Rounds, next_round
from .signup import SignUp
from .steps import Steps

__all__ = [
    "CheckIn",
    "Correction",
    "Progress",
    "TournamentService",
    "next_round",
    "require_organiser",
]


class TournamentService(SignUp, Rounds, Matches, Steps):
    """Every tournament, kept in the store; one lock per tournament, one transaction per step.
    Its parts: sign-up (:mod:`.signup`), rounds (:mod:`.rounds`), matches (:mod:`.matches`)
    and the steps' outbox (:mod:`.steps`)."""
