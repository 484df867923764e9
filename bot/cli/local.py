"""``sequence-bot play-local``: you against computer players, in a page on 127.0.0.1.

The real bot and cogs run on SimCord's in-memory Discord; SimCord's preview (the ``[local]``
extra: ``pip install -e ".[local]"``) serves the channel as a web page on loopback, where you
press the real buttons and pick from the real selects. Nothing goes to the network.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import io
import logging
import os
import sys
import tempfile
import webbrowser
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.app import create_bot
from bot.config import Settings
from bot.demo import settle_timeout
from bot.logs import configure_logging

from .codes import FAILED, OK, USAGE

#: What SimCord's preview imports at run time (besides Pillow).
PREVIEW_MODULES = ("simcord", "aiohttp", "markdown_it", "linkify_it", "regex")
PLAYER_NAME = "you"
#: The bot's name and avatar in the page (SimCord's default bot user is "TestBot").
BOT_NAME = "Sequence"
AVATAR_KEY = "sequence-chips"


@dataclass(frozen=True)
class LocalOptions:
    """The table the page opens on."""

    players: int = 4
    level: str = "medium"
    seed: int | None = None
    port: int | None = None


def avatar_png(size: int = 128) -> bytes:
    """The bot's avatar: three team chips on the felt of the board."""
    from PIL import Image

    from render import sprites, theme

    image = Image.new("RGBA", (size, size), (*theme.FELT, 255))
    diameter = size * 2 // 5
    spots = ((size * 0.30, size * 0.34), (size * 0.70, size * 0.34), (size * 0.50, size * 0.70))
    for team, (x, y) in enumerate(spots):
        chip = sprites.chip(team, diameter)
        image.alpha_composite(chip, (round(x - chip.width / 2), round(y - chip.height / 2)))
    buffer = io.BytesIO()
    image.convert("RGB").save(buffer, format="PNG")
    return buffer.getvalue()


async def dress_the_bot(env: Any) -> dict[str, tuple[str, bytes]]:
    """Name the bot "Sequence" (as it renames itself on Discord) and give it its avatar.

    Returns the preview's ``assets``: SimCord models no avatar upload, so the picture is
    served to the page under the avatar URL its preview asks for.
    """
    from simcord.backend.cdn import CDN_BASE

    await env.bot.user.edit(username=BOT_NAME)
    user = env.backend.bot_user
    user.avatar = AVATAR_KEY
    url = f"{CDN_BASE}/avatars/{user.id}/{AVATAR_KEY}.png"
    return {url: ("avatar.png", avatar_png())}


def missing_modules() -> list[str]:
    """The preview's modules that are not installed (empty when play-local can run)."""
    return [name for name in PREVIEW_MODULES if importlib.util.find_spec(name) is None]


async def play_local(
    options: LocalOptions,
    on_ready: Callable[[str], Awaitable[None]] | None = None,
    *,
    until_closed: bool = True,
) -> None:
    """Open a lobby with computers and serve it on loopback.

    ``on_ready(url)`` runs once the page is up; then, with ``until_closed``, the page stays up
    until its *End preview session* button (or Ctrl-C).
    """
    import simcord

    with tempfile.TemporaryDirectory(prefix="sequence-local-") as tmp:
        settings = Settings(database_path=Path(tmp) / "local.db", computer_move_delay=0.0)
        bot = create_bot(settings)
        wait = settle_timeout(options.players, settings.computer_budget_ms)
        async with simcord.run(bot, settle_timeout=wait) as env:
            try:
                if options.seed is not None:
                    seed = options.seed
                    bot.lobbies.new_seed = lambda: seed
                assets = await dress_the_bot(env)
                guild = env.create_guild("Sequence Club")
                channel = guild.create_text_channel("sequence")
                you = guild.add_member(env.create_user(PLAYER_NAME))
                await you.slash(channel, "sequence new")
                for _ in range(options.players - 1):
                    await you.slash(channel, "sequence addbot", level=options.level)
                preview = env.preview(
                    channel, viewers=[you], layout="channel", port=options.port, assets=assets
                )
                async with preview as page:
                    if on_ready is not None:
                        await on_ready(page.url)
                    if until_closed:
                        await page.wait_closed()
            finally:
                await bot.close()


def play_local_command(args: argparse.Namespace) -> int:
    """Serve the page until it is closed or Ctrl-C."""
    missing = missing_modules()
    if missing:
        print(
            f"error: play-local needs SimCord's preview ({', '.join(missing)} missing). "
            'Install it with: pip install -e ".[local]"',
            file=sys.stderr,
        )
        return USAGE
    configure_logging("WARNING")
    logging.getLogger("discord").setLevel(logging.ERROR)
    options = LocalOptions(args.players, args.level, args.seed, args.port)

    async def announce(url: str) -> None:
        print(
            f"Your table is at {url}\n"
            "(the address is a key: keep it to yourself). Press Start, then Your hand under "
            "the board. Ctrl-C or End preview session stops.",
            file=sys.stderr,
        )
        if not args.no_browser:  # on a thread: a browser may wait for the page it opens
            await asyncio.to_thread(webbrowser.open, url)

    from simcord import SetupError

    try:
        asyncio.run(play_local(options, announce))
    except KeyboardInterrupt:
        return OK
    except (OSError, SetupError) as error:  # SetupError: the port is taken
        cause, reason = error.__cause__, ""
        if isinstance(cause, OSError) and cause.errno:
            reason = f" ({os.strerror(cause.errno)})"
        print(f"error: cannot serve the page: {error}{reason}", file=sys.stderr)
        return FAILED
    return OK
