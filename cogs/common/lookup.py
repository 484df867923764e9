"""What an interaction carries: the bot, a cog, a select's value.

discord.py types a component's interaction with the plain ``Client`` (a ``DynamicItem`` cannot
name our bot class in its callback's signature), so these say once what the client is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, cast

import discord
from discord.ext import commands

if TYPE_CHECKING:
    from bot.app import SequenceBot

CogT = TypeVar("CogT", bound=commands.Cog)


def bot_of(interaction: discord.Interaction[Any]) -> SequenceBot:
    """The bot that received ``interaction``."""
    return cast("SequenceBot", interaction.client)


def selected(interaction: discord.Interaction[Any]) -> str:
    """The first value picked in a select ("" when none)."""
    data: dict[str, Any] = dict(interaction.data or {})
    values = data.get("values") or [""]
    return str(values[0])


def answering_cog(interaction: discord.Interaction[Any], name: str) -> commands.Cog:
    """The loaded cog ``name`` that answers a component defined outside the cog's module (the
    component's module declares what it needs of the cog, a runtime-checkable Protocol, and
    checks it with ``isinstance``: it never imports the cog's module, which imports it)."""
    cog = bot_of(interaction).get_cog(name)
    if cog is None:
        raise RuntimeError(f"The {name} cog is not loaded")
    return cog


def cog_of(interaction: discord.Interaction[Any], cog_class: type[CogT]) -> CogT:
    """The loaded cog of ``cog_class`` (a component answers through its cog's services)."""
    cog = bot_of(interaction).get_cog(cog_class.__cog_name__)
    if not isinstance(cog, cog_class):
        raise RuntimeError(f"The {cog_class.__cog_name__} cog is not loaded")
    return cog


async def sent_before(
    channel: discord.abc.Messageable,
    author: discord.abc.User | None,
    sent: Callable[[discord.Message], bool],
    limit: int,
) -> discord.Message | None:
    """Among ``channel``'s latest ``limit`` messages, the one ``author`` (the bot) sent that
    ``sent`` recognises: a post a process made and died before recording, whose event then
    comes again. None when there is none, or the history cannot be read (it is sent again:
    twice at worst, never lost)."""
    if author is None:
        return None
    try:
        async for message in channel.history(limit=limit):
            if message.author.id == author.id and sent(message):
                return message
    except discord.HTTPException:
        return None
    return None
