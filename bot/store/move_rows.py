"""The text of a move row: a move's compact notation where it reads back, else its JSON.

A move row holds JSON text. A move whose notation (``"1:7S@C4"``) reads back as the same move
is stored as that notation, a JSON string (``"\\"1:7S@C4\\""``: 9 bytes instead of about 46);
any other move, and every row written before, is the object :meth:`Move.to_dict` gives. Readers
take either, row by row, so old and new rows mix freely in one game's log.
"""

from __future__ import annotations

from typing import Any

from bot.game import Move

from .codec import dumps, loads, loads_many
from .snapshots import decode_log, notations


def move_text(move: Move) -> str:
    """The stored text of ``move``'s row."""
    notation = notations([move])
    return dumps(notation[0] if notation is not None else move.to_dict())


def read_move(text: str) -> Move:
    """The move a row's text holds (either form)."""
    data = loads(text)
    return decode_log([data])[0] if isinstance(data, str) else Move.from_dict(data)


def move_dicts(texts: list[str]) -> list[dict[str, Any]]:
    """The moves rows hold (either form), each as :meth:`Move.to_dict` gives it."""
    values = loads_many(texts)
    if not any(isinstance(value, str) for value in values):
        return values
    return [
        decode_log([value])[0].to_dict() if isinstance(value, str) else value for value in values
    ]
