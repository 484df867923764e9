"""One asyncio lock per game (or lobby channel): moves on one game never interleave.

A key's lock exists only while a task holds it or waits for it, so 10,000 games that were each
touched once keep no 10,000 locks (nor a finished game its lock).
"""

from __future__ import annotations

import asyncio
from types import TracebackType


class KeyedLocks:
    """A lock per key: ``async with locks(key): ...``."""

    def __init__(self) -> None:
        self._locks: dict[object, _Entry] = {}

    def __call__(self, key: object) -> _Use:
        """The lock of ``key``, to be held with ``async with``."""
        return _Use(self._locks, key)

    def __len__(self) -> int:
        """How many keys have a lock now (held or waited for)."""
        return len(self._locks)


class _Entry:
    __slots__ = ("lock", "users")

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.users = 0


class _Use:
    """One ``async with`` on a key's lock: the lock is dropped when its last user leaves."""

    __slots__ = ("_entry", "_key", "_locks")

    def __init__(self, locks: dict[object, _Entry], key: object) -> None:
        self._locks = locks
        self._key = key
        self._entry: _Entry | None = None

    async def __aenter__(self) -> None:
        entry = self._locks.get(self._key)
        if entry is None:
            entry = self._locks[self._key] = _Entry()
        entry.users += 1
        try:
            await entry.lock.acquire()
        except BaseException:  # cancelled while waiting
            self._leave(entry)
            raise
        self._entry = entry

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        entry, self._entry = self._entry, None
        assert entry is not None
        entry.lock.release()
        self._leave(entry)

    def _leave(self, entry: _Entry) -> None:
        entry.users -= 1
        if not entry.users and self._locks.get(self._key) is entry:
            del self._locks[self._key]
