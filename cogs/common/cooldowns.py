"""Cooldowns on the commands that post a message or draw an image: per person and per channel.

Built on discord.py's token bucket (``app_commands.Cooldown``), read against the bot's clock
(SimCord's virtual clock in tests), and checked at the top of a command inside ``reporting``:
an overrun is a :class:`UserError`, answered ephemerally with how long to wait.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from discord import app_commands

from bot.services.errors import UserError

if TYPE_CHECKING:
    import discord

    from bot.config import Settings

#: Actions limited as "creating" (``CREATE_RATE_LIMIT`` per person) rather than "posting".
CREATING = frozenset({"new lobby", "new tournament"})
#: Past this many buckets, the full ones (nobody used them within their window) are dropped.
PRUNE_AT = 10_000
YOURS = "You used that too often"
CHANNELS = "That was used too often in this channel"


class TooFast(UserError):
    """A command used again too soon; ``retry_after`` is in seconds."""

    def __init__(self, retry_after: float, why: str) -> None:
        self.retry_after = retry_after
        seconds = max(1, math.ceil(retry_after))
        super().__init__(f"{why}: try again in {seconds} s.")


class RateLimits:
    """Per-person and per-channel token buckets for each limited action."""

    def __init__(self, clock: Callable[[], float], settings: Settings) -> None:
        self.clock = clock
        self.user_rate = settings.user_rate_limit
        self.channel_rate = settings.channel_rate_limit
        self.create_rate = settings.create_rate_limit
        self._buckets: dict[tuple[str, str, int], app_commands.Cooldown] = {}

    def check(self, interaction: discord.Interaction, action: str) -> None:
        """Count one use of ``action`` by the user in the channel, or raise :class:`TooFast`
        (and count nothing) if either limit is spent."""
        self.hit(action, interaction.user.id, interaction.channel_id or 0)

    def hit(self, action: str, user_id: int, channel_id: int) -> None:
        """:meth:`check` for plain ids."""
        now = self.clock()
        user_rate = self.create_rate if action in CREATING else self.user_rate
        mine = self._bucket((action, "user", user_id), user_rate)
        channel = self._bucket((action, "channel", channel_id), self.channel_rate)
        for bucket, why in ((mine, YOURS), (channel, CHANNELS)):
            if bucket.get_tokens(now) == 0:
                raise TooFast(bucket.get_retry_after(now), why)
        mine.update_rate_limit(now)
        channel.update_rate_limit(now)

    def _bucket(self, key: tuple[str, str, int], rate: tuple[int, int]) -> app_commands.Cooldown:
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= PRUNE_AT:
                self._prune()
            bucket = self._buckets[key] = app_commands.Cooldown(*rate)
        return bucket

    def _prune(self) -> None:
        now = self.clock()
        self._buckets = {
            key: bucket
            for key, bucket in self._buckets.items()
            if bucket.get_tokens(now) < bucket.rate
        }
