"""The draft of a change: a copy of the game that a change works on under the game's lock."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from bot.game import ChoiceRequired, Game, IllegalMove, Move
from bot.game.sequences import Option

from ..errors import UserError
from ..events import GameEvent, MoveOutcome

if TYPE_CHECKING:
    from bot.store.games.records import GameRecord
    from bot.table.options import TableOptions


class ChoiceNeeded(UserError):
    """The play makes a line of six or more: the mover picks the five from ``options``."""

    def __init__(self, move: Move, options: list[Option]) -> None:
        super().__init__(
            "Your move makes a line of six or more: choose which five form the sequence."
        )
        self.move = move
        self.options = options


class Draft:
    """A change being prepared under the game's lock, on a copy of the game.

    ``push`` validates and applies moves to the copy; ``options`` are the table's options
    (frozen: a change sets new ones) and ``votes`` a copy of the teams' votes (resignations, a
    draw offer); ``writes`` are further store calls that belong to the same transaction;
    ``events`` are published (before the derived ones) once it is committed.
    """

    def __init__(self, record: GameRecord, now: float) -> None:
        self.record = record
        self.now = now
        self.game = record.game.copy()
        self.options: TableOptions = record.options  # frozen: a change replaces it
        self.votes = dict(record.votes)  # values are frozen: a shallow copy is a copy
        self.moves: list[tuple[Move, int | None]] = []
        self.undone: tuple[Move, ...] = ()
        self.cancelled = False
        #: The change left no person playing, and so cancels the game with it.
        self.unattended = False
        self.writes: list[Callable[[], Awaitable[object]]] = []
        #: The events of the change (the work's, then the commit's), and their outbox ids.
        self.events: list[GameEvent] = []
        self.event_ids: list[int | None] = []
        self.outcome: MoveOutcome | None = None

    def push(self, move: Move, actor_id: int | None) -> None:
        """Apply ``move`` to the copy, or raise the reason it is illegal (nothing changes)."""
        try:
            self.game.push(move)
        except ChoiceRequired as choice:
            raise ChoiceNeeded(move, choice.options) from None
        except IllegalMove as error:
            raise UserError(str(error)) from None
        self.moves.append((move, actor_id))

    def undo_last(self, count: int = 1) -> tuple[Move, ...]:
        """Take back the last ``count`` moves (the copy becomes the game replayed without
        them); the moves taken back, in order."""
        game = self.game
        self.undone = tuple(game.moves[-count:])
        self.game = Game.replay(game.settings, game.seed, game.moves[:-count])
        return self.undone

    def write(self, call: Callable[[], Awaitable[object]]) -> None:
        """A store call that commits (or not) with this change."""
        self.writes.append(call)

    @property
    def changed(self) -> bool:
        """True when there is something to commit."""
        return bool(
            self.moves
            or self.undone
            or self.cancelled
            or self.writes
            or self.events
            or self.options != self.record.options
            or self.votes != self.record.votes
        )
