"""``sequence-bot backup DEST``: a verified copy of the SQLite database, taken while the bot runs.

SQLite's online backup API copies the configured database (the part still only in its ``-wal``
file included) without stopping the bot; the copy must pass ``PRAGMA integrity_check``. A
PostgreSQL database is backed up with PostgreSQL's own ``pg_dump``.
"""

from __future__ import annotations

import argparse
import sys

from bot.config import ConfigError
from bot.store.backup import BackupError, backup_sqlite
from bot.store.urls import is_postgres_url

from .codes import FAILED, OK, USAGE
from .settings import load_settings


def backup_command(args: argparse.Namespace) -> int:
    """Back up the configured database to ``args.dest``; one line for the result."""
    try:
        settings = load_settings(args.env_file)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return USAGE
    if is_postgres_url(settings.database_location()):
        print(
            f"error: SEQUENCE_DATABASE is a PostgreSQL database ({settings.database_label()}): "
            "back it up with PostgreSQL's pg_dump (pg_dump --format=custom --file=FILE URL); "
            "`sequence-bot backup` copies a SQLite file.",
            file=sys.stderr,
        )
        return USAGE
    try:
        report = backup_sqlite(settings.database_path, args.dest, force=args.force)
    except BackupError as error:
        print(f"error: {error}", file=sys.stderr)
        return USAGE if error.usage else FAILED
    print(
        f"done: {settings.database_path} backed up to {report.path} ({size(report.size)}, "
        f"{report.games} games, {report.active_games} active; integrity check ok)."
    )
    return OK


def size(count: int) -> str:
    """A file size for people.

    >>> size(512), size(20_480), size(3_500_000)
    ('512 bytes', '20 KB', '3.5 MB')
    """
    if count < 1000:
        return f"{count} bytes"
    if count < 1_000_000:
        return f"{count / 1000:.0f} KB"
    return f"{count / 1_000_000:.1f} MB"
