"""How a game ended, as a stable value the interface can word (like python-chess's ``Termination``).

``Game.end_reason`` is the engine's own sentence; :class:`Termination` is the kind of ending, for
code that words it differently or counts endings.
"""

from __future__ import annotations

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

    @classmethod
    def from_reason(cls, reason: str) -> Termination | None:
        """The termination of a game stored before terminations were (from its end reason)."""
        if not reason:
            return None
        for needle, termination in _REASON_WORDS:
            if needle in reason:
                return termination
        return None


#: Words of the engine's end reasons, in the order to test them.
_REASON_WORDS: tuple[tuple[str, Termination], ...] = (
    ("most convoys", Termination.MOST_CONVOYS),
    ("stalemate", Termination.STALEMATE),
    ("Endless play", Termination.ENDLESS_PLAY),
    ("by agreement", Termination.AGREEMENT),
    ("resigned", Termination.RESIGNATION),
    ("player left", Termination.DEPARTURE),
    ("completed", Termination.SEQUENCES),
)
