"""The database on PostgreSQL: an asyncpg pool, the same repositories, the same transactions.

The repositories run unchanged: :class:`PostgresConnection` takes their ``?`` placeholders
(turned into ``$1 .. $n`` once per statement text), returns the rows a statement changed and
rows as tuples, and raises :class:`~bot.store.errors.IntegrityError` for a refused constraint.
A transaction holds one pooled connection; store calls made inside it by the same task join it.
Each wait for the server is limited by the task's patience (:mod:`bot.store.postgres_waits`).
Statements run at PostgreSQL's default isolation (read committed): the repositories' guards are
conditional updates and unique indexes, which hold there too, across processes.

A statement's arguments are never logged or put in an error: they carry players' hands.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator, Sequence
from typing import Any

import asyncpg

from .base import Store
from .connection import (
    BACKGROUND,
    UNHURRIED,
    Connection,
    OwnedConnection,
    current,
    patience,
    waiting,
)
from .errors import DatabaseUnavailableError, IntegrityError, StoreError
from .migrations import current_version, migrate
from .postgres_migrations import POSTGRES_MIGRATIONS
from .postgres_waits import acquired, committed, rolled_back, statement_timeout, too_slow
from .shards import Shards
from .urls import redact

log = logging.getLogger(__name__)

#: The first keys of the advisory locks a process holds on the shards it runs (the second key
#: is the shard) and, shared, on the shard count it runs them out of.
SHARD_LOCK = 0x5E0_5A1D
COUNT_LOCK = 0x5E0_C047
#: The first key of the transaction advisory locks of :meth:`PostgresStore.lock_keys`.
KEY_LOCK = 0x5E0_CA95


@functools.lru_cache(maxsize=1024)
def placeholders(sql: str) -> str:
    """``sql`` with each ``?`` outside quotes turned into ``$1``, ``$2``, ... in order."""
    out: list[str] = []
    number = 0
    quote: str | None = None
    for char in sql:
        if quote is not None:
            if char == quote:
                quote = None
        elif char in ("'", '"'):
            quote = char
        elif char == "?":
            number += 1
            out.append(f"${number}")
            continue
        out.append(char)
    return "".join(out)


#: Errors of a server that is going away, starting or out of resources (SQLSTATE classes 08,
#: 57 and 53), not of the statement: the same statement may succeed later.
_UNAVAILABLE = (
    asyncpg.PostgresConnectionError,
    asyncpg.OperatorInterventionError,
    asyncpg.InsufficientResourcesError,
)


def rowcount(status: str) -> int:
    """The row count at the end of a command status (``UPDATE 3``, ``INSERT 0 1``), else 0."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


def _store_error(error: Exception) -> StoreError:
    """Our error for asyncpg's, with the server's message only (never its detail: it may quote
    a row, and so a hand)."""
    message = getattr(error, "message", None) or type(error).__name__
    if isinstance(error, asyncpg.IntegrityConstraintViolationError):
        return IntegrityError(message)
    if isinstance(error, _UNAVAILABLE):  # a lost connection, a shutdown, a full disk
        return DatabaseUnavailableError(f"The PostgreSQL database cannot be used now: {message}")
    return StoreError(f"Database error: {message}")


class PostgresConnection(OwnedConnection):
    """A :class:`~bot.store.connection.Connection` on one pooled asyncpg connection."""

    def __init__(self, raw: asyncpg.Connection, owner: PostgresStore) -> None:
        super().__init__(owner)
        self._raw = raw
        self._location = owner.location

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one statement; the number of rows it changed."""
        return rowcount(await self._call(self._raw.execute, sql, *params))

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """Run one statement for each row of parameters (one prepared statement, pipelined)."""
        rows = list(rows)
        if rows:
            await self._call(self._raw.executemany, sql, rows)

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Every row of a query (or of a statement with ``RETURNING``)."""
        records = await self._call(self._raw.fetch, sql, *params)
        return [tuple(record) for record in records]

    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        """The first row of a query, or None."""
        record = await self._call(self._raw.fetchrow, sql, *params)
        return None if record is None else tuple(record)

    async def _call(self, method: Callable[..., Awaitable[Any]], sql: str, *args: Any) -> Any:
        """``method(sql, *args)`` within the current patience's statement limit."""
        limit = patience.get().answer
        try:
            return await method(placeholders(sql), *args, timeout=limit)
        except asyncpg.PostgresError as error:
            raise _store_error(error) from None
        except TimeoutError:
            raise too_slow(self._location, "a statement", limit) from None


class PostgresStore(Store):
    """The store on PostgreSQL. Open with ``await PostgresStore.open(url)``."""

    dialect = "postgresql"

    def __init__(self, pool: asyncpg.Pool, url: str) -> None:
        self._pool = pool
        self._listening: asyncio.Task[None] | None = None
        self._listener: asyncpg.Connection | None = None
        self._listen_to: tuple[str, Callable[[str], None]] | None = None
        self._claimed: Shards | None = None
        self._claim_lost: Callable[[str], None] | None = None
        self._closing = False
        self.url = url
        #: Where the data is, for messages: the URL without its password.
        self.location = redact(url)
        self.path = self.location
        super().__init__()

    @classmethod
    async def open(
        cls,
        url: str,
        *,
        min_size: int = 1,
        max_size: int = 10,
        check: bool = False,
        migrations: tuple[tuple[int, str], ...] = POSTGRES_MIGRATIONS,
    ) -> PostgresStore:
        """Connect a pool to ``url`` and migrate the schema (once, even if several processes
        start together). Durability is the server's: ``synchronous_commit`` as configured there
        (on by default: a commit returns once its WAL is flushed). ``check`` is accepted for
        symmetry with SQLite and runs a trivial query."""
        where = redact(url)
        try:
            pool = await asyncpg.create_pool(
                url,
                min_size=min_size,
                max_size=max_size,
                timeout=30.0,
                reset=_keep_session,
                server_settings={"statement_timeout": statement_timeout(BACKGROUND)},
            )
        except Exception as error:  # refused, unreachable, a bad URL: told without password
            raise DatabaseUnavailableError(
                f"The PostgreSQL database {where} cannot be reached: "
                f"{redact(str(error), url)}. Check that the server runs, the URL "
                "(SEQUENCE_DATABASE) and the user's rights."
            ) from None
        db = cls(pool, url)
        try:
            with waiting(UNHURRIED):  # a migration takes as long as it takes
                await migrate(db, migrations)
            if check:
                problems = await db.integrity_check()
                if problems != ["ok"]:
                    raise StoreError(f"The database {where} failed its check: {problems}")
        except BaseException:
            await pool.close()
            raise
        return db

    async def close(self) -> None:
        """Close the listening connection and every pooled connection (idempotent)."""
        self._closing = True
        if self._listening is not None:
            self._listening.cancel()
            self._listening = None
        if self._listener is not None:
            with contextlib.suppress(Exception):
                await self._listener.close(timeout=5.0)
            self._listener = None
        await self._pool.close()

    async def notify(self, channel: str, payload: str) -> None:
        """``pg_notify`` in the open transaction: PostgreSQL delivers it at the commit, and
        never if the transaction rolls back."""
        await self.run(_notify, channel, payload)

    async def claim(self, shards: Shards, lost: Callable[[str], None] | None = None) -> None:
        """Hold ``shards`` for this process, on the listening connection: a session advisory
        lock on each shard, and a shared one on their count. Raises :class:`ShardsTakenError`
        when another process runs one of them, or runs with another count (a guild would then
        be served twice). The locks go with the connection: if it drops and another process
        has taken a shard by the time it is back, ``lost(why)`` is called (this process must
        stop serving) instead of claiming again for ever."""
        self._claimed = shards
        self._claim_lost = lost
        await self._connect("Cannot claim shards on")

    async def listen(self, channel: str, callback: Callable[[str], None]) -> None:
        """``LISTEN`` on a connection of its own (asyncpg's ``add_listener``). If it drops, it
        is reconnected with a growing pause (its shards claimed again), and ``callback("")``
        says some notifications may have been missed meanwhile."""
        self._listen_to = (channel, callback)
        if self._listener is not None and not self._listener.is_closed():
            await self._listener.add_listener(channel, lambda _c, _pid, _ch, text: callback(text))
            return
        await self._connect("Cannot listen on")

    async def _connect(self, doing: str) -> None:
        try:
            await self._connect_listener()
        except StoreError:
            raise
        except Exception as error:  # never the URL's password
            raise DatabaseUnavailableError(
                f"{doing} {self.location}: {redact(str(error), self.url)}"
            ) from None

    async def lock_keys(self, *keys: int) -> None:
        """In the open transaction: a transaction advisory lock on each of ``keys`` (see
        :meth:`Store.lock_keys`), taken in one order so that two transactions never wait for
        each other's."""
        await super().lock_keys(*keys)
        for second in sorted({key % 2**31 for key in keys}):  # a key's low bits: an int4
            await self.run(_lock_key, second)

    async def alive(self) -> bool:
        """True when the server answers and, if this process listens or holds shards, its
        listening connection is up (without it, it would not hear of the changes other
        processes make, and its shards would be free for another)."""
        listening = (self._listen_to is None and self._claimed is None) or (
            self._listener is not None and not self._listener.is_closed()
        )
        return listening and await super().alive()

    async def _connect_listener(self) -> None:
        conn = await asyncpg.connect(self.url, timeout=30.0)
        try:
            if self._claimed is not None:
                await _claim(conn, self._claimed, self.location)
            if self._listen_to is not None:
                callback = self._listen_to[1]
                await conn.add_listener(
                    self._listen_to[0], lambda _c, _pid, _ch, text: callback(text)
                )
        except BaseException:
            await conn.close()
            raise
        conn.add_termination_listener(self._listener_lost)
        self._listener = conn

    def _listener_lost(self, _conn: object) -> None:
        if self._closing:
            return
        log.warning("The listening connection to %s dropped; reconnecting", self.location)
        self._listening = asyncio.create_task(self._reconnect_listener())

    async def _reconnect_listener(self) -> None:
        pause = 1.0
        while not self._closing:
            await asyncio.sleep(pause)
            try:
                await self._connect_listener()
            except ShardsTakenError as error:
                if self._claim_lost is not None:
                    log.error("%s This process lost its shards while disconnected", error)
                    self._claim_lost(str(error))
                    return
                log.error("%s Retrying", error)
                pause = min(pause * 2, 30.0)
                continue
            except Exception as error:
                log.warning(
                    "Cannot listen on %s (%s); retrying", self.location, type(error).__name__
                )
                pause = min(pause * 2, 30.0)
                continue
            if self._listen_to is not None:
                self._listen_to[1]("")  # notifications sent while it was down are lost
            return

    @contextlib.asynccontextmanager
    async def transaction(self) -> AsyncIterator[Connection]:
        """``BEGIN`` ... ``COMMIT`` on one pooled connection (rolled back on any error); joins
        the open one of this task, if any."""
        joined = self._joined()
        if joined is not None:
            yield joined
            return
        with self._translated():
            async with acquired(self._pool, self.location) as raw:
                conn = PostgresConnection(raw, self)
                token = current.set(conn)
                try:
                    limits = patience.get()
                    if limits.statement == BACKGROUND.statement:
                        await conn.execute("BEGIN")
                    else:  # one round trip: the server's limit for this transaction's statements
                        await conn.execute(
                            f"BEGIN; SET LOCAL statement_timeout = '{statement_timeout(limits)}'"
                        )
                    try:
                        yield conn
                    except BaseException:
                        await rolled_back(raw)
                        raise
                    await committed(conn, self.location)
                finally:
                    conn.open = False
                    current.reset(token)

    @contextlib.asynccontextmanager
    async def _reading(self) -> AsyncIterator[Connection]:
        """A pooled connection, outside any transaction (inside one of its own when the
        server's limit on statements is not the connections' default)."""
        if patience.get().statement != BACKGROUND.statement:
            async with self.transaction() as conn:
                yield conn
            return
        with self._translated():
            async with acquired(self._pool, self.location) as raw:
                yield PostgresConnection(raw, self)

    @contextlib.contextmanager
    def _translated(self) -> Iterator[None]:
        try:
            yield
        except asyncpg.PostgresError as error:
            raise _store_error(error) from None
        except TimeoutError:
            raise too_slow(self.location, "a request", None) from None
        except asyncpg.InterfaceError as error:
            if self._pool.is_closing():
                raise StoreError(f"The database {self.location} is closed.") from None
            raise StoreError(f"Database error in {self.location}: {error}") from None
        except OSError as error:
            raise DatabaseUnavailableError(
                f"The connection to the PostgreSQL database {self.location} failed: "
                f"{redact(str(error), self.url)}"
            ) from None

    async def integrity_check(self) -> list[str]:
        """``["ok"]`` when the server answers a query (PostgreSQL checks its pages itself)."""
        row = await self.read(_one)
        return ["ok"] if row == (1,) else [f"unexpected answer {row!r}"]

    async def schema_version(self) -> int:
        """The highest applied migration."""
        return await self.read(current_version)


async def _one(conn: Connection) -> tuple[Any, ...] | None:
    return await conn.fetchone("SELECT 1")


async def _keep_session(_conn: asyncpg.Connection) -> None:
    """A pooled connection goes back to the pool as it is (asyncpg still rolls back a
    transaction left open): the store keeps no session state on it (no ``SET``, no session
    advisory lock, ``LISTEN`` on a connection of its own), so the reset query, one more round
    trip per transaction, is skipped."""


class ShardsTakenError(StoreError):
    """Another process of the cluster runs a shard this one was configured to run."""


def _listed(numbers: list[int]) -> str:
    """``1``, ``0 and 1``, ``0, 1 and 2``."""
    words = [str(n) for n in numbers]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


async def _claim(conn: asyncpg.Connection, shards: Shards, where: str) -> None:
    """Take the advisory locks of ``shards`` on ``conn`` (held while it is open), or raise
    :class:`ShardsTakenError` holding none."""
    await conn.execute("SELECT pg_advisory_lock_shared($1, $2)", COUNT_LOCK, shards.count)
    others = await conn.fetch(
        "SELECT DISTINCT objid::bigint FROM pg_locks WHERE locktype = 'advisory' "
        "AND objsubid = 2 AND classid = $1 AND objid <> $2 "
        "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
        COUNT_LOCK,
        shards.count,
    )
    if others:
        await conn.execute("SELECT pg_advisory_unlock_all()")
        raise ShardsTakenError(
            f"Another process runs with SHARD_COUNT={others[0][0]} on {where}, this one with "
            f"{shards.count}: every process of a bot needs the same SHARD_COUNT (stop them all "
            "to change it)."
        )
    taken = [
        shard
        for shard in sorted(set(shards.ids))
        if not await conn.fetchval("SELECT pg_try_advisory_lock($1, $2)", SHARD_LOCK, shard)
    ]
    if taken:
        await conn.execute("SELECT pg_advisory_unlock_all()")
        if len(taken) == 1:
            named = f"shard {taken[0]} already runs"
        else:
            named = f"shards {_listed(taken)} already run"
        raise ShardsTakenError(
            f"SHARD_IDS: {named} in another process on {where}: "
            "each shard must be in exactly one process's SHARD_IDS."
        )


async def _lock_key(conn: Connection, key: int) -> None:
    await conn.fetchone("SELECT pg_advisory_xact_lock(?, ?)", (KEY_LOCK, key))


async def _notify(conn: Connection, channel: str, payload: str) -> None:
    await conn.fetchone("SELECT pg_notify(?, ?)", (channel, payload))

