"""``sequence-bot migrate-db --from PATH --to URL``: copy a SQLite store to PostgreSQL, verified.

Stop the bot first: a SQLite file another process has open (a running bot) is refused, and the
copy holds the file for itself until it ends, so no move is made during it and missed. A file
that is not this bot's database (another program's, damaged, or from a newer bot) is refused
before anything is written to it. The target is created up to date (its migrations run), must be
empty unless ``--force``, and is filled in one transaction: a failure leaves it as it was.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from bot.store.connection import UNHURRIED, waiting
from bot.store.copy import CopyError, copy_store
from bot.store.errors import DatabaseInUseError, StoreError
from bot.store.location import open_database
from bot.store.urls import is_postgres_url, redact, url_problem

from .codes import FAILED, OK, USAGE
from .health import database_problem


def migrate_db_command(args: argparse.Namespace) -> int:
    """Copy ``--from`` into ``--to``; print each step and a summary (never a password)."""
    source, target = args.source, args.target
    if not is_postgres_url(source) and not Path(source).is_file():
        print(f"error: there is no database file {source}.", file=sys.stderr)
        return USAGE
    for option, url in (("--from", source), ("--to", target)):
        reason = is_postgres_url(url) and url_problem(url)
        if reason:
            print(
                f"error: {option} {redact(url)} is not a valid PostgreSQL URL ({reason}).",
                file=sys.stderr,
            )
            return USAGE
    if source == target:
        print("error: --from and --to are the same database.", file=sys.stderr)
        return USAGE
    problem = not is_postgres_url(source) and database_problem(source, named_by="--from")
    if problem:  # read only: nothing is written to a file that is not this bot's database
        print(f"error: {problem}", file=sys.stderr)
        return USAGE
    try:
        rows, games = asyncio.run(migrate(source, target, force=args.force))
    except DatabaseInUseError as error:
        print(f"error: {error}, then run migrate-db again; nothing was copied.", file=sys.stderr)
        return USAGE
    except (CopyError, StoreError) as error:
        print(f"error: {redact(redact(str(error), source), target)}", file=sys.stderr)
        return FAILED
    print(
        f"done: {sum(rows.values())} rows copied from {redact(source)} to {redact(target)}; "
        f"{games} games replayed to their snapshots."
    )
    return OK


async def migrate(source: str, target: str, *, force: bool) -> tuple[dict[str, int], int]:
    """Open both stores (a SQLite source held for this copy alone), copy and verify; (rows per
    table, games verified)."""
    if is_postgres_url(source):
        src = await open_database(source)
    else:
        src = await open_database(source, exclusive=True)
    try:
        dst = await open_database(target)
        try:
            with waiting(UNHURRIED):  # a copy's pages take as long as they take
                report = await copy_store(src, dst, force=force, progress=_say)
        finally:
            await dst.close()
    finally:
        await src.close()
    return report.rows, report.games_verified


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)
