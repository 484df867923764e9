"""Opening the store at a location: PostgreSQL for a ``postgresql://`` URL, else SQLite."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .base import Store
from .database import SQLiteStore
from .postgres import PostgresStore
from .shards import Shards
from .urls import is_postgres_url


async def open_database(
    location: str | Path, *, shards: Shards | None = None, **options: Any
) -> Store:
    """Open the store at ``location``: PostgreSQL for a ``postgresql://`` URL, else SQLite.

    ``shards``: the shards this process serves (its start-up queries load only their guilds).
    ``options`` go to the backend's ``open`` (for example ``synchronous`` for SQLite).
    """
    db: Store
    if is_postgres_url(location):
        db = await PostgresStore.open(str(location), **options)
    else:
        db = await SQLiteStore.open(location, **options)
    db.shards = shards
    return db
