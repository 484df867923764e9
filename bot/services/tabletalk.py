"""Table talk: a call against a team, upheld or dismissed, then each member forfeits a card.

A ruling is a change of the game: under its lock, the call must still be pending, and the
report's new state commits together with the penalty. Of two rulings on one call, exactly one
takes effect; the other is told which one did."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Literal

from bot.game.settings import TEAM_NAMES
from bot.store.errors import StoreError

from .draws import computer_team
from .errors import UserError
from .events import RulingMade
from .games import Draft, GameService, seat_of
from .pauses import refuse_if_paused
from .rulings import Call, Verdict, call_stands, may_rule, may_withdraw, stands_at

if TYPE_CHECKING:
    from bot.store.base import Store
    from bot.store.games.records import GameRecord
    from bot.store.tabletalk import ReportRecord

    from .events import MoveOutcome


class TableTalkService:
    """Reports are kept in the store; an upheld report becomes the engine's penalty move."""

    def __init__(self, db: Store, games: GameService, clock: Callable[[], float]) -> None:
        self.db = db
        self.games = games
        self.clock = clock

    async def report(self, channel_id: int, reporter_id: int, team: int) -> ReportRecord:
        """A player calls table talk on an opponent team (one call on a team at a time: the
        same coaching is not called, and punished, twice)."""
        record = self.games.for_channel(channel_id)
        seat = seat_of(record, reporter_id)
        if seat is None:
            raise UserError("Only players of this game can call table talk.")
        refuse_if_paused(record)
        game = record.game
        if game.out[seat]:
            raise UserError("You are no longer in this game.")
        if not 0 <= team < game.settings.teams:
            raise UserError("There is no such team in this game.")
        if game.team_of(seat) == team:
            raise UserError("You cannot call table talk on your own team.")
        if team not in game.active_teams():
            raise UserError("That team is no longer in the game.")
        members = [s for s in range(game.settings.players) if game.team_of(s) == team]
        playing = [s for s in members if not game.out[s]]
        if sum(not record.seats[s].is_computer for s in playing) < 2:  # a computer never talks
            why = "no teammate at the table"
            if any(record.seats[s].is_computer for s in playing):
                why = "no two people at the table (a computer player never gives or takes a hint)"
            raise UserError(
                f"Table talk is a teammate's hint, and {TEAM_NAMES[team]} has {why}: there is "
                "nothing to call."
            )
        async with self.games.locks(record.id):  # two calls at once: the second sees the first
            if any(call.team == team for call in await self.db.tabletalk.pending(record.id)):
                raise UserError(
                    f"A table-talk call on {TEAM_NAMES[team]} is already waiting for a ruling: "
                    "call again once it is ruled on."
                )
            return await self.db.tabletalk.create(record.id, reporter_id, team, now=self.clock())

    def call_of(self, record: GameRecord, report: ReportRecord) -> Call:
        """The call as the ruling rule sees it (who accuses whom, the host's team, the teams
        with a person still playing: a computer team rules on nothing)."""
        game = record.game
        reporter = seat_of(record, report.reporter_id)
        host = seat_of(record, record.options.host_id or 0)
        return Call(
            accused=report.team,
            caller=game.team_of(reporter) if reporter is not None else -1,
            host_team=game.team_of(host) if host is not None else None,
            teams=tuple(t for t in game.active_teams() if not computer_team(record, t)),
        )

    def stands_at(self, record: GameRecord, report: ReportRecord, timeout: int) -> float | None:
        """When the call stands by itself if nobody rules (None: it waits for a ruling)."""
        return stands_at(self.call_of(record, report), report.created_at, timeout)

    async def resolve(
        self,
        report_id: int,
        actor_id: int | None,
        *,
        uphold: bool,
        can_moderate: bool,
        withdraw: bool = False,
        timeout: int = 0,
        asked: bool = True,
    ) -> tuple[ReportRecord, MoveOutcome | None]:
        """Uphold (the penalty applies) or dismiss a pending call; ``withdraw`` is the caller
        taking it back; ``actor_id`` None is the call standing by itself after ``timeout``.
        A ruling someone asks for is refused at a paused table; not ``asked``: the bot's own
        (a call Discord refused to show, withdrawn so that it blocks no later call).

        Who may rule follows :mod:`bot.services.rulings`: never a player of the accused team.
        """
        found = await self.db.tabletalk.get(report_id)
        if found is None:
            raise UserError("There is no such table-talk report.")

        async def work(draft: Draft) -> ReportRecord:
            report = await self.db.tabletalk.get(report_id)  # re-read under the game's lock
            assert report is not None
            if report.status != "pending":
                raise UserError(f"This call was already {report.status}.")
            call = self.call_of(draft.record, report)
            if withdraw:
                verdict = may_withdraw(report.reporter_id, actor_id or 0)
            elif actor_id is None:
                stands = call_stands(call, report.created_at, draft.now, timeout, withdrawn=False)
                verdict = Verdict(stands, "The call does not stand yet.")
            else:
                seat = seat_of(draft.record, actor_id)
                verdict = may_rule(
                    call,
                    draft.game.team_of(seat) if seat is not None else None,
                    actor_moderates=can_moderate,
                    actor_is_host=actor_id == draft.options.host_id,
                )
            if not verdict.allowed:
                raise UserError(verdict.reason)
            status: Literal["upheld", "dismissed"] = (
                "upheld" if uphold and not withdraw else "dismissed"
            )
            if status == "upheld":
                draft.push(self.games.penalty(report.team), actor_id)
            draft.write(partial(self.db.tabletalk.resolve, report_id, status, draft.now, actor_id))
            resolved = dataclasses.replace(
                report, status=status, resolved_at=draft.now, resolved_by=actor_id
            )
            # The penalty's outcome, if upheld, joins it at the commit.
            draft.events.append(RulingMade(draft.record, report=resolved, ruled_by=actor_id))
            return resolved

        asked_by = actor_id if asked else None
        resolved, draft = await self.games.change(found.game_id, work, asked_by=asked_by)
        return resolved, draft.outcome

    async def close_unruled(self, game_id: int) -> list[ReportRecord]:
        """The calls of a game that is over still waiting for a ruling: dismissed, by nobody
        (no card can be forfeited any more), and returned."""
        closed = []
        for report in await self.db.tabletalk.pending(game_id):
            with contextlib.suppress(StoreError):  # ruled on meanwhile
                closed.append(await self.db.tabletalk.resolve(report.id, "dismissed", self.clock()))
        return closed

    async def set_message(self, report: ReportRecord, message_id: int) -> None:
        """Remember the message that shows the report."""
        await self.db.tabletalk.set_message(report.id, message_id)
