"""The one path of every change to a game: a draft under the game's lock, one transaction.

:meth:`GameChanges.change` takes the game's lock, checks that what the change acts on is still
current, lets the change work on a :class:`~bot.services.games.draft.Draft` (a copy of the
game), commits everything it wrote in one transaction (moves, snapshot, options, votes, the end
and its result row, the next turn's timers, a report's or a request's state, and the events it
causes: the outbox) and only then swaps the copy in and delivers the events. No other coroutine
ever sees a move that is not saved.
"""

from __future__ import annotations

import copy
import dataclasses
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

from bot.store.errors import GameNotActiveError, StaleMoveError

from ..errors import UserError
from ..events import (
    GameEnded,
    GameEvent,
    MoveCommitted,
    MoveOutcome,
    MoveUndone,
    RulingMade,
    TurnStarted,
)
from ..options import TableOptions
from ..timing import turn_timers
from ..votes import settle_votes
from .cluster import GAMES_CHANNEL, ClusterGames
from .draft import Draft
from .results import count_tallies, record_result
from .seats import nobody_playing

if TYPE_CHECKING:
    from bot.store.timers import TimerRecord

log = logging.getLogger(__name__)

STALE = "That was for an earlier turn: the game has moved on. Open your hand again."
#: The answer to a change that lost a race with another process's (the move-number guard).
RACE_LOST = (
    "That turn was already played: another move was saved just before yours, so yours was "
    "not made. Open your hand again."
)

T = TypeVar("T")


class GameChanges(ClusterGames):
    """Changes to the games, ours or (in a cluster) another process's: drafted, committed and
    delivered."""

    async def change(
        self,
        game_id: int,
        work: Callable[[Draft], Awaitable[T]],
        *,
        expected_turn: int | None = None,
    ) -> tuple[T, Draft]:
        """Run ``work`` on a draft of the game under its lock, commit it, then publish.

        ``expected_turn`` is the turn the caller acted on: if the game has moved on, the change
        is refused with :data:`STALE` and nothing is written. A :class:`UserError` raised by
        ``work`` also changes nothing.
        """
        async with self.locks(game_id):
            record = self.records.get(game_id)
            foreign = record is None
            if record is None:  # another process's game (a cluster): a copy from the store
                record = await self._foreign(game_id)
            if expected_turn is not None and expected_turn != record.game.turn_number:
                raise UserError(STALE)
            draft = Draft(record, self.clock())
            result = await work(draft)
            if draft.moves and not draft.cancelled and nobody_playing(record, draft.game):
                draft.cancelled = draft.unattended = True  # nobody is left to watch it
            settle_votes(draft)
            if draft.changed or draft.game.is_over():
                await self._commit(draft, foreign=foreign, held=expected_turn is not None)
        if not foreign:  # the owner delivers, once it hears of the change
            self.bus.deliver(zip(draft.event_ids, draft.events, strict=True))
        return result, draft

    async def _commit(self, draft: Draft, *, foreign: bool = False, held: bool = False) -> None:
        """Write the draft, and the events it causes (the outbox), in one transaction.
        ``held``: the change was made for the current turn, so even one that writes no move (a
        reminder, a time-out) is refused if another process moved the game on in the store
        meanwhile."""
        record, game, now = draft.record, draft.game, draft.now
        before = record.game
        finished = game.is_over() and record.status == "active" and not draft.cancelled
        new_turn = (
            not finished
            and not draft.cancelled
            and (bool(draft.undone) or game.turn_number != before.turn_number)
        )
        table = TableOptions.from_dict(draft.options)
        timers = turn_timers(record, game, table, now) if new_turn else []
        events = committed_events(draft, finished=finished, new_turn=new_turn, timers=timers)
        live = len(before.moves)
        tallies = await count_tallies(record, game) if finished else None
        try:
            async with self.db.transaction():
                if held and not draft.moves and not draft.undone:
                    await self.db.games.keep_at(record.id, live)
                if draft.undone:
                    count = len(draft.undone)
                    await self.db.games.take_back(record.id, live, count, draft.game, now=now)
                    live -= count
                if draft.moves:
                    await self.db.games.append_moves(record.id, live, draft.moves, game, now=now)
                if draft.options != record.options:
                    await self.db.games.set_options(record.id, draft.options)
                if draft.votes != record.votes:
                    await self.db.votes.replace(record.id, list(draft.votes.values()))
                for write in draft.writes:
                    await write()
                if draft.cancelled:
                    await self.db.games.finish(record.id, "cancelled", now=now)
                elif finished:
                    await self.db.games.finish(record.id, "finished", now=now)
                    await record_result(self.db, record, game, table, now, tallies)
                elif new_turn:
                    await self.db.timers.replace(record.id, timers)
                ids = await self.bus.record(events, now)
                if foreign:  # delivered to the owner at the commit, never on a rollback
                    await self.db.notify(GAMES_CHANNEL, str(record.id))
        except (StaleMoveError, GameNotActiveError):
            # Another process moved first (perhaps ending the game): serve the stored game from
            # now on, and deliver what its change caused (the board, timers and computers).
            log.warning("Game %d moved on in the store before this change", record.id)
            if not foreign:
                await self._take_in(record)
                await self.bus.recover(self.stored, record.id)
            raise UserError(RACE_LOST) from None
        # Committed: only now does anyone see the change (a game no move changed stays as it
        # was: a reminder or a vote swaps in no copy).
        if draft.moves or draft.undone:
            record.game = game
        record.options = draft.options
        record.votes = draft.votes
        draft.events, draft.event_ids = events, ids
        if draft.cancelled or finished:
            record.status = "cancelled" if draft.cancelled else "finished"
            record.finished_at = now
            self._forget(record)


def committed_events(
    draft: Draft, *, finished: bool, new_turn: bool, timers: list[TimerRecord]
) -> list[GameEvent]:
    """The events of a change about to commit, each with the table as committed (a copy):
    the work's own, then the moves, the undo, the new turn and the end. Sets the draft's
    :class:`MoveOutcome` when it made moves."""
    record, game, now = draft.record, draft.game, draft.now
    ended = draft.cancelled or finished
    committed = dataclasses.replace(
        record,
        game=game if draft.moves or draft.undone else record.game,
        options=copy.deepcopy(draft.options),
        votes=dict(draft.votes),
        seats=list(record.seats),
        status=("cancelled" if draft.cancelled else "finished") if ended else record.status,
        finished_at=now if ended else record.finished_at,
    )
    if draft.moves:
        draft.outcome = MoveOutcome(
            record=committed,
            game=game,
            moves=tuple(move for move, _ in draft.moves),
            new_sequences=tuple(game.sequences[len(record.game.sequences) :]),
            turn_passed=game.turn_number != record.game.turn_number,
            unattended=draft.unattended,
        )
    events: list[GameEvent] = []
    for event in draft.events:
        if isinstance(event, RulingMade) and event.outcome is None:
            event = dataclasses.replace(event, outcome=draft.outcome)
        events.append(dataclasses.replace(event, record=committed))
    if draft.outcome is not None:
        events.append(MoveCommitted(committed, outcome=draft.outcome))
    if draft.undone:
        events.append(MoveUndone(committed, undone=draft.undone, game=game))
    if new_turn:
        events.append(TurnStarted(committed, game=game, timers=tuple(timers)))
    if ended:
        events.append(GameEnded(committed, cancelled=draft.cancelled, unattended=draft.unattended))
    return events
