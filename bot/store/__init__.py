"""Persistence on aiosqlite: one SQLite file, versioned migrations, repositories, the move log.

No SQL outside this package: the rest of the bot uses :class:`Database` and its repositories,
which take and return plain engine values and records.
"""

from .database import DEFAULT_PATH, Database
from .errors import (
    ChannelBusyError,
    CorruptGameError,
    DatabaseUnreadableError,
    GameNotActiveError,
    MigrationError,
    NotFoundError,
    SchemaTooNewError,
    StaleMoveError,
    StoreError,
)
from .games import GameRecord, LogEntry
from .lobbies import LobbyRecord
from .results import ResultRecord
from .tabletalk import ReportRecord
from .timers import TimerRecord

__all__ = [
    "DEFAULT_PATH",
    "ChannelBusyError",
    "CorruptGameError",
    "Database",
    "DatabaseUnreadableError",
    "GameNotActiveError",
    "GameRecord",
    "LobbyRecord",
    "LogEntry",
    "MigrationError",
    "NotFoundError",
    "ReportRecord",
    "ResultRecord",
    "SchemaTooNewError",
    "StaleMoveError",
    "StoreError",
    "TimerRecord",
]
