"""Playing a turn: the private hand panel and the commands that open it and play.

- :mod:`.panel` builds the panel (its text, components and hand image): :func:`build_hand_panel`.
- :mod:`.components` are the panel's persistent buttons and selects.
- :mod:`.play` is the one path a move takes, from a button or from ``/sequence play``.
- :mod:`.commands` is the cog: ``/sequence hand`` and ``/sequence play``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .commands import Hand

if TYPE_CHECKING:
    from bot.app import SequenceBot


async def setup(bot: SequenceBot) -> None:
    """Load the cog."""
    await bot.add_cog(Hand(bot))
