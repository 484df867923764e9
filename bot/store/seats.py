"""A seat at a table (a lobby's or a game's): who sits there, stored as a small JSON object."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Seat:
    """One seat: a person (their Discord id) or a computer player (a negative id and a level).

    >>> seat = Seat.from_dict({"user_id": -1, "name": "Ada (easy bot)", "bot_level": "easy"})
    >>> seat.is_computer, seat.team
    (True, None)
    >>> Seat.from_dict(seat.to_dict()) == seat
    True
    """

    user_id: int
    #: The display name the table shows.
    name: str
    #: In a lobby, the team chosen (None: placed automatically at the start). A game's seats
    #: keep none: the seat's place in the play order decides its team.
    team: int | None = None
    #: A computer player's level (``easy``, ``medium``, ``hard``); None for a person.
    bot_level: str | None = None

    @property
    def is_computer(self) -> bool:
        """True for a computer player's seat."""
        return self.bot_level is not None

    def to_dict(self) -> dict[str, Any]:
        """The stored form: ``{"user_id", "name", "team", "bot_level"}``."""
        return {
            "user_id": self.user_id,
            "name": self.name,
            "team": self.team,
            "bot_level": self.bot_level,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Seat:
        """A seat as stored (``team`` and ``bot_level`` may be missing: rows of any age load)."""
        return cls(
            int(data["user_id"]),
            str(data.get("name", "?")),
            data.get("team"),
            data.get("bot_level"),
        )


def seats_to_json(seats: list[Seat]) -> list[dict[str, Any]]:
    """Seats in their stored form."""
    return [seat.to_dict() for seat in seats]


def seats_from_json(data: list[dict[str, Any]]) -> list[Seat]:
    """Seats from their stored form."""
    return [Seat.from_dict(item) for item in data]
