"""The end of each server's season: a stored timer, then its podium's step in the outbox.

A season's end is a row of ``season_ends`` (:mod:`bot.store.season_ends`), written when the
server's plan is stored. This process arms the timers of its shards on its scheduler at start-up
and when a plan changes; when one falls due, :meth:`SeasonEnds.fire` ends it once (whichever
process or restart gets there), writing its podium's step to the outbox in the same transaction,
and arms the season after. After the commit the step goes to the podium's poster (the seasons
cog) and is marked delivered in its own transaction; a step a crash or a restart left
undelivered goes to it at the next start. Delivery is at least once: the poster is idempotent
(it finds a podium it already posted). A poster Discord refused for now raises
:class:`~bot.services.deliver_later.DeliverLater`, and is tried again as its contract says.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from bot.store.errors import OUTAGES
from bot.store.season_ends import TIMER, SeasonEnd
from bot.store.seasons import SEASON_PLAN

from .deliver_later import DeliverLater
from .locks import KeyedLocks

if TYPE_CHECKING:
    from bot.store.base import Store
    from bot.store.outbox import SeasonStepRow

    from .scheduler import Scheduler

log = logging.getLogger(__name__)

#: Posts a season's podium (nothing when there is nothing to post); raises
#: :class:`DeliverLater` when Discord refused it for now.
Poster = Callable[["SeasonStepRow"], Awaitable[None]]


class SeasonClock:
    """Arms the season ends of this process's servers and delivers each one's podium step."""

    def __init__(self, db: Store, scheduler: Scheduler, clock: Callable[[], float]) -> None:
        self.db = db
        self.scheduler = scheduler
        self.clock = clock
        self.poster: Poster | None = None
        self._armed: dict[int, set[tuple[str, int]]] = {}
        self._locks = KeyedLocks()
        #: The last wait of each step Discord refused (by step id).
        self._waits: dict[int, float] = {}

    async def resume(self) -> None:
        """Arm every season end timer of this process's shards, and deliver the podium steps
        a crash or a restart left undelivered (start-up)."""
        for end in await self.db.season_ends.waiting():
            self._arm(end)
        for step in await self.db.outbox.undelivered_season_steps():
            self._deliver_in(step.season_end_id, 0.0)

    async def changed(self, guild_id: int, name: str) -> None:
        """A server setting changed: after a new plan, the server's season ends are armed
        again."""
        if name != SEASON_PLAN:
            return
        await self._rearm(guild_id)

    async def _rearm(self, guild_id: int, but: int | None = None) -> None:
        """Arm the server's season end timers again (``but``: the one that just fell due)."""
        for key in self._armed.pop(guild_id, set()):
            if key != ("season-end", but):
                self.scheduler.cancel(key)
        for end in await self.db.season_ends.of_guild(guild_id):
            if end.state == TIMER and end.id != but:
                self._arm(end)

    def _arm(self, end: SeasonEnd) -> None:
        key = ("season-end", end.id)
        self._armed.setdefault(end.guild_id, set()).add(key)
        self.scheduler.at(key, end.ends_at, lambda: self.fall_due(end.id))

    def _deliver_in(self, end_id: int, wait: float) -> None:
        key = ("season-podium", end_id)
        self.scheduler.at(key, self.clock() + wait, lambda: self.deliver(end_id))

    async def fall_due(self, end_id: int) -> None:
        """A season end's time: ended once (its podium's step written), the next season's
        timer armed, then its podium delivered."""
        async with self._locks(end_id):
            end = await self.db.season_ends.get(end_id)
            if end is None:
                return  # gone, or a server another process serves
            if end.state == TIMER:
                await self.db.season_ends.fire(end_id, self.clock())
                await self._rearm(end.guild_id, but=end_id)  # the next season's end
            await self._deliver(end_id)

    async def deliver(self, end_id: int) -> None:
        """Hand a season end's undelivered podium steps to the poster, marking each delivered."""
        async with self._locks(end_id):
            await self._deliver(end_id)

    async def _deliver(self, end_id: int) -> None:
        if self.poster is None:
            return  # the cog is not loaded: the step waits in the store
        for step in await self.db.outbox.undelivered_season_steps(end_id):
            try:
                await self.poster(step)
            except OUTAGES:
                raise  # the scheduler runs it again once the store answers
            except DeliverLater as later:
                self._later(step, later)
                return
            except Exception:
                log.exception("The podium of season %s failed", step.season)
                return  # it stays undelivered until the next start
            self._waits.pop(step.id, None)
            await self.db.outbox.mark({step.id: frozenset()}, self.clock())

    def _later(self, step: SeasonStepRow, later: DeliverLater) -> None:
        """Try a refused step again after ``later.first`` seconds, then twice as long each time
        up to ``later.most``; refused after waiting that long, it waits for the next start."""
        wait = self._waits.get(step.id)
        if wait is not None and wait >= later.most:
            self._waits.pop(step.id, None)
            log.warning("The podium of season %s waits for the next start: %s", step.season, later)
            return
        wait = later.first if wait is None else min(2 * wait, later.most)
        self._waits[step.id] = wait
        log.warning("The podium of season %s waits %.0f s: %s", step.season, wait, later)
        self._deliver_in(step.season_end_id, wait)
