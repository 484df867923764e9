"""The one view class the bot sends: the layout of a message's components, never listened to.

Every button and menu of the bot is a :class:`discord.ui.DynamicItem`: its custom id carries what a
click needs, and the classes each cog registers at start-up (``bot.add_dynamic_items``) answer a
click on any message, sent before or after a restart. A view is then only the rows a message shows.

A plain ``discord.ui.View`` is more than that in discord.py 2.7: every view sent is handed to the
client's view store, which starts listening to it, and a view sent in an ephemeral response with
``timeout=None`` is given a 15-minute time-out first (``InteractionResponse.send_message`` and
``Webhook.send``: ``view.timeout = 15 * 60.0``), so listening starts a task that sleeps on a
15-minute timer (``BaseView._start_listening_from_store``). Nothing ever stops such a view: each
ephemeral hand panel left a task, a timer and the view with its items behind, one per move, for a
quarter of an hour (for ever in a simulated Discord whose clock does not run).

discord.py hands a view to its store only while ``view.is_finished()`` is false, at every place
it sends or edits a message. A :class:`Components` view is finished from birth: nothing is stored,
no time-out is armed, and the view is garbage as soon as its message is sent.
"""

from __future__ import annotations

from typing import Any, Self

import discord


class Components(discord.ui.View):
    """Rows of :class:`discord.ui.DynamicItem` components (and link buttons), answered by the
    item classes registered at start-up, never by this view."""

    def __init__(self) -> None:
        super().__init__(timeout=None)

    def is_finished(self) -> bool:
        """Always: discord.py never listens to this view (see the module's docstring)."""
        return True

    def add_item(self, item: discord.ui.Item[Any]) -> Self:
        """Add ``item``; one a click reaches must be a ``DynamicItem``: no view answers it."""
        if item.is_dispatchable() and not isinstance(item, discord.ui.DynamicItem):
            raise TypeError(f"{type(item).__name__} is not a DynamicItem: nothing would answer it")
        return super().add_item(item)
