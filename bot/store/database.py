"""The database: one SQLite file, one aiosqlite connection, and the repositories on it.

Concurrency without an ``asyncio.Lock``: aiosqlite runs every call on one worker thread, one call
at a time, in order. :meth:`Database.run` ships a whole blocking function (all statements of a
transaction, from ``BEGIN`` to ``COMMIT``) to that thread as *one* call, so two coroutines can
never interleave statements inside each other's transactions. Across processes, ``BEGIN
IMMEDIATE`` and the schema's unique indexes do the guarding.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Concatenate, ParamSpec, TypeVar

import aiosqlite

from .errors import DatabaseUnreadableError, StoreError
from .games import Games
from .lobbies import Lobbies
from .migrations import MIGRATIONS, current_version, migrate
from .prefs import Prefs
from .results import Results
from .tabletalk import TableTalk
from .timers import Timers
from .tournaments import Tournaments

log = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")

DEFAULT_PATH = Path("data/sequence.db")
SYNCHRONOUS_MODES = ("OFF", "NORMAL", "FULL", "EXTRA")

#: SQLite primary result codes that mean the file itself cannot be used.
_UNUSABLE = {
    3: "permission denied",  # SQLITE_PERM
    8: "the file is read-only",  # SQLITE_READONLY
    10: "a disk input/output error",  # SQLITE_IOERR
    11: "the file is damaged (database disk image is malformed)",  # SQLITE_CORRUPT
    14: "the file cannot be opened",  # SQLITE_CANTOPEN
    26: "the file is not a SQLite database",  # SQLITE_NOTADB
}


class Database:
    """The store. Open with ``await Database.open(path)``; repositories are attributes."""

    def __init__(self, connection: aiosqlite.Connection, path: Path) -> None:
        self._connection = connection
        self.path = path
        self.lobbies = Lobbies(self)
        self.games = Games(self)
        self.results = Results(self)
        self.prefs = Prefs(self)
        self.timers = Timers(self)
        self.tabletalk = TableTalk(self)
        self.tournaments = Tournaments(self)

    @classmethod
    async def open(
        cls,
        path: str | Path = DEFAULT_PATH,
        *,
        synchronous: str = "NORMAL",
        check: bool = False,
        migrations: tuple[tuple[int, str], ...] = MIGRATIONS,
    ) -> Database:
        """Open (creating the file and its folder if needed), configure and migrate the database.

        ``synchronous="NORMAL"`` in WAL mode: a commit writes its WAL frames to the operating
        system before returning, without fsync. A killed process (even SIGKILL) loses nothing
        acknowledged, because the OS still holds and later writes those pages; only a power cut
        or OS crash may lose the last commits (never corrupting the file). Use ``"FULL"`` to
        survive power loss too, at the cost of an fsync per move.

        ``check=True`` also runs ``PRAGMA quick_check`` (slower on a large file).
        """
        path = Path(path)
        mode = synchronous.upper()
        if mode not in SYNCHRONOUS_MODES:
            raise ValueError(f"synchronous must be one of {', '.join(SYNCHRONOUS_MODES)}.")
        if path.is_dir():
            raise DatabaseUnreadableError(path, "it is a folder, not a file")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise DatabaseUnreadableError(
                path, f"its folder cannot be created ({error.strerror})"
            ) from error
        try:
            connection = await aiosqlite.connect(path, isolation_level=None, timeout=10.0)
        except sqlite3.Error as error:
            raise _translate(path, error) from error
        db = cls(connection, path)
        try:
            await db.run(_configure, mode)
            await db.run(migrate, path, migrations)
            if check:
                problems = await db.run(_check, "quick_check")
                if problems != ["ok"]:
                    raise DatabaseUnreadableError(
                        path, "the integrity check failed: " + "; ".join(problems[:3])
                    )
        except BaseException:
            await connection.close()
            raise
        return db

    async def close(self) -> None:
        """Close the connection (idempotent). The WAL is checkpointed by SQLite."""
        await self._connection.close()

    async def __aenter__(self) -> Database:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def run(
        self, fn: Callable[Concatenate[sqlite3.Connection, P], T], *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """Run ``fn(connection, *args)`` on the database thread, as one uninterrupted call.

        SQLite errors come back as :class:`StoreError` (:class:`DatabaseUnreadableError` when
        the file is damaged or unreadable).
        """
        connection = self._connection
        try:
            raw = connection._conn  # the sqlite3 connection, used only on its own thread
            return await connection._execute(fn, raw, *args, **kwargs)
        except sqlite3.Error as error:
            raise _translate(self.path, error) from error
        except ValueError as error:
            if "no active connection" in str(error) or "Connection closed" in str(error):
                raise StoreError(f"The database {self.path} is closed.") from error
            raise

    async def integrity_check(self) -> list[str]:
        """``PRAGMA integrity_check``: ``["ok"]`` for a sound file, else the problems found."""
        return await self.run(_check, "integrity_check")

    async def schema_version(self) -> int:
        """The highest applied migration."""
        return await self.run(current_version)


def _configure(conn: sqlite3.Connection, synchronous: str) -> None:
    mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    if str(mode).lower() != "wal":
        log.warning("SQLite could not switch %s to WAL mode (it is %s).", conn, mode)
    conn.execute(f"PRAGMA synchronous = {synchronous}")  # a checked constant, not user input
    conn.execute("PRAGMA foreign_keys = ON")
    if conn.execute("PRAGMA foreign_keys").fetchone()[0] != 1:
        raise StoreError("This SQLite build cannot enforce foreign keys.")


def _check(conn: sqlite3.Connection, pragma: str) -> list[str]:
    if pragma not in ("quick_check", "integrity_check"):
        raise ValueError(pragma)
    return [row[0] for row in conn.execute(f"PRAGMA {pragma}")]


def _translate(path: Path, error: sqlite3.Error) -> StoreError:
    code = getattr(error, "sqlite_errorcode", None)
    reason = _UNUSABLE.get(code & 0xFF) if isinstance(code, int) else None
    if reason is None and isinstance(error, sqlite3.DatabaseError):
        text = str(error).lower()
        for marker, meaning in (
            ("not a database", _UNUSABLE[26]),
            ("malformed", _UNUSABLE[11]),
            ("unable to open", _UNUSABLE[14]),
        ):
            if marker in text:
                reason = meaning
    if reason is not None:
        return DatabaseUnreadableError(path, f"{reason} ({error})")
    return StoreError(f"Database error in {path}: {error}")
