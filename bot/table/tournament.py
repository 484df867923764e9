"""A tournament's settings: the table options of every match and the tournament's own."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .options import TableOptions

#: Seconds the players of a match have, by default, to start their game.
DEFAULT_SHOW_UP = 15 * 60
#: How entrants are seeded at the start: by the running season's ratings, the all-time ones,
#: or at random.
SEEDINGS = ("all_time", "season", "random")


@dataclass(frozen=True)
class TournamentSettings:
    """What the organiser chose: the table options of every match, the show-up time,
    (Swiss) the number of rounds (None: automatic, fixed at the start), and the most entrants
    it takes (None: no cap), and how entrants are seeded (:data:`SEEDINGS`)."""

    table: TableOptions
    show_up: int = DEFAULT_SHOW_UP
    rounds: int | None = None
    max_entrants: int | None = None
    seeding: str = "all_time"

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-compatible data."""
        return {
            "table": self.table.to_dict(),
            "show_up": self.show_up,
            "rounds": self.rounds,
            "max_entrants": self.max_entrants,
            "seeding": self.seeding,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TournamentSettings:
        """Settings saved by :meth:`to_dict`."""
        return cls(
            TableOptions.from_dict(data.get("table", {})),
            int(data.get("show_up", DEFAULT_SHOW_UP)),
            data.get("rounds"),
            data.get("max_entrants"),
            str(data.get("seeding", "all_time")),
        )
