"""Computer players: when a computer has something to do (its turn, an owed forfeit, a human's
turn taken over after a time-out), it moves after a pause, through the game service like anyone.

A computer moves only at a table that showed the move before its turn: it is woken in the
outbox's ``discord`` lane, after the table's handler of that move (:meth:`after_the_board`), so
that a board Discord refused for good (a locked thread, the bot removed from it) has paused the
game before the computer thinks, even with no pause (``COMPUTER_MOVE_DELAY=0``)."""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from bot.game import player_view
from bot.game.ai import NoMoveError, choose_move
from bot.table.options import own_or_bot

from .dispatch import Subscriptions
from .draws import open_offer
from .errors import UserError
from .events import (
    AwayStarted,
    DrawOfferClosed,
    GameEvent,
    MoveCommitted,
    MoveUndone,
    TimedOut,
    TurnStarted,
    UndoRefused,
)
from .games import computer_seats_to_act
from .undo import open_request
from .workers import THINKING, run_on

if TYPE_CHECKING:
    from bot.store.games.records import GameRecord

    from .games import Draft, GameService
    from .scheduler import Scheduler

log = logging.getLogger(__name__)


def owes_only_a_draw(record: GameRecord, now: float | None = None) -> bool:
    """True when the first computer seat to act has only its card to draw (manual draw)."""
    seats = computer_seats_to_act(record, now)
    game = record.game
    return bool(seats) and seats[0] in game.owed_draws and not game.owed_forfeits[seats[0]]


def held_until(record: GameRecord, hold: float) -> float | None:
    """Until when computers hold their moves, which would lapse what the teams are asked: an
    open draw offer (until it expires) or the host's undo request (``hold`` seconds after it
    was made: the game's draw-offer timeout, or for a game stored before games had their own,
    ``hold``); None when nothing waits for an answer."""
    hold = own_or_bot(record.options.draw_offer_timeout, hold)
    offer = open_offer(record.votes)
    if offer is not None:
        return offer.expires_at if offer.expires_at is not None else offer.created_at + hold
    request = open_request(record)
    if request is not None:
        return request.created_at + hold
    return None


class ComputerPlayers:
    """Runs the computer players of every game: one pending move per game at a time."""

    def __init__(
        self,
        games: GameService,
        scheduler: Scheduler,
        *,
        delay: Callable[[], float],
        budget_ms: Callable[[], int],
        hold: Callable[[], float] = lambda: 0.0,
    ) -> None:
        self.games = games
        self.scheduler = scheduler
        self.delay = delay
        self.budget_ms = budget_ms
        self.hold = hold
        #: Games with a computer move scheduled or under way; woken meanwhile: in ``_again``.
        self._busy: set[int] = set()
        self._again: set[int] = set()
        #: True for a game whose table cannot be used for now: its computers wait to be woken.
        self.paused: Callable[[int], bool] = lambda _game_id: False

    def subscriptions(self) -> Subscriptions:
        """In the ``quick`` lane: an answer to what they held their move for (a refused undo,
        a draw offer answered) wakes the computers sooner; a time-out may hand them a turn."""
        subscriptions: Subscriptions = [
            (answer, self._wake_sooner_on) for answer in (UndoRefused, DrawOfferClosed)
        ]
        subscriptions.append((TimedOut, self._on_timeout))
        return subscriptions

    def after_the_board(self) -> Subscriptions:
        """In the ``discord`` lane, after the table (which posts the board): a turn or a move
        wakes the game's computers, an undo sooner, once its board was posted or refused (a
        refusal for good pauses the game first: the computer waits for the table)."""
        return [
            (TurnStarted, self._wake_on),
            (MoveCommitted, self._wake_on),
            (AwayStarted, self._wake_on),  # a computer may cover the player away
            (MoveUndone, self._wake_sooner_on),
        ]

    def resume(self) -> None:
        """At start-up: every game whose computer has something to do gets its move."""
        for record in list(self.games.records.values()):
            self.wake(record.id)

    async def _wake_on(self, event: GameEvent) -> None:
        self.wake(event.game_id)

    async def _wake_sooner_on(self, event: GameEvent) -> None:
        self.wake(event.game_id, sooner=True)

    async def _on_timeout(self, event: TimedOut) -> None:
        if event.policy == "computer" and not event.stood_in:  # a time-out stored before
            await self.stand_in(event.game_id, event.seat)

    async def play_turn_in(self, draft: Draft, seat: int) -> bool:
        """In a change (a time-out's, under the game's lock): play the whole turn of ``seat``
        on the draft, as :meth:`stand_in` does, so that the time-out and the move that answers
        it commit together. True if a move was played."""
        turn = draft.game.turn_number
        played = False
        while not draft.game.is_over() and (
            draft.game.turn_number == turn or draft.game.owed_draws.get(seat) == turn
        ):
            view = player_view(draft.game, seat)
            rng = random.Random(f"{draft.game.seed}:{len(draft.game.moves)}:{seat}")
            try:
                move = await run_on(
                    THINKING,
                    choose_move,
                    view,
                    "medium",
                    rng,
                    self.budget_ms(),
                    clock=time.perf_counter,
                )
            except NoMoveError:
                break
            draft.push(move, None)
            played = True
        return played

    async def stand_in(self, game_id: int, seat: int) -> None:
        """Play the whole turn of ``seat``, whose time ran out: a dead card turned in or an
        owed draw taken is only part of a turn, and the turn has no time limit left; with
        manual draw, the turn's card is drawn too (left owed, the next player would take it)."""
        record = self.games.records.get(game_id)
        if record is None:
            return
        turn = record.game.turn_number
        while await self.move_for(game_id, seat, level="medium"):
            record = self.games.records.get(game_id)
            if record is None:
                return
            game = record.game
            if game.turn_number != turn and game.owed_draws.get(seat) != turn:
                return

    def wake(self, game_id: int, *, sooner: bool = False) -> None:
        """Schedule the game's next computer move after the pause (and after any answer the
        teams are asked for), if a computer must act; ``sooner``: an answer came, reschedule."""
        record = self.games.records.get(game_id)
        now = self.games.clock()
        if record is None or not computer_seats_to_act(record, now) or self.paused(game_id):
            return
        key = ("computer", game_id)
        if game_id in self._busy:  # one move at a time
            if sooner and key in self.scheduler:  # still pausing: an answer came, go sooner
                self.scheduler.at(key, self._due(record), lambda: self._act(game_id))
            elif key not in self.scheduler:  # under way: it wakes the game again when done
                self._again.add(game_id)
            return
        self._busy.add(game_id)
        self.scheduler.at(key, self._due(record), lambda: self._act(game_id))

    def _due(self, record: GameRecord) -> float:
        """After the pause (none for an owed draw: no board shows it, and the next player
        who moves and draws meanwhile would take it away), and after any answer the teams
        are asked for."""
        pause = 0.0 if owes_only_a_draw(record, self.games.clock()) else self.delay()
        return max(self.games.clock() + pause, self._held(record))

    def _held(self, record: GameRecord) -> float:
        return held_until(record, self.hold()) or 0.0

    async def _act(self, game_id: int) -> None:
        try:
            record = self.games.records.get(game_id)
            if record is not None and self._held(record) > self.games.clock():
                self._again.add(game_id)  # asked while it paused: it waits for the answer
                return
            now = self.games.clock()
            seats = [] if record is None else computer_seats_to_act(record, now)
            if seats and not self.paused(game_id):
                await self.move_for(game_id, seats[0], hold=True)
        finally:
            # A move's events (the move, the next turn) woke the game while it thought: the
            # next computer move, if any, is scheduled now, once.
            self._busy.discard(game_id)
            if game_id in self._again:
                self._again.discard(game_id)
                self.wake(game_id)

    async def move_for(
        self, game_id: int, seat: int, level: str | None = None, *, hold: bool = False
    ) -> bool:
        """Choose (from the seat's view only) and play one move for ``seat``; True if played.
        ``hold``: not if the teams were asked for an answer while it thought (a draw offer, the
        host's undo request), which the move would lapse: it waits for the answer instead."""
        record = self.games.records.get(game_id)
        if record is None:
            return False
        game = record.game
        level = level or record.seats[seat].bot_level or "medium"
        view = player_view(game, seat)
        rng = random.Random(f"{game.seed}:{len(game.moves)}:{seat}")
        try:
            move = await run_on(
                THINKING, choose_move, view, level, rng, self.budget_ms(), clock=time.perf_counter
            )
        except NoMoveError:
            return False

        async def work(draft: Draft) -> bool:
            if hold and self._held(draft.record) > draft.now:  # asked while it thought
                return False
            if hold and seat not in computer_seats_to_act(draft.record, draft.now):
                return False  # the player it covered came back while it thought
            draft.push(move, None)
            return True

        try:
            played, _ = await self.games.change(game_id, work, expected_turn=view.turn_number)
        except UserError:
            # The game moved on while it thought. Neither the move nor the refusal is logged:
            # both can name a card of the computer's hand.
            log.info("A computer's %s move in game %d (seat %d) lapsed", move.kind, game_id, seat)
            return False
        if not played:
            self._again.add(game_id)  # woken again once done: it waits for the answer
        return played
