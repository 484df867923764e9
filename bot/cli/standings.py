"""``sequence-bot standings [--rebuild]``: check the kept ratings and totals against a replay of
the results, or compute them again from the results (an administrator's tool: no command of
the bot recomputes them, but for a change of a server's season plan or time away).

The check replays each server's rated results in the order they were recorded and sums each
player's games, and compares with what is stored; it writes nothing. ``--rebuild`` replaces
each server's ratings, rating changes and totals with the recomputation (one transaction per
server), then checks. The bot may run meanwhile: a result recorded during a server's rebuild
waits for it.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from bot.config import ConfigError
from bot.store.errors import StoreError
from bot.store.location import open_database
from bot.store.rebuild import rebuild_guild, stored_problems

from .codes import FAILED, OK, USAGE
from .settings import load_settings


def standings_command(args: argparse.Namespace) -> int:
    """Check (or ``--rebuild``) the configured database's standings; the problems found."""
    try:
        settings = load_settings(args.env_file)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return USAGE
    try:
        servers, problems = asyncio.run(
            check_standings(settings.database_location(), rebuild=args.rebuild)
        )
    except StoreError as error:
        print(f"error: {error}", file=sys.stderr)
        return FAILED
    for problem in problems[:20]:
        print(f"differs: {problem}")
    if problems:
        print(f"error: {len(problems)} difference(s) in the standings of {servers} server(s).")
        return FAILED
    done = "rebuilt and checked" if args.rebuild else "checked"
    print(f"done: the standings of {servers} server(s) {done}: they equal a replay of the results.")
    return OK


async def check_standings(location: str | Path, *, rebuild: bool) -> tuple[int, list[str]]:
    """(servers, differences) for every server with results; each rebuilt first if asked."""
    db = await open_database(location)
    try:
        problems: list[str] = []
        guilds = await db.standings.guilds()
        for guild_id in guilds:
            if rebuild:
                await db.run(rebuild_guild, guild_id)
            problems += await db.read(stored_problems, guild_id)
        return len(guilds), problems
    finally:
        await db.close()
