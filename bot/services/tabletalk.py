"""Table talk: a call against a team, confirmed or dismissed, then each member forfeits a card."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .errors import UserError
from .games import GameService, MoveOutcome, seat_of

if TYPE_CHECKING:
    from bot.store.database import Database
    from bot.store.tabletalk import ReportRecord


class TableTalkService:
    """Reports are kept in the store; an upheld report becomes the engine's penalty move."""

    def __init__(self, db: Database, games: GameService, clock: Callable[[], float]) -> None:
        self.db = db
        self.games = games
        self.clock = clock

    async def report(self, channel_id: int, reporter_id: int, team: int) -> ReportRecord:
        """A player calls table talk on an opponent team."""
        record = self.games.for_channel(channel_id)
        seat = seat_of(record, reporter_id)
        if seat is None:
            raise UserError("Only players of this game can call table talk.")
        game = record.game
        if not 0 <= team < game.settings.teams:
            raise UserError("There is no such team in this game.")
        if game.team_of(seat) == team:
            raise UserError("You cannot call table talk on your own team.")
        if team not in game.active_teams():
            raise UserError("That team is no longer in the game.")
        return await self.db.tabletalk.create(record.id, reporter_id, team, now=self.clock())

    async def resolve(
        self, report_id: int, actor_id: int, *, uphold: bool, can_moderate: bool
    ) -> tuple[ReportRecord, MoveOutcome | None]:
        """The host or a moderator upholds (the penalty applies) or dismisses a report."""
        report = await self.db.tabletalk.get(report_id)
        if report is None:
            raise UserError("There is no such table-talk report.")
        if report.status != "pending":
            raise UserError(f"This report was already {report.status}.")
        record = self.games.get(report.game_id)
        if actor_id != record.options.get("host_id") and not can_moderate:
            raise UserError(
                "Only the host or someone with Manage Messages can decide a table-talk call."
            )
        outcome = None
        if uphold:
            outcome = await self.games.penalise_table_talk(record.id, report.team, actor_id)
        resolved = await self.db.tabletalk.resolve(
            report_id, "upheld" if uphold else "dismissed", now=self.clock(), resolved_by=actor_id
        )
        return resolved, outcome

    async def set_message(self, report: ReportRecord, message_id: int) -> None:
        """Remember the message that shows the report."""
        await self.db.tabletalk.set_message(report.id, message_id)
