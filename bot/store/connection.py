"""The one small interface every backend implements: statements inside a transaction.

Repositories speak SQL with ``?`` placeholders through a :class:`Connection`; a backend runs it
(SQLite through aiosqlite, PostgreSQL through asyncpg). A transaction is opened with
``async with db.transaction():``; any store call made inside it by the same task joins it (a
context variable carries the open connection), so a service commits a move, its snapshot, the
game's end, its result and the next timers all at once, or none of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol


class Connection(Protocol):
    """An open connection inside a transaction (or a read)."""

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one statement; the number of rows it changed."""
        ...

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """Run one statement for each row of parameters."""
        ...

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Run a query (or a statement with ``RETURNING``); every row."""
        ...

    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        """The first row of a query, or None."""
        ...


class OwnedConnection:
    """What a backend's connection records of its transaction: the store it belongs to and the
    task that opened it (the only task that joins it), and whether it is still open."""

    def __init__(self, owner: object) -> None:
        self.owner = owner
        self.task = asyncio.current_task()
        self.open = True


#: The connection of the transaction the current task is in, if any (a child task inherits it
#: with the context: :meth:`Store._joined <bot.store.base.Store._joined>` checks the owner task).
current: contextvars.ContextVar[OwnedConnection | None] = contextvars.ContextVar(
    "sequence_store_transaction", default=None
)


@dataclass(frozen=True)
class Patience:
    """How long a store call waits for the database (seconds; None: for ever) before it counts
    as unavailable (:class:`~bot.store.errors.DatabaseUnavailableError`): for a pooled
    connection (``acquire``) and for each statement (``statement``: the server cancels it then,
    as ``statement_timeout``; a server that does not answer at all is given up on
    :data:`MARGIN` later). On SQLite, ``acquire`` limits the wait for the one connection and
    ``statement`` the busy timeout on a file another process holds."""

    acquire: float | None
    statement: float | None

    @property
    def answer(self) -> float | None:
        """How long to wait for any answer to a statement (the server's limit, and a margin)."""
        return None if self.statement is None else self.statement + MARGIN


#: Seconds a statement's answer is waited for after the server's own limit has passed.
MARGIN = 0.4
#: A player waits for the answer, which Discord needs within 3 s: a connection within 1 s, a
#: statement within 1.2 s (1.6 s from a server that does not answer), then the clear "nothing
#: was saved".
INTERACTIVE = Patience(acquire=1.0, statement=1.2)
#: Work nobody waits on (events, timers, computers, start-up) may wait longer; when it times out
#: it is tried again later, as after an outage.
BACKGROUND = Patience(acquire=10.0, statement=30.0)
#: Migrations, copies and checks an admin runs: as long as they take.
UNHURRIED = Patience(acquire=None, statement=None)

#: The patience of the current task's store calls (:func:`waiting` sets it).
patience: contextvars.ContextVar[Patience] = contextvars.ContextVar(
    "sequence_store_patience", default=BACKGROUND
)


@contextlib.contextmanager
def waiting(limits: Patience) -> Iterator[None]:
    """Store calls made inside (by this task, and tasks it starts) wait as ``limits`` say."""
    token = patience.set(limits)
    try:
        yield
    finally:
        patience.reset(token)


def in_background() -> contextvars.Context:
    """A copy of the current context in which store calls wait as :data:`BACKGROUND` (for a
    task nobody waits on, started perhaps while answering a player:
    ``asyncio.create_task(work(), context=in_background())``)."""
    context = contextvars.copy_context()
    context.run(patience.set, BACKGROUND)
    return context
