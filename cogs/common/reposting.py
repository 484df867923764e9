"""A message the bot keeps up to date (a lobby, a tournament's sign-up) that Discord will not
let it edit any more: Discord limits the edits of a message older than an hour (error 30046,
for a while), so the list it shows would stay stale. It is posted anew instead, and the old
one deleted (a deletion is not an edit)."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import discord

from bot.store.errors import OUTAGES

from .threads import unarchiving

if TYPE_CHECKING:
    from bot.app import SequenceBot

log = logging.getLogger(__name__)

#: Discord's code for "too many edits to a message older than an hour; try again later".
TOO_MANY_EDITS = 30046


async def edit_or_post_anew(
    bot: SequenceBot,
    channel_id: int,
    message_id: int,
    remember: Callable[[int], Awaitable[object | None]],
    *,
    content: str | None = None,
    **fields: Any,
) -> None:
    """Edit the message ``message_id`` of ``channel_id`` to ``fields`` (a thread that archived
    is unarchived first, :func:`~cogs.common.threads.unarchiving`). Refused with 30046, post
    ``fields`` (and ``content``, the text the message was posted with) as a new message,
    ``remember(new id)`` (None: what it shows is gone meanwhile, and the new message is deleted
    again), then delete the old one. Refused otherwise (or the post refused), nothing changes:
    the next change edits the message again."""
    channel = bot.get_partial_messageable(channel_id)
    try:
        await unarchiving(
            bot, channel_id, lambda: channel.get_partial_message(message_id).edit(**fields)
        )
        return
    except discord.HTTPException as error:
        if error.code != TOO_MANY_EDITS:
            return
    log.info("Message %d can be edited no more (30046): posted anew", message_id)
    try:
        message = await unarchiving(bot, channel_id, lambda: channel.send(content, **fields))
    except discord.HTTPException:
        return
    try:
        kept = await remember(message.id)
    except OUTAGES as error:  # not remembered: the old message stays the one edited
        log.warning("The new copy of message %d was not remembered: %s", message_id, error)
        kept = None
    if kept is None:
        with contextlib.suppress(discord.HTTPException):
            await message.delete()
        return
    with contextlib.suppress(discord.HTTPException):
        await channel.get_partial_message(message_id).delete()
