"""How a game ended, as a value (like python-chess's ``Outcome`` and ``Termination``).

The engine says what ended a game and who won; the interface words it (the bot's sentences are
in ``cogs/common/describe.py``: ``end_reason``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Termination(StrEnum):
    """The kind of ending of a finished game."""

    #: A team completed the sequences it needed (it wins).
    SEQUENCES = "sequences"
    #: Convoy deck-out: nobody can play on and one team has the most convoys (it wins).
    MOST_CONVOYS = "most_convoys"
    #: A full round of passes, or a convoy deck-out with a tie: a draw.
    STALEMATE = "stalemate"
    #: The endless-play guard: the deck reshuffled twice with no new sequence: a draw.
    ENDLESS_PLAY = "endless_play"
    #: Every team agreed to a draw.
    AGREEMENT = "agreement"
    #: Teams resigned until one (or none) was left.
    RESIGNATION = "resignation"
    #: Players left until one team (or none) was left.
    DEPARTURE = "departure"


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game: what ended it, the winning team (None: a draw) and the final score.

    >>> outcome = Outcome(Termination.RESIGNATION, winner=0, sequences=(1, 0), leaving_team=1)
    >>> outcome.is_draw, outcome.winner_sequences
    (False, 1)
    """

    termination: Termination
    winner: int | None
    #: Each team's completed sequences at the end.
    sequences: tuple[int, ...] = ()
    #: The team whose resignation or departure ended the game (RESIGNATION, DEPARTURE), else None.
    leaving_team: int | None = None

    @property
    def is_draw(self) -> bool:
        """True when no team won."""
        return self.winner is None

    @property
    def winner_sequences(self) -> int:
        """The sequences the winning team completed (0 in a draw)."""
        if self.winner is None or self.winner >= len(self.sequences):
            return 0
        return self.sequences[self.winner]
