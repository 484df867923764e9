"""Errors raised by the store; each message is written for the person running the bot."""

from __future__ import annotations

from pathlib import Path


class StoreError(Exception):
    """Base class of every store error."""


class DatabaseUnreadableError(StoreError):
    """The database file is corrupt, not a database, or cannot be opened or read."""

    def __init__(self, path: str | Path, reason: str) -> None:
        self.path = Path(path)
        self.reason = reason
        super().__init__(
            f"The database file {self.path} cannot be used: {reason}. The bot will not start "
            "with it (restarting will not help). Check the file's permissions and free disk "
            "space; if it is damaged, stop the bot, move the file (and any -wal and -shm files "
            "next to it) aside and start again, with a backup in its place (see the README's "
            "'Back up and restore') or with none: a new empty database is then created."
        )


class DatabaseInUseError(StoreError):
    """Another process (a running bot) has the SQLite file open, and it was asked for alone."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        super().__init__(
            f"the database {self.path} is open in another process (a running bot?): stop the "
            "bot first"
        )


class SchemaTooNewError(StoreError):
    """The database was written by a newer version of the bot; it is left untouched.

    ``location`` is a file path or a PostgreSQL URL (without its password).
    """

    def __init__(self, location: str | Path, found: int, supported: int) -> None:
        self.location = str(location)
        self.found = found
        self.supported = supported
        super().__init__(
            f"The database {self.location} has schema version {found}, but this version of the bot "
            f"only knows versions up to {supported}. It was written by a newer bot: upgrade the "
            "bot (the database has not been changed)."
        )


class MigrationError(StoreError):
    """A migration failed, or an applied migration no longer matches the code."""


class DatabaseUnavailableError(StoreError):
    """The database cannot be used just now: the server cannot be reached, refuses the
    connection or is shutting down (PostgreSQL); the file is locked by another process for
    longer than the busy timeout, or its disk is full (SQLite). Trying again later may work."""


class CommitUnknownError(DatabaseUnavailableError):
    """The database stopped answering at ``COMMIT`` (PostgreSQL): the change may have been
    saved or not. Whoever made it is told so; the game is read back once the store answers."""


#: The store cannot be used now (down, locked, full, read-only): nothing was saved, and the
#: same change may succeed once an admin has set it right. No restart is needed.
OUTAGES = (DatabaseUnavailableError, DatabaseUnreadableError)


class NotFoundError(StoreError):
    """No row with that id."""


class GameNotActiveError(StoreError):
    """A move or undo for a game that is finished or cancelled."""


class StaleMoveError(StoreError):
    """The expected move number was already taken (or the log is not where the caller thought)."""

    def __init__(self, game_id: int, expected: int, actual: int) -> None:
        self.game_id = game_id
        self.expected = expected
        self.actual = actual
        super().__init__(
            f"Game {game_id} has {actual} moves, not {expected}: the turn was already played."
        )


class ChannelBusyError(StoreError):
    """An active game or an open lobby already exists in the channel."""

    def __init__(self, channel_id: int, what: str) -> None:
        self.channel_id = channel_id
        self.what = what
        super().__init__(f"There is already {what} in this channel.")


class CorruptGameError(StoreError):
    """A game whose snapshot and move log cannot be turned back into a game."""


class IntegrityError(StoreError):
    """A unique or foreign key constraint refused a write (either backend)."""
