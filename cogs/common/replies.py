"""Answering interactions: ephemeral replies and the one place user errors become messages."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Iterable
from typing import TYPE_CHECKING, Any, cast

import discord

from bot.services.errors import UserError
from bot.store.connection import INTERACTIVE, waiting
from bot.store.errors import OUTAGES, CommitUnknownError

from .lengths import message_chunks
from .threads import unarchiving

if TYPE_CHECKING:
    from bot.app import SequenceBot

log = logging.getLogger(__name__)

SORRY = "Something went wrong on our side; please try again. Nothing you did was lost."
#: The answer when the store cannot be used (a database server down, a file locked or full).
DATABASE_DOWN = (
    "⚠️ I cannot reach my database just now, so nothing was saved. Please try again in a "
    "minute; if this goes on, tell a server admin."
)

#: The answer when the database stopped answering as it saved (it may have saved).
SAVED_OR_NOT = (
    "⚠️ My database stopped answering while it saved this, so I cannot tell whether it was "
    "saved. Look again in a minute: if it was, the table shows it; if not, try again."
)


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


async def show_answer(
    interaction: discord.Interaction,
    content: str,
    view: discord.ui.View | None,
    *,
    tell: bool = True,
    **fields: Any,
) -> None:
    """Edit the message of the button pressed (a question answered, a call ruled on, a lobby
    closed) to ``content``, ``view`` and ``fields`` (``embed=None``...). The answer is saved
    already: when Discord refuses the reply, the message is edited directly, so it never shows
    a question that is no longer open, and the clicker is told (unless not ``tell``: what
    follows tells them)."""
    try:
        await interaction.response.edit_message(content=content, view=view, **fields)
    except discord.HTTPException:
        message = interaction.message
        if message is not None:
            with contextlib.suppress(discord.HTTPException):
                await unarchiving(
                    cast("SequenceBot", interaction.client),
                    message.channel.id,
                    lambda: message.edit(content=content, view=view, **fields),
                )
        if tell:
            await reply(interaction, content)


@contextlib.asynccontextmanager
async def reporting(interaction: discord.Interaction) -> AsyncIterator[None]:
    """Turn a :class:`UserError` raised inside into an ephemeral answer to the user, and a store
    that cannot be used now into :data:`DATABASE_DOWN`; answer a bug with an apology before it
    propagates. The store calls made inside wait for the database as a player can
    (:data:`~bot.store.connection.INTERACTIVE`): one that hangs is answered as unusable, well
    within Discord's 3 seconds."""
    try:
        with waiting(INTERACTIVE):
            yield
    except UserError as error:
        await reply(interaction, f"⚠️ {error}")
    except OUTAGES as error:  # not a bug: the admin is told once per try, without a traceback
        log.warning("A command found the store unusable: %s", error)
        unknown = isinstance(error, CommitUnknownError)
        with contextlib.suppress(discord.HTTPException):
            await reply(interaction, SAVED_OR_NOT if unknown else DATABASE_DOWN)
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


#: Discord's names for the permissions the bot checks it has, as its settings show them.
PERMISSION_NAMES = {
    "view_channel": "View Channel",
    "send_messages": "Send Messages",
    "send_messages_in_threads": "Send Messages in Threads",
    "create_public_threads": "Create Public Threads",
    "embed_links": "Embed Links",
    "attach_files": "Attach Files",
}


#: The permissions the bot needs in a channel to open a table in a thread of its own there.
THREAD_TABLE_PERMISSIONS = (
    "view_channel",
    "create_public_threads",
    "send_messages_in_threads",
    "embed_links",
    "attach_files",
)


def missing_permissions(granted: discord.Permissions, names: Iterable[str]) -> list[str]:
    """Discord's names of those of ``names`` that ``granted`` lacks, in order, once each
    (none with Administrator)."""
    if granted.administrator:
        return []
    return [PERMISSION_NAMES[name] for name in dict.fromkeys(names) if not getattr(granted, name)]


def table_permission_names(in_thread: bool) -> tuple[str, ...]:
    """The permissions the bot needs to post a board (an image in an embed) in a channel or,
    ``in_thread``, a thread."""
    send = "send_messages_in_threads" if in_thread else "send_messages"
    return ("view_channel", send, "embed_links", "attach_files")


def require_table_permissions(
    interaction: discord.Interaction, needs: str = "post the board", *more: str
) -> None:
    """:func:`require_bot_permissions` for a game played here (to post the board, an image in
    an embed), and ``more`` for what else ``needs`` asks."""
    in_thread = isinstance(interaction.channel, discord.Thread)
    require_bot_permissions(interaction, needs, *table_permission_names(in_thread), *more)


async def require_thread_member(interaction: discord.Interaction) -> None:
    """Refuse, before anything changes, in a private thread the bot is not in: Discord lets it
    answer commands there but not post (the board, whose turn it is) unless it has Manage
    Threads, so the game would go on unseen."""
    channel, me = interaction.channel, interaction.client.user
    if not isinstance(channel, discord.Thread) or not channel.is_private() or me is None:
        return
    granted = interaction.app_permissions
    if granted.administrator or granted.manage_threads:
        return
    try:
        await channel.fetch_member(me.id)
    except (discord.NotFound, discord.Forbidden):
        raise UserError(
            "I cannot post the board in this private thread: I am not in it. Add me to the "
            "thread (mention me in it), or play in a public thread or channel."
        ) from None


def require_bot_permissions(interaction: discord.Interaction, needs: str, *names: str) -> None:
    """Refuse, before anything changes, where the bot lacks one of ``names`` in the channel of
    the interaction: its posts there would fail, and the game or tournament go on unseen.
    ``needs`` says what for (``"post the board"``)."""
    refuse_without(
        interaction.app_permissions,
        names,
        f"{needs} here",
        "this channel",
        "or play in another channel",
    )


def require_board_permissions(interaction: discord.Interaction, channel_id: int) -> None:
    """Refuse a move whose board the bot could not post in its game's channel ``channel_id``
    (a permission taken away during the game): saved unseen, nobody would learn whose turn it
    is. From that channel, Discord says what the bot may do; from a DM, the cached channel."""
    channel: Any = interaction.channel
    if interaction.channel_id == channel_id:
        granted, where, there = interaction.app_permissions, "here", "this channel"
    else:
        channel = interaction.client.get_channel(channel_id)
        me = getattr(getattr(channel, "guild", None), "me", None)
        if me is None or getattr(channel, "parent", True) is None:
            return  # not cached here (another process's server): the post is tried as ever
        granted, where, there = channel.permissions_for(me), f"in {channel.mention}", "that channel"
    names = table_permission_names(isinstance(channel, discord.Thread))
    refuse_without(
        granted, names, f"post the board of your move {where}", there, "then play your move again"
    )


def refuse_without(
    granted: discord.Permissions, names: tuple[str, ...], needs: str, there: str, then: str
) -> None:
    """A clear :class:`UserError` if ``granted`` lacks one of ``names``: what the bot cannot
    do (``needs``), which permissions it needs ``there``, and what to do ``then``."""
    missing = missing_permissions(granted, names)
    if not missing:
        return
    *most, last = [f"**{name}**" for name in missing]
    listed = f"{', '.join(most)} and {last}" if most else last
    what, them = ("permissions", "them") if len(missing) > 1 else ("permission", "it")
    raise UserError(
        f"I cannot {needs}: I need the {listed} {what} in {there}. "
        f"Ask a server admin for {them}, {then}."
    )
