"""A stored game as the rest of the bot sees it: :class:`GameRecord` and its statuses, and
:class:`LogEntry`, one row of its move log."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from bot.game import Game, Move
from bot.table.options import TableOptions

from ..seats import Seat
from ..votes import VoteMap

ACTIVE = "active"
FINISHED = "finished"
CANCELLED = "cancelled"
GameStatus = Literal["active", "finished", "cancelled"]


@dataclass(slots=True)
class GameRecord:
    """A stored game: its metadata and the engine :class:`Game` (moves and state)."""

    id: int
    guild_id: int
    channel_id: int
    seats: list[Seat]
    #: The table's options (parsed once, where the store loads the row; frozen).
    options: TableOptions
    status: str
    board_message_id: int | None
    lobby_message_id: int | None
    created_at: float
    finished_at: float | None
    game: Game
    #: The teams' votes in progress (resignation, a draw offer, a declined offer's cooldown).
    votes: VoteMap = field(default_factory=dict)
    #: The move count the latest posted board shows (None: no board posted yet).
    board_move_count: int | None = None
    #: The moves undo took back (they stay in the log, marked undone).
    taken_back: int = 0
    #: Why its table cannot be used (the code Discord refused the bot with: a locked thread,
    #: the bot removed from a private one), or None: see :mod:`bot.services.pauses`.
    paused: int | None = None

    @property
    def revision(self) -> int:
        """What a hand panel is drawn for: the turn number, plus two for each move an undo took
        back. It changes with every turn and no undo brings an earlier value back (an undo of
        ``k`` moves lowers the turn number by ``k`` at most and adds ``2k``), so a panel drawn
        before an undo is out of date after it, though the turn number comes back."""
        return self.game.turn_number + 2 * self.taken_back


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One row of the move log, undone or not."""

    number: int
    move: Move
    seat: int
    actor_user_id: int | None
    created_at: float
    undone_at: float | None
