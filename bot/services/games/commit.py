"""The one path of every change to a game: a draft under the game's lock, one transaction.

:meth:`GameChanges.change` takes the game's lock, checks that what the change acts on is still
current, lets the change work on a :class:`~bot.services.games.draft.Draft` (a copy of the
game), commits everything it wrote in one transaction (moves, snapshot, options, votes, the end
and its result row, the next turn's timers, a report's or a request's state, and the events it
causes: the outbox) and only then swaps the copy in and delivers the events. No other coroutine
ever sees a move that is not saved.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

from bot.store.errors import CommitUnknownError, GameNotActiveError, StaleMoveError

from ..bank_clock import settle_bank
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
from ..pauses import TablePaused, refuse_if_paused
from ..timing import turn_timers
from ..votes import settle_votes
from .cluster import GAMES_CHANNEL, ClusterGames
from .draft import Draft
from .results import count_tallies, count_turns, record_result
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

#: How many times a change not made for a turn is made again after another process's.
REDOS = 2

T = TypeVar("T")


class MovedOnError(Exception):
    """The store holds a newer game than the one a change was drafted on."""


class GameChanges(ClusterGames):
    """Changes to the games, ours or (in a cluster) another process's: drafted, committed and
    delivered."""

    async def change(
        self,
        game_id: int,
        work: Callable[[Draft], Awaitable[T]],
        *,
        expected_turn: int | None = None,
        expected_revision: int | None = None,
        asked_by: int | None = None,
        played: bool = False,
    ) -> tuple[T, Draft]:
        """Run ``work`` on a draft of the game under its lock, commit it, then publish.

        ``asked_by`` is the player (or moderator) who asks for the change: at a table that
        cannot be used (:mod:`bot.services.pauses`) it is refused with why, before ``work``
        runs, and nothing is written (``played``: a move, whose refusal says the cards are
        kept). Without it (the bot's own changes, a cancel), a paused table is no obstacle.

        ``expected_turn`` is the turn the caller acted on, ``expected_revision`` the
        :attr:`~bot.store.games.records.GameRecord.revision` (a hand panel's, which an undo
        never brings back): if the game has moved on, the change is refused with :data:`STALE`
        (or, moved on by another process not heard of yet, :data:`RACE_LOST`) and nothing is
        written. A change not made for a turn (a vote, an answer, a ruling) that finds the
        stored game moved on is made again on the stored game, ``work`` running once more. A
        :class:`UserError` raised by ``work`` changes nothing.
        """
        async with self.locks(game_id):
            held = expected_turn is not None or expected_revision is not None
            for attempt in range(REDOS + 1):
                foreign = game_id not in self.records
                result, draft = await self._draft(
                    game_id, work, expected_turn, expected_revision, asked_by, played
                )
                if not (draft.changed or draft.game.is_over()):
                    break
                try:
                    await self._commit(
                        draft, foreign=foreign, asked=asked_by is not None, played=played
                    )
                    break
                except MovedOnError:
                    # The store held a newer game than the draft's (another process changed it,
                    # and this one had not heard yet). A change made for a turn is refused;
                    # another (a vote, an answer, a ruling) is made again on the stored game.
                    if held or attempt == REDOS:
                        raise UserError(RACE_LOST) from None
        if not foreign:  # the owner delivers, once it hears of the change
            self.bus.deliver(zip(draft.event_ids, draft.events, strict=True))
        return result, draft

    async def _draft(
        self,
        game_id: int,
        work: Callable[[Draft], Awaitable[T]],
        expected_turn: int | None,
        expected_revision: int | None,
        asked_by: int | None = None,
        played: bool = False,
    ) -> tuple[T, Draft]:
        """Under the game's lock: ``work`` done on a draft of the game as this process knows it
        (another process's game: as stored), the votes settled; a change someone asks for at
        a paused table is refused first."""
        record = self.records.get(game_id)
        if record is None:  # another process's game (a cluster): a copy from the store
            record = await self._foreign(game_id)
        if expected_turn is not None and expected_turn != record.game.turn_number:
            raise UserError(STALE)
        if expected_revision is not None and expected_revision != record.revision:
            raise UserError(STALE)
        if asked_by is not None:
            refuse_if_paused(record, played=played)
        draft = Draft(record, self.clock())
        result = await work(draft)
        if draft.moves and not draft.cancelled and nobody_playing(record, draft.game):
            draft.cancelled = draft.unattended = True  # nobody is left to watch it
        settle_votes(draft)
        return result, draft

    async def _commit(
        self, draft: Draft, *, foreign: bool = False, asked: bool = False, played: bool = False
    ) -> None:
        """Write the draft, and the events it causes (the outbox), in one transaction, if the
        store still holds the game the draft was made on: every change, one that writes only
        votes, options or timers too, is checked against the stored move count. Else
        :class:`MovedOnError`, nothing written, and (our game) the stored game is served.
        Another process's game, ``asked`` for by someone, is also checked against the pause
        its owner may have stored since the draft (:class:`TablePaused`, nothing written)."""
        record, game, now = draft.record, draft.game, draft.now
        before = record.game
        finished = game.is_over() and record.status == "active" and not draft.cancelled
        new_turn = (
            not finished
            and not draft.cancelled
            and (bool(draft.undone) or game.turn_number != before.turn_number)
        )
        timers = turn_timers(record, game, draft.options, now) if new_turn else []
        events = committed_events(draft, finished=finished, new_turn=new_turn, timers=timers)
        live = len(before.moves)
        tallies = await count_tallies(record, game) if finished else None
        turns = None
        if finished:
            made = [move for move, _actor in draft.moves]
            turns = await count_turns(self.db, record, game, draft.options, made, now)
        try:
            async with self.db.transaction():
                if not draft.moves and not draft.undone:  # the moves' writes are guarded
                    await self.db.games.keep_at(record.id, live)
                if draft.undone:
                    count = len(draft.undone)
                    await self.db.games.take_back(record.id, live, count, draft.game, now=now)
                    live -= count
                if draft.moves:
                    await self.db.games.append_moves(record.id, live, draft.moves, game, now=now)
                # A bank table: the ended turn's bank, read with the game held (a gift another
                # process made is seen, or waits and finds the turn over), and what follows it.
                if new_turn and await settle_bank(self.db, draft):
                    timers = turn_timers(record, game, draft.options, now)
                    events = committed_events(
                        draft, finished=finished, new_turn=new_turn, timers=timers
                    )
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
                    await record_result(self.db, record, game, draft.options, now, tallies, turns)
                elif new_turn:
                    await self.db.timers.replace(record.id, timers)
                if foreign and asked:  # the owner's pause, stored since the draft was made
                    code = await self.db.games.paused_now(record.id)
                    if code is not None:
                        raise TablePaused(record, code, played=played)
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
            raise MovedOnError(record.id) from None
        except CommitUnknownError:
            if not foreign:  # saved or not: served as the store holds it once it answers
                self.catch_up_later(record.id)
            raise
        # Committed: only now does anyone see the change (a game no move changed stays as it
        # was: a reminder or a vote swaps in no copy).
        if draft.moves or draft.undone:
            record.game = game
        record.taken_back += len(draft.undone)
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
        options=draft.options,
        votes=dict(draft.votes),
        seats=list(record.seats),
        taken_back=record.taken_back + len(draft.undone),
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
