"""The bookkeeping of a game's boards: the message that shows its latest board."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .registry import GameRegistry

if TYPE_CHECKING:
    from bot.store.games.records import GameRecord


class BoardBookkeeping(GameRegistry):
    """Where each served game's latest board stands."""

    async def remember_board(self, record: GameRecord, message_id: int, move_count: int) -> None:
        """Remember the message that shows the game's latest board and the move count it shows
        (presentation, not play)."""
        record.board_message_id, record.board_move_count = message_id, move_count
        await self.db.games.set_board_message(record.id, message_id, move_count)
