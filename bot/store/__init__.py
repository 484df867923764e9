"""Persistence: one SQLite file (aiosqlite) or a PostgreSQL database (asyncpg), versioned
migrations, repositories, the move log.

No SQL outside this package: the rest of the bot opens the store with :func:`open_database`
(a :class:`Store`, whichever the backend) and uses its repositories, which take and return
plain engine values and records; they run unchanged on both backends.
"""

from .base import Store
from .database import DEFAULT_PATH, SQLiteStore
from .errors import (
    ChannelBusyError,
    CorruptGameError,
    DatabaseUnavailableError,
    DatabaseUnreadableError,
    GameNotActiveError,
    MigrationError,
    NotFoundError,
    SchemaTooNewError,
    StaleMoveError,
    StoreError,
)
from .games.records import GameRecord, LogEntry
from .lobbies import LobbyRecord
from .location import open_database
from .results import ResultRecord
from .seats import Seat
from .tabletalk import ReportRecord
from .timers import TimerRecord

__all__ = [
    "DEFAULT_PATH",
    "ChannelBusyError",
    "CorruptGameError",
    "DatabaseUnavailableError",
    "DatabaseUnreadableError",
    "GameNotActiveError",
    "GameRecord",
    "LobbyRecord",
    "LogEntry",
    "MigrationError",
    "NotFoundError",
    "ReportRecord",
    "ResultRecord",
    "SQLiteStore",
    "SchemaTooNewError",
    "Seat",
    "StaleMoveError",
    "Store",
    "StoreError",
    "TimerRecord",
    "open_database",
]
