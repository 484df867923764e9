"""Turn DMs held through the player's quiet hours: a timer in the store (``turn_dm``, with the
turn and the seat), set through the game service for the turn it is for, and resumed at
start-up. When it falls due, a change for that same turn publishes :class:`TurnDMDue`, and the
turn DM goes out by the outbox as any other; a turn that moved on meanwhile drops it (its new
turn replaced the game's timers, and the change is refused as stale): no stale DM."""

from __future__ import annotations

import logging
from functools import partial
from typing import TYPE_CHECKING

from bot.store.timers import TimerRecord

from .errors import UserError
from .events import TurnDMDue
from .games import Draft

if TYPE_CHECKING:
    from bot.store.base import Store

    from .games import GameService
    from .scheduler import Scheduler

log = logging.getLogger(__name__)

#: The timer kind of a held turn DM.
HELD_DM = "turn_dm"


class HeldTurnDMs:
    """``bot.held_dms``: holds a turn DM until a time, for the turn it was for."""

    def __init__(self, db: Store, games: GameService, scheduler: Scheduler) -> None:
        self.db = db
        self.games = games
        self.scheduler = scheduler

    async def hold(self, game_id: int, turn: int, seat: int, until: float) -> bool:
        """Keep the turn DM of ``seat`` for turn ``turn`` until ``until``; False when the turn
        has moved on already (nothing is held)."""

        async def work(draft: Draft) -> TimerRecord:
            payload = {"turn": turn, "seat": seat}
            draft.write(partial(self.db.timers.set, game_id, HELD_DM, until, payload))
            return TimerRecord(game_id, HELD_DM, until, payload)

        try:
            timer, _ = await self.games.change(game_id, work, expected_turn=turn)
        except UserError:
            return False
        self.schedule(timer)
        return True

    async def resume(self) -> None:
        """At start-up: arm every held DM of this process's games."""
        for timer in await self.db.timers.all(HELD_DM):
            self.schedule(timer)

    def schedule(self, timer: TimerRecord) -> None:
        """Release ``timer``'s DM at its time."""
        key = ("held-dm", timer.game_id)
        self.scheduler.at(key, timer.due_at, partial(self.release, timer))

    async def release(self, timer: TimerRecord) -> None:
        """The quiet hours ended: publish the DM, if its turn is still being played and it was
        not released already; else drop it."""
        turn = timer.payload.get("turn")

        async def work(draft: Draft) -> None:
            stored = await self.db.timers.get(timer.game_id, HELD_DM)
            if stored is None or stored.payload.get("turn") != turn:
                return  # released already, or replaced by a new turn's
            draft.write(partial(self.db.timers.clear, timer.game_id, HELD_DM))
            seat = int(timer.payload["seat"])
            draft.events.append(TurnDMDue(draft.record, seat=seat, turn=draft.game.turn_number))

        try:
            await self.games.change(timer.game_id, work, expected_turn=turn)
        except UserError:  # the turn moved on (or the game ended): no stale DM
            log.debug("The held turn DM of game %d lapsed", timer.game_id)
