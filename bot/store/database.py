"""The store on SQLite: one file, one aiosqlite connection, and the repositories on it.

One connection serves the whole process, so one ``asyncio.Lock`` keeps a transaction's statements
together: no other task runs a statement (or reads uncommitted rows) until it commits or rolls
back. A transaction belongs to the task that opened it, as on PostgreSQL: a child task created
inside it does not join it but waits for it to end (so a task must not wait for a child's store
call while its own transaction is open). Across processes, ``BEGIN IMMEDIATE`` and the schema's
unique indexes guard. Only aiosqlite's public API is used.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, cast

import aiosqlite

from .base import Store
from .connection import Connection, OwnedConnection, current, patience
from .errors import (
    DatabaseInUseError,
    DatabaseUnavailableError,
    DatabaseUnreadableError,
    IntegrityError,
    StoreError,
)
from .migrations import MIGRATIONS, current_version, migrate
from .shards import Shards

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)


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

#: SQLite primary result codes that mean the file cannot be written just now.
_BUSY = {
    5: "another process holds its lock (an open sqlite3 shell, a backup?) longer than the "
    "busy timeout",  # SQLITE_BUSY
    6: "a table is locked",  # SQLITE_LOCKED
    13: "the disk is full",  # SQLITE_FULL
}


class SQLiteConnection(OwnedConnection):
    """A :class:`~bot.store.connection.Connection` on the one aiosqlite connection."""

    def __init__(self, raw: aiosqlite.Connection, owner: SQLiteStore) -> None:
        super().__init__(owner)
        self._raw = raw

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one statement; the number of rows it changed."""
        # A cursor is closed on the database's thread (``async with``): one freed on the event
        # loop's thread would reset its statement there, racing the next use of that statement.
        try:
            async with self._raw.execute(sql, params) as cursor:
                return cursor.rowcount
        except sqlite3.IntegrityError as error:
            raise IntegrityError(str(error)) from error

    async def control(self, sql: str) -> None:
        """``BEGIN``, ``COMMIT`` or ``ROLLBACK``: one round trip to the database's thread
        instead of two (``execute_fetchall`` frees its cursor there; no row count is needed)."""
        try:
            await self._raw.execute_fetchall(sql)
        except sqlite3.IntegrityError as error:  # a deferred constraint, at the commit
            raise IntegrityError(str(error)) from error

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """Run one statement for each row of parameters."""
        try:
            async with self._raw.executemany(sql, rows):
                pass
        except sqlite3.IntegrityError as error:
            raise IntegrityError(str(error)) from error

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Every row of a query (or of a statement with ``RETURNING``)."""
        try:
            rows = await self._raw.execute_fetchall(sql, params)
            return cast("list[tuple[Any, ...]]", list(rows))  # plain tuples: no row factory
        except sqlite3.IntegrityError as error:
            raise IntegrityError(str(error)) from error

    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        """The first row of a query, or None."""
        rows = await self.fetchall(sql, params)
        return rows[0] if rows else None


class SQLiteStore(Store):
    """The store on SQLite. Open with ``await SQLiteStore.open(path)``; repositories are
    attributes."""

    dialect = "sqlite"

    def __init__(self, connection: aiosqlite.Connection, path: Path) -> None:
        self._connection = connection
        self._lock = asyncio.Lock()
        #: The longest a statement waits for a file another process holds (milliseconds);
        #: a task's patience may allow less (see :meth:`_held`).
        self.busy_wait_ms = BUSY_WAIT_MS
        self._busy_ms = BUSY_WAIT_MS
        self._claim: int | None = None
        self.path = path
        self.location = str(path)
        super().__init__()

    @classmethod
    async def open(
        cls,
        path: str | Path = DEFAULT_PATH,
        *,
        synchronous: str = "NORMAL",
        check: bool = False,
        exclusive: bool = False,
        migrations: tuple[tuple[int, str], ...] = MIGRATIONS,
    ) -> SQLiteStore:
        """Open (creating the file and its folder if needed), configure and migrate the database.

        ``synchronous="NORMAL"`` in WAL mode: a commit writes its WAL frames to the operating
        system before returning, without fsync. A killed process (even SIGKILL) loses nothing
        acknowledged, because the OS still holds and later writes those pages; only a power cut
        or OS crash may lose the last commits (never corrupting the file). Use ``"FULL"`` to
        survive power loss too, at the cost of an fsync per move.

        ``check=True`` also runs ``PRAGMA quick_check`` (slower on a large file).

        ``exclusive=True`` holds the file for this connection alone until it closes (``PRAGMA
        locking_mode = EXCLUSIVE``): :class:`DatabaseInUseError` if another process has it open
        (a running bot holds it open), and no other process can open it meanwhile.
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
        busy_ms = round(EXCLUSIVE_WAIT * 1000) if exclusive else BUSY_WAIT_MS
        try:
            connection = await aiosqlite.connect(path, isolation_level=None, timeout=busy_ms / 1000)
        except sqlite3.Error as error:
            raise _translate(path, error) from error
        db = cls(connection, path)
        db.busy_wait_ms = db._busy_ms = busy_ms
        try:
            if exclusive:
                await db.read(_hold, path)
            await db.read(_configure, mode)
            await migrate(db, migrations)
            if check:
                problems = await db.read(_check, "quick_check")
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
        if self._claim is not None:
            os.close(self._claim)
            self._claim = None

    async def notify(self, channel: str, payload: str) -> None:
        """Nothing: one process serves every game of a SQLite file, so nobody is to be told."""

    async def listen(self, channel: str, callback: Callable[[str], None]) -> None:
        """Nothing to hear: no other process shares a SQLite file (see :meth:`claim`)."""

    async def claim(self, shards: Shards, lost: Callable[[str], None] | None = None) -> None:
        """Hold the file for this bot: a second bot on it would serve every game twice. An
        ``flock`` on ``<file>.lock`` beside it (never on the database, whose locks are
        SQLite's), released when the process ends; backups, checks and copies do not take it."""
        if fcntl is None:  # not on Windows
            return
        fd = os.open(self.path.with_name(f"{self.path.name}.lock"), os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise StoreError(
                f"Another bot runs on the database {self.path}: one bot per SQLite file "
                "(several processes need PostgreSQL, see the README)."
            ) from None
        self._claim = fd

    @contextlib.asynccontextmanager
    async def transaction(self) -> AsyncIterator[Connection]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT`` (rolled back on any error); joins the open one of
        this task, if any. Another task's (a child's too) waits for the open one to end.

        IMMEDIATE takes the write lock at the start, so checks made inside the transaction still
        hold at its commit, even with another process writing the same file.
        """
        joined = self._joined()
        if joined is not None:
            yield joined
            return
        async with self._held():
            raw = self._connection
            conn = SQLiteConnection(raw, self)
            token = current.set(conn)
            try:
                with self._translated():
                    await conn.control("BEGIN IMMEDIATE")
                    try:
                        yield conn
                        await conn.control("COMMIT")
                    except BaseException:
                        if raw.in_transaction:
                            await conn.control("ROLLBACK")
                        raise
            finally:
                conn.open = False
                current.reset(token)

    @contextlib.asynccontextmanager
    async def _reading(self) -> AsyncIterator[Connection]:
        """The one connection, under the lock (no other task's statements in between)."""
        async with self._held():
            with self._translated():
                yield SQLiteConnection(self._connection, self)

    @contextlib.asynccontextmanager
    async def _held(self) -> AsyncIterator[None]:
        """The one connection's lock, waited for no longer than the task's patience allows
        (``acquire``), with SQLite's busy timeout cut to its statement limit: a player waits
        for a file another process holds no longer than Discord's deadline allows, then is
        told that nothing was saved (:class:`DatabaseUnavailableError`)."""
        limits = patience.get()
        try:
            async with asyncio.timeout(limits.acquire):
                await self._lock.acquire()
        except TimeoutError:
            raise DatabaseUnavailableError(
                f"The database {self.path} is busy: it did not answer in time."
            ) from None
        try:
            wanted = self.busy_wait_ms
            if limits.statement is not None:
                wanted = min(wanted, round(limits.statement * 1000))
            if wanted != self._busy_ms:
                with self._translated():
                    await self._connection.execute(f"PRAGMA busy_timeout = {int(wanted)}")
                self._busy_ms = wanted
            yield
        finally:
            self._lock.release()

    @contextlib.contextmanager
    def _translated(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as error:
            raise _translate(self.path, error) from error
        except ValueError as error:
            if "no active connection" in str(error) or "Connection closed" in str(error):
                raise StoreError(f"The database {self.path} is closed.") from error
            raise

    async def integrity_check(self) -> list[str]:
        """``PRAGMA integrity_check``: ``["ok"]`` for a sound file, else the problems found."""
        return await self.read(_check, "integrity_check")

    async def schema_version(self) -> int:
        """The highest applied migration."""
        return await self.read(current_version)


#: Milliseconds a background statement waits for a file another process holds (SQLite's busy
#: timeout; a player's wait is shorter: see :data:`~bot.store.connection.INTERACTIVE`).
BUSY_WAIT_MS = 10_000
#: Tries of the switch to WAL mode while other connections open the same new file.
WAL_TRIES = 20
#: Seconds an exclusive open waits for another connection to let go of the file.
EXCLUSIVE_WAIT = 2.0
#: SQLite's primary result code for a busy file.
_SQLITE_BUSY = 5


async def _hold(conn: Connection, path: Path) -> None:
    """Take the file for this connection alone (its first read takes SQLite's exclusive lock,
    which a process with the file open denies)."""
    await conn.execute("PRAGMA locking_mode = EXCLUSIVE")
    try:
        await conn.fetchone("SELECT count(*) FROM sqlite_master")
    except sqlite3.OperationalError as error:
        code = getattr(error, "sqlite_errorcode", None)
        if isinstance(code, int) and code & 0xFF == _SQLITE_BUSY:
            raise DatabaseInUseError(path) from None
        raise


async def _configure(conn: Connection, synchronous: str) -> None:
    row = await _switch_to_wal(conn)
    if row is None or str(row[0]).lower() != "wal":
        log.warning("SQLite could not switch to WAL mode (it is %s).", row and row[0])
    await conn.execute(f"PRAGMA synchronous = {synchronous}")  # a checked constant
    await conn.execute("PRAGMA foreign_keys = ON")
    row = await conn.fetchone("PRAGMA foreign_keys")
    if row is None or row[0] != 1:
        raise StoreError("This SQLite build cannot enforce foreign keys.")


async def _switch_to_wal(conn: Connection) -> Any:
    """``PRAGMA journal_mode = WAL``, tried again a little later while the file is busy: on a
    new file that several processes open at once, the switch needs the file to itself and
    SQLite refuses it at once (its busy timeout does not apply)."""
    for attempt in range(1, WAL_TRIES + 1):
        try:
            return await conn.fetchone("PRAGMA journal_mode = WAL")
        except sqlite3.OperationalError as error:
            code = getattr(error, "sqlite_errorcode", None)
            if attempt == WAL_TRIES or not isinstance(code, int) or code & 0xFF != _SQLITE_BUSY:
                raise
            await asyncio.sleep(0.01 * attempt)
    raise AssertionError("unreachable")


async def _check(conn: Connection, pragma: str) -> list[str]:
    if pragma not in ("quick_check", "integrity_check"):
        raise ValueError(pragma)
    return [row[0] for row in await conn.fetchall(f"PRAGMA {pragma}")]


def _translate(path: Path, error: sqlite3.Error) -> StoreError:
    code = getattr(error, "sqlite_errorcode", None)
    busy = _BUSY.get(code & 0xFF) if isinstance(code, int) else None
    if busy is not None:
        return DatabaseUnavailableError(f"The database file {path} cannot be written now: {busy}.")
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
