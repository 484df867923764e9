"""A tournament's standings as a CSV file (``/tournament-admin export``), for a spreadsheet:
one row per entrant, in the table's order, with the numbers the standings show."""

from __future__ import annotations

import csv
import io
import re

from bot.services.tournament import ELIMINATION, Snapshot
from bot.services.tournament.standings import TIEBREAK_NAMES

#: The file's columns, in order.
COLUMNS = (
    "rank",
    "entrant",
    "players",
    "points",
    "wins",
    "draws",
    "losses",
    "byes",
    "tiebreak",
    "tiebreak_value",
    "dropped",
)
#: A cell a spreadsheet would read as a formula (``=``, ``+``, ``-``, ``@``, a tab or a CR).
_FORMULA = re.compile(r"^[=+\-@\t\r]")


def cell(text: str) -> str:
    """A name as a cell: one a spreadsheet would run as a formula is quoted (``'=...``).

    >>> cell("ann"), cell("=HYPERLINK(1)")
    ('ann', "'=HYPERLINK(1)")
    """
    return "'" + text if _FORMULA.match(text) else text


def standings_csv(snapshot: Snapshot) -> str:
    """The standings as CSV text (a header row, then one row per entrant, best first)."""
    tiebreak = TIEBREAK_NAMES[snapshot.tournament.format]
    knockout = snapshot.tournament.format == ELIMINATION
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in snapshot.standings():
        entrant = snapshot.entrants[row.entrant]
        players = " & ".join(str(member.get("name", "?")) for member in entrant.members)
        writer.writerow(
            [
                row.rank,
                cell(entrant.name),
                cell(players),
                "" if knockout else f"{row.points:g}",
                row.wins,
                row.draws,
                row.losses,
                row.byes,
                tiebreak,
                f"{row.tiebreak:g}",
                "yes" if entrant.dropped else "no",
            ]
        )
    return out.getvalue()


def file_name(snapshot: Snapshot) -> str:
    """``spring-cup-standings.csv``: the tournament's name, for a file.

    >>> from types import SimpleNamespace as N
    >>> file_name(N(tournament=N(name="Spring Cup #2!")))
    'spring-cup-2-standings.csv'
    """
    slug = re.sub(r"[^a-z0-9]+", "-", snapshot.tournament.name.lower()).strip("-")
    return f"{slug or 'tournament'}-standings.csv"
