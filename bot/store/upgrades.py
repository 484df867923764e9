"""Snapshots stored in older layouts, brought to the one the engine reads.

The engine reads only the layout of :meth:`~bot.game.state.GameState.state_dict`. Stored
snapshots stay as they were written until their game moves again (a finished game's, for ever),
so each is upgraded here, as it is read, from any layout a release wrote:

- the first releases (before the endless-play guard of 23 November 2026): no
  ``reshuffles_since_sequence`` (the endless-play count) and no ``termination``;
- until the outcome became a value (28 November 2026): ``end_reason``, the engine's English
  sentence ("Green resigned."), and no ``leaving_team``.

The sentence gives the kind of ending and the team that resigned or left; the count is the
log's (replayed). The bot's sentences are now worded from the outcome by the cogs, the same
words as the stored ones.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from bot.game import Game, Termination
from bot.game.settings import TEAM_NAMES

__all__ = ["leaving_team_of", "termination_of", "upgrade_state"]

#: Words of the engine's old end sentences, in the order to test them.
_REASON_WORDS: tuple[tuple[str, Termination], ...] = (
    ("most convoys", Termination.MOST_CONVOYS),
    ("stalemate", Termination.STALEMATE),
    ("Endless play", Termination.ENDLESS_PLAY),
    ("by agreement", Termination.AGREEMENT),
    ("resigned", Termination.RESIGNATION),
    ("player left", Termination.DEPARTURE),
    ("completed", Termination.SEQUENCES),
)
#: The endings whose sentence names the team that resigned or left.
_LEAVING = (Termination.RESIGNATION, Termination.DEPARTURE)
#: How the first release named a team in its sentences ("Team 1 resigned.").
_TEAM_NUMBER = re.compile(r"\bTeam (\d)\b")


def upgrade_state(state: dict[str, Any], replayed: Callable[[], Game]) -> dict[str, Any]:
    """A stored snapshot's state (without its log) in the engine's layout, changed in place
    and returned. ``replayed`` gives the game replayed from its log: asked only for a snapshot
    from before the endless-play count, with both sequences and reshuffles."""
    if "end_reason" in state:
        reason = state.pop("end_reason") or ""
        if "termination" not in state:
            state["termination"] = termination_of(reason)
        termination = state["termination"]
        state["leaving_team"] = leaving_team_of(reason) if termination in _LEAVING else None
    if "reshuffles_since_sequence" not in state:
        count = state["reshuffles"]
        if state["sequences"] and count:
            count = replayed().reshuffles_since_sequence
        state["reshuffles_since_sequence"] = count
    return state


def termination_of(reason: str) -> Termination | None:
    """The kind of ending an old end sentence tells (None for none).

    >>> termination_of("Nobody can play on: the game is a draw (stalemate).")
    <Termination.STALEMATE: 'stalemate'>
    """
    if not reason:
        return None
    for needle, termination in _REASON_WORDS:
        if needle in reason:
            return termination
    return None


def leaving_team_of(reason: str) -> int | None:
    """The team an old end sentence names ("The last Green player left.": 1), or None.

    >>> leaving_team_of("Red resigned."), leaving_team_of("Team 0 resigned.")
    (2, 0)
    """
    for team, name in enumerate(TEAM_NAMES):
        if name in reason:
            return team
    number = _TEAM_NUMBER.search(reason)
    return int(number[1]) if number else None
