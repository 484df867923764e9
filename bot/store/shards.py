"""Which guilds a process serves: Discord's sharding rule, in Python and in SQL.

A guild is on shard ``(guild_id >> 22) % shard_count``. A process of a cluster runs some of the
shards (``SHARD_IDS``) and loads, times and serves only the games, lobbies and tournaments of
guilds on them; the same rule is pushed into the store's start-up queries so a process never
reads the rows of another's guilds. ``None`` in place of a :class:`Shards` means every guild.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Shards:
    """The shards ``ids`` out of ``count`` that one process runs."""

    count: int
    ids: tuple[int, ...]

    def __post_init__(self) -> None:
        if self.count < 1 or not self.ids or any(not 0 <= i < self.count for i in self.ids):
            raise ValueError(f"shard ids {self.ids} do not fit a count of {self.count}.")

    def owns(self, guild_id: int | None) -> bool:
        """True when ``guild_id`` is on one of these shards (a DM, ``None``, is shard 0's)."""
        return shard_of(guild_id or 0, self.count) in self.ids

    @property
    def everything(self) -> bool:
        """True when these are all the shards (the filter keeps every guild)."""
        return len(set(self.ids)) == self.count

    def where(self, column: str) -> tuple[str, tuple[Any, ...]]:
        """An SQL condition on ``column`` (a guild id column, a constant of the caller) and its
        parameters: true for the guilds on these shards. Both backends shift and take the
        remainder of 64-bit integers alike."""
        marks = ", ".join("?" for _ in self.ids)
        return f"(({column} >> 22) % ?) IN ({marks})", (self.count, *self.ids)


def shard_of(guild_id: int, shard_count: int) -> int:
    """The shard of a guild: Discord's rule.

    >>> shard_of(81384788765712384, 4)  # (81384788765712384 >> 22) is 19403645698
    2
    """
    return (guild_id >> 22) % shard_count


def condition(shards: Shards | None, column: str) -> tuple[str, tuple[Any, ...]]:
    """``AND``-able SQL for ``shards`` on ``column``: ``("1 = 1", ())`` for every guild."""
    if shards is None or shards.everything:
        return "1 = 1", ()
    return shards.where(column)
