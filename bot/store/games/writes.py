"""The guarded writes of a game's rows, for both backends.

A move is appended with the number it must get (the number of live moves before it). The move
row and the new snapshot are written in one transaction, guarded by the snapshot's move count
and by a unique index on the live move numbers: a second writer for the same turn gets
:class:`StaleMoveError` and nothing of it is written. An undo keeps the move in the log, marked
``undone_at``; loading ignores undone moves. Each function runs in the transaction open on its
connection (:meth:`Store.run`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import (
    ChannelBusyError,
    CorruptGameError,
    GameNotActiveError,
    IntegrityError,
    NotFoundError,
    StaleMoveError,
)
from ..lobbies import close_into_game
from ..timers import clear_game as clear_timers
from ..votes import clear_game as clear_votes
from .records import ACTIVE

if TYPE_CHECKING:
    from ..connection import Connection


async def create(
    conn: Connection,
    row: tuple[Any, ...],
    moves: list[tuple[int, int, str]],
    state: str,
    lobby_id: int | None,
) -> int:
    """Insert a game (``row``: the games table's columns), its snapshot and its first moves;
    the new game's id. :class:`ChannelBusyError` when the channel has an active game."""
    channel_id, now = row[1], row[-1]
    if await conn.fetchone(
        "SELECT 1 FROM games WHERE channel_id = ? AND status = 'active'", (channel_id,)
    ):
        raise ChannelBusyError(channel_id, "an active game")
    if lobby_id is not None:  # the lobby becomes this game
        await close_into_game(conn, lobby_id, channel_id, now)
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


async def append_many(
    conn: Connection,
    game_id: int,
    first: int,
    rows: list[tuple[int, int, int | None, str]],
    state: str,
    now: float,
) -> None:
    """Append move ``rows`` (number, seat, actor, move) from number ``first``, with the new
    snapshot ``state``, if the game has exactly ``first`` live moves (else the refusal's error)."""
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


async def append_in_one(
    conn: Connection,
    game_id: int,
    first: int,
    rows: list[tuple[int, int, int | None, str]],
    state: str,
    now: float,
) -> None:
    """:func:`append_many` in one statement (PostgreSQL: one round trip instead of two). The
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


async def truncate(
    conn: Connection, game_id: int, expected: int, count: int, state: str, now: float
) -> list[str]:
    """Mark the last ``count`` of ``expected`` live moves undone and store ``state``; the
    undone moves' texts, in order."""
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


async def keep_at(conn: Connection, game_id: int, expected: int) -> None:
    """Lock the game's snapshot row at ``expected`` live moves until the commit."""
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


async def set_columns(
    conn: Connection, game_id: int, assignments: str, values: tuple[Any, ...]
) -> None:
    """``UPDATE games SET <assignments>`` for one game (``assignments`` is a constant of the
    repository, values go in ``values``); :class:`NotFoundError` when there is no such game."""
    updated = await conn.execute(f"UPDATE games SET {assignments} WHERE id = ?", (*values, game_id))
    if updated != 1:
        raise NotFoundError(f"There is no game {game_id}.")


async def finish(conn: Connection, game_id: int, status: str, now: float) -> None:
    """Close an active game with ``status``; its timers (but an older board's retirement) and
    votes go."""
    updated = await conn.execute(
        "UPDATE games SET status = ?, finished_at = ? WHERE id = ? AND status = 'active'",
        (status, now, game_id),
    )
    if updated != 1:
        raise await _refusal(conn, game_id, -1)
    await clear_timers(conn, game_id)
    await clear_votes(conn, game_id)


async def pause_channel(conn: Connection, channel_id: int, code: int | None) -> None:
    """Set (or, None, clear) why the table of the channel's active game cannot be used."""
    await conn.execute(
        "UPDATE games SET paused = ? WHERE channel_id = ? AND status = 'active'",
        (code, channel_id),
    )


async def paused_now(conn: Connection, game_id: int, lock: str) -> int | None:
    """Why the game's table cannot be used, as committed (``lock``: a row lock clause or "")."""
    row = await conn.fetchone(f"SELECT paused FROM games WHERE id = ?{lock}", (game_id,))
    return None if row is None or row[0] is None else int(row[0])
