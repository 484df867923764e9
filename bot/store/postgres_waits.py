"""Waiting for PostgreSQL with a limit: a server that hangs (a lock wait, a paused or
unreachable server) is told as unavailable within the current task's
:class:`~bot.store.connection.Patience`, instead of never.

The server cancels a statement that runs past the limit (``statement_timeout``: a lock wait
ends so, without any timer in the bot); a server that does not answer at all is given up on a
little later (asyncpg's timeout, which also sends a cancel request). The transaction around it
is then rolled back, or, when the server does not answer that either within :data:`GRACE`,
its connection is closed, which rolls it back on the server. Nothing of
it is saved, except when the statement cut short was the ``COMMIT`` itself: a commit the
server received before it stopped answering may still take effect. That one is told apart
(:func:`committed` raises :class:`CommitUnknownError`): the player is told it may have been
saved, the game is read back once the store answers, and the move-number guard refuses the
same change made again.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import asyncpg

from .connection import Connection, Patience, patience
from .errors import CommitUnknownError, DatabaseUnavailableError

#: Seconds given to a connection to roll back or to come back to the pool clean after a
#: statement timed out, before it is closed instead.
GRACE = 0.3


def statement_timeout(limits: Patience) -> str:
    """PostgreSQL's ``statement_timeout`` for ``limits`` (``'0'``: none).

    >>> statement_timeout(Patience(acquire=1.0, statement=1.2))
    '1200ms'
    """
    return "0" if limits.statement is None else f"{round(limits.statement * 1000)}ms"


def too_slow(location: str, what: str, limit: float | None) -> DatabaseUnavailableError:
    """The error of a database that did not answer ``what`` within ``limit`` seconds."""
    within = "in time" if limit is None else f"within {limit:g} s"
    return DatabaseUnavailableError(
        f"The PostgreSQL database {location} did not answer {what} {within} (a lock held "
        "elsewhere, or a server that does not answer)."
    )


@contextlib.asynccontextmanager
async def acquired(pool: asyncpg.Pool, location: str) -> AsyncIterator[asyncpg.Connection]:
    """A pooled connection, waited for no longer than the current patience allows; given
    back to the pool (or closed, if it does not come back clean within :data:`GRACE`)."""
    limit = patience.get().acquire
    try:
        raw = await pool.acquire(timeout=limit)
    except TimeoutError:
        raise too_slow(location, "with a connection", limit) from None
    try:
        yield raw
    finally:
        # A connection whose statement was cut short waits for the server's cancellation to
        # come back to the pool; one that does not answer is closed (asyncpg does it).
        with contextlib.suppress(Exception):
            await pool.release(raw, timeout=GRACE)


async def rolled_back(raw: asyncpg.Connection) -> None:
    """``ROLLBACK`` the connection's transaction, or close the connection when it does not
    answer within :data:`GRACE` (the server then rolls back by itself)."""
    try:
        await raw.execute("ROLLBACK", timeout=GRACE)
    except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError):  # OSError: a timeout too
        # Closed already (asyncpg closes one whose cancelled statement is not acknowledged in
        # time, and it then counts as released) or closed now.
        with contextlib.suppress(asyncpg.InterfaceError):
            raw.terminate()


async def committed(conn: Connection, location: str) -> None:
    """``COMMIT``. A server that stops answering (or a connection lost) at this point may have
    committed or not: :class:`CommitUnknownError`, never "nothing was saved". A refusal the
    server sends back (a deferred check) is a known rollback and raised as usual."""
    try:
        await conn.execute("COMMIT")
    except DatabaseUnavailableError as error:
        raise CommitUnknownError(
            f"The PostgreSQL database {location} stopped answering at the commit: the change "
            "may have been saved."
        ) from error
    except (OSError, asyncpg.InterfaceError) as error:
        raise CommitUnknownError(
            f"The connection to the PostgreSQL database {location} was lost at the commit: "
            "the change may have been saved."
        ) from error
