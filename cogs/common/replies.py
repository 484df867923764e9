"""Answering interactions: ephemeral replies and the one place user errors become messages."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

import discord

from bot.services.errors import UserError

from .lengths import message_chunks

log = logging.getLogger(__name__)

SORRY = "Something went wrong on our side; please try again. Nothing you did was lost."


async def reply(interaction: discord.Interaction, content: str, **kwargs: Any) -> None:
    """Answer ephemerally: the first response, or a followup when already answered."""
    kwargs.setdefault("ephemeral", True)
    if interaction.response.is_done():
        await interaction.followup.send(content, **kwargs)
    else:
        await interaction.response.send_message(content, **kwargs)


async def reply_lines(interaction: discord.Interaction, lines: list[str], **kwargs: Any) -> None:
    """Answer with ``lines``, in as few messages as Discord's limit allows (a line is never
    split)."""
    for text in message_chunks(lines):
        await reply(interaction, text, **kwargs)


@contextlib.asynccontextmanager
async def reporting(interaction: discord.Interaction) -> AsyncIterator[None]:
    """Turn a :class:`UserError` raised inside into an ephemeral answer to the user; answer a
    bug with an apology before it propagates."""
    try:
        yield
    except UserError as error:
        await reply(interaction, f"⚠️ {error}")
    except Exception:
        # A bug: apologise (nothing the player did is lost: moves are saved before any reply),
        # then let discord.py's error handling log it as usual.
        with contextlib.suppress(discord.HTTPException):
            await reply(interaction, SORRY)
        raise


def user_name(user: discord.abc.User) -> str:
    """The name a table shows for a user: their server nickname or global name."""
    return getattr(user, "display_name", None) or user.name


def can_manage(interaction: discord.Interaction, permission: str) -> bool:
    """Whether the user has a channel permission (``manage_channels``, ``manage_messages``...)."""
    permissions = interaction.permissions
    return bool(getattr(permissions, permission, False) or permissions.administrator)
