"""Threads as Discord has them: one that archived (a day or a week without a message) refuses
edits of its messages with 50083 until it is unarchived; one that a moderator locked refuses
every post and edit by the bot (160005); a private thread the bot was removed from refuses it
everything (50001, Missing Access).

:func:`unarchiving` runs a post or an edit and, refused because the thread archived, unarchives
the thread (an edit of the thread that needs only Send Messages while it is not locked) and
tries again; so a message that closes (a lobby, a lapsed offer) never keeps its buttons.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final, Literal, TypeVar

import discord

from bot.services.pauses import BLOCKED_WHY, LOCKED, MISSING_ACCESS, blocked_sentence

if TYPE_CHECKING:
    from bot.app import SequenceBot

__all__ = [
    "ARCHIVED",
    "BLOCKED_WHY",
    "LOCKED",
    "MISSING_ACCESS",
    "blocked_sentence",
    "blocking_code",
    "edit_message",
    "unarchive",
    "unarchiving",
]

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Discord's error code of a thread that archived (those of a table that cannot be used, a
#: locked thread and no access, are :mod:`bot.services.pauses`'s).
ARCHIVED = 50083
#: Minutes of silence after which a thread the bot opens (a match's, a table's own) archives: a
#: week, the longest Discord allows (60, 1440, 4320 and 10080 are allowed on every server).
ARCHIVE_AFTER: Final[Literal[10080]] = 10080
#: How often a post or an edit unarchives its thread before it gives up (it archived again at
#: once: a busy server's moderators, or a thread archived while the call was in flight).
UNARCHIVE_TRIES = 2


def blocking_code(error: discord.HTTPException) -> int | None:
    """The code of a refusal that makes a table unusable until a moderator acts (a locked
    thread, the bot removed from it), or None."""
    return error.code if error.code in BLOCKED_WHY else None


async def unarchive(bot: SequenceBot, channel_id: int) -> None:
    """Unarchive the thread ``channel_id``; raises what Discord refused (160005: it is locked)."""
    await bot.http.edit_channel(channel_id, archived=False, reason="A game's message changes")


async def unarchiving(bot: SequenceBot, channel_id: int, call: Callable[[], Awaitable[T]]) -> T:
    """``call`` (a post or an edit in ``channel_id``); refused because the thread archived, the
    thread is unarchived and ``call`` tried again (up to :data:`UNARCHIVE_TRIES` times). Any
    other refusal, or the unarchiving's own, is raised."""
    tries = 0
    while True:
        try:
            return await call()
        except discord.HTTPException as error:
            if error.code != ARCHIVED or tries >= UNARCHIVE_TRIES:
                raise
        tries += 1
        log.info("Thread %d archived: unarchived to post or edit there", channel_id)
        await unarchive(bot, channel_id)


async def edit_message(
    bot: SequenceBot, channel_id: int, message_id: int, **fields: Any
) -> discord.Message:
    """Edit one of the bot's messages in a channel or thread (unarchived first if need be)."""
    channel = bot.get_partial_messageable(channel_id)
    message = channel.get_partial_message(message_id)
    return await unarchiving(bot, channel_id, lambda: message.edit(**fields))


def empty_thread(channel: discord.TextChannel, name: str, bot_id: int) -> discord.Thread | None:
    """A thread the bot opened named ``name`` in ``channel`` and never posted in (what it was
    opened for could not be stored: a table's lobby, a match): the next try uses it, never a
    second thread."""
    for thread in channel.threads:
        if (
            thread.owner_id == bot_id
            and thread.name == name
            and not thread.archived
            and not thread.locked
            and thread.last_message_id is None
        ):
            return thread
    return None
