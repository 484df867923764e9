"""Another process of a cluster, on the same store as a bot under test."""

from __future__ import annotations

from typing import Any

from bot.services.dispatch import Dispatcher
from bot.services.games import GameService


async def another_process(bot: Any) -> GameService:
    """A game service on ``bot``'s store, as another process of its cluster runs one: its
    changes write the events the bot's own would (for the same consumers), and it delivers none
    of them itself (they are the bot's to deliver, as the owner of the game's shard)."""
    bus = Dispatcher(bot.games.clock)
    for subscription in bot.bus.subscribed():
        bus.subscribe(subscription.kind, subscription.handler, lane=subscription.lane)
    other = GameService(bot.db, bot.games.clock, bus)
    await bus.close()  # it delivers nothing itself
    await other.load_active()
    return other
