"""What happened to a game, published by the game service after each commit.

Subscribers (the table that posts boards, the turn clock, computer players, tournaments) are
wired once at start-up. Events of one game reach them in the order they were committed: each
game has its own queue, drained by one task, so the board of move 12 is never posted after the
board of move 13. A failing subscriber is logged and never stops the others.
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from bot.game import Game, Move
    from bot.store.games.records import GameRecord
    from bot.store.tabletalk import ReportRecord
    from bot.store.timers import TimerRecord
    from bot.store.votes import TeamVote

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class MoveOutcome:
    """What a committed change did to the game: the moves, in order, and the game after them.

    ``game`` is the committed game itself; it is never changed afterwards (the next change works
    on a copy), so a subscriber that runs late still sees the game as this change left it.
    """

    record: GameRecord
    game: Game
    moves: tuple[Move, ...]
    new_sequences: tuple[tuple[int, tuple[int, ...]], ...]
    turn_passed: bool
    #: The change left no person playing: the game was cancelled with it.
    unattended: bool = False

    @property
    def move(self) -> Move:
        """The change's main move (the last one)."""
        return self.moves[-1]

    @property
    def finished(self) -> bool:
        """True when this change ended the game."""
        return self.game.is_over()


@dataclass(frozen=True)
class GameEvent:
    """Something that happened to one game."""

    record: GameRecord

    @property
    def game_id(self) -> int:
        """The game's id."""
        return self.record.id


@dataclass(frozen=True)
class GameStarted(GameEvent):
    """A lobby became a game (its first turn follows as :class:`TurnStarted`)."""


@dataclass(frozen=True)
class MoveCommitted(GameEvent):
    """A change made moves (a play, a pass, a forfeit, a time-out's skip, a penalty...)."""

    outcome: MoveOutcome = field(kw_only=True)


@dataclass(frozen=True)
class TurnStarted(GameEvent):
    """A new turn began (after a move, an undo, or at the start); ``timers`` are its timers."""

    game: Game = field(kw_only=True)
    timers: tuple[TimerRecord, ...] = ()


@dataclass(frozen=True)
class TimedOut(GameEvent):
    """The turn's time ran out for ``seat``; the policy's move (if any) follows as a move."""

    seat: int = field(kw_only=True)
    forfeits: int = 0
    policy: str = "skip"


@dataclass(frozen=True)
class ReminderDue(GameEvent):
    """The player on turn (of ``turn``, the turn number) has been waiting a reminder's delay."""

    seat: int = field(kw_only=True)
    turn: int = field(kw_only=True)


@dataclass(frozen=True)
class MoveUndone(GameEvent):
    """An undo took back ``undone``, in order (the log keeps them, marked undone)."""

    undone: tuple[Move, ...] = field(kw_only=True)
    game: Game = field(kw_only=True)


@dataclass(frozen=True)
class RulingMade(GameEvent):
    """A table-talk call was upheld or dismissed; ``outcome`` is the penalty when upheld."""

    report: ReportRecord = field(kw_only=True)
    ruled_by: int | None = None
    outcome: MoveOutcome | None = None


@dataclass(frozen=True)
class DrawOffered(GameEvent):
    """A team offered a draw and other teams are still to answer (``actor_id`` None: a
    computer team offered, and the offer still needs its public message)."""

    offer: TeamVote = field(kw_only=True)
    actor_id: int | None = None


@dataclass(frozen=True)
class DrawOfferClosed(GameEvent):
    """A draw offer ended: ``status`` is lapsed (the game moved on), expired (its time ran
    out), declined or accepted; ``team`` the team that declined, if one did."""

    offer: TeamVote = field(kw_only=True)
    status: str = field(kw_only=True)
    team: int | None = None
    actor_id: int | None = None


@dataclass(frozen=True)
class UndoRefused(GameEvent):
    """A team refused the host's undo request: the game goes on as it was."""


@dataclass(frozen=True)
class UndoRequestLapsed(GameEvent):
    """The host's undo request lapsed unanswered: the game moved on (a move, the end, a
    cancel), or ``replaced``: the host asked again; ``message_id`` is its public message, if
    one was remembered."""

    message_id: int | None = field(kw_only=True)
    replaced: bool = False


@dataclass(frozen=True)
class BoardBehind(GameEvent):
    """At start-up, or when the bot's permissions in a server changed: the latest posted board
    shows an earlier move than the game (a crash or a Discord error came between a change and
    its board); ``shown`` is the move count it shows (None: no board was posted)."""

    shown: int | None = field(kw_only=True)


@dataclass(frozen=True)
class GameEnded(GameEvent):
    """The game is over: ``cancelled`` (no result) or finished (its result is recorded);
    ``unattended``: cancelled because the change left no person playing."""

    cancelled: bool = False
    unattended: bool = False


E = TypeVar("E", bound=GameEvent)
Handler = Callable[[Any], Awaitable[None]]


class EventBus:
    """Typed publish and subscribe, in commit order per game."""

    def __init__(self) -> None:
        self._handlers: dict[type[GameEvent], list[Handler]] = defaultdict(list)
        self._queues: dict[int, deque[GameEvent]] = {}
        self._workers: dict[int, asyncio.Task[None]] = {}

    def subscribe(self, kind: type[E], handler: Callable[[E], Awaitable[None]]) -> None:
        """Call ``handler`` with every event of ``kind`` (and of its subclasses)."""
        self._handlers[kind].append(handler)

    def unsubscribe(self, kind: type[E], handler: Callable[[E], Awaitable[None]]) -> None:
        """Stop calling ``handler`` (a cog being unloaded)."""
        handlers = self._handlers.get(kind, [])
        if handler in handlers:
            handlers.remove(handler)

    def publish(self, *events: GameEvent) -> None:
        """Queue ``events`` for their subscribers (called after the commit, never before)."""
        for event in events:
            queue = self._queues.setdefault(event.game_id, deque())
            queue.append(event)
            if event.game_id not in self._workers:
                self._workers[event.game_id] = asyncio.create_task(self._drain(event.game_id))

    async def idle(self) -> None:
        """Wait until every queued event was handled (tests, shutdown)."""
        while self._workers:
            await asyncio.gather(*self._workers.values(), return_exceptions=True)

    def close(self) -> None:
        """Drop what is queued and stop the workers."""
        for task in self._workers.values():
            task.cancel()
        self._workers.clear()
        self._queues.clear()

    async def _drain(self, game_id: int) -> None:
        queue = self._queues[game_id]
        try:
            while queue:
                event = queue.popleft()
                for kind, handlers in list(self._handlers.items()):
                    if isinstance(event, kind):
                        for handler in list(handlers):
                            await self._call(handler, event)
        finally:
            self._workers.pop(game_id, None)
            if not queue:
                self._queues.pop(game_id, None)

    @staticmethod
    async def _call(handler: Handler, event: GameEvent) -> None:
        try:
            await handler(event)
        except Exception:
            log.exception("A subscriber of %s failed", type(event).__name__)
