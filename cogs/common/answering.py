"""Every failure of a command or a component answered in one place, as :func:`reporting` says:
a :class:`UserError` as its text, a store that cannot be used as "nothing was saved", a bug with
an apology (and then discord.py logs it, as before).

App commands: :func:`answer_errors` runs each command of a cog inside :func:`reporting`; the
cogs' base (``cogs.base.SequenceCog``) does it for every ``/sequence`` subcommand. It wraps the
call rather than using an error handler (``cog_app_command_error``, the tree's ``on_error``):
discord.py passes every exception that leaves a command to the tree's ``on_error`` after the
cog's handler, so a refusal answered there would still count as a failed command (SimCord records
each one as an error of the bot). The tree's ``on_error`` (``bot.app.SequenceTree``) is left with
what only it sees: a command refused before it ran (in DMs), and the bugs, logged.

Components: a :class:`discord.ui.DynamicItem`'s click is not handed to any ``on_error`` (discord.py
logs what its callback raises), so :class:`Answering` is the base of every component: its
``callback`` runs :meth:`Answering.clicked` inside :func:`reporting`. The bot sends no listened
view (``cogs.common.components``), so no ``View.on_error`` is ever called.

Autocomplete callbacks are not wrapped: they answer with choices, never with a message (what
one raises, discord.py logs, and the user sees no choices).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Coroutine
from typing import Any

import discord
from discord import app_commands

from .replies import reporting

#: Set on a callback that runs inside :func:`reporting`, so that it is wrapped once.
ANSWERS_ERRORS = "__answers_errors__"

AppCommand = app_commands.Command[Any, ..., Any] | app_commands.Group | app_commands.ContextMenu


def answer_errors(*commands: AppCommand) -> None:
    """Run each of ``commands`` (a group's: each of its subcommands) inside :func:`reporting`."""
    for command in commands:
        if isinstance(command, app_commands.Group):
            answer_errors(*command.commands)
        elif not getattr(command.callback, ANSWERS_ERRORS, False):
            # discord.py has no public hook around the call: its callback is replaced in place
            # (the parameters were read from the original, which ``__wrapped__`` keeps).
            command._callback = _reporting(command.callback)


def _reporting(
    callback: Callable[..., Coroutine[Any, Any, Any]],
) -> Callable[..., Coroutine[Any, Any, Any]]:
    """``callback`` inside :func:`reporting` of its interaction (its first argument after the
    cog, if it has one)."""

    @functools.wraps(callback)
    async def call(*args: Any, **kwargs: Any) -> Any:
        interaction = next(arg for arg in args if isinstance(arg, discord.Interaction))
        async with reporting(interaction):
            return await callback(*args, **kwargs)

    setattr(call, ANSWERS_ERRORS, True)
    return call


class Answering:
    """Mixin for a :class:`discord.ui.DynamicItem`, before it in the class line: a click (or a
    choice in a menu) runs :meth:`clicked` inside :func:`reporting`."""

    async def callback(self, interaction: discord.Interaction) -> None:
        """discord.py's entry point: :meth:`clicked`, with its failures answered."""
        async with reporting(interaction):
            await self.clicked(interaction)

    async def clicked(self, interaction: discord.Interaction) -> None:
        """What the component does."""
        raise NotImplementedError
