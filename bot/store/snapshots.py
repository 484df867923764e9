"""A game's snapshot as stored, and games loaded from it lazily.

The stored snapshot is the engine's state (:meth:`Game.state_dict`) plus ``"log"``: the live
moves in their compact notation (``"1:7S@C4"``). With it a game loads from its one snapshot row,
without reading its move rows: the move log stays the truth (the loader checks that the snapshot
holds as many moves as the log, and ``verify`` replays the log), the copy in the snapshot is a
cache like the rest of it. A move whose notation would not read back as the same move leaves the
log out of that snapshot, and an old snapshot has none: such a game loads from its move rows.
A game that is over keeps no log in its snapshot (:func:`kept_snapshot_text`): start-up never
loads it, and the few reads of a finished game (a replay, an audit) take its move rows anyway.

A game loaded at start-up stays its stored text until it is first used: :func:`stored_game`
gives a :class:`Game` that knows its settings, seed, turn and status (all that start-up asks:
the turn clock, the computer players, the end of a game a crash cut short) and decodes the rest
on the first read of anything else, then is an ordinary :class:`Game`. So 10,000 idle games cost
their text, not their decoded state, until they are touched.
"""

from __future__ import annotations

import json
import re
import threading
from typing import Any, Self, cast

from bot.game import ACTIVE, DRAWN, WON, Game, GameSettings, Move, MoveError, rules_class

from .codec import dumps
from .errors import CorruptGameError
from .upgrades import upgrade_state

__all__ = [
    "StoredGame",
    "decode",
    "decode_log",
    "has_log",
    "kept_snapshot_text",
    "move_count",
    "notations",
    "snapshot_text",
    "stored_game",
]

LOG = "log"
#: Distinct moves whose notation is cached (each way); beyond it, notations are not cached.
_CACHE_LIMIT = 50_000
_TEXT_OF: dict[Move, str | None] = {}
_MOVE_OF: dict[str, Move] = {}

# The few facts start-up reads, found in the stored text without decoding it. The text is
# compact JSON written by :func:`snapshot_text` (``dumps``); a quote cannot occur unescaped in a
# JSON string, so these keys match only where they are keys.
_TURN = re.compile(r'"turn":(-?\d+),"turn_number":(\d+),')
_STATUS = re.compile(r'"status":"(\w+)"')
_HAS_LOG = '"log":['


def snapshot_text(game: Game, *, log_kept: bool = True) -> str:
    """The stored snapshot of ``game``: its state and, when every move reads back (and
    ``log_kept``), its log."""
    state = game.state_dict()
    log = notations(game.moves) if log_kept else None
    if log is not None:
        state[LOG] = log
    return dumps(state)


def kept_snapshot_text(game: Game) -> str:
    """The snapshot the store keeps for ``game``: with its log while the game goes on, without
    it once the game is over (the move rows hold that log; a snapshot need not repeat it)."""
    return snapshot_text(game, log_kept=not game.is_over())


def notations(moves: list[Move]) -> list[str] | None:
    """Each move's notation, or None when one of them would not read back as the same move."""
    out = []
    cache = _TEXT_OF
    for move in moves:
        text = cache.get(move, "")
        if text == "":
            text = _checked_notation(move)
            if len(cache) < _CACHE_LIMIT:
                cache[move] = text
        if text is None:
            return None
        out.append(text)
    return out


def _checked_notation(move: Move) -> str | None:
    try:
        text = move.notation()
        back = Move.from_notation(text)
    except (MoveError, ValueError, TypeError, KeyError):
        return None
    return text if back == move and type(back.seat) is type(move.seat) else None


def decode_log(log: list[str]) -> list[Move]:
    """The moves of a stored log (each notation read once per process, then shared)."""
    cache = _MOVE_OF
    moves = []
    for text in log:
        move = cache.get(text)
        if move is None:
            try:
                move = Move.from_notation(text)
            except MoveError as error:
                raise CorruptGameError(f"A stored move cannot be read ({error}).") from error
            if move.five is None and len(cache) < _CACHE_LIMIT:
                cache[text] = move
        moves.append(move)
    return moves


def has_log(text: str) -> bool:
    """True when a stored snapshot holds its log (written by :func:`snapshot_text`)."""
    return _HAS_LOG in text


def decode(settings: GameSettings, seed: Any, count: int, text: str) -> Game:
    """The game of a stored snapshot that holds its log of ``count`` moves (of any layout:
    see :mod:`.upgrades`)."""
    state = json.loads(text)
    log = state.pop(LOG)
    if len(log) != count:
        raise CorruptGameError(f"The snapshot holds {len(log)} moves, not {count}.")
    moves = decode_log(log)
    upgrade_state(state, lambda: Game.replay(settings, seed, moves))
    game = Game.from_dict(
        {"settings": settings.to_dict(), "seed": seed, "moves": [], "state": state}
    )
    game.moves = moves
    return game


class StoredGame(Game):
    """A :class:`Game` still in its stored form: it decodes itself on first use.

    Only its settings, seed, turn, turn number and status are set; reading any other attribute
    decodes the snapshot (once, under a lock: a worker thread may read it too), fills in what is
    missing and turns the object into a plain game of its rules revision
    (:func:`~bot.game.rules_class`). A game of an older revision is a :class:`StoredGame` of
    that revision's class (:func:`_stored_class`), so that its rules apply from the first call.
    """

    _decoding = threading.Lock()

    def copy(self) -> Self:
        """An independent copy: still stored while this game is (a change that reads only the
        turn, such as a reminder, decodes nothing), else a plain copy."""
        with StoredGame._decoding:
            fields = dict(self.__dict__)
        if "_stored" not in fields:
            return Game.copy(self)
        twin = type(self).__new__(type(self))
        twin.__dict__.update(fields)
        return twin

    def __getattr__(self, name: str) -> Any:
        # Called only for an attribute that is missing: not yet decoded, or truly absent.
        if name.startswith("__"):
            raise AttributeError(name)
        with StoredGame._decoding:
            fields = self.__dict__
            pending = fields.get("_stored")
            if pending is not None:
                count, text = pending
                decoded = decode(fields["settings"], fields["seed"], count, text)
                for key, value in decoded.__dict__.items():
                    fields.setdefault(key, value)
                del fields["_stored"]
                self.__class__ = rules_class(fields["settings"])  # type: ignore[assignment]
        return object.__getattribute__(self, name)


def move_count(game: Game) -> int:
    """The number of live moves of ``game``, without decoding a stored one."""
    pending = game.__dict__.get("_stored")
    return len(game.moves) if pending is None else int(pending[0])


def stored_game(settings: GameSettings, seed: Any, count: int, text: str) -> Game | None:
    """A game decoded on first use from ``text`` (a snapshot with its log of ``count`` moves),
    or None when the text does not show the facts start-up needs (decode it now instead)."""
    turn = _TURN.search(text)
    status = _STATUS.search(text)
    if turn is None or status is None or not has_log(text):
        return None
    kind = _stored_class(settings)
    game = kind.__new__(kind)
    fields = game.__dict__
    fields["settings"] = settings
    fields["seed"] = seed
    fields["turn"] = int(turn[1])
    fields["turn_number"] = int(turn[2])
    fields["status"] = _WORDS.get(status[1], status[1])
    fields["_stored"] = (count, text)
    return game


#: The engine's status words, each as its one shared string.
_WORDS = {word: word for word in (ACTIVE, WON, DRAWN)}


#: The stored-game class of each older rules revision's class.
_STORED_CLASSES: dict[type[Game], type[StoredGame]] = {Game: StoredGame}


def _stored_class(settings: GameSettings) -> type[StoredGame]:
    """:class:`StoredGame` for today's rules; for an older revision, a class that is both a
    stored game and a game of that revision (made once)."""
    kind = rules_class(settings)
    stored = _STORED_CLASSES.get(kind)
    if stored is None:
        stored = cast(type[StoredGame], type(f"Stored{kind.__name__}", (StoredGame, kind), {}))
        _STORED_CLASSES[kind] = stored
    return stored
