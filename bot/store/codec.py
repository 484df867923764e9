"""JSON as TEXT, compact, and the small helpers the repositories share."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_encoder = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def dumps(value: Any) -> str:
    """Compact JSON text (no NaN, so any reader can parse it)."""
    return _encoder.encode(value)


def loads(text: str) -> Any:
    """Parse JSON text stored by :func:`dumps`."""
    return json.loads(text)


def loads_many(texts: list[str]) -> list[Any]:
    """Parse many JSON texts with one parser call (much faster than one call each)."""
    if not texts:
        return []
    return json.loads("[" + ",".join(texts) + "]")


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """``BEGIN IMMEDIATE`` ... ``COMMIT``; roll back on any error so nothing is half-written.

    IMMEDIATE takes the write lock at the start, so checks made inside the transaction still hold
    at its commit, even with another process writing the same file.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
