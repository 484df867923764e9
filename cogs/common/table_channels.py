"""Where a server lets tables be opened (``/sequence-admin set table_channels``), and whether
the bot can work there (``/sequence-admin check``).

The setting lists channels or categories; none listed: anywhere. A thread counts as its parent
channel, and a channel counts when its category is listed. A channel or category deleted since
it was listed is ignored (every one deleted: anywhere, as if none were listed), never a crash.
Tournaments follow the same list: their matches are tables, played in threads of the
tournament's channel, so ``/tournament-admin create`` is refused where ``/sequence new`` would be.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import discord

from bot.services.errors import UserError

from .lengths import MESSAGE_LIMIT, clipped
from .replies import THREAD_TABLE_PERMISSIONS, missing_permissions, table_permission_names

if TYPE_CHECKING:
    pass

#: Who can change where tables may be opened.
CHANGE_IT = "A server admin can change that with `/sequence-admin set table_channels`."


def live_places(guild: discord.Guild | None, ids: Iterable[int]) -> list[Any]:
    """The channels and categories of ``ids`` that the server still has, in order."""
    if guild is None:
        return []
    return [place for each in ids if (place := guild.get_channel(each)) is not None]


def place_ids(channel: Any) -> set[int]:
    """The ids that decide whether a table may be opened in ``channel``: the channel itself (a
    thread's parent) and its category."""
    if isinstance(channel, discord.Thread):
        parent = channel.parent
        ids = {channel.parent_id}
        category = getattr(parent, "category_id", None)
    else:
        ids = {channel.id}
        category = getattr(channel, "category_id", None)
    if category is not None:
        ids.add(category)
    return ids


def place_name(place: Any) -> str:
    """A listed channel as the refusal names it (a category by its name)."""
    if isinstance(place, discord.CategoryChannel):
        return f"the channels of the **{discord.utils.escape_markdown(place.name)}** category"
    return str(place.mention)


def require_table_channel(interaction: discord.Interaction, allowed: Iterable[int]) -> None:
    """Refuse, before anything changes, a table where the server does not let one open,
    naming where it may and who can change it."""
    live = live_places(interaction.guild, allowed)
    channel = interaction.channel
    if not live or channel is None or place_ids(channel) & {place.id for place in live}:
        return
    names = [place_name(place) for place in live]
    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
    raise UserError(
        f"Tables cannot be opened in this channel: in this server they are opened in {listed}. "
        f"{CHANGE_IT}"
    )


def require_listable(guild: discord.Guild | None, ids: Iterable[int]) -> None:
    """Refuse a channel an admin lists that is not a channel or category of this server where
    a table can be opened (a text, forum or voice channel, or a category)."""
    for each in ids:
        place = guild.get_channel(each) if guild is not None else None
        if not isinstance(
            place,
            discord.TextChannel
            | discord.ForumChannel
            | discord.VoiceChannel
            | discord.CategoryChannel,
        ):
            raise UserError(
                f"<#{each}> is not a channel or category of this server where tables can be "
                "opened: name text channels, forums or categories."
            )


def checked_channels(guild: discord.Guild, allowed: Iterable[int]) -> list[Any]:
    """The channels where tables may be opened: those listed (a category's text and forum
    channels), or every text channel of the server when none is listed (or all are gone)."""
    live = live_places(guild, allowed)
    if not live:
        return list(guild.text_channels)
    found: dict[int, Any] = {}
    for place in live:
        inside = (
            [*place.text_channels, *place.forums]
            if isinstance(place, discord.CategoryChannel)
            else [place]
        )
        found.update((channel.id, channel) for channel in inside)
    return list(found.values())


def needed_in(channel: Any) -> tuple[str, ...]:
    """What the bot needs in ``channel`` for its tables: to post the board there and, in a
    text channel, to open tables in threads of their own (``thread:yes``, tournaments)."""
    if isinstance(channel, discord.ForumChannel):
        return table_permission_names(in_thread=True)
    if isinstance(channel, discord.TextChannel):
        return (*table_permission_names(in_thread=False), *THREAD_TABLE_PERMISSIONS)
    return table_permission_names(in_thread=False)


def check_report(guild: discord.Guild, allowed: Iterable[int]) -> str:
    """What ``/sequence-admin check`` answers: for each channel where tables may be opened,
    the permissions the bot lacks there; within one message (the longest lists clipped)."""
    channels = checked_channels(guild, allowed)
    where = "listed in `table_channels`" if live_places(guild, allowed) else "of this server"
    lacking = []
    for channel in channels:
        missing = missing_permissions(channel.permissions_for(guild.me), needed_in(channel))
        if missing:
            lacking.append(f"• {channel.mention}: " + ", ".join(f"**{name}**" for name in missing))
    if not channels:
        return f"There is no channel {where} where tables may be opened."
    if not lacking:
        return (
            f"✅ I have every permission I need in the {len(channels)} channel(s) {where} where "
            "tables may be opened."
        )
    head = (
        f"⚠️ Of the {len(channels)} channel(s) {where} where tables may be opened, I lack "
        f"permissions in {len(lacking)} (Create Public Threads and Send Messages in Threads are "
        "for tables in threads and tournaments). A server admin can grant them in each "
        "channel's or category's permissions, or to my role:"
    )
    return f"{head}\n{clipped(lacking, MESSAGE_LIMIT - len(head) - 1)}"
