"""Players away (``/sequence-me away``), as a game keeps them: in its options, so that every
change to the game (a new turn's timers, the computer players, the board) sees them in the
transaction that reads the game, in every process.

A game's :attr:`~bot.table.options.TableOptions.away` holds ``(seat, until, cover)`` for each
seat whose player is away: ``pause`` (their turn clock stops until ``until``) or ``computer`` (a
computer plays their turns). An entry whose ``until`` has passed no longer counts, even before
the away service takes it out. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .options import TableOptions

PAUSE, COMPUTER = "pause", "computer"
#: How a player away is covered.
COVERS = (PAUSE, COMPUTER)
#: A tournament's rule for away (``/tournament-admin create away:``): any cover, only a
#: computer, or none.
AWAY_RULES = ("any", COMPUTER, "none")


@dataclass(frozen=True)
class AwaySeat:
    """A seat whose player is away until ``until`` (Unix seconds), covered by ``cover``."""

    seat: int
    until: float
    cover: str

    @property
    def by_computer(self) -> bool:
        """True when a computer plays the seat's turns."""
        return self.cover == COMPUTER


def away_seat(options: TableOptions, seat: int, now: float) -> AwaySeat | None:
    """The seat's away entry in force at ``now``, if any.

    >>> from bot.table.options import TableOptions
    >>> options = with_away(TableOptions(), AwaySeat(1, 500.0, "pause"))
    >>> away_seat(options, 1, 100.0), away_seat(options, 1, 500.0), away_seat(options, 0, 1.0)
    (AwaySeat(seat=1, until=500.0, cover='pause'), None, None)
    """
    for entry in away_entries(options):
        if entry.seat == seat and now < entry.until:
            return entry
    return None


def away_entries(options: TableOptions) -> list[AwaySeat]:
    """Every away entry the game keeps (those past their end too)."""
    return [AwaySeat(int(s), float(u), str(c)) for s, u, c in options.away]


def with_away(options: TableOptions, entry: AwaySeat) -> TableOptions:
    """``options`` with ``entry`` in place of any earlier entry of its seat."""
    kept = tuple(e for e in options.away if int(e[0]) != entry.seat)
    return replace(options, away=(*kept, (entry.seat, entry.until, entry.cover)))


def without_away(options: TableOptions, seat: int) -> TableOptions:
    """``options`` with no away entry for ``seat``."""
    return replace(options, away=tuple(e for e in options.away if int(e[0]) != seat))


def computer_covers(options: TableOptions, seat: int, now: float) -> bool:
    """True when a computer plays the turns of ``seat`` at ``now``."""
    entry = away_seat(options, seat, now)
    return entry is not None and entry.by_computer


def entry_of(options: TableOptions, seat: int) -> AwaySeat | None:
    """The seat's away entry as the game keeps it (whether or not its end has passed): what
    the table shows until the away service takes it out."""
    for entry in away_entries(options):
        if entry.seat == seat:
            return entry
    return None
