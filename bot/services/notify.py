"""Turn DMs: who asked for them (``/sequence-me notify``), and whose DMs Discord refused."""

from __future__ import annotations

from collections.abc import Callable

from bot.store.base import Store

from .quiet_hours import QuietHours

#: The preferences kept per player: turn DMs asked for, when Discord last refused one, and
#: their quiet hours.
DM_PREF = "dm_notify"
DM_FAILED_PREF = "dm_failed"
DM_QUIET_PREF = "dm_quiet"


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

    async def quiet_hours(self, user_id: int) -> QuietHours | None:
        """The player's quiet hours for turn DMs, if they set some."""
        return QuietHours.from_pref(await self.db.prefs.get(user_id, DM_QUIET_PREF))

    async def set_quiet_hours(self, user_id: int, hours: QuietHours | None) -> None:
        """Set (or, None, clear) the player's quiet hours."""
        if hours is None:
            await self.db.prefs.delete(user_id, DM_QUIET_PREF)
        else:
            await self.db.prefs.set(user_id, DM_QUIET_PREF, hours.as_pref())

    async def quiet_until(self, user_id: int) -> float | None:
        """When the player's quiet hours end, if they are in them now (else None)."""
        hours = await self.quiet_hours(user_id)
        return None if hours is None else hours.ends_after(self.clock())
