"""What a card can do now, in a few words (the card menu's option descriptions)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.game import space_name
from bot.game.board import CARD_SPACES
from bot.game.cards import is_one_eyed, is_two_eyed

if TYPE_CHECKING:
    from bot.store.games.records import GameRecord


def card_hint(record: GameRecord, seat: int, card: str) -> str:
    """What a card can do now, for a select option's description."""
    game = record.game
    targets = game.targets(seat, card)
    if is_two_eyed(card):
        return (
            "Two-eyed jack: a chip on any open space" if targets else "Two-eyed jack: no open space"
        )
    if is_one_eyed(card):
        if targets:
            return "One-eyed jack: remove an opponent's chip"
        return "One-eyed jack: no opponent chip to remove now"
    if not targets:
        return "Dead card: both spaces are covered"
    spaces = " or ".join(space_name(s) for s in CARD_SPACES[card])
    return f"Goes on {spaces}" + (
        "" if len(targets) == 2 else f" (only {space_name(targets[0])} open)"
    )
