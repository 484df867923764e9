"""Handlers that Discord refused for now: they raise :class:`DeliverLater`, and the dispatcher
(:mod:`.dispatch`) keeps them, with the consumer's later events of the game, to try again."""

from __future__ import annotations

import asyncio
from collections import deque
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .dispatch import Subscription
    from .events import GameEvent

#: True while a handler runs for an event that comes late (see :func:`delivered_late`).
delivering_late: ContextVar[bool] = ContextVar("late", default=False)


def delivered_late() -> bool:
    """In a handler: True when its event comes late (read back from the store at start-up, or
    tried again after Discord refused it)."""
    return delivering_late.get()


class DeliverLater(Exception):
    """Raised by a handler that cannot do its work for now (Discord refused it for a while): it
    is tried again after ``first`` seconds, then after twice as long each time up to ``most``;
    refused once more after waiting ``most``, it is given up until the next start (it stays
    undelivered in the store). ``ordered``: the consumer's later events of the game wait behind
    it (False: they go on; this one is tried again on its own, as an edit of one message is)."""

    def __init__(
        self, why: str = "", *, first: float = 60.0, most: float = 3600.0, ordered: bool = True
    ) -> None:
        super().__init__(why)
        self.first, self.most, self.ordered = first, most, ordered


@dataclass(eq=False)
class Held:
    """A consumer's deliveries of one game that Discord refused, or that wait behind one that
    was refused, oldest first: tried again after ``wait`` seconds, or at once when woken."""

    subscription: Subscription
    game_id: int
    #: Each with the handler of the consumer's that it is for.
    waiting: deque[tuple[Subscription, int | None, GameEvent, bool]]
    wait: float
    most: float
    #: Set while it sleeps (not while its handler runs): :meth:`Dispatcher.idle` waits for it.
    resting: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None
    #: Woken: its sleep is cut short (or, while its handler runs, skipped once).
    woken: bool = False

    def wake(self) -> None:
        """Try the oldest again at once."""
        if self.woken:
            return
        self.woken = True
        if self.resting.is_set() and self.task is not None:
            self.resting.clear()
            self.task.cancel()


def owner(subscription: Subscription) -> object:
    """The consumer a handler belongs to (its object, for a method): a refusal holds all of
    its handlers for the game."""
    return getattr(subscription.handler, "__self__", subscription.handler)
