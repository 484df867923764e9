"""Cooldowns on the commands that post a message or draw an image: per person and per channel.

A limit ``(uses, seconds)`` allows at most ``uses`` in any ``seconds`` (a sliding window),
read on the bot's clock (SimCord's virtual clock in tests). It is checked at the top of a
command inside ``reporting``: an overrun is a :class:`UserError`, answered ephemerally with
how long to wait, and counts nothing. A command that may be refused counts only when it goes
through (:meth:`RateLimits.counting`): a refused attempt (bad input, a cap, nothing to act on,
not a player) costs nothing, so that nobody spends a channel's uses with commands that do
nothing.
"""

from __future__ import annotations

import contextlib
import math
from collections import deque
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from bot.services.errors import UserError
from bot.table.options import format_duration

if TYPE_CHECKING:
    import discord

    from bot.config import Settings

#: Actions limited as "creating" (``CREATE_RATE_LIMIT`` per person) rather than "posting"; a
#: lobby's ping of the looking-for-game role weighs as much as opening one.
CREATING = frozenset({"new lobby", "new tournament", "looking ping", "rematch"})
#: Past this many keys, those with no use left in their window are dropped.
PRUNE_AT = 10_000
YOURS = "You used that too often"
CHANNELS = "That was used too often in this channel"


class TooFast(UserError):
    """A command used again too soon; ``retry_after`` is in seconds."""

    def __init__(self, retry_after: float, why: str) -> None:
        self.retry_after = retry_after
        super().__init__(f"{why}: try again in {format_duration(max(1, math.ceil(retry_after)))}.")


class Window:
    """The times of the uses within the last ``seconds``; at most ``uses`` of them."""

    def __init__(self, uses: int, seconds: float) -> None:
        self.uses, self.seconds = uses, seconds
        self.times: deque[float] = deque()

    def wait(self, now: float) -> float:
        """Seconds until one more use is allowed (0: now)."""
        while self.times and self.times[0] <= now - self.seconds:
            self.times.popleft()
        if len(self.times) < self.uses:
            return 0.0
        return self.times[0] + self.seconds - now

    def use(self, now: float) -> None:
        """Count one use (after :meth:`wait` said 0)."""
        self.times.append(now)

    def give_back(self, at: float) -> None:
        """Forget the use counted at ``at`` (its command was refused)."""
        with contextlib.suppress(ValueError):
            self.times.remove(at)


class RateLimits:
    """Per-person and per-channel windows for each limited action."""

    def __init__(self, clock: Callable[[], float], settings: Settings) -> None:
        self.clock = clock
        self.user_rate = settings.user_rate_limit
        self.channel_rate = settings.channel_rate_limit
        self.create_rate = settings.create_rate_limit
        self._windows: dict[tuple[str, str, int], Window] = {}

    def check(self, interaction: discord.Interaction, action: str) -> None:
        """Count one use of ``action`` by the user in the channel, or raise :class:`TooFast`
        (and count nothing) if either limit is spent."""
        self.hit(action, interaction.user.id, interaction.channel_id or 0)

    @contextlib.contextmanager
    def counting(self, interaction: discord.Interaction, action: str) -> Iterator[None]:
        """Like :meth:`check`, but the use is given back when the body raises: a command
        refused (bad input, a cap, a busy channel, not a player) costs nothing. It is counted
        on entry, so that uses made at once cannot all pass the limit."""
        now = self.clock()
        windows = self._spent(action, interaction.user.id, interaction.channel_id or 0)
        for window in windows:
            window.use(now)
        try:
            yield
        except BaseException:
            for window in windows:
                window.give_back(now)
            raise

    def hit(self, action: str, user_id: int, channel_id: int) -> None:
        """:meth:`check` for plain ids."""
        now = self.clock()
        for window in self._spent(action, user_id, channel_id):
            window.use(now)

    def _spent(self, action: str, user_id: int, channel_id: int) -> tuple[Window, Window]:
        """The user's and the channel's windows of ``action``, or :class:`TooFast` if either
        is spent."""
        now = self.clock()
        user_rate = self.create_rate if action in CREATING else self.user_rate
        mine = self._window((action, "user", user_id), user_rate)
        channel = self._window((action, "channel", channel_id), self.channel_rate)
        for window, why in ((mine, YOURS), (channel, CHANNELS)):
            wait = window.wait(now)
            if wait > 0:
                raise TooFast(wait, why)
        return mine, channel

    def _window(self, key: tuple[str, str, int], rate: tuple[int, int]) -> Window:
        window = self._windows.get(key)
        if window is None:
            if len(self._windows) >= PRUNE_AT:
                self._prune()
            window = self._windows[key] = Window(*rate)
        return window

    def _prune(self) -> None:
        now = self.clock()
        for key, window in list(self._windows.items()):
            window.wait(now)  # forgets the uses older than its window
            if not window.times:
                del self._windows[key]
