"""Events as the outbox stores them: read back, an event is over the game as its change left it,
its revision (what hand panels are drawn for) included."""

from __future__ import annotations

import dataclasses
import json

from bot.services.event_codec import decode, encode
from bot.services.events import AwayPeriodBegan, AwayPeriodOver, TurnStarted
from bot.store.games.records import GameRecord
from bot.store.outbox import EventRow
from bot.store.seats import Seat
from tests.store_util import new_game


def test_an_event_read_back_keeps_the_moves_undo_had_taken_back() -> None:
    """A turn begun after an undo of three moves, read back when the store says five (a later
    undo): its panel is drawn for the revision of its own turn, not of the game now."""
    game = new_game(3)
    record = GameRecord(
        1,
        7,
        8,
        [Seat(1, "a"), Seat(2, "b")],
        {},
        "active",
        None,
        None,
        0.0,
        None,
        game,
        taken_back=3,
    )
    payload = encode(TurnStarted(record, game=game, timers=()))
    later = dataclasses.replace(record, taken_back=5)
    row = EventRow(1, 1, "TurnStarted", payload, frozenset({"x"}), 0.0)
    read = decode(row, later)
    assert read is not None
    assert read.record.taken_back == 3 and read.record.revision == record.revision
    old = dict(payload)
    del old["taken_back"]  # stored by an earlier version: the stored game's count
    read = decode(dataclasses.replace(row, payload=old), later)
    assert read is not None and read.record.taken_back == 5


def test_the_events_of_a_period_away_are_read_back_with_their_fields() -> None:
    """Written with the period's row, read back after a crash: whose period, until when, how
    covered (or how it ended)."""
    record = GameRecord(
        1, 7, 8, [Seat(1, "a"), Seat(2, "b")], {}, "active", None, None, 0.0, None, new_game(0)
    )
    began = AwayPeriodBegan(record, user_id=2, period=9, until=1e9, cover="computer")
    over = AwayPeriodOver(record, user_id=2, period=9, until=1e9, early=True)
    for event in (began, over):
        kind = type(event).__name__
        row = EventRow(1, 1, kind, json.loads(json.dumps(encode(event))), frozenset({"x"}), 0.0)
        assert decode(row, record) == event
