"""Games across days: the turn clock. It schedules each turn's reminder and time limit (stored
with the move that started the turn) and, when one is due, makes the change through the game
service: a reminder re-arms itself, a time limit forfeits owed cards and applies the policy."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING

from bot.game import Move
from bot.game.moves import FORFEIT, REMOVE, SKIP
from bot.store.timers import TimerRecord
from bot.table.away import away_seat
from bot.table.bank import is_timed

from .dispatch import Subscriptions
from .errors import UserError
from .events import (
    AwayEnded,
    AwayStarted,
    GameEnded,
    ReminderDue,
    TimedOut,
    TimeGiven,
    TurnStarted,
)
from .games import Draft, GameService
from .give_time import time_was_given
from .timing import LIMIT, REMINDER, turn_timers

if TYPE_CHECKING:
    from bot.store.base import Store
    from bot.store.games.records import GameRecord

    from .scheduler import Scheduler

log = logging.getLogger(__name__)

#: Plays a late seat's whole turn on a draft (the computer players'), True if it moved.
StandIn = Callable[[Draft, int], Awaitable[bool]]

__all__ = ["LIMIT", "REMINDER", "TurnClock"]


class TurnClock:
    """Arms the timers of every game's current turn and fires them through the game service."""

    def __init__(
        self,
        db: Store,
        games: GameService,
        scheduler: Scheduler,
        clock: Callable[[], float],
        stand_in: StandIn | None = None,
    ) -> None:
        self.db = db
        self.games = games
        self.scheduler = scheduler
        self.clock = clock
        #: With the computer policy, the computer's turn for the late seat, in the time-out's
        #: own change (without it, the computer players answer the TimedOut event).
        self.stand_in = stand_in
        #: True for a game whose table cannot be used for now (a locked thread), or is not yet
        #: known usable after a restart (its board still in the outbox): its timers wait, and
        #: the table arms them again when it can be used (see ``rebuild`` and ``rearm``).
        self.paused: Callable[[int], bool] = lambda _game_id: False

    def subscriptions(self) -> Subscriptions:
        """A new turn arms its timers; time given, or a player going away or coming back,
        arms them as stored; the end of a game drops them."""
        return [
            (TurnStarted, self._on_turn),
            (TimeGiven, self._on_time_given),
            (AwayStarted, self._on_away),
            (AwayEnded, self._on_away),
            (GameEnded, self._on_end),
        ]

    async def resume(self) -> None:
        """At start-up: schedule every stored timer; rebuild those a crash did not store."""
        stored: dict[int, list[TimerRecord]] = {}
        for timer in await self.db.timers.all(REMINDER, LIMIT):  # not a final board's
            stored.setdefault(timer.game_id, []).append(timer)
        for record in list(self.games.records.values()):
            timers = stored.pop(record.id, [])
            if any(t.payload.get("turn") != record.game.turn_number for t in timers) or (
                not timers and _wants_timers(record)
            ):
                timers = await self.rebuild(record.id)
            for timer in timers:
                self.schedule(timer)
        for game_id, timers in stored.items():  # turn timers of games no longer active
            for timer in timers:
                await self.db.timers.clear(game_id, timer.kind)

    async def rearm(self, game_id: int) -> None:
        """Schedule the stored timers of one game again (its table was paused: those that fell
        due meanwhile fire now); rebuild them if a crash did not store its turn's."""
        stored = [await self.db.timers.get(game_id, kind) for kind in (REMINDER, LIMIT)]
        timers = [timer for timer in stored if timer is not None]
        record = self.games.live(game_id)
        if record is None:
            return
        if any(t.payload.get("turn") != record.game.turn_number for t in timers) or (
            not timers and _wants_timers(record)
        ):
            timers = await self.rebuild(game_id)
        for timer in timers:
            self.schedule(timer)

    async def rebuild(self, game_id: int) -> list[TimerRecord]:
        """Store fresh timers for the game's current turn (after a crash lost them)."""

        async def work(draft: Draft) -> list[TimerRecord]:
            timers = turn_timers(draft.record, draft.game, draft.options, draft.now)
            draft.write(partial(self.db.timers.replace, game_id, timers))
            return timers

        timers, _ = await self.games.change(game_id, work)
        return timers

    def schedule(self, timer: TimerRecord) -> None:
        """Fire ``timer`` at its time (replacing the game's earlier timer of that kind)."""
        key = ("turn", timer.game_id, timer.kind)
        self.scheduler.at(key, timer.due_at, partial(self.fire, timer))

    def cancel_game(self, game_id: int) -> None:
        """Drop the pending timers of a game."""
        for kind in (REMINDER, LIMIT):
            self.scheduler.cancel(("turn", game_id, kind))

    async def _on_turn(self, event: TurnStarted) -> None:
        self.cancel_game(event.game_id)
        for timer in event.timers:
            if timer.kind in (REMINDER, LIMIT):  # not an older board's retirement (the table's)
                self.schedule(timer)

    async def _on_time_given(self, event: TimeGiven) -> None:
        """Arm the turn's limit as stored (a day later; a late event of a turn gone by arms
        the stored timers of the turn now played, as they are)."""
        if event.game_id in self.games.records:
            await self.rearm(event.game_id)

    async def _on_away(self, event: AwayStarted | AwayEnded) -> None:
        """A player went away or came back: the turn's timers as now stored (held until the
        return, or none while a computer covers; counting again from the return)."""
        if event.game_id in self.games.records:
            self.cancel_game(event.game_id)
            await self.rearm(event.game_id)

    async def _on_end(self, event: GameEnded) -> None:
        self.cancel_game(event.game_id)

    async def fire(self, timer: TimerRecord) -> None:
        """A reminder or a time limit is due: act only if its turn is still being played."""
        turn = timer.payload.get("turn")
        if self.paused(timer.game_id):
            log.info("Timer %s of game %d waits: its table is paused", timer.kind, timer.game_id)
            return
        try:
            if timer.kind == REMINDER:
                await self.remind(timer.game_id, turn)
            elif timer.kind == LIMIT:
                await self.expire(timer.game_id, turn, due_at=timer.due_at)
        except UserError:  # the turn moved on (the refusal's text is not logged: no card ever is)
            log.debug("Timer %s of game %d lapsed", timer.kind, timer.game_id)

    async def remind(self, game_id: int, turn: int | None) -> None:
        """Nudge the player on turn, and arm the next reminder one delay later; not when the
        turn's time limit is due too (after a downtime): the time-out is the news."""

        async def work(draft: Draft) -> TimerRecord | None:
            limit = await self.db.timers.get(game_id, LIMIT)
            if limit is not None and limit.due_at <= draft.now:
                return None
            delay = draft.options.reminder_delay
            seat = draft.game.turn
            away = away_seat(draft.options, seat, draft.now)
            timer = None
            if delay:
                payload = {"turn": draft.game.turn_number, "seat": seat}
                due = (draft.now if away is None else away.until) + delay
                draft.write(partial(self.db.timers.set, game_id, REMINDER, due, payload))
                timer = TimerRecord(game_id, REMINDER, due, payload)
            if away is None:  # no reminder for a player away: the next after their return
                draft.events.append(
                    ReminderDue(draft.record, seat=seat, turn=draft.game.turn_number)
                )
            return timer

        timer, _ = await self.games.change(game_id, work, expected_turn=turn)
        if timer is not None:
            self.schedule(timer)

    async def expire(
        self, game_id: int, turn: int | None, *, due_at: float | None = None
    ) -> None:
        """The turn's time ran out: forfeit owed cards at random, then apply the policy.

        Under the game's lock and only for the turn the timer was set for: a player who moved in
        time is never skipped, removed or announced as late, nor one given more time (the
        stored limit was moved later than ``due_at``, the deadline the timer fired for, while
        it was on its way: nothing happens). With the computer policy the computer's move for
        the late player is in the same change as the notice: a move the player made meanwhile
        waits for the lock and is then refused as stale.
        """

        async def work(draft: Draft) -> None:
            game = draft.game
            seat = game.turn
            limit = await self.db.timers.get(game_id, LIMIT)
            if (
                limit is not None
                and due_at is not None
                and limit.payload.get("turn") == game.turn_number
                and time_was_given(limit.due_at, due_at)
            ):
                raise UserError("The turn was given more time: it has not run out.")
            if away_seat(draft.options, seat, draft.now) is not None:
                raise UserError("The player went away: their turn waits, or a computer plays it.")
            draft.write(partial(self.db.timers.clear_game, game_id))
            forfeits = 0
            while game.owed_forfeits[seat] and game.hands[seat]:
                draft.push(Move(FORFEIT, seat, game.forfeit_choice(seat)), None)
                forfeits += 1
            policy = draft.options.time_limit_policy
            stood_in = False
            if policy == "computer" and self.stand_in is not None and game.turn == seat:
                stood_in = await self.stand_in(draft, seat)
            draft.events.append(
                TimedOut(
                    draft.record, seat=seat, forfeits=forfeits, policy=policy, stood_in=stood_in
                )
            )
            if policy == "remove":
                draft.push(Move(REMOVE, seat), None)
            elif policy == "skip":
                draft.push(Move(SKIP, seat), None)

        await self.games.change(game_id, work, expected_turn=turn)


def _wants_timers(record: GameRecord) -> bool:
    options = record.options
    return bool(options.reminder_delay) or is_timed(options)
