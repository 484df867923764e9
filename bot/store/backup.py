"""A copy of the SQLite store taken while the bot runs, with SQLite's online backup API.

The copy is one read transaction's snapshot of the database, the part still only in its ``-wal``
file included, while the bot goes on writing (WAL mode: a reader never blocks the writer). It is
written beside the destination first and moved there only once it passed ``PRAGMA
integrity_check`` with the source's schema version: a failed or interrupted backup leaves the
destination as it was.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .errors import StoreError
from .migrations import stored_version

#: The files SQLite keeps beside a database in WAL mode.
SIDE_FILES = ("-wal", "-shm")
#: Seconds a connection waits for a busy database.
BUSY_TIMEOUT = 10.0


class BackupError(StoreError):
    """A backup refused or failed; the message is for the person running it.

    ``usage`` is True when the command or the settings are at fault (nothing was copied).
    """

    def __init__(self, message: str, *, usage: bool = False) -> None:
        super().__init__(message)
        self.usage = usage


@dataclass(frozen=True)
class BackupReport:
    """What a verified backup holds."""

    path: Path
    size: int
    schema_version: int
    games: int
    active_games: int


def backup_sqlite(source: Path, dest: Path, *, force: bool = False) -> BackupReport:
    """Copy the database ``source`` to ``dest`` (its folder created) and verify the copy.

    Refuses an existing ``dest`` unless ``force``, and never writes to ``source``.
    """
    _check_paths(source, dest, force=force)
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".partial", dir=dest.parent)
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise BackupError(
            f"cannot write a backup in the folder {dest.parent}: {reason}.", usage=True
        ) from error
    os.close(handle)
    partial = Path(name)
    try:
        shutil.copymode(source, partial)  # mkstemp's file is private to its user
        version = _copy(source, partial)
        report = _verify(partial, dest, version)
        _remove(dest, side_files_only=True)  # those of a file --force replaces would damage it
        os.replace(partial, dest)
    except sqlite3.Error as error:
        raise BackupError(f"the backup of {source} to {dest} failed: {error}.") from error
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise BackupError(f"the backup could not be written to {dest}: {reason}.") from error
    finally:
        _remove(partial)
    return BackupReport(dest, dest.stat().st_size, *report)


def _check_paths(source: Path, dest: Path, *, force: bool) -> None:
    if source.is_dir():
        raise BackupError(f"the database {source} is a folder, not a file.", usage=True)
    if not source.exists():
        raise BackupError(
            f"there is no database file {source} to back up (SEQUENCE_DATABASE).", usage=True
        )
    if dest.is_dir():
        raise BackupError(
            f"{dest} is a folder: name the backup file, like {dest / 'sequence.db'}.", usage=True
        )
    folder = dest.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise BackupError(f"cannot write {dest}: {folder} is a file, not a folder.", usage=True)
    live = source.resolve()
    if dest.resolve() in {live, *(live.with_name(live.name + s) for s in SIDE_FILES)}:
        raise BackupError(f"{dest} is the database itself: name another file.", usage=True)
    if dest.exists() and not force:
        raise BackupError(
            f"{dest} already exists: name another file, or add --force to replace it.",
            usage=True,
        )


def _copy(source: Path, target: Path) -> int:
    """Copy ``source`` into ``target`` in one step; the schema version.

    ``source`` is only read. It is opened read-only while a bot has it open (its ``-wal`` file
    is there); a stopped bot's (no ``-wal`` file) is opened read-write, so that, the last
    connection to close, SQLite removes the ``-wal`` and ``-shm`` files that opening it in WAL
    mode made (a read-only connection cannot, and would leave them beside the database)."""
    in_use = any(source.with_name(source.name + suffix).exists() for suffix in SIDE_FILES)
    uri = f"{source.resolve().as_uri()}?mode={'ro' if in_use else 'rw'}"
    with contextlib.closing(sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT)) as src:
        version = stored_version(src)
        if version is None:
            raise BackupError(
                f"{source} is not this bot's database (it has no schema_version table).",
                usage=True,
            )
        with contextlib.closing(sqlite3.connect(target, timeout=BUSY_TIMEOUT)) as dst:
            src.backup(dst)  # every page in one step: one consistent snapshot
    return version


def _verify(copy: Path, dest: Path, version: int) -> tuple[int, int, int]:
    """Check the copy; (schema version, games, active games)."""
    with contextlib.closing(sqlite3.connect(copy, timeout=BUSY_TIMEOUT)) as conn:
        problems = [row[0] for row in conn.execute("PRAGMA integrity_check")]
        if problems != ["ok"]:
            raise BackupError(
                f"the copy failed SQLite's integrity check ({'; '.join(problems[:3])}): the "
                f"database itself may be damaged; {dest} was not written."
            )
        found = stored_version(conn)
        if found != version:
            raise BackupError(
                f"the copy has schema version {found}, the database {version}; "
                f"{dest} was not written."
            )
        games, active = conn.execute(
            "SELECT count(*), coalesce(sum(status = 'active'), 0) FROM games"
        ).fetchone()
    return version, games, active


def _remove(path: Path, *, side_files_only: bool = False) -> None:
    """Delete ``path`` (unless ``side_files_only``) and its ``-wal`` and ``-shm`` files."""
    names = [path.name + suffix for suffix in SIDE_FILES]
    for name in names if side_files_only else [path.name, *names]:
        with contextlib.suppress(FileNotFoundError):
            path.with_name(name).unlink()
