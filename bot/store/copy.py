"""Copy a whole store to another (SQLite to PostgreSQL, or any backend to any), then verify it.

Every table is copied row for row, ids included, in one transaction on the target, and checked
before that transaction commits: each table's rows on the target equal the source's (a digest of
every row, in key order), and every game's move log, replayed on the target, gives its stored
snapshot. A failure leaves the target as it was. The bot must be stopped while it runs.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .errors import CorruptGameError, StoreError
from .games.loading import rebuild
from .migrations import current_version
from .revisions import stamp_rules

if TYPE_CHECKING:
    from .base import Store
    from .connection import Connection

log = logging.getLogger(__name__)

#: Rows read and written per statement batch.
BATCH = 2000


@dataclass(frozen=True)
class Table:
    """A table to copy: its columns, and the key it is read in order of."""

    name: str
    columns: tuple[str, ...]
    #: The primary key, the order rows are read in (by key when it is one column).
    key: tuple[str, ...]
    #: True when ``id`` is an identity column (PostgreSQL's sequence is moved past the copy).
    identity: bool = False


def _table(name: str, columns: str, key: str, *, identity: bool = False) -> Table:
    return Table(name, tuple(columns.split()), tuple(key.split()), identity)


#: Every table of the schema (version 13), parents before children.
TABLES: tuple[Table, ...] = (
    _table(
        "lobbies",
        "id guild_id channel_id host_id options seats message_id created_at closed_at",
        "id",
        identity=True,
    ),
    _table(
        "games",
        "id guild_id channel_id settings seed seats options status board_message_id "
        "lobby_message_id created_at finished_at board_move_count paused",
        "id",
        identity=True,
    ),
    _table(
        "moves", "id game_id number seat actor_id move created_at undone_at", "id", identity=True
    ),
    _table("snapshots", "game_id move_count state updated_at", "game_id"),
    _table(
        "tabletalk_reports",
        "id game_id reporter_id team status message_id created_at resolved_at resolved_by",
        "id",
        identity=True,
    ),
    _table("timers", "game_id kind due_at payload", "game_id kind"),
    _table(
        "votes",
        "game_id kind team seats move_count turns_left message_id created_at expires_at",
        "game_id kind team",
    ),
    _table("preferences", "user_id key value", "user_id key"),
    _table(
        "results", "game_id guild_id teams winner_team rated summary finished_at seq", "game_id"
    ),
    _table(
        "result_players",
        "game_id team user_id guild_id seq outcome sequences jacks",
        "game_id team user_id",
    ),
    _table("ratings", "guild_id user_id mu sigma ordinal games", "guild_id user_id"),
    _table(
        "rating_changes", "guild_id user_id seq game_id ordinal delta", "guild_id user_id seq"
    ),
    _table(
        "player_totals",
        "guild_id user_id games wins draws losses sequences jacks",
        "guild_id user_id",
    ),
    _table(
        "season_ratings",
        "guild_id season user_id mu sigma ordinal games last_at",
        "guild_id season user_id",
    ),
    _table("season_ends", "id guild_id season ends_at state", "id", identity=True),
    _table("chores", "name done_at", "name"),
    _table("guild_settings", "guild_id name value changed_by changed_at", "guild_id name"),
    _table(
        "away_periods",
        "id user_id guild_id from_at until_at cover ended_at",
        "id",
        identity=True,
    ),
    _table(
        "tournaments",
        "id guild_id channel_id organiser_id name format team_size options status round "
        "message_id created_at finished_at",
        "id",
        identity=True,
    ),
    _table(
        "tournament_entrants",
        "id tournament_id name members seed joined_at dropped_at",
        "id",
        identity=True,
    ),
    _table("tournament_players", "tournament_id user_id entrant_id", "tournament_id user_id"),
    _table(
        "tournament_matches",
        "id tournament_id round number entrant_a entrant_b status outcome winner thread_id "
        "game_id message_id checkins deadline finished_at thread_gone_at",
        "id",
        identity=True,
    ),
    _table(
        "seeks",
        "id guild_id user_id name players speed rated computer_after rating channel_id "
        "created_at expires_at status lobby_id",
        "id",
        identity=True,
    ),
    _table(
        "events",
        "id game_id tournament_id kind payload pending created_at delivered_at seek_id "
        "season_end_id",
        "id",
        identity=True,
    ),
)

#: The schema version :data:`TABLES` describes.
SCHEMA_VERSION = 13


class CopyError(StoreError):
    """The copy was refused (a non-empty target, different schemas) or did not verify."""


@dataclass
class CopyReport:
    """What was copied and checked."""

    rows: dict[str, int] = field(default_factory=dict)
    games_verified: int = 0


async def copy_store(
    source: Store,
    target: Store,
    *,
    force: bool = False,
    progress: Callable[[str], None] = lambda line: None,
) -> CopyReport:
    """Copy every row of ``source`` into ``target``, then verify; raises :class:`CopyError`.

    ``target`` must hold no rows (only its schema) unless ``force``, which deletes them first
    (in the same transaction as the copy).
    """
    for db in (source, target):
        version = await db.read(current_version)
        if version != SCHEMA_VERSION:
            raise CopyError(
                f"{db.location} has schema version {version}; this copy knows version "
                f"{SCHEMA_VERSION} only."
            )
    report = CopyReport()
    async with target.transaction():
        filled = [t.name for t in TABLES if await target.read(_has_rows, t)]
        if filled and not force:
            raise CopyError(
                f"{target.location} already holds data (in {', '.join(filled)}): "
                "give --force to replace it."
            )
        for table in reversed(TABLES):
            await target.run(_delete_all, table)
        for table in TABLES:
            count = 0
            async for rows in _pages(source, table):
                await target.run(_insert, table, rows)
                count += len(rows)
            report.rows[table.name] = count
            progress(f"copied {count} rows of {table.name}")
        if target.dialect == "postgresql":
            for table in TABLES:
                if table.identity:
                    await target.run(_move_sequence, table)
        # Verified before the commit: a copy that fails is rolled back.
        for table in TABLES:
            if await _digest(source, table) != await _digest(target, table):
                raise CopyError(f"The copy of {table.name} differs from the source.")
        progress("every table's rows match the source")
        stamped = await stamp_rules(target)  # as the bot would at its start: then verified
        if stamped:
            progress(f"recorded the rules revision of {stamped} game(s) stored without one")
        report.games_verified = await verify_games(target, progress)
    return report


async def verify_games(db: Store, progress: Callable[[str], None] = lambda line: None) -> int:
    """Replay every game's log and compare it with its snapshot; the number of games checked.

    Raises :class:`CopyError` naming the games whose snapshot and log disagree. Writes nothing.
    """
    bad: list[str] = []
    checked = 0
    last = 0
    while True:
        ids = await db.read(_game_ids, last)
        if not ids:
            break
        for game_id in ids:
            problem = await db.read(_check_game, game_id)
            if problem:
                bad.append(problem)
            checked += 1
        last = ids[-1]
        progress(f"verified {checked} games")
    if bad:
        raise CopyError(
            f"{len(bad)} game(s) do not replay to their snapshot: " + "; ".join(bad[:5])
        )
    return checked


async def _pages(db: Store, table: Table) -> AsyncIterator[list[tuple[Any, ...]]]:
    """The table's rows in key order, a batch at a time."""
    columns = ", ".join(table.columns)
    order = ", ".join(table.key)
    if len(table.key) == 1:  # a unique key: pages by key, each found through the index
        key = table.key[0]
        last: Any = None
        while True:
            where = "" if last is None else f"WHERE {key} > ? "
            params: tuple[Any, ...] = () if last is None else (last,)
            rows = await db.read(
                _fetch, f"SELECT {columns} FROM {table.name} {where}ORDER BY {key} LIMIT ?",
                (*params, BATCH),
            )
            if not rows:
                return
            yield rows
            last = rows[-1][table.columns.index(key)]
    else:  # the smaller tables with a composite key: pages by offset
        offset = 0
        while True:
            rows = await db.read(
                _fetch,
                f"SELECT {columns} FROM {table.name} ORDER BY {order} LIMIT ? OFFSET ?",
                (BATCH, offset),
            )
            if not rows:
                return
            yield rows
            offset += len(rows)


async def _digest(db: Store, table: Table) -> str:
    digest = hashlib.sha256()
    async for rows in _pages(db, table):
        for row in rows:
            digest.update(repr(row).encode())
    return digest.hexdigest()


async def _fetch(conn: Connection, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    # ``sql`` is built from this module's constants only; values go in ``params``.
    return await conn.fetchall(sql, params)


async def _has_rows(conn: Connection, table: Table) -> bool:
    return await conn.fetchone(f"SELECT 1 FROM {table.name} LIMIT 1") is not None


async def _delete_all(conn: Connection, table: Table) -> None:
    await conn.execute(f"DELETE FROM {table.name}")


async def _insert(conn: Connection, table: Table, rows: list[tuple[Any, ...]]) -> None:
    marks = ", ".join("?" for _ in table.columns)
    await conn.executemany(
        f"INSERT INTO {table.name} ({', '.join(table.columns)}) VALUES ({marks})", rows
    )


async def _move_sequence(conn: Connection, table: Table) -> None:
    """Restart the identity past the copied ids (PostgreSQL), so new rows get new ids.

    ``ALTER TABLE ... RESTART`` is undone with the copy's transaction (``setval`` is not: a
    failed copy would leave a target's sequences behind its own ids)."""
    row = await conn.fetchone(f"SELECT coalesce(max(id), 0) + 1 FROM {table.name}")
    start = int(row[0]) if row else 1
    await conn.execute(f"ALTER TABLE {table.name} ALTER COLUMN id RESTART WITH {start}")


async def _game_ids(conn: Connection, after: int) -> list[int]:
    rows = await conn.fetchall(
        "SELECT id FROM games WHERE id > ? ORDER BY id LIMIT ?", (after, BATCH)
    )
    return [int(row[0]) for row in rows]


async def _check_game(conn: Connection, game_id: int) -> str | None:
    """Why the game's snapshot and replayed log disagree, or None."""
    row = await conn.fetchone(
        "SELECT g.settings, g.seed, s.move_count, s.state FROM games g "
        "LEFT JOIN snapshots s ON s.game_id = g.id WHERE g.id = ?",
        (game_id,),
    )
    if row is None or row[3] is None:
        return f"game {game_id} has no snapshot"
    moves = [
        text
        for (text,) in await conn.fetchall(
            "SELECT move FROM moves WHERE game_id = ? AND undone_at IS NULL ORDER BY number",
            (game_id,),
        )
    ]
    try:
        _, snapshot_ok = rebuild(game_id, row[0], row[1], row[2], row[3], moves, True)
    except CorruptGameError as error:
        return str(error)
    return None if snapshot_ok else f"game {game_id}'s snapshot differs from its replayed log"
