"""Table talk: a call against a team, upheld or dismissed, then each member forfeits a card.

A ruling is a change of the game: under its lock, the call must still be pending, and the
report's new state commits together with the penalty. Of two rulings on one call, exactly one
takes effect; the other is told which one did."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from .errors import UserError
from .events import RulingMade
from .games import Draft, GameService, seat_of

if TYPE_CHECKING:
    from bot.store.database import Database
    from bot.store.tabletalk import ReportRecord

    from .events import MoveOutcome


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
        found = await self.db.tabletalk.get(report_id)
        if found is None:
            raise UserError("There is no such table-talk report.")

        async def work(draft: Draft) -> ReportRecord:
            report = await self.db.tabletalk.get(report_id)  # re-read under the game's lock
            assert report is not None
            if report.status != "pending":
                raise UserError(f"This call was already {report.status}.")
            if actor_id != draft.options.get("host_id") and not can_moderate:
                raise UserError(
                    "Only the host or someone with Manage Messages can decide a table-talk call."
                )
            status = "upheld" if uphold else "dismissed"
            if uphold:
                draft.push(self.games.penalty(report.team), actor_id)
            draft.write(partial(self.db.tabletalk.resolve, report_id, status, draft.now, actor_id))
            return dataclasses.replace(
                report, status=status, resolved_at=draft.now, resolved_by=actor_id
            )

        resolved, draft = await self.games.change(found.game_id, work)
        ruling = RulingMade(draft.record, report=resolved, ruled_by=actor_id, outcome=draft.outcome)
        self.games.bus.publish(ruling)
        return resolved, draft.outcome

    async def set_message(self, report: ReportRecord, message_id: int) -> None:
        """Remember the message that shows the report."""
        await self.db.tabletalk.set_message(report.id, message_id)
