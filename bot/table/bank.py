"""The bank clock (issue #39): each seat has a bank of time that its turns spend; after each of
its turns (a move, or a time-out) the increment is added, up to the cap.

Pure arithmetic over a table's :class:`~bot.table.options.TableOptions`: the banks themselves
are kept in the game's options (:attr:`TableOptions.banks`, written in the transaction of the
move that ends a turn); the deadline of the turn being played is its stored time limit (the
bank at the turn's start after it), so that a restart or another process reads the same clock.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .options import TableOptions

#: The two clocks: a fixed time per turn, or a bank per seat.
TURN = "turn"
BANK = "bank"
CLOCKS = (TURN, BANK)
#: The bank options, only for a bank clock.
BANK_FIELDS = ("bank_start", "bank_increment", "bank_cap")
#: The most a bank ever holds when its table sets no cap (14 days, the longest of any clock).
MAX_BANK = 14 * 86400


def is_bank(options: TableOptions) -> bool:
    """Whether a table plays with a bank clock."""
    return options.clock == BANK


def is_timed(options: TableOptions) -> bool:
    """Whether a table's turns can run out of time (a time limit per turn, or a bank)."""
    return is_bank(options) or bool(options.turn_time_limit)


def bank_cap(options: TableOptions) -> int:
    """The most a seat's bank holds (a table with no cap of its own: :data:`MAX_BANK`)."""
    return options.bank_cap or MAX_BANK


def bank_of(options: TableOptions, seat: int) -> int:
    """The seat's bank as its last turn left it (at the start: the starting bank).

    >>> from bot.table.options import TableOptions
    >>> options = TableOptions(clock="bank", bank_start=3600, banks=(60, 7200))
    >>> bank_of(options, 1), bank_of(options, 2)
    (7200, 3600)
    """
    banks = options.banks
    return int(banks[seat]) if seat < len(banks) else options.bank_start


def settled(left: float, increment: int, cap: int) -> int:
    """A bank after a turn: what the turn left of it (never below 0), plus the increment, at
    most the cap (whole seconds).

    >>> settled(3600.4, 86400, 7 * 86400), settled(-5, 600, 3600), settled(86400, 86400, 86400)
    (90000, 600, 86400)
    """
    return min(cap, max(0, round(left)) + increment)


def after_turn(options: TableOptions, seats: int, seat: int, left: float) -> tuple[int, ...]:
    """Every seat's bank once ``seat``'s turn ended with ``left`` seconds of its bank unused
    (the others keep theirs).

    >>> from bot.table.options import TableOptions
    >>> options = TableOptions(clock="bank", bank_start=3600, bank_increment=600, bank_cap=4000)
    >>> after_turn(options, 3, 1, 3500)
    (3600, 4000, 3600)
    """
    banks = [bank_of(options, each) for each in range(seats)]
    banks[seat] = settled(left, options.bank_increment, bank_cap(options))
    return tuple(banks)
