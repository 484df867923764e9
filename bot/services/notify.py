"""Turn DMs: who asked for them (``/sequence notify``), and whose DMs Discord refused."""

from __future__ import annotations

from collections.abc import Callable

from bot.store.base import Store

#: The preferences kept per player: turn DMs asked for, and when Discord last refused one.
DM_PREF = "dm_notify"
DM_FAILED_PREF = "dm_failed"


class TurnDMs:
    """Each player's turn-DM preference (``bot.turn_dms``). A DM Discord refused (the player's
    DMs are closed) stops them until the player asks again."""

    def __init__(self, db: Store, clock: Callable[[], float]) -> None:
        self.db = db
        self.clock = clock

    async def wanted(self, user_id: int) -> bool:
        """True when the player asked for turn DMs and none was refused since."""
        prefs = self.db.prefs
        return bool(await prefs.get(user_id, DM_PREF, False)) and not await prefs.get(
            user_id, DM_FAILED_PREF
        )

    async def refused(self, user_id: int) -> None:
        """Discord refused a DM to the player: none is tried again until they ask."""
        await self.db.prefs.set(user_id, DM_FAILED_PREF, self.clock())

    async def choose(self, user_id: int, on: bool) -> bool:
        """Turn the player's DMs on or off; True when turned on after a refusal (which is
        forgotten: DMs are tried again)."""
        prefs = self.db.prefs
        await prefs.set(user_id, DM_PREF, on)
        if not on or not await prefs.get(user_id, DM_FAILED_PREF):
            return False
        await prefs.delete(user_id, DM_FAILED_PREF)
        return True
