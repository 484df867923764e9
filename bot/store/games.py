"""Games: the move log (the truth), one snapshot per game (a cache) and the game's metadata.

A move is appended with the number it must get (the number of live moves before it). The move
row and the new snapshot are written in one transaction, guarded by the snapshot's move count
and by a unique index on the live move numbers: a second writer for the same turn gets
:class:`StaleMoveError` and nothing of it is written. An undo keeps the move in the log, marked
``undone_at``; loading ignores undone moves.

Its length is the games table's: every query on a game's rows and its move log, for both
backends, kept in one place so a change to the schema is made once.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from bot.game import Game, GameSettings, Move

from .codec import dumps, loads, loads_many
from .errors import (
    ChannelBusyError,
    CorruptGameError,
    GameNotActiveError,
    IntegrityError,
    NotFoundError,
    StaleMoveError,
)
from .seats import Seat, seats_from_json, seats_to_json
from .snapshots import decode, has_log, notations, snapshot_text, stored_game
from .timers import RETIRE
from .upgrades import upgrade_state
from .votes import VoteMap, select_for

if TYPE_CHECKING:
    from .base import Store
    from .connection import Connection

log = logging.getLogger(__name__)

ACTIVE = "active"
FINISHED = "finished"
CANCELLED = "cancelled"
GameStatus = Literal["active", "finished", "cancelled"]


@dataclass(slots=True)
class GameRecord:
    """A stored game: its metadata and the engine :class:`Game` (moves and state)."""

    id: int
    guild_id: int
    channel_id: int
    seats: list[Seat]
    options: dict[str, Any]
    status: str
    board_message_id: int | None
    lobby_message_id: int | None
    created_at: float
    finished_at: float | None
    game: Game
    #: The teams' votes in progress (resignation, a draw offer, a declined offer's cooldown).
    votes: VoteMap = field(default_factory=dict)
    #: The move count the latest posted board shows (None: no board posted yet).
    board_move_count: int | None = None


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One row of the move log, undone or not."""

    number: int
    move: Move
    seat: int
    actor_user_id: int | None
    created_at: float
    undone_at: float | None


class Games:
    """The games repository (``db.games``)."""

    def __init__(self, db: Store) -> None:
        self._db = db

    async def create(
        self,
        guild_id: int,
        channel_id: int,
        game: Game,
        seats: list[Seat],
        options: dict[str, Any],
        lobby_message_id: int | None,
        now: float,
        *,
        lobby_id: int | None = None,
    ) -> GameRecord:
        """Store a new active game (and any moves it already has).

        With ``lobby_id``, that lobby is deleted in the same transaction (a lobby becomes a game).
        Raises :class:`ChannelBusyError` when the channel already has an active game. The record
        holds ``game`` itself, not a copy.
        """
        moves = [(i, m.seat, dumps(m.to_dict())) for i, m in enumerate(game.moves)]
        row = (
            guild_id,
            channel_id,
            dumps(game.settings.to_dict()),
            dumps(game.seed),
            dumps(seats_to_json(seats)),
            dumps(options),
            lobby_message_id,
            now,
        )
        state = snapshot_text(game)
        game_id = await self._db.run(_create, row, moves, state, lobby_id)
        return GameRecord(
            game_id,
            guild_id,
            channel_id,
            list(seats),
            loads(row[5]),
            ACTIVE,
            None,
            lobby_message_id,
            now,
            None,
            game,
        )

    async def append_move(
        self,
        game_id: int,
        move_number: int,
        move: Move,
        actor_user_id: int | None,
        snapshot: Game,
        now: float,
    ) -> None:
        """Append ``move`` as number ``move_number`` (0-based) with the game after it.

        ``snapshot`` is the game with the move applied. Raises :class:`StaleMoveError` if the
        log does not have exactly ``move_number`` live moves (the turn was taken), and
        :class:`GameNotActiveError` for a finished game; nothing is written then.
        """
        if len(snapshot.moves) != move_number + 1 or snapshot.moves[-1] != move:
            raise ValueError("snapshot must be the game just after the move being appended.")
        await self.append_moves(game_id, move_number, [(move, actor_user_id)], snapshot, now)

    async def append_moves(
        self,
        game_id: int,
        first_number: int,
        moves: list[tuple[Move, int | None]],
        snapshot: Game,
        now: float,
    ) -> None:
        """Append ``moves`` (each with its actor) from number ``first_number``, one snapshot.

        The guard is the same as :meth:`append_move`'s: the log must have exactly
        ``first_number`` live moves, else :class:`StaleMoveError` and nothing is written.
        """
        if len(snapshot.moves) != first_number + len(moves):
            raise ValueError("snapshot must be the game just after the moves being appended.")
        state = snapshot_text(snapshot)
        rows = [
            (first_number + i, move.seat, actor, dumps(move.to_dict()))
            for i, (move, actor) in enumerate(moves)
        ]
        append = _append_in_one if self._db.dialect == "postgresql" else _append_many
        await self._db.run(append, game_id, first_number, rows, state, now)

    async def truncate_last(
        self, game_id: int, expected_count: int, snapshot: Game, now: float
    ) -> Move:
        """Undo the last live move: keep it in the log marked undone, store ``snapshot``.

        ``expected_count`` is the number of live moves before the undo; ``snapshot`` the game
        without the last move. Returns the undone move.
        """
        return (await self.take_back(game_id, expected_count, 1, snapshot, now))[0]

    async def take_back(
        self, game_id: int, expected_count: int, count: int, snapshot: Game, now: float
    ) -> list[Move]:
        """Undo the last ``count`` live moves at once (an undo against computer players takes
        back their replies too): each kept in the log marked undone, ``snapshot`` stored.

        ``expected_count`` is the number of live moves before the undo; ``snapshot`` the game
        without those moves. Returns the undone moves, in order.
        """
        if not 1 <= count <= expected_count or len(snapshot.moves) != expected_count - count:
            raise ValueError("snapshot must be the game without the moves taken back.")
        state = snapshot_text(snapshot)
        texts = await self._db.run(_truncate, game_id, expected_count, count, state, now)
        return [Move.from_dict(loads(text)) for text in texts]

    async def keep_at(self, game_id: int, move_count: int) -> None:
        """In a transaction that writes no move: hold the game at ``move_count`` live moves
        until the commit (its snapshot row is locked). Raises :class:`StaleMoveError` (or
        :class:`GameNotActiveError`) if it has moved on, or ended, meanwhile."""
        await self._db.run(_keep_at, game_id, move_count)

    async def load(self, game_id: int, *, verify: bool = False) -> GameRecord:
        """The game rebuilt from its snapshot and checked against its log.

        The cheap check compares the snapshot's move count with the log; ``verify=True`` also
        replays the log and compares states. A snapshot that fails is rebuilt from the log, with
        a warning, and repaired. Raises :class:`NotFoundError`, :class:`CorruptGameError`.
        """
        loaded = await self._db.run(_load, _BY_ID, (game_id,), verify, True)
        if not loaded:
            raise NotFoundError(f"There is no game {game_id}.")
        return loaded[0][0]

    async def verify(self, game_id: int) -> bool:
        """Replay the log and compare with the snapshot; True when it matched (else repaired)."""
        loaded = await self._db.run(_load, _BY_ID, (game_id,), True, True)
        if not loaded:
            raise NotFoundError(f"There is no game {game_id}.")
        return loaded[0][1]

    async def active(self) -> list[GameRecord]:
        """Every active game of this process's shards, for start-up. A game that cannot be
        rebuilt is logged and left out."""
        mine, params = self._db.on_my_shards("g.guild_id")
        loaded = await self._db.run(
            _load, f"{_ACTIVE} AND {mine}", params, False, False, lazy=True, upgrade=True
        )
        return [record for record, _ in loaded]

    async def active_of(self, user_id: int, guild_id: int | None = None) -> list[GameRecord]:
        """The active games ``user_id`` still plays in (in one server, or anywhere; not those
        they resigned from or were removed from), from the store: every process's games, not
        only this one's."""
        # A text match narrows the rows (on either backend); the seats decide.
        where, params = _ACTIVE_SEATED, (f"%{user_id}%", guild_id)
        loaded = await self._db.read(_load, where, params, False, False, lazy=True)
        return [record for record, _ in loaded if _still_plays(record, user_id)]

    async def playing(self, user_id: int) -> int:
        """How many active games ``user_id`` still plays in, on every process."""
        return len(await self.active_of(user_id))

    async def active_for_channel(self, channel_id: int) -> GameRecord | None:
        """The channel's active game, if any."""
        loaded = await self._db.run(_load, _ACTIVE_IN_CHANNEL, (channel_id,), False, True)
        return loaded[0][0] if loaded else None

    async def log(self, game_id: int) -> list[LogEntry]:
        """The whole move log in order, undone moves included (for audits and replays)."""
        rows = await self._db.read(_fetch_log, game_id)
        return [
            LogEntry(number, Move.from_dict(loads(text)), seat, actor, created, undone)
            for number, seat, actor, text, created, undone in rows
        ]

    async def computer_names(self, game_ids: list[int]) -> dict[int, dict[int, str]]:
        """The names of the computer players of games ``game_ids`` (finished ones, say, whose
        results know them only by id): by game, then by their id in it."""
        if not game_ids:
            return {}
        rows = await self._db.read(_seats_of, game_ids)
        return {
            game_id: {s.user_id: s.name for s in seats_from_json(loads(text)) if s.is_computer}
            for game_id, text in rows
        }

    async def set_board_message(self, game_id: int, message_id: int, move_count: int) -> None:
        """Remember the message that shows the board, and the move count it shows."""
        await self._db.run_alone(
            _set_columns,
            game_id,
            "board_message_id = ?, board_move_count = ?",
            (message_id, move_count),
        )

    async def set_options(self, game_id: int, options: dict[str, Any]) -> None:
        """Replace the game's options (table options, votes in progress, ...)."""
        await self._db.run(_set_columns, game_id, "options = ?", (dumps(options),))

    async def finish(self, game_id: int, status: GameStatus, now: float) -> None:
        """Close an active game as ``finished`` or ``cancelled``; its timers (but an older board's
        retirement, :data:`~bot.store.timers.RETIRE`) and votes go."""
        if status not in (FINISHED, CANCELLED):
            raise ValueError("A game is finished with status 'finished' or 'cancelled'.")
        await self._db.run(_finish, game_id, status, now)


_GAME_COLUMNS = (
    "g.id, g.guild_id, g.channel_id, g.settings, g.seed, g.seats, g.options, g.status, "
    "g.board_message_id, g.lobby_message_id, g.created_at, g.finished_at, s.move_count, s.state, "
    "g.board_move_count"
)


async def _create(
    conn: Connection,
    row: tuple[Any, ...],
    moves: list[tuple[int, int, str]],
    state: str,
    lobby_id: int | None,
) -> int:
    channel_id, now = row[1], row[-1]
    if await conn.fetchone(
        "SELECT 1 FROM games WHERE channel_id = ? AND status = 'active'", (channel_id,)
    ):
        raise ChannelBusyError(channel_id, "an active game")
    if lobby_id is not None:
        closed = await conn.execute(
            "UPDATE lobbies SET closed_at = ? WHERE id = ? AND channel_id = ? "
            "AND closed_at IS NULL",
            (now, lobby_id, channel_id),
        )
        if closed != 1:
            raise NotFoundError(f"There is no lobby {lobby_id} in this channel.")
    try:
        inserted = await conn.fetchone(
            "INSERT INTO games (guild_id, channel_id, settings, seed, seats, options, "
            "lobby_message_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            row,
        )
    except IntegrityError as error:  # another process's game, committed since the check
        raise ChannelBusyError(channel_id, "an active game") from error
    assert inserted is not None
    game_id = int(inserted[0])
    await conn.execute(
        "INSERT INTO snapshots (game_id, move_count, state, updated_at) VALUES (?, ?, ?, ?)",
        (game_id, len(moves), state, now),
    )
    await conn.executemany(
        "INSERT INTO moves (game_id, number, seat, move, created_at) VALUES (?, ?, ?, ?, ?)",
        [(game_id, number, seat, text, now) for number, seat, text in moves],
    )
    return game_id


async def _append_many(
    conn: Connection,
    game_id: int,
    first: int,
    rows: list[tuple[int, int, int | None, str]],
    state: str,
    now: float,
) -> None:
    updated = await conn.execute(
        "UPDATE snapshots SET move_count = move_count + ?, state = ?, updated_at = ? "
        "WHERE game_id = ? AND move_count = ? "
        "AND EXISTS (SELECT 1 FROM games WHERE id = ? AND status = 'active')",
        (len(rows), state, now, game_id, first, game_id),
    )
    if updated != 1:
        raise await _refusal(conn, game_id, first)
    try:
        await conn.executemany(
            "INSERT INTO moves (game_id, number, seat, actor_id, move, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [(game_id, number, seat, actor, text, now) for number, seat, actor, text in rows],
        )
    except IntegrityError as error:  # the unique index: a second guard
        raise StaleMoveError(game_id, first, first + 1) from error


async def _append_in_one(
    conn: Connection,
    game_id: int,
    first: int,
    rows: list[tuple[int, int, int | None, str]],
    state: str,
    now: float,
) -> None:
    """:func:`_append_many` in one statement (PostgreSQL: one round trip instead of two). The
    same guard: the moves are inserted only if the snapshot's conditional update matched."""
    try:
        inserted = await conn.fetchall(
            "WITH s AS (UPDATE snapshots SET move_count = move_count + ?, state = ?, "
            "updated_at = ? WHERE game_id = ? AND move_count = ? "
            "AND EXISTS (SELECT 1 FROM games WHERE id = ? AND status = 'active') "
            "RETURNING game_id) "
            "INSERT INTO moves (game_id, number, seat, actor_id, move, created_at) "
            "SELECT s.game_id, t.number, t.seat, t.actor, t.move, ? FROM s, "
            "unnest(?::integer[], ?::integer[], ?::bigint[], ?::text[]) "
            "AS t(number, seat, actor, move) RETURNING number",
            (
                len(rows),
                state,
                now,
                game_id,
                first,
                game_id,
                now,
                [row[0] for row in rows],
                [row[1] for row in rows],
                [row[2] for row in rows],
                [row[3] for row in rows],
            ),
        )
    except IntegrityError as error:  # the unique index: a second guard
        raise StaleMoveError(game_id, first, first + 1) from error
    if len(inserted) != len(rows):
        raise await _refusal(conn, game_id, first)


async def _truncate(
    conn: Connection, game_id: int, expected: int, count: int, state: str, now: float
) -> list[str]:
    updated = await conn.execute(
        "UPDATE snapshots SET move_count = move_count - ?, state = ?, updated_at = ? "
        "WHERE game_id = ? AND move_count = ? "
        "AND EXISTS (SELECT 1 FROM games WHERE id = ? AND status = 'active')",
        (count, state, now, game_id, expected, game_id),
    )
    if updated != 1:
        raise await _refusal(conn, game_id, expected)
    rows = await conn.fetchall(
        "SELECT id, move FROM moves WHERE game_id = ? AND number >= ? AND number < ? "
        "AND undone_at IS NULL ORDER BY number",
        (game_id, expected - count, expected),
    )
    if len(rows) != count:
        raise CorruptGameError(f"Game {game_id} lacks moves {expected - count} to {expected - 1}.")
    await conn.executemany(
        "UPDATE moves SET undone_at = ? WHERE id = ?", [(now, row[0]) for row in rows]
    )
    return [str(row[1]) for row in rows]


async def _keep_at(conn: Connection, game_id: int, expected: int) -> None:
    updated = await conn.execute(
        "UPDATE snapshots SET move_count = move_count WHERE game_id = ? AND move_count = ? "
        "AND EXISTS (SELECT 1 FROM games WHERE id = ? AND status = 'active')",
        (game_id, expected, game_id),
    )
    if updated != 1:
        raise await _refusal(conn, game_id, expected)


async def _refusal(conn: Connection, game_id: int, expected: int) -> Exception:
    """Why a guarded update changed nothing."""
    row = await conn.fetchone(
        "SELECT g.status, s.move_count FROM games g LEFT JOIN snapshots s ON s.game_id = g.id "
        "WHERE g.id = ?",
        (game_id,),
    )
    if row is None:
        return NotFoundError(f"There is no game {game_id}.")
    status, count = row
    if status != ACTIVE:
        return GameNotActiveError(f"Game {game_id} is {status}: it takes no more moves.")
    if count is None:
        return CorruptGameError(f"Game {game_id} has no snapshot.")
    return StaleMoveError(game_id, expected, count)


#: The number of live moves of game ``g``, from the index of live move numbers alone (``number
#: >= 0`` always holds; it steers SQLite to that index, which holds every column asked).
_LIVE_COUNT = (
    "SELECT count(*) FROM moves m WHERE m.game_id = g.id AND m.undone_at IS NULL AND m.number >= 0"
)
#: Which games to load (a condition on ``games g``); each is served by an index.
_BY_ID = "g.id = ?"
_ACTIVE = "g.status = 'active'"
_ACTIVE_IN_CHANNEL = "g.channel_id = ? AND g.status = 'active'"
_ACTIVE_SEATED = "g.status = 'active' AND g.seats LIKE ? AND g.guild_id = coalesce(?, g.guild_id)"


async def _load(
    conn: Connection,
    where: str,
    params: tuple[Any, ...],
    verify: bool,
    strict: bool,
    *,
    lazy: bool = False,
    upgrade: bool = False,
) -> list[tuple[GameRecord, bool]]:
    """Load the games ``where`` selects: (record, snapshot_ok) each.

    One query reads the games with their snapshots and the number of live moves of each: a
    snapshot that holds its log and as many moves as the log stands alone (``lazy``: decoded on
    first use, see :mod:`.snapshots`). Only the other games (an old snapshot, one behind its log,
    ``verify``) read their move rows, and are rebuilt from them. The cost grows with the games
    loaded, never with the history of finished games. With ``upgrade``, a snapshot written
    before snapshots held their log is written again with it (once: the next load is quick).
    """
    # ``where`` is one of this module's constants; values go in ``params``.
    rows = await conn.fetchall(
        f"SELECT {_GAME_COLUMNS}, ({_LIVE_COUNT}) FROM games g "
        f"LEFT JOIN snapshots s ON s.game_id = g.id WHERE {where} ORDER BY g.id",
        params,
    )
    if not rows:
        return []
    games: dict[int, Game] = {}
    if not verify:
        for row in rows:
            game = _from_snapshot(row, lazy)
            if game is not None:
                games[row[0]] = game
    texts = await _move_texts(conn, where, params, [r[0] for r in rows if r[0] not in games])
    votes = await select_for(conn, where, params)
    loaded: list[tuple[GameRecord, bool]] = []
    for row in rows:
        game_id = row[0]
        snapshot_ok = True
        game = games.get(game_id)
        try:
            if game is None:
                if row[13] is None:
                    raise CorruptGameError(f"Game {game_id} has no snapshot.")
                game, snapshot_ok = _rebuild(
                    game_id, row[3], row[4], row[12], row[13], texts[game_id], verify
                )
        except CorruptGameError:
            if strict:
                raise
            log.exception("Game %s cannot be loaded; it is left out.", game_id)
            continue
        if not snapshot_ok or (upgrade and game_id not in games and _can_hold_log(row, game)):
            await _repair(conn, game_id, game)
        record = GameRecord(
            game_id,
            row[1],
            row[2],
            seats_from_json(loads(row[5])),
            loads(row[6]),
            row[7],
            row[8],
            row[9],
            row[10],
            row[11],
            game,
            votes.get(game_id, {}),
            row[14],
        )
        loaded.append((record, snapshot_ok))
    return loaded


def _from_snapshot(row: tuple[Any, ...], lazy: bool) -> Game | None:
    """The game of a row whose snapshot stands alone (it holds its log, as long as the live
    log), or None: that game is rebuilt from its move rows."""
    count, text, live = row[12], row[13], row[15]
    if text is None or count != live or not has_log(text):
        return None
    try:
        settings, seed = _settings(row[3]), loads(row[4])
        if lazy:
            game = stored_game(settings, seed, count, text)
            if game is not None:
                return game
        return decode(settings, seed, count, text)
    except Exception:  # unreadable: rebuilt from the log (which says why)
        return None


def _can_hold_log(row: tuple[Any, ...], game: Game) -> bool:
    """True for an old snapshot (no log) whose game's log can be written into it."""
    return not has_log(row[13]) and notations(game.moves) is not None


def _settings(text: str) -> GameSettings:
    """The settings of a stored game (equal texts give the one shared value)."""
    settings = _SETTINGS.get(text)
    if settings is None:
        settings = GameSettings.from_dict(loads(text))
        if len(_SETTINGS) < 1024:
            _SETTINGS[text] = settings
    return settings


#: Settings by their stored text: a handful of distinct values in practice.
_SETTINGS: dict[str, GameSettings] = {}
#: Games whose move rows are read by listing their ids (more: by the loading condition).
_BY_IDS = 500


async def _move_texts(
    conn: Connection, where: str, params: tuple[Any, ...], ids: list[int]
) -> dict[int, list[str]]:
    """The live moves (JSON texts, in order) of the games ``ids`` among those ``where`` selects."""
    texts: dict[int, list[str]] = {game_id: [] for game_id in ids}
    if not ids:
        return texts
    if len(ids) > _BY_IDS:
        batches = [(f"(SELECT g.id FROM games g WHERE {where})", params)]
    else:
        batches = [("(" + ", ".join("?" * len(ids)) + ")", tuple(ids))]
    for which, args in batches:
        for game_id, text in await conn.fetchall(
            "SELECT m.game_id, m.move FROM moves m WHERE m.undone_at IS NULL AND m.game_id IN "
            f"{which} ORDER BY m.game_id, m.number",
            args,
        ):
            if game_id in texts:
                texts[game_id].append(text)
    return texts


def from_snapshot(
    settings: dict[str, Any], seed: Any, moves: list[dict[str, Any]], state_text: str
) -> Game:
    """The game as its stored snapshot holds it, in any layout (see :mod:`.upgrades`; a log
    the snapshot holds is left out: the moves given are the log)."""
    state = loads(state_text)
    if isinstance(state, dict):
        state.pop("log", None)
        upgrade_state(state, lambda: replay(settings, seed, moves))
    return Game.from_dict({"settings": settings, "seed": seed, "moves": moves, "state": state})


def replay(settings: dict[str, Any], seed: Any, moves: list[dict[str, Any]]) -> Game:
    """The game its stored settings, seed and live moves make, played again."""
    return Game.replay(GameSettings.from_dict(settings), seed, [Move.from_dict(m) for m in moves])


def _rebuild(
    game_id: int,
    settings_text: str,
    seed_text: str,
    count: int,
    state_text: str,
    move_texts: list[str],
    verify: bool,
) -> tuple[Game, bool]:
    """(game, snapshot_ok): from the snapshot when it agrees with the log, else by replay."""
    settings, seed = loads(settings_text), loads(seed_text)
    moves = loads_many(move_texts)
    game: Game | None = None
    if count != len(moves):
        log.warning(
            "Game %s: the snapshot is at move %s but the log has %s moves; replaying the log.",
            game_id,
            count,
            len(moves),
        )
    else:
        try:
            game = from_snapshot(settings, seed, moves, state_text)
        except Exception:
            log.warning("Game %s: the snapshot cannot be read; replaying the log.", game_id)
    if game is not None and not verify:
        return game, True
    try:
        replayed = replay(settings, seed, moves)
    except Exception as error:
        raise CorruptGameError(
            f"Game {game_id}: its move log cannot be replayed ({error})."
        ) from error
    if game is not None:
        if game == replayed and (not has_log(state_text) or _log_agrees(state_text, game)):
            return game, True
        log.warning("Game %s: the snapshot differs from the replayed log; using the log.", game_id)
    return replayed, False


def _log_agrees(state_text: str, game: Game) -> bool:
    """True when the log a snapshot holds is the game's."""
    try:
        return decode(game.settings, game.seed, len(game.moves), state_text).moves == game.moves
    except Exception:
        return False


async def _repair(conn: Connection, game_id: int, game: Game) -> None:
    """Store the replayed state as the snapshot, unless the log moved on meanwhile."""
    await conn.execute(
        "UPDATE snapshots SET move_count = ?, state = ? WHERE game_id = ? AND ? = "
        "(SELECT count(*) FROM moves WHERE game_id = ? AND undone_at IS NULL)",
        (len(game.moves), snapshot_text(game), game_id, len(game.moves), game_id),
    )


def _still_plays(record: GameRecord, user_id: int) -> bool:
    """True when ``user_id`` has a seat in the game and is not out of it."""
    return any(
        seat.user_id == user_id and not record.game.out[index]
        for index, seat in enumerate(record.seats)
    )


async def _seats_of(conn: Connection, game_ids: list[int]) -> list[tuple[Any, ...]]:
    marks = ", ".join("?" * len(game_ids))
    return await conn.fetchall(f"SELECT id, seats FROM games WHERE id IN ({marks})", game_ids)


async def _fetch_log(conn: Connection, game_id: int) -> list[tuple[Any, ...]]:
    if not await conn.fetchone("SELECT 1 FROM games WHERE id = ?", (game_id,)):
        raise NotFoundError(f"There is no game {game_id}.")
    return await conn.fetchall(
        "SELECT number, seat, actor_id, move, created_at, undone_at FROM moves "
        "WHERE game_id = ? ORDER BY id",
        (game_id,),
    )


async def _set_columns(
    conn: Connection, game_id: int, assignments: str, values: tuple[Any, ...]
) -> None:
    """``UPDATE games SET <assignments>`` for one game (``assignments`` is a constant of this
    module, values go in ``values``); :class:`NotFoundError` when there is no such game."""
    updated = await conn.execute(f"UPDATE games SET {assignments} WHERE id = ?", (*values, game_id))
    if updated != 1:
        raise NotFoundError(f"There is no game {game_id}.")


async def _finish(conn: Connection, game_id: int, status: str, now: float) -> None:
    updated = await conn.execute(
        "UPDATE games SET status = ?, finished_at = ? WHERE id = ? AND status = 'active'",
        (status, now, game_id),
    )
    if updated != 1:
        raise await _refusal(conn, game_id, -1)
    await conn.execute("DELETE FROM timers WHERE game_id = ? AND kind <> ?", (game_id, RETIRE))
    await conn.execute("DELETE FROM votes WHERE game_id = ?", (game_id,))
