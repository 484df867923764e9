"""What happened to a game: the events a change writes to the outbox with its commit.

Each event carries the table as that change committed it (``record``: a copy, with its own
game, options and votes; never the live record, which later changes replace). The dispatcher
(:mod:`.dispatch`) delivers them to their consumers; the stored form is :mod:`.event_codec`'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.game import Game, Move
    from bot.store.games.records import GameRecord
    from bot.store.tabletalk import ReportRecord
    from bot.store.timers import TimerRecord
    from bot.store.votes import TeamVote


@dataclass(frozen=True)
class MoveOutcome:
    """What a committed change did to the game: the moves, in order, and the game after them.

    ``game`` is the committed game itself; it is never changed afterwards (the next change works
    on a copy), so a subscriber that runs late still sees the game as this change left it;
    ``record`` is the table as committed (a copy).
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
    """The turn's time ran out for ``seat``; the policy's move (if any) follows as a move.
    ``stood_in``: a computer played the seat's turn in the same change (else, with the
    computer policy, it is asked to once this event is delivered)."""

    seat: int = field(kw_only=True)
    forfeits: int = 0
    policy: str = "skip"
    stood_in: bool = False


@dataclass(frozen=True)
class ReminderDue(GameEvent):
    """The player on turn (of ``turn``, the turn number) has been waiting a reminder's delay."""

    seat: int = field(kw_only=True)
    turn: int = field(kw_only=True)


@dataclass(frozen=True)
class TimeGiven(GameEvent):
    """A player of another team (``giver``, a seat) gave the player of ``seat`` one more day on
    turn ``turn``: its time limit now falls due at ``due_at``."""

    seat: int = field(kw_only=True)
    turn: int = field(kw_only=True)
    giver: int = field(kw_only=True)
    due_at: float = field(kw_only=True)


@dataclass(frozen=True)
class TurnDMDue(GameEvent):
    """The turn DM of ``seat`` for turn ``turn``, held through the player's quiet hours, is
    to be sent now."""

    seat: int = field(kw_only=True)
    turn: int = field(kw_only=True)


@dataclass(frozen=True)
class AwayStarted(GameEvent):
    """The player of ``seat`` went away until ``until``, covered by ``cover`` (``pause`` or
    ``computer``); ``unrated``: the cover made a rated game unrated."""

    seat: int = field(kw_only=True)
    until: float = field(kw_only=True)
    cover: str = field(kw_only=True)
    unrated: bool = False


@dataclass(frozen=True)
class AwayEnded(GameEvent):
    """The player of ``seat`` is back: ``early`` with ``/sequence-me back``, else at the end
    of their time away."""

    seat: int = field(kw_only=True)
    early: bool = False


@dataclass(frozen=True)
class AwayPeriodBegan(GameEvent):
    """The member ``user_id`` went away (period ``period``, stored in the same transaction)
    until ``until``, covered by ``cover``: their seat in this game is to be covered (the away
    service's change, idempotent, which writes :class:`AwayStarted`)."""

    user_id: int = field(kw_only=True)
    period: int = field(kw_only=True)
    until: float = field(kw_only=True)
    cover: str = field(kw_only=True)


@dataclass(frozen=True)
class AwayPeriodOver(GameEvent):
    """The member ``user_id``'s period ``period`` (until ``until``) ended, ``early`` with
    ``/sequence-me back`` (stored in the same transaction): its entry is to come out of this
    game (the away service's change, idempotent, which writes :class:`AwayEnded`)."""

    user_id: int = field(kw_only=True)
    period: int = field(kw_only=True)
    until: float = field(kw_only=True)
    early: bool = False


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
class BoardReplaced(GameEvent):
    """A newer board was posted (the table wrote this with it): the board ``message_id`` it
    replaced is to say ``content`` and lose its buttons."""

    message_id: int = field(kw_only=True)
    content: str = field(kw_only=True)


@dataclass(frozen=True)
class GameEnded(GameEvent):
    """The game is over: ``cancelled`` (no result) or finished (its result is recorded);
    ``unattended``: cancelled because the change left no person playing."""

    cancelled: bool = False
    unattended: bool = False
