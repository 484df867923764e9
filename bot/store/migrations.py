"""Versioned schema migrations, applied in order at start-up.

Add a migration by appending ``(next_version, sql)`` to :data:`MIGRATIONS`. Never edit or remove
an applied one: its checksum is stored, and a database whose applied migrations differ from the
code is refused. Each migration runs in its own transaction together with its ``schema_version``
row, so a crash leaves either all of it or none. (SQLite ignores ``PRAGMA foreign_keys`` inside
a transaction: a migration that rebuilds a table must keep the foreign keys valid itself.)
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from typing import TYPE_CHECKING

from .errors import MigrationError, SchemaTooNewError, StoreError

if TYPE_CHECKING:
    from .base import Store
    from .connection import Connection

_V1 = """
CREATE TABLE lobbies (
    id          INTEGER PRIMARY KEY,
    guild_id    INTEGER NOT NULL,
    channel_id  INTEGER NOT NULL,
    host_id     INTEGER NOT NULL,
    options     TEXT NOT NULL,
    seats       TEXT NOT NULL,
    message_id  INTEGER,
    created_at  REAL NOT NULL
);
CREATE UNIQUE INDEX lobbies_one_per_channel ON lobbies (channel_id);

CREATE TABLE games (
    id                INTEGER PRIMARY KEY,
    guild_id          INTEGER NOT NULL,
    channel_id        INTEGER NOT NULL,
    settings          TEXT NOT NULL,
    seed              TEXT NOT NULL,
    seats             TEXT NOT NULL,
    options           TEXT NOT NULL,
    status            TEXT NOT NULL DEFAULT 'active'
                      CHECK (status IN ('active', 'finished', 'cancelled')),
    board_message_id  INTEGER,
    lobby_message_id  INTEGER,
    created_at        REAL NOT NULL,
    finished_at       REAL
);
CREATE UNIQUE INDEX games_one_active_per_channel ON games (channel_id) WHERE status = 'active';
CREATE INDEX games_by_guild ON games (guild_id, created_at);

CREATE TABLE moves (
    id          INTEGER PRIMARY KEY,
    game_id     INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    number      INTEGER NOT NULL CHECK (number >= 0),
    seat        INTEGER NOT NULL,
    actor_id    INTEGER,
    move        TEXT NOT NULL,
    created_at  REAL NOT NULL,
    undone_at   REAL
);
CREATE UNIQUE INDEX moves_live_number ON moves (game_id, number) WHERE undone_at IS NULL;
CREATE INDEX moves_by_game ON moves (game_id, id);

CREATE TABLE snapshots (
    game_id     INTEGER PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    move_count  INTEGER NOT NULL CHECK (move_count >= 0),
    state       TEXT NOT NULL,
    updated_at  REAL NOT NULL
);

CREATE TABLE tabletalk_reports (
    id           INTEGER PRIMARY KEY,
    game_id      INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    reporter_id  INTEGER NOT NULL,
    team         INTEGER NOT NULL,
    status       TEXT NOT NULL DEFAULT 'pending'
                 CHECK (status IN ('pending', 'upheld', 'dismissed')),
    message_id   INTEGER,
    created_at   REAL NOT NULL,
    resolved_at  REAL,
    resolved_by  INTEGER
);
CREATE INDEX tabletalk_by_game ON tabletalk_reports (game_id, status);

CREATE TABLE timers (
    game_id  INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    kind     TEXT NOT NULL,
    due_at   REAL NOT NULL,
    payload  TEXT NOT NULL,
    PRIMARY KEY (game_id, kind)
) WITHOUT ROWID;
CREATE INDEX timers_by_due ON timers (due_at);

CREATE TABLE preferences (
    user_id  INTEGER NOT NULL,
    key      TEXT NOT NULL,
    value    TEXT NOT NULL,
    PRIMARY KEY (user_id, key)
) WITHOUT ROWID;

CREATE TABLE results (
    game_id      INTEGER PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    guild_id     INTEGER NOT NULL,
    teams        TEXT NOT NULL,
    winner_team  INTEGER,
    rated        INTEGER NOT NULL CHECK (rated IN (0, 1)),
    summary      TEXT NOT NULL,
    finished_at  REAL NOT NULL
);
CREATE INDEX results_by_guild ON results (guild_id, finished_at);

CREATE TABLE result_players (
    game_id  INTEGER NOT NULL REFERENCES results (game_id) ON DELETE CASCADE,
    team     INTEGER NOT NULL,
    user_id  INTEGER NOT NULL,
    PRIMARY KEY (game_id, team, user_id)
) WITHOUT ROWID;
CREATE INDEX result_players_by_user ON result_players (user_id, game_id);
"""

#: Tournaments: entrants (a user or a fixed team), players (one entrant per user and tournament),
#: and matches, each with its thread, game, check-ins and show-up deadline.
_V2 = """
CREATE TABLE tournaments (
    id            INTEGER PRIMARY KEY,
    guild_id      INTEGER NOT NULL,
    channel_id    INTEGER NOT NULL,
    organiser_id  INTEGER NOT NULL,
    name          TEXT NOT NULL,
    format        TEXT NOT NULL CHECK (format IN ('round_robin', 'swiss', 'elimination')),
    team_size     INTEGER NOT NULL CHECK (team_size IN (1, 2, 3)),
    options       TEXT NOT NULL,
    status        TEXT NOT NULL DEFAULT 'signup'
                  CHECK (status IN ('signup', 'running', 'finished', 'cancelled')),
    round         INTEGER NOT NULL DEFAULT 0,
    message_id    INTEGER,
    created_at    REAL NOT NULL,
    finished_at   REAL
);
CREATE UNIQUE INDEX tournaments_one_open_per_channel ON tournaments (channel_id)
    WHERE status IN ('signup', 'running');
CREATE INDEX tournaments_by_guild ON tournaments (guild_id, created_at);

CREATE TABLE tournament_entrants (
    id             INTEGER PRIMARY KEY,
    tournament_id  INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    name           TEXT NOT NULL,
    members        TEXT NOT NULL,
    seed           INTEGER,
    joined_at      REAL NOT NULL,
    dropped_at     REAL
);
CREATE INDEX tournament_entrants_by_tournament ON tournament_entrants (tournament_id, id);

CREATE TABLE tournament_players (
    tournament_id  INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    user_id        INTEGER NOT NULL,
    entrant_id     INTEGER NOT NULL REFERENCES tournament_entrants (id) ON DELETE CASCADE,
    PRIMARY KEY (tournament_id, user_id)
) WITHOUT ROWID;

CREATE TABLE tournament_matches (
    id             INTEGER PRIMARY KEY,
    tournament_id  INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    round          INTEGER NOT NULL CHECK (round >= 1),
    number         INTEGER NOT NULL CHECK (number >= 1),
    entrant_a      INTEGER NOT NULL REFERENCES tournament_entrants (id),
    entrant_b      INTEGER REFERENCES tournament_entrants (id),
    status         TEXT NOT NULL DEFAULT 'pending'
                   CHECK (status IN ('pending', 'playing', 'done', 'cancelled')),
    outcome        TEXT,
    winner         INTEGER REFERENCES tournament_entrants (id),
    thread_id      INTEGER,
    game_id        INTEGER,
    message_id     INTEGER,
    checkins       TEXT NOT NULL DEFAULT '[]',
    deadline       REAL,
    finished_at    REAL
);
CREATE UNIQUE INDEX tournament_matches_place ON tournament_matches (tournament_id, round, number);
CREATE INDEX tournament_matches_by_thread ON tournament_matches (thread_id);
CREATE INDEX tournament_matches_by_game ON tournament_matches (game_id);
"""

#: Closed lobbies keep their row (and so their id, never reused): a button on an old lobby
#: message then answers that the lobby is closed instead of acting on a newer one.
_V3 = """
ALTER TABLE lobbies ADD COLUMN closed_at REAL;
DROP INDEX lobbies_one_per_channel;
CREATE UNIQUE INDEX lobbies_one_open_per_channel ON lobbies (channel_id) WHERE closed_at IS NULL;
"""

#: Team votes get their own table (resignation votes, draw offers and their cooldowns); the
#: resignation votes of active games move there from the game's options.
_V4 = """
CREATE TABLE votes (
    game_id     INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    kind        TEXT NOT NULL CHECK (kind IN ('resign', 'draw', 'draw_cooldown')),
    team        INTEGER NOT NULL,
    seats       TEXT NOT NULL,
    move_count  INTEGER NOT NULL DEFAULT 0,
    turns_left  INTEGER NOT NULL DEFAULT 0,
    message_id  INTEGER,
    created_at  REAL NOT NULL,
    expires_at  REAL,
    PRIMARY KEY (game_id, kind, team)
) WITHOUT ROWID;
INSERT INTO votes (game_id, kind, team, seats, created_at)
SELECT g.id, 'resign',
       CAST(j.value AS INTEGER) % CAST(json_extract(g.settings, '$.teams') AS INTEGER),
       json_group_array(CAST(j.value AS INTEGER)), g.created_at
FROM games g, json_each(g.options, '$.resign_votes') AS j
WHERE g.status = 'active'
GROUP BY g.id, CAST(j.value AS INTEGER) % CAST(json_extract(g.settings, '$.teams') AS INTEGER);
UPDATE games SET options = json_remove(options, '$.resign_votes')
WHERE json_type(options, '$.resign_votes') IS NOT NULL;
"""

# 5: the move count the game's latest posted board shows, so a board that a crash or a Discord
# error kept from being posted is posted at start-up (NULL: no board posted yet). Games from
# before it are taken as shown.
_V5 = """
ALTER TABLE games ADD COLUMN board_move_count INTEGER;
UPDATE games SET board_move_count = (SELECT move_count FROM snapshots WHERE game_id = games.id);
"""

# 6: the outbox. A change writes the events it causes in its own transaction; each process's
# dispatcher delivers the undelivered ones of its games to their consumers (``pending`` names
# the consumers still to be told, space-separated; empty once delivered) and later prunes them.
# What the table kept in the timers table to try again (a final board, older boards to retire)
# is the outbox's now: those rows go, and ``timers`` holds timers only.
_V6 = """
CREATE TABLE events (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id     INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    kind        TEXT NOT NULL,
    payload     TEXT NOT NULL,
    pending     TEXT NOT NULL,
    created_at  REAL NOT NULL,
    delivered_at REAL
);
CREATE INDEX events_undelivered ON events (game_id, id) WHERE delivered_at IS NULL;
CREATE INDEX events_delivered ON events (delivered_at) WHERE delivered_at IS NOT NULL;
DELETE FROM timers WHERE kind IN ('final_board', 'retire');
"""

#: Every migration, in order: (version, sql). Append only.
MIGRATIONS: tuple[tuple[int, str], ...] = (
    (1, _V1),
    (2, _V2),
    (3, _V3),
    (4, _V4),
    (5, _V5),
    (6, _V6),
)

#: The table of applied migrations, per dialect (``Store.dialect``).
_VERSION_TABLE = {
    "sqlite": """
CREATE TABLE IF NOT EXISTS schema_version (
    version     INTEGER PRIMARY KEY,
    checksum    TEXT NOT NULL,
    applied_at  REAL NOT NULL
)
""",
    "postgresql": """
CREATE TABLE IF NOT EXISTS schema_version (
    version     INTEGER PRIMARY KEY,
    checksum    TEXT NOT NULL,
    applied_at  DOUBLE PRECISION NOT NULL
)
""",
}

#: Every table of the database, per dialect (PostgreSQL: in the schema the bot connects to).
_TABLES = {
    "sqlite": "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
    "postgresql": "SELECT table_name FROM information_schema.tables "
    "WHERE table_schema = current_schema()",
}

#: The key of the PostgreSQL advisory lock that serialises migrations across processes.
MIGRATION_LOCK = 0x5E0_0E1CE


def latest_version(migrations: tuple[tuple[int, str], ...] = MIGRATIONS) -> int:
    """The schema version this code writes."""
    return migrations[-1][0] if migrations else 0


def stored_version(conn: sqlite3.Connection) -> int | None:
    """The schema version of a SQLite file opened with :mod:`sqlite3` (for the command line's
    checks and backups, outside the bot's store): None when it has no ``schema_version`` table,
    so is not this bot's database (or is empty)."""
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    if "schema_version" not in tables:
        return None
    return int(conn.execute("SELECT coalesce(max(version), 0) FROM schema_version").fetchone()[0])


def checksum(sql: str) -> str:
    """A digest of a migration's text, insensitive to whitespace changes."""
    return hashlib.sha256(" ".join(sql.split()).encode()).hexdigest()


def statements(sql: str) -> list[str]:
    """Split a script into complete statements (triggers with inner ``;`` stay whole)."""
    result: list[str] = []
    buffer = ""
    for line in sql.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            result.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        raise MigrationError(f"Incomplete SQL statement in a migration: {buffer.strip()[:80]!r}")
    return result


async def migrate(db: Store, migrations: tuple[tuple[int, str], ...] = MIGRATIONS) -> int:
    """Bring the schema up to date, each migration in its own transaction.

    ``migrations`` must be in the database's dialect. Returns the schema version. Raises
    :class:`SchemaTooNewError` for a database from a newer bot, and :class:`MigrationError` for
    one that is not ours or whose history differs. Several processes may start together: on
    PostgreSQL each step holds an advisory lock and checks again under it (on SQLite, the write
    lock of ``BEGIN IMMEDIATE`` does the same).
    """
    _check_sequence(migrations)
    known = dict(migrations)
    supported = latest_version(migrations)
    dialect, where = db.dialect, db.location
    tables = await db.read(_tables, dialect)
    if "schema_version" not in tables:
        await db.run(_create_version_table, dialect, where)
    applied = await db.read(_applied)
    _check_applied(applied, known, supported, where)
    for version, sql in migrations:
        if version not in applied:
            await db.run(_apply, dialect, version, sql)
    return supported


async def _lock(conn: Connection, dialect: str) -> None:
    """Wait for the other processes' migration steps (PostgreSQL; held until the commit)."""
    if dialect == "postgresql":
        await conn.fetchone("SELECT pg_advisory_xact_lock(?)", (MIGRATION_LOCK,))


async def _create_version_table(conn: Connection, dialect: str, where: str) -> None:
    await _lock(conn, dialect)
    tables = await _tables(conn, dialect)
    if "schema_version" in tables:
        return  # another process made it meanwhile
    if tables:
        kind = "a SQLite" if dialect == "sqlite" else "a PostgreSQL"
        target = "another file" if dialect == "sqlite" else "another (empty) database"
        raise MigrationError(
            f"{where} is {kind} database, but not one of this bot's (it has tables and no "
            f"schema_version table). Point the bot at {target}."
        )
    await conn.execute(_VERSION_TABLE[dialect])


async def _apply(conn: Connection, dialect: str, version: int, sql: str) -> None:
    await _lock(conn, dialect)
    # Re-read under the lock: another process may have just applied it.
    if await conn.fetchone("SELECT 1 FROM schema_version WHERE version = ?", (version,)):
        return
    try:
        for statement in statements(sql):
            await conn.execute(statement)
    except (sqlite3.OperationalError, StoreError) as error:
        raise MigrationError(f"Migration {version} failed: {error}") from error
    await conn.execute(
        "INSERT INTO schema_version (version, checksum, applied_at) VALUES (?, ?, ?)",
        (version, checksum(sql), time.time()),
    )


async def _tables(conn: Connection, dialect: str) -> set[str]:
    return {str(row[0]) for row in await conn.fetchall(_TABLES[dialect])}


async def current_version(conn: Connection) -> int:
    """The highest applied version (0 for an empty database)."""
    return max(await _applied(conn), default=0)


async def _applied(conn: Connection) -> dict[int, str]:
    return dict(await conn.fetchall("SELECT version, checksum FROM schema_version"))


def _check_sequence(migrations: tuple[tuple[int, str], ...]) -> None:
    versions = [version for version, _ in migrations]
    if versions != list(range(1, len(versions) + 1)):
        raise MigrationError(f"Migration versions must be 1, 2, 3, ... in order, not {versions}.")


def _check_applied(
    applied: dict[int, str], known: dict[int, str], supported: int, where: str
) -> None:
    newest = max(applied, default=0)
    if newest > supported:
        raise SchemaTooNewError(where, newest, supported)
    for version, digest in sorted(applied.items()):
        if digest != checksum(known[version]):
            raise MigrationError(
                f"Migration {version} in the code differs from the one applied to {where}. An "
                "applied migration must never change: restore it and add a new migration instead."
            )
