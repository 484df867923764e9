"""What a member typed for their quiet hours (``/sequence-me notify``), checked before anything
is changed: the hours are :mod:`bot.services.quiet_hours`'s."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Literal

from bot.services.errors import UserError
from bot.services.quiet_hours import BOTH, CLEAR, QuietHours, check_zone, quiet_hours

if TYPE_CHECKING:
    from bot.app import SequenceBot

NOTIFY_HOW = (
    "Say `setting:` on or off, or give quiet hours: `quiet_from:` and `quiet_to:` (like 22:00 "
    "and 07:30) with your `timezone:`."
)


async def quiet_change(
    bot: SequenceBot,
    user_id: int,
    start: str | None,
    end: str | None,
    zone: str | None,
) -> QuietHours | Literal[False] | None:
    """The quiet hours the player asks for, checked before anything is changed: new ones,
    False to clear them (``quiet_from: off``), None when they name none. A new time zone
    alone moves the quiet hours they have."""
    if start is not None and start.strip().lower() in CLEAR:
        return False
    if start is None and end is None:
        if zone is None:
            return None
        hours = await bot.turn_dms.quiet_hours(user_id)
        if hours is None:
            raise UserError(BOTH)
        return dataclasses.replace(hours, zone=check_zone(zone))
    if start is None or end is None:
        raise UserError(BOTH)
    if zone is None:
        hours = await bot.turn_dms.quiet_hours(user_id)
        zone = hours.zone if hours else "UTC"
    return quiet_hours(start, end, zone)


