"""The store's one interface, :class:`Store`: the repositories, transactions, notifications,
shard claims and closing, and what both backends share. :class:`~bot.store.database.SQLiteStore`
and :class:`~bot.store.postgres.PostgresStore` implement it; the rest of the bot names only
``Store``.

One rule for transactions on both backends: a transaction belongs to the task that opened it.
Store calls made by that task join it; any other task, a child task created inside it included,
runs in a transaction of its own and never sees the open one's uncommitted rows (PostgreSQL: on
another pooled connection; SQLite, whose one connection runs one transaction at a time: after the
open one ends).
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import Concatenate, ParamSpec, Self, TypeVar, cast

from .away import AwayPeriods
from .connection import Connection, OwnedConnection, current
from .games.repository import Games
from .guild_settings import GuildSettings
from .lobbies import Lobbies
from .members import Members
from .outbox import Outbox
from .prefs import Prefs
from .results import Results
from .season_ends import SeasonEnds
from .seasons import Seasons
from .seeks import Seeks
from .shards import Shards, condition
from .standings import Standings
from .tabletalk import TableTalk
from .timers import Timers
from .tournaments import Tournaments
from .votes import Votes

P = ParamSpec("P")
T = TypeVar("T")


class Store(ABC):
    """The repositories (``db.games``, ``db.lobbies``, ...) on a backend's connection."""

    #: ``"sqlite"`` or ``"postgresql"``.
    dialect: str
    #: Where the data is, for messages (a file path, or a URL without its password).
    location: str
    #: The shards this process serves (``SHARD_IDS``); None: every guild. The start-up
    #: queries (active games, open lobbies, timers, pending table-talk calls, running
    #: tournaments) load only the rows of guilds on these shards.
    shards: Shards | None = None

    def __init__(self) -> None:
        self.lobbies = Lobbies(self)
        self.games = Games(self)
        self.results = Results(self)
        self.standings = Standings(self)
        self.seasons = Seasons(self)
        self.season_ends = SeasonEnds(self)
        self.prefs = Prefs(self)
        self.guild_settings = GuildSettings(self)
        self.seeks = Seeks(self)
        self.timers = Timers(self)
        self.tabletalk = TableTalk(self)
        self.tournaments = Tournaments(self)
        self.votes = Votes(self)
        self.outbox = Outbox(self)
        self.members = Members(self)
        self.away = AwayPeriods(self)

    @abstractmethod
    def transaction(self) -> AbstractAsyncContextManager[Connection]:
        """A transaction: joins the one this task has open on this store, if any; otherwise a
        new one, rolled back on any error (see the module's rule for other tasks)."""

    def _joined(self) -> Connection | None:
        """The transaction this task opened on this store, if still open (never another task's,
        even a parent's: a child task inherits the context variable, not the transaction)."""
        joined = current.get()
        if (
            isinstance(joined, OwnedConnection)
            and joined.open
            and joined.owner is self
            and joined.task is asyncio.current_task()
        ):
            return cast(Connection, joined)
        return None

    @abstractmethod
    def _reading(self) -> AbstractAsyncContextManager[Connection]:
        """A connection for a read outside any transaction."""

    @abstractmethod
    async def close(self) -> None:
        """Release the connection(s); idempotent."""

    @abstractmethod
    async def notify(self, channel: str, payload: str) -> None:
        """Tell the other processes sharing this store (their :meth:`listen` callbacks), when
        the transaction this task has open commits (at once outside one)."""

    @abstractmethod
    async def listen(self, channel: str, callback: Callable[[str], None]) -> None:
        """Call ``callback(payload)`` for each notification other processes send on
        ``channel``."""

    @abstractmethod
    async def claim(self, shards: Shards, lost: Callable[[str], None] | None = None) -> None:
        """Hold ``shards`` for this process while it runs, refusing them when another process
        sharing this store runs one (or another shard count); ``lost(why)`` if they are lost
        later."""

    @abstractmethod
    async def integrity_check(self) -> list[str]:
        """``["ok"]`` for a sound store, else the problems found."""

    @abstractmethod
    async def schema_version(self) -> int:
        """The highest applied migration."""

    async def alive(self) -> bool:
        """True when the store answers a trivial query now (a health check's question)."""
        try:
            return await self.read(_answer) == (1,)
        except Exception:
            return False

    async def lock_keys(self, *keys: int) -> None:
        """In the open transaction: wait for, then hold until it ends, the lock of each of
        ``keys`` (a person's id, a server's), so that a count read next and the write it allows
        are one step for every transaction that locks the same key, in every process of a
        cluster (a cap's check and its write). SQLite needs nothing more: its transactions
        take the write lock as they begin (``BEGIN IMMEDIATE``) and one process runs them."""
        if self._joined() is None:
            raise RuntimeError("lock_keys() holds its keys until a commit: open a transaction")

    def on_my_shards(self, column: str) -> tuple[str, tuple[object, ...]]:
        """SQL true for the rows whose guild (``column``) is on this process's shards."""
        return condition(self.shards, column)

    async def run(
        self,
        fn: Callable[Concatenate[Connection, P], Awaitable[T]],
        *args: P.args,
        **kwargs: P.kwargs,
    ) -> T:
        """``await fn(connection, *args)`` in a transaction (the open one, if any)."""
        async with self.transaction() as conn:
            return await fn(conn, *args, **kwargs)

    async def read(
        self,
        fn: Callable[Concatenate[Connection, P], Awaitable[T]],
        *args: P.args,
        **kwargs: P.kwargs,
    ) -> T:
        """``await fn(connection, *args)`` outside a transaction (inside the open one, if any)."""
        joined = self._joined()
        if joined is not None:
            return await fn(joined, *args, **kwargs)
        async with self._reading() as conn:
            return await fn(conn, *args, **kwargs)

    async def run_alone(
        self,
        fn: Callable[Concatenate[Connection, P], Awaitable[T]],
        *args: P.args,
        **kwargs: P.kwargs,
    ) -> T:
        """``await fn(connection, *args)`` for a write of one statement, which is atomic by
        itself: outside a transaction it runs without ``BEGIN`` and ``COMMIT`` (two round trips
        fewer), in the open one if any."""
        return await self.read(fn, *args, **kwargs)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


async def _answer(conn: Connection) -> tuple[object, ...] | None:
    return await conn.fetchone("SELECT 1")
