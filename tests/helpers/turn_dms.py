"""A player's turn in their DMs: the panel's components, a move made from it."""

from __future__ import annotations

from ..e2e_driver import custom_ids


def find_component(message, prefix: str) -> str:
    """The custom id of the message's component starting with ``prefix``."""
    found = [i for i in custom_ids(message) if i.startswith(prefix)]
    assert found, f"no {prefix!r} in {custom_ids(message)}"
    return found[0]


async def play_from_dm(user, game_id: int, card: str, space: int):
    """Choose ``card`` then its space on the DM panel; the last answer."""
    dm = user.dm_channel
    panel = dm.last_message
    await user.select(panel, [card], custom_id=find_component(panel, f"seq:card:{game_id}:"))
    panel = dm.last_message
    go = next(
        i
        for i in custom_ids(panel)
        if i.startswith(f"seq:go:{game_id}:") and i.endswith(f":{card}:{space}")
    )
    return await user.click(panel, custom_id=go)
