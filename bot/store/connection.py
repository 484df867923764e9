"""The one small interface every backend implements: statements inside a transaction.

Repositories speak SQL with ``?`` placeholders through a :class:`Connection`; a backend runs it
(SQLite through aiosqlite, PostgreSQL through asyncpg). A transaction is opened with
``async with db.transaction():``; any store call made inside it by the same task joins it (a
context variable carries the open connection), so a service commits a move, its snapshot, the
game's end, its result and the next timers all at once, or none of them.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Iterable, Sequence
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
