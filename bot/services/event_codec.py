"""Events as the outbox stores them, and back.

A stored event is its kind (the class name), the number of live moves of the game as the change
left it (``at``) and of the moves undo had taken back (``taken_back``: with the turn, the game's
revision, which hand panels are drawn for), and the fields of its own. Read back after a restart
(or in the process that serves a game another process changed), it is rebuilt over the game as
committed: the stored game, replayed back to ``at`` moves if later changes came after it. The
move log is the truth.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from bot.game import Game
from bot.store.snapshots import decode_log, notations
from bot.store.tabletalk import ReportRecord
from bot.store.timers import TimerRecord
from bot.store.votes import TeamVote

from .events import (
    AwayEnded,
    AwayPeriodBegan,
    AwayPeriodOver,
    AwayStarted,
    BoardReplaced,
    DrawOfferClosed,
    DrawOffered,
    GameEnded,
    GameEvent,
    GameStarted,
    MoveCommitted,
    MoveOutcome,
    MoveUndone,
    ReminderDue,
    RulingMade,
    TimedOut,
    TimeGiven,
    TurnDMDue,
    TurnStarted,
    UndoRefused,
    UndoRequestLapsed,
)

if TYPE_CHECKING:
    from bot.store.games.records import GameRecord
    from bot.store.outbox import EventRow

#: Every kind of event a change writes to the outbox, by its stored name.
STORED: dict[str, type[GameEvent]] = {
    kind.__name__: kind
    for kind in (
        GameStarted,
        MoveCommitted,
        TurnStarted,
        TimedOut,
        ReminderDue,
        TimeGiven,
        TurnDMDue,
        AwayStarted,
        AwayEnded,
        AwayPeriodBegan,
        AwayPeriodOver,
        MoveUndone,
        RulingMade,
        DrawOffered,
        DrawOfferClosed,
        UndoRefused,
        UndoRequestLapsed,
        GameEnded,
        BoardReplaced,
    )
}


def encode(event: GameEvent) -> dict[str, Any]:
    """The stored payload of ``event`` (whose record is the game as its change committed it)."""
    record = event.record
    payload: dict[str, Any] = {
        "at": len(record.game.moves),
        "taken_back": record.taken_back,
        "status": record.status,
    }
    if isinstance(event, MoveCommitted):
        payload["outcome"] = _outcome(event.outcome)
    elif isinstance(event, TurnStarted):
        payload["timers"] = [[t.kind, t.due_at, t.payload] for t in event.timers]
    elif isinstance(
        event,
        (
            TimedOut,
            ReminderDue,
            TimeGiven,
            TurnDMDue,
            AwayStarted,
            AwayEnded,
            AwayPeriodBegan,
            AwayPeriodOver,
        ),
    ):
        payload.update(_fields(event))
    elif isinstance(event, MoveUndone):
        payload["undone"] = notations(list(event.undone))
    elif isinstance(event, RulingMade):
        payload["report"] = dataclasses.asdict(event.report)
        payload["ruled_by"] = event.ruled_by
        payload["outcome"] = None if event.outcome is None else _outcome(event.outcome)
    elif isinstance(event, (DrawOffered, DrawOfferClosed)):
        payload.update(_fields(event))
        payload["offer"] = dataclasses.asdict(event.offer)
    elif isinstance(event, (UndoRequestLapsed, GameEnded, BoardReplaced)):
        payload.update(_fields(event))
    return payload


def decode(row: EventRow, stored: GameRecord) -> GameEvent | None:
    """The event of ``row`` over ``stored`` (the game as the store holds it now); None for a
    kind this version does not know."""
    kind = STORED.get(row.kind)
    if kind is None:
        return None
    payload = row.payload
    record = as_committed(stored, int(payload["at"]), str(payload.get("status", stored.status)))
    record.taken_back = int(payload.get("taken_back", stored.taken_back))
    game = record.game
    if kind is MoveCommitted:
        return MoveCommitted(record, outcome=_read_outcome(record, payload["outcome"]))
    if kind is TurnStarted:
        timers = tuple(
            TimerRecord(record.id, k, float(due), dict(data)) for k, due, data in payload["timers"]
        )
        return TurnStarted(record, game=game, timers=timers)
    if kind is MoveUndone:
        undone = tuple(decode_log(payload["undone"] or []))
        return MoveUndone(record, undone=undone, game=game)
    if kind is RulingMade:
        outcome = payload.get("outcome")
        return RulingMade(
            record,
            report=ReportRecord(**payload["report"]),
            ruled_by=payload.get("ruled_by"),
            outcome=None if outcome is None else _read_outcome(record, outcome),
        )
    fields = {k: v for k, v in payload.items() if k not in ("at", "taken_back", "status", "offer")}
    if "offer" in payload:
        offer = dict(payload["offer"])
        offer["seats"] = tuple(offer.get("seats", ()))
        fields["offer"] = TeamVote(**offer)
    return kind(record, **fields)


def as_committed(stored: GameRecord, at: int, status: str) -> GameRecord:
    """A copy of ``stored`` with the game as it stood after ``at`` live moves."""
    game = stored.game
    if len(game.moves) != at and at <= len(game.moves):
        game = Game.replay(game.settings, game.seed, game.moves[:at])
    return dataclasses.replace(
        stored,
        game=game,
        status=status,
        options=stored.options,
        votes=dict(stored.votes),
        seats=list(stored.seats),
    )


def _fields(event: GameEvent) -> dict[str, Any]:
    return {
        f.name: getattr(event, f.name)
        for f in dataclasses.fields(event)
        if f.name not in ("record", "offer")
    }


def _outcome(outcome: MoveOutcome) -> dict[str, Any]:
    return {
        "moves": len(outcome.moves),
        "sequences": [[team, list(spaces)] for team, spaces in outcome.new_sequences],
        "turn_passed": outcome.turn_passed,
        "unattended": outcome.unattended,
    }


def _read_outcome(record: GameRecord, data: dict[str, Any]) -> MoveOutcome:
    game = record.game
    count = int(data["moves"])
    return MoveOutcome(
        record=record,
        game=game,
        moves=tuple(game.moves[len(game.moves) - count :]),
        new_sequences=tuple((int(t), tuple(s)) for t, s in data["sequences"]),
        turn_passed=bool(data["turn_passed"]),
        unattended=bool(data["unattended"]),
    )
