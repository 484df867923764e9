"""The bookkeeping of a game's boards: the message that shows its latest board, a finished
game's final board and older boards Discord refused, kept in the store to be tried again."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from bot.store.errors import NotFoundError
from bot.store.snapshots import move_count
from bot.store.timers import RETIRE

from ..events import BoardBehind
from .registry import GameRegistry

if TYPE_CHECKING:
    from bot.store.games.records import GameRecord
    from bot.store.timers import TimerRecord

#: The stored timer of a finished game's final board that Discord refused (see the table).
FINAL_BOARD = "final_board"


class BoardBookkeeping(GameRegistry):
    """Where each served game's boards stand, and the boards kept to be posted or retired."""

    def boards_behind(self, records: Iterable[GameRecord]) -> None:
        """Publish :class:`BoardBehind` for each of ``records`` whose latest board shows an
        earlier move (Discord refused the board of a later one)."""
        self.bus.publish(
            *(
                BoardBehind(record, shown=record.board_move_count)
                for record in records
                if record.board_move_count is None
                or record.board_move_count < move_count(record.game)  # decodes no stored game
            )
        )

    async def remember_board(self, record: GameRecord, message_id: int, move_count: int) -> None:
        """Remember the message that shows the game's latest board and the move count it shows
        (presentation, not play)."""
        record.board_message_id, record.board_move_count = message_id, move_count
        await self.db.games.set_board_message(record.id, message_id, move_count)

    async def keep_final_board(self, game_id: int, delay: float) -> TimerRecord:
        """A finished game's final board that Discord refused, kept to be posted again in
        ``delay`` seconds (stored: a restart keeps it)."""
        payload = {"delay": delay}
        return await self.db.timers.set(game_id, FINAL_BOARD, self.clock() + delay, payload)

    async def kept_final_boards(self) -> list[TimerRecord]:
        """The final boards waiting to be posted again (at start-up)."""
        return await self.db.timers.all(FINAL_BOARD)

    async def final_board_done(self, game_id: int) -> None:
        """A kept final board was posted, or given up: forget it."""
        await self.db.timers.clear(game_id, FINAL_BOARD)

    async def keep_retires(self, game_id: int, due: float, payload: dict[str, Any]) -> None:
        """Older boards of a game that Discord refused to retire, kept to be tried again at
        ``due`` (stored: a restart, a new turn and the game's end keep them)."""
        with contextlib.suppress(NotFoundError):  # the game was deleted: nothing to retire
            await self.db.timers.set(game_id, RETIRE, due, payload)

    async def kept_retires(self) -> list[TimerRecord]:
        """The older boards waiting to be retired (at start-up)."""
        return await self.db.timers.all(RETIRE)

    async def retires_done(self, game_id: int) -> None:
        """A game's older boards were retired, or given up: forget them."""
        await self.db.timers.clear(game_id, RETIRE)
