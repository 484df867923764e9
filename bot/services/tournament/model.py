"""A read-only snapshot of a tournament (entrants, matches, standings); its settings are
:class:`bot.table.tournament.TournamentSettings`."""

from __future__ import annotations

import math
from dataclasses import dataclass

from bot.store.tournaments.records import EntrantRecord, MatchRecord, TournamentRecord
from bot.table.tournament import TournamentSettings

from .pairing import elimination_rounds
from .standings import ELIMINATION, SWISS, MatchResult, Standing, standings

FORMAT_NAMES = {"round_robin": "Round robin", "swiss": "Swiss", "elimination": "Single elimination"}


def swiss_rounds(entrants: int, wanted: int | None) -> int:
    """Swiss rounds: as asked, or enough to find a winner (⌈log2 n⌉), never past n − 1."""
    automatic = max(1, math.ceil(math.log2(max(entrants, 2))))
    return max(1, min(wanted or automatic, max(entrants - 1, 1)))


def _level(first: Standing, second: Standing) -> bool:
    """True when two lines of the table differ only by seed (points, tie-break and wins)."""
    return (first.points, first.tiebreak, first.wins + first.byes) == (
        second.points,
        second.tiebreak,
        second.wins + second.byes,
    )


@dataclass(frozen=True)
class Snapshot:
    """The whole tournament at one moment, read from the store."""

    tournament: TournamentRecord
    entrants: dict[int, EntrantRecord]
    matches: list[MatchRecord]

    @property
    def settings(self) -> TournamentSettings:
        """The organiser's settings."""
        return self.tournament.settings

    def seeds(self) -> list[int]:
        """Entrant ids, top seed first (sign-up order until seeds are fixed at the start)."""
        return sorted(
            self.entrants,
            key=lambda e: (self.entrants[e].seed or math.inf, self.entrants[e].joined_at, e),
        )

    def active(self) -> list[int]:
        """Entrants not dropped, top seed first."""
        return [e for e in self.seeds() if not self.entrants[e].dropped]

    def name(self, entrant_id: int | None) -> str:
        """An entrant's name (``"bye"`` for None)."""
        if entrant_id is None:
            return "bye"
        entrant = self.entrants.get(entrant_id)
        return entrant.name if entrant else f"entrant {entrant_id}"

    def round_matches(self, number: int) -> list[MatchRecord]:
        """The matches of one round, by number."""
        return [m for m in self.matches if m.round == number]

    def results(self) -> list[MatchResult]:
        """The decided matches as pure results."""
        return [
            MatchResult(m.round, m.entrant_a, m.entrant_b, m.winner, m.outcome or "win")
            for m in self.matches
            if m.status == "done" and m.outcome
        ]

    def standings(self) -> list[Standing]:
        """The table with the format's tie-breaks."""
        return standings(self.tournament.format, self.seeds(), self.results())

    def points(self) -> dict[int, float]:
        """Points so far per entrant."""
        return {s.entrant: s.points for s in self.standings()}

    def champion(self) -> int | None:
        """The winner of a finished tournament (elimination: the final's winner; otherwise the
        leader of those not dropped); None when the leaders are level on all but their seeds
        (none played, or a tie at the top)."""
        if self.tournament.status != "finished":
            return None
        if self.tournament.format == ELIMINATION:
            last = self.round_matches(self.tournament.round)
            return last[0].winner if len(last) == 1 else None
        table = [row for row in self.standings() if not self.entrants[row.entrant].dropped]
        if len(table) > 1 and _level(table[0], table[1]):
            return None  # only the seeds separate the leaders: nobody won it
        return table[0].entrant if table else None

    def total_rounds(self) -> int | None:
        """The rounds this tournament will have (known once it started)."""
        count = len(self.entrants)
        if self.tournament.format == SWISS:
            return swiss_rounds(count, self.settings.rounds)
        if self.tournament.format == ELIMINATION:
            return elimination_rounds(count)
        return count - 1 if count % 2 == 0 else count
