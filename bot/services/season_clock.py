"""The end of each server's season: a stored timer, an event, and the podium posted once.

A season's end is a row of ``season_ends`` (:mod:`bot.store.season_ends`), written when the
server's plan is stored. This process arms the rows of its shards on its scheduler at start-up
and when a plan changes; when one falls due, :meth:`SeasonEnds.fire` turns it into its event
once (whichever process or restart gets there) and arms the season after; the event is then
handed to the podium's poster (the seasons cog), and marked done with what it posted. Delivery
is at least once: the poster is idempotent (it finds a podium it already posted), and a poster
that Discord refused is tried again after :data:`RETRY` seconds, then less and less often (and at
the next start).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from bot.store.errors import OUTAGES
from bot.store.season_ends import EVENT, TIMER, SeasonEnd
from bot.store.seasons import SEASON_PLAN

from .locks import KeyedLocks

if TYPE_CHECKING:
    from bot.store.base import Store

    from .scheduler import Scheduler

log = logging.getLogger(__name__)

#: Posts a season's podium: the message id posted (None: nothing to post).
Poster = Callable[[SeasonEnd], Awaitable[int | None]]
#: Seconds before a podium Discord refused is tried again; doubled each time up to the most.
RETRY, RETRY_MOST = 60.0, 3600.0


class SeasonClock:
    """Arms the season ends of this process's servers and delivers each one's podium."""

    def __init__(self, db: Store, scheduler: Scheduler, clock: Callable[[], float]) -> None:
        self.db = db
        self.scheduler = scheduler
        self.clock = clock
        self.poster: Poster | None = None
        self._armed: dict[int, set[tuple[str, int]]] = {}
        self._locks = KeyedLocks()
        self._waits: dict[int, float] = {}

    async def resume(self) -> None:
        """Arm every waiting season end of this process's shards (start-up)."""
        for end in await self.db.season_ends.waiting():
            self._arm(end)

    async def changed(self, guild_id: int, name: str) -> None:
        """A server setting changed: after a new plan, the server's season ends are armed
        again."""
        if name != SEASON_PLAN:
            return
        await self._rearm(guild_id)

    async def _rearm(self, guild_id: int, but: int | None = None) -> None:
        """Arm the server's waiting season ends again (``but``: the one being delivered)."""
        for key in self._armed.pop(guild_id, set()):
            if key != ("season-end", but):
                self.scheduler.cancel(key)
        for end in await self.db.season_ends.of_guild(guild_id):
            if end.state in (TIMER, EVENT) and end.id != but:
                self._arm(end)

    def _arm(self, end: SeasonEnd) -> None:
        key = ("season-end", end.id)
        self._armed.setdefault(end.guild_id, set()).add(key)
        due = end.ends_at if end.state == TIMER else self.clock()
        self.scheduler.at(key, due, lambda: self.fall_due(end.id))

    async def fall_due(self, end_id: int) -> None:
        """A season end's time: its event once, then its podium, then the next season's timer."""
        async with self._locks(end_id):
            end = await self.db.season_ends.get(end_id)
            if end is None:
                return
            if end.state == TIMER:
                await self.db.season_ends.fire(end_id, self.clock())
                await self._rearm(end.guild_id, but=end_id)  # the next season's end
                end = await self.db.season_ends.get(end_id)
            if end is not None and end.state == EVENT:
                await self._deliver(end)

    async def _deliver(self, end: SeasonEnd) -> None:
        if self.poster is None:
            return  # the cog is not loaded: the event waits in the store
        try:
            message_id = await self.poster(end)
        except OUTAGES:
            raise  # the scheduler runs it again once the store answers
        except Exception as error:  # Discord refused: tried again later, less and less often
            wait = self._waits.get(end.id, RETRY)
            self._waits[end.id] = min(2 * wait, RETRY_MOST)
            log.warning("The podium of season %s waits %.0f s: %s", end.season, wait, error)
            key = ("season-end", end.id)
            self.scheduler.at(key, self.clock() + wait, lambda: self.fall_due(end.id))
            return
        self._waits.pop(end.id, None)
        await self.db.season_ends.done(end.id, message_id)
