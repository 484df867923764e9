"""Away (``/sequence-me away`` and ``back``): a member's games in a server (or everywhere) go
on without them for a while, their turn clock paused or a computer playing their turns.

The period is a row of its own (:mod:`bot.store.away`: the allowance and overlaps are counted
from these). Its start, its early end (``back``) and its end at its time are each one
transaction, with the member's key locked (:meth:`~bot.store.base.Store.lock_keys`: one at a
time for a member, in every process of a cluster), that writes the row and, in the games'
outbox, what it causes to each of the member's active games (:class:`AwayPeriodBegan`,
:class:`AwayPeriodOver`). Their consumer here changes each game through the game service like
any other change (under the game's lock, one transaction, idempotent: delivery is at least
once): the seat's entry in the game's options (:mod:`bot.table.away`, which the turn timers and
the computer players read), the turn's timers held until the return (the time that was left
kept) or dropped while a computer covers, a rated game made unrated by a computer's cover, and
:class:`AwayStarted` or :class:`AwayEnded` (the table is told; the clock re-arms; computers
wake); a game that starts while a player is away is covered as its start is delivered. The end
arrives by itself: the scheduler ends the period at its time, and at start-up every lasting
period is scheduled again from its row (one that fell due while the bot was down ends at once).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING

from bot.store.timers import TimerRecord
from bot.table.away import COMPUTER, PAUSE, AwaySeat, away_entries, with_away, without_away

from .away_input import (
    OVERLAP,
    allowed,
    check_allowance,
    check_cover,
    check_rules,
    parse_until,
    year_start,
)
from .dispatch import Subscriptions
from .errors import UserError
from .events import AwayEnded, AwayPeriodBegan, AwayPeriodOver, AwayStarted, GameStarted
from .games import Draft, seat_of
from .timing import LIMIT, REMINDER, turn_timers

if TYPE_CHECKING:
    from bot.store.away import AwayPeriod
    from bot.store.base import Store
    from bot.store.games.records import GameRecord

    from .games import GameService
    from .scheduler import Scheduler

log = logging.getLogger(__name__)

NOT_AWAY = "You are not away{where}: there is nothing to end."

#: The days a year a member may be away in a server (its ``away_days`` setting).
Allowance = Callable[[int], Awaitable[int]]

__all__ = ["COMPUTER", "PAUSE", "AwayService", "Back", "GoneAway"]


@dataclass(frozen=True)
class GoneAway:
    """A period begun: the row, the games it covers now, and those it made unrated."""

    period: AwayPeriod
    games: list[int] = field(default_factory=list)
    unrated: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class Back:
    """Periods ended early, and the games the member plays in again."""

    periods: list[AwayPeriod]
    games: list[int]


class AwayService:
    """``bot.away``: members going away and coming back, and the end of each period."""

    def __init__(
        self,
        db: Store,
        games: GameService,
        scheduler: Scheduler,
        allowance: Allowance,
    ) -> None:
        self.db = db
        self.games = games
        self.scheduler = scheduler
        self.allowance = allowance

    def subscriptions(self) -> Subscriptions:
        """Each game of a period that began or ended is covered or uncovered; a game that
        starts while one of its players is away is covered from its start."""
        return [
            (AwayPeriodBegan, self._on_period_began),
            (AwayPeriodOver, self._on_period_over),
            (GameStarted, self._on_game_started),
        ]

    async def _on_period_began(self, event: AwayPeriodBegan) -> None:
        lasting = await self.db.away.lasting(event.user_id)
        if any(period.id == event.period for period in lasting):  # not back since (late)
            await self._cover(event.game_id, event.user_id, event.until, event.cover)

    async def _on_period_over(self, event: AwayPeriodOver) -> None:
        await self._uncover(event.game_id, event.user_id, event.until, early=event.early)

    async def _on_game_started(self, event: GameStarted) -> None:
        record, now = event.record, self.clock()
        for seat in record.seats:
            if seat.is_computer:
                continue
            for period in await self.db.away.lasting(seat.user_id):
                if period.until_at > now and period.covers(record.guild_id):
                    await self._cover(record.id, seat.user_id, period.until_at, period.cover)

    @property
    def clock(self) -> Callable[[], float]:
        """The game service's clock (which tests may move)."""
        return self.games.clock

    # ------------------------------------------------------------------ going away
    async def go(self, user_id: int, guild_id: int | None, until_text: str, cover: str) -> GoneAway:
        """``user_id`` goes away from their games in ``guild_id`` (None: everywhere) until
        ``until_text`` (a duration or a date). A :class:`UserError` (malformed, past, longer
        than an allowance left, overlapping another period, a game that does not allow it)
        changes nothing."""
        cover = check_cover(cover)
        async with self.db.transaction():
            await self.db.lock_keys(user_id)  # the check and the insert: one step per member
            now = self.clock()
            until = parse_until(until_text, now)
            lasting = [p for p in await self.db.away.lasting(user_id) if p.until_at > now]
            for other in lasting:
                if other.meets(guild_id):
                    where = "" if other.guild_id is None else " in this server"
                    raise UserError(OVERLAP.format(where=where, until=int(other.until_at)))
            records = await self.db.games.active_of(user_id, guild_id)
            check_rules(((r.id, r.options) for r in records), cover)
            servers = {guild_id} if guild_id is not None else {r.guild_id for r in records}
            past = await self.db.away.since(user_id, year_start(now))
            for server in sorted(servers):
                used = sum(p.lasted_until - p.from_at for p in past if p.covers(server))
                check_allowance(await self.allowance(server), used, until - now)
            period = await self.db.away.add(user_id, guild_id, now, until, cover)
            began = [
                AwayPeriodBegan(record, user_id=user_id, period=period.id, until=until, cover=cover)
                for record in records
            ]
            events = await self.games.record_events(began, now)
        self.games.publish(events)
        self.schedule(period)
        unrated = [
            r.id for r in records if cover == COMPUTER and r.options.rated and not _has_computers(r)
        ]
        return GoneAway(period, [r.id for r in records], unrated)

    async def _cover(self, game_id: int, user_id: int, until: float, cover: str) -> None:
        """Cover the member's seat in one game until ``until`` by ``cover`` (nothing if covered
        already, past its end, or the game is over for them); its turn's timers held, or
        dropped for a computer."""

        async def work(draft: Draft) -> None:
            seat = seat_of(draft.record, user_id)
            game = draft.game
            if seat is None or game.is_over() or game.out[seat] or until <= draft.now:
                return
            if not allowed(draft.options, cover):
                return  # a tournament's match that started since: its rule stands
            entry = AwaySeat(seat, until, cover)
            if entry in away_entries(draft.options):
                return  # covered already (the event delivered again)
            options = with_away(draft.options, entry)
            unrated = entry.by_computer and options.rated and not _has_computers(draft.record)
            if entry.by_computer and options.rated:
                options = options.but(rated=False)
            if game.turn == seat:
                timers = [] if entry.by_computer else await self._held(draft, entry)
                draft.write(partial(self.db.timers.replace, game_id, timers))
            draft.options = options
            event = AwayStarted(
                draft.record, seat=seat, until=entry.until, cover=entry.cover, unrated=unrated
            )
            draft.events.append(event)

        with contextlib.suppress(UserError):  # the game ended meanwhile
            await self.games.change(game_id, work)

    async def _held(self, draft: Draft, entry: AwaySeat) -> list[TimerRecord]:
        """The turn's timers held until ``entry.until``: the time left of its limit (what was
        given included) counts from then, and so does the next reminder."""
        game_id, game = draft.record.id, draft.game
        payload = {"turn": game.turn_number, "seat": entry.seat}
        timers = []
        if draft.options.reminder_delay:
            due = entry.until + draft.options.reminder_delay
            timers.append(TimerRecord(game_id, REMINDER, due, payload))
        limit = await self.db.timers.get(game_id, LIMIT)
        if limit is not None and limit.payload.get("turn") == game.turn_number:
            left = max(limit.due_at - draft.now, 0.0)
            timers.append(TimerRecord(game_id, LIMIT, entry.until + left, dict(limit.payload)))
        return timers

    # ------------------------------------------------------------------ coming back
    async def back(self, user_id: int, guild_id: int | None) -> Back:
        """``user_id`` comes back early: the lasting periods that cover ``guild_id`` (None,
        a DM: every one) end now, and their games count the member's clock again."""
        async with self.db.transaction():
            await self.db.lock_keys(user_id)
            now = self.clock()
            periods = [
                p
                for p in await self.db.away.lasting(user_id)
                if p.until_at > now and (guild_id is None or p.covers(guild_id))
            ]
            if not periods:
                where = "" if guild_id is None else " in this server"
                raise UserError(NOT_AWAY.format(where=where))
            ended, games, events = [], [], []
            for period in periods:
                over = await self._end(period, now, early=True)
                if over is not None:
                    ended.append(period)
                    games += [event.game_id for event in over]
                    events += over
            published = await self.games.record_events(events, now)
        self.games.publish(published)
        for period in ended:
            self.scheduler.cancel(("away", period.id))
        return Back(ended, games)

    async def run_out(self, period: AwayPeriod) -> None:
        """The period's end arrived: it ends (once, whoever comes first: ``back``, another
        process), and each game it covered counts the member's clock again (from the end:
        what was held counts from it already)."""
        async with self.db.transaction():
            over = await self._end(period, period.until_at, early=False)
            published = await self.games.record_events(over or [], self.clock())
        self.games.publish(published)

    async def _end(
        self, period: AwayPeriod, at: float, *, early: bool
    ) -> list[AwayPeriodOver] | None:
        """In the open transaction: end ``period`` at ``at``; the events that take it out of
        each of the member's active games (None: it had ended already)."""
        if not await self.db.away.end(period.id, at):
            return None
        return [
            AwayPeriodOver(
                record, user_id=period.user_id, period=period.id, until=period.until_at, early=early
            )
            for record in await self.db.games.active_of(period.user_id, period.guild_id)
        ]

    async def _uncover(self, game_id: int, user_id: int, until: float, *, early: bool) -> None:
        """Take the member's away entry until ``until`` out of one game (not a later period's,
        which replaced it; nothing if it is out already); at their turn, its timers count from
        now (early: the time left of the limit, as it was held)."""

        async def work(draft: Draft) -> None:
            seat = seat_of(draft.record, user_id)
            entries = [
                e for e in away_entries(draft.options) if e.seat == seat and e.until == until
            ]
            if seat is None or not entries:
                return
            entry, game = entries[0], draft.game
            options = without_away(draft.options, seat)
            if game.turn == seat and not game.is_over():
                if entry.cover == PAUSE and draft.now < entry.until:
                    timers = await self._resumed(draft, options.reminder_delay, entry)
                    draft.write(partial(self.db.timers.replace, game_id, timers))
                elif entry.by_computer:  # its turn was still to play (a computer waited)
                    timers = turn_timers(draft.record, game, options, draft.now)
                    draft.write(partial(self.db.timers.replace, game_id, timers))
            draft.options = options
            draft.events.append(AwayEnded(draft.record, seat=seat, early=early))

        with contextlib.suppress(UserError):  # the game ended meanwhile
            await self.games.change(game_id, work)

    async def _resumed(self, draft: Draft, reminder: int, entry: AwaySeat) -> list[TimerRecord]:
        """The held timers of the turn, counting from now: the limit's time left (held as the
        time after ``entry.until``), the next reminder a reminder's delay away."""
        game_id, game = draft.record.id, draft.game
        payload = {"turn": game.turn_number, "seat": entry.seat}
        timers = []
        if reminder:
            timers.append(TimerRecord(game_id, REMINDER, draft.now + reminder, payload))
        limit = await self.db.timers.get(game_id, LIMIT)
        if limit is not None and limit.payload.get("turn") == game.turn_number:
            left = max(limit.due_at - entry.until, 0.0)
            timers.append(TimerRecord(game_id, LIMIT, draft.now + left, dict(limit.payload)))
        return timers

    # ------------------------------------------------------------------ timers
    def schedule(self, period: AwayPeriod) -> None:
        """End ``period`` at its time."""
        self.scheduler.at(("away", period.id), period.until_at, partial(self.run_out, period))

    async def resume(self) -> None:
        """At start-up: schedule the end of every lasting period from its row (one past its
        end ends at once). What a crash kept from the games comes from the outbox."""
        for period in await self.db.away.lasting():
            self.schedule(period)

    async def lasting(self, user_id: int) -> list[AwayPeriod]:
        """The member's periods not over yet."""
        now = self.clock()
        return [p for p in await self.db.away.lasting(user_id) if p.until_at > now]


def _has_computers(record: GameRecord) -> bool:
    """True when a computer sits at the table (such a game is never rated anyway)."""
    return any(seat.is_computer for seat in record.seats)
