"""``sequence-bot run``: the bot on Discord, with the token from the environment or ``.env``."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import sys
from pathlib import Path

import aiohttp
import discord

from bot.app import create_bot
from bot.config import ConfigError, Settings, token_problem
from bot.logs import RedactFilter, configure_logging
from bot.store.base import Store
from bot.store.errors import StoreError

from .codes import FAILED, OK, USAGE
from .health import database_problem
from .settings import load_settings

log = logging.getLogger("bot.run")

HEARTBEAT_SECONDS = 30.0

NO_TOKEN = """\
error: no Discord bot token. `sequence-bot run` needs one in DISCORD_TOKEN:
  - put DISCORD_TOKEN=... in a .env file in this folder (copy .env.example to .env), or
  - export DISCORD_TOKEN=... in the environment (for Docker: docker run -e DISCORD_TOKEN=...).
The README explains how to create a Discord application and get its token.
To try the bot without Discord or a token, run: sequence-bot demo"""


def run_command(args: argparse.Namespace) -> int:
    """Validate the settings, then run until stopped; every failure is one clear line."""
    try:
        settings = load_settings(args.env_file)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return USAGE
    token = settings.discord_token
    if not token:
        print(NO_TOKEN, file=sys.stderr)
        return USAGE
    problem = token_problem(token) or database_problem(
        settings.database_location(), create_folder=True
    )
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return USAGE
    configure_logging(settings.log_level, secrets=[token])
    redact = RedactFilter([token]).redact
    log.info(
        "Starting",
        extra={
            "database": settings.database_label(),
            "sync": f"guild {settings.dev_guild_id}" if settings.dev_guild_id else "global",
            "shards": settings.shard_count or 1,
        },
    )
    try:
        asyncio.run(serve(settings, token, args.heartbeat))
    except KeyboardInterrupt:
        log.info("Stopped")
        return OK
    except discord.LoginFailure:
        print(
            "error: Discord refused the token in DISCORD_TOKEN. Copy it again from the "
            "Developer Portal (your application > Bot > Reset Token).",
            file=sys.stderr,
        )
        return FAILED
    except discord.PrivilegedIntentsRequired as error:
        print(f"error: {redact(str(error))}", file=sys.stderr)
        return FAILED
    except ConfigError as error:  # DEV_GUILD_ID names a server the bot is not in
        print(f"error: {error}", file=sys.stderr)
        return USAGE
    except discord.HTTPException as error:
        reason = redact(error.text) or error.status
        print(
            f"error: Discord answered {error.status} ({reason}): try again later.", file=sys.stderr
        )
        return FAILED
    except aiohttp.ClientError as error:
        reason = redact(str(error)) or type(error).__name__
        print(f"error: cannot reach Discord: {reason}", file=sys.stderr)
        return FAILED
    except (StoreError, OSError) as error:
        print(f"error: {redact(str(error))}", file=sys.stderr)
        return FAILED
    log.info("Stopped")
    return OK


async def serve(settings: Settings, token: str, heartbeat: Path | None = None) -> None:
    """Log in, sync the commands (in ``setup_hook``), and run until closed or SIGTERM."""
    discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False  # no voice here
    bot = create_bot(settings)
    loop = asyncio.get_running_loop()
    # The close SIGTERM started: awaited before returning, or the end of ``asyncio.run``
    # would cancel it before the database is closed.
    closing: list[asyncio.Task[None]] = []
    with contextlib.suppress(NotImplementedError, RuntimeError):  # not on Windows
        loop.add_signal_handler(
            signal.SIGTERM, lambda: closing.append(loop.create_task(bot.close()))
        )

    async def on_ready() -> None:
        log.info(
            "Connected",
            extra={
                "user": str(bot.user),
                "servers": len(bot.guilds),
                "shards": bot.shard_count or 1,
            },
        )

    bot.add_listener(on_ready, "on_ready")
    beating = asyncio.create_task(beat(bot, heartbeat)) if heartbeat else None
    try:
        async with bot:
            await bot.start(token)
        if bot.stopped_because is not None:
            raise StoreError(bot.stopped_because)
    finally:
        if beating is not None:
            beating.cancel()
        for task in closing:
            await task


async def beat(bot: discord.Client, path: Path, every: float = HEARTBEAT_SECONDS) -> None:
    """Touch ``path`` every ``every`` seconds while the bot is connected and ready and its store
    answers (on PostgreSQL: with its listening connection up)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    while True:
        db: Store | None = getattr(bot, "db", None)
        if bot.is_ready() and not bot.is_closed() and (db is None or await db.alive()):
            path.touch()
        await asyncio.sleep(every)
