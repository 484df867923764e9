"""A tournament's settings: the table options of every match and the tournament's own."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.errors import UserError

from .options import TableOptions

#: Seconds the players of a match have, by default, to start their game.
DEFAULT_SHOW_UP = 15 * 60
#: How many games a match may be the best of.
BEST_OF = (1, 3, 5)
#: ``best_of_from``'s word for the tournament's last round (in a knockout, its final).
FINAL = "final"
#: How entrants are seeded at the start: by the running season's ratings, the all-time ones,
#: or at random.
SEEDINGS = ("all_time", "season", "random")


@dataclass(frozen=True)
class TournamentSettings:
    """What the organiser chose: the table options of every match, the show-up time,
    (Swiss) the number of rounds (None: automatic, fixed at the start), the most entrants
    it takes (None: no cap), how many games a match is the best of (``best_of``) from
    which round on (``best_of_from``: a round's number, or :data:`FINAL`; earlier rounds play
    one game), and how entrants are seeded (:data:`SEEDINGS`)."""

    table: TableOptions
    show_up: int = DEFAULT_SHOW_UP
    rounds: int | None = None
    max_entrants: int | None = None
    best_of: int = 1
    best_of_from: int | str = 1
    seeding: str = "all_time"

    def best_of_in(self, round_number: int, total_rounds: int | None) -> int:
        """How many games a match of round ``round_number`` is the best of, in a tournament of
        ``total_rounds`` rounds (None: not known, so never its final).

        >>> settings = TournamentSettings(TableOptions(), best_of=3, best_of_from=FINAL)
        >>> settings.best_of_in(2, 3), settings.best_of_in(3, 3), settings.best_of_in(3, None)
        (1, 3, 1)
        """
        first = self.best_of_from
        if first == FINAL:
            if total_rounds is None:
                return 1
            first = total_rounds
        return self.best_of if round_number >= int(first) else 1

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-compatible data."""
        return {
            "table": self.table.to_dict(),
            "show_up": self.show_up,
            "rounds": self.rounds,
            "max_entrants": self.max_entrants,
            "best_of": self.best_of,
            "best_of_from": self.best_of_from,
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
            int(data.get("best_of", 1)),
            data.get("best_of_from", 1),
            str(data.get("seeding", "all_time")),
        )


def parse_best_of_from(text: str | None) -> int | str:
    """``best_of_from`` as the organiser typed it: ``final`` or a round's number (none: 1).

    >>> parse_best_of_from(" Final "), parse_best_of_from("2"), parse_best_of_from(None)
    ('final', 2, 1)
    """
    if text is None:
        return 1
    word = text.strip().lower()
    if word == FINAL:
        return FINAL
    if word.isdigit() and int(word) >= 1:
        return int(word)
    raise UserError("best_of_from is `final` or a round's number, like 2.")


def check_best_of(settings: TournamentSettings) -> None:
    """Refuse a best-of that is not 1, 3 or 5, or a first round for it that is not a round."""
    if settings.best_of not in BEST_OF:
        raise UserError("A match is the best of 1, 3 or 5 games.")
    first = settings.best_of_from
    if first != FINAL and (not isinstance(first, int) or first < 1):
        raise UserError("best_of_from is `final` or a round's number, like 2.")
    if settings.best_of == 1 and first != 1:
        raise UserError(
            "best_of_from says from which round a match is a best of 3 or 5: choose best_of too."
        )
