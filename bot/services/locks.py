"""One asyncio lock per game (or lobby channel): moves on one game never interleave."""

from __future__ import annotations

import asyncio
from collections import defaultdict


class KeyedLocks:
    """A lock per key, created on first use."""

    def __init__(self) -> None:
        self._locks: defaultdict[object, asyncio.Lock] = defaultdict(asyncio.Lock)

    def __call__(self, key: object) -> asyncio.Lock:
        """The lock of ``key``."""
        return self._locks[key]

    def forget(self, key: object) -> None:
        """Drop the lock of a finished game (only when nobody holds it)."""
        lock = self._locks.get(key)
        if lock is not None and not lock.locked():
            del self._locks[key]
