"""``sequence-bot check``: can ``run`` start (and, with ``--heartbeat``, is it connected)?

Docker's ``HEALTHCHECK`` runs it. It never writes: the database is opened read-only.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sqlite3
import sys
import time
from pathlib import Path

from bot.config import ConfigError, Settings, token_problem
from bot.store.migrations import latest_version, stored_version
from bot.store.urls import is_postgres_url, redact

from .codes import FAILED, OK
from .settings import load_settings


def check_command(args: argparse.Namespace) -> int:
    """Print what was checked; exit 0 when healthy, 1 with the reason when not."""
    try:
        settings = load_settings(args.env_file)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return FAILED
    problems = []
    if not settings.discord_token:
        problems.append("DISCORD_TOKEN is not set (in the environment or .env).")
    elif shape := token_problem(settings.discord_token):
        problems.append(shape)
    database = database_problem(settings.database_location())
    if database:
        problems.append(database)
    if args.heartbeat is not None:
        stale = heartbeat_problem(args.heartbeat, args.max_age)
        if stale:
            problems.append(stale)
    if problems:
        for problem in problems:
            print(f"error: {problem}", file=sys.stderr)
        return FAILED
    print("ok: " + describe(settings))
    return OK


def describe(settings: Settings) -> str:
    """The settings that matter for a start-up, in one line (never the token)."""
    sync = f"to guild {settings.dev_guild_id}" if settings.dev_guild_id else "globally"
    shards = f"{settings.shard_count} shards" if settings.shard_count else "one connection"
    return (
        f"database {settings.database_label()}, log level {settings.log_level}, "
        f"commands synced {sync}, {shards}, token set"
    )


def database_problem(
    location: str | Path, *, create_folder: bool = False, named_by: str = "SEQUENCE_DATABASE"
) -> str | None:
    """Why the bot could not use the database at ``location``, or None.

    A read-only check, unless ``create_folder``: then a SQLite file's folder is created, as the
    bot would (``run`` does this; ``check`` never writes). ``named_by``: what names the file.
    """
    if is_postgres_url(location):
        return asyncio.run(postgres_problem(str(location)))
    path = Path(location)
    if path.is_dir():
        return f"SEQUENCE_DATABASE={path} is a folder: give a file path like {path}/sequence.db."
    if not path.exists():
        folder = path.parent
        while not folder.exists() and folder != folder.parent:
            folder = folder.parent
        if not folder.is_dir():
            return f"the database {path} cannot be created: {folder} is a file, not a folder."
        if not os.access(folder, os.W_OK | os.X_OK):
            return f"the database {path} cannot be created: the folder {folder} is not writable."
        if create_folder:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                reason = error.strerror or type(error).__name__
                return f"the database {path} cannot be created: {reason} ({error.filename})."
        return None
    try:
        uri = f"{path.resolve().as_uri()}?mode=ro"
        with contextlib.closing(sqlite3.connect(uri, uri=True, timeout=5.0)) as conn:
            found = stored_version(conn)
            if found is not None:
                known = latest_version()
                if found > known:
                    return (
                        f"the database {path} has schema version {found}; this bot knows up to "
                        f"{known}: upgrade the bot."
                    )
            elif any(
                not row[0].startswith("sqlite_")
                for row in conn.execute("SELECT name FROM sqlite_master")
            ):
                return (
                    f"{path} is a SQLite database, but not this bot's: "
                    f"point {named_by} at another file."
                )
    except sqlite3.Error as error:
        return f"the database {path} cannot be read: {error}."
    if not os.access(path, os.W_OK):
        return f"the database {path} is read-only for this user."
    return None


async def postgres_problem(url: str, timeout: float = 10.0) -> str | None:
    """Why the bot could not use the PostgreSQL database at ``url``, or None (reads only)."""
    import asyncpg

    shown = redact(url)
    try:
        conn = await asyncpg.connect(url, timeout=timeout)
    except Exception as error:  # any failure to connect is the answer, told without password
        return f"the database {shown} cannot be reached: {redact(str(error), url)}."
    try:
        tables = {
            row[0]
            for row in await conn.fetch(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = current_schema()"
            )
        }
        if "schema_version" in tables:
            found = await conn.fetchval("SELECT max(version) FROM schema_version") or 0
            known = latest_version()
            if found > known:
                return (
                    f"the database {shown} has schema version {found}; this bot knows up to "
                    f"{known}: upgrade the bot."
                )
        elif tables:
            return (
                f"{shown} is a PostgreSQL database, but not this bot's: "
                "point SEQUENCE_DATABASE at another (empty) database."
            )
    except asyncpg.PostgresError as error:
        return f"the database {shown} cannot be read: {error.message}."
    finally:
        await conn.close()
    return None


def heartbeat_problem(path: Path, max_age: float) -> str | None:
    """Why ``path`` shows that ``run`` is not connected to Discord or its database, or None."""
    try:
        age = time.time() - path.stat().st_mtime
    except FileNotFoundError:
        return f"no heartbeat in {path} yet: the bot has not connected to Discord."
    if age > max_age:
        return (
            f"the last heartbeat in {path} was {age:.0f} s ago: the bot is not connected to "
            "Discord, or its database does not answer."
        )
    return None
