"""Cards: two-character codes such as ``"7S"``, ``"TD"`` or ``"JH"``, and the 104-card deck.

A card is a plain string: rank (``23456789TJQKA``) then suit (``SHDC``). Plain strings keep the
engine fast and every value JSON-compatible.
"""

from __future__ import annotations

from .echo import echo

RANKS = "23456789TJQKA"
SUITS = "SHDC"

#: Two-eyed jacks are wild: a chip on any open space.
TWO_EYED_JACKS = frozenset({"JD", "JC"})
#: One-eyed jacks remove one opponent chip that is not part of a completed sequence.
ONE_EYED_JACKS = frozenset({"JH", "JS"})

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
RANK_NAMES = {
    "2": "2",
    "3": "3",
    "4": "4",
    "5": "5",
    "6": "6",
    "7": "7",
    "8": "8",
    "9": "9",
    "T": "10",
    "J": "Jack",
    "Q": "Queen",
    "K": "King",
    "A": "Ace",
}
RED_SUITS = frozenset("HD")

#: Every distinct card code, in rank-then-suit order (52 codes).
ALL_CARDS: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)


#: Each card code mapped to its one shared string: loaded games intern their cards through it.
CANONICAL_CARDS: dict[str, str] = {card: card for card in ALL_CARDS}

#: Longer input is not a card (it is cut to this length before parsing).
MAX_CARD_TEXT = 8


class CardError(ValueError):
    """A text that does not name a card."""


def full_deck() -> list[str]:
    """Return the 104 cards of two standard decks, unshuffled."""
    return [*ALL_CARDS, *ALL_CARDS]


def is_jack(card: str) -> bool:
    """True for any of the eight jacks."""
    return card[0] == "J"


def is_two_eyed(card: str) -> bool:
    """True for the wild jacks (diamonds and clubs)."""
    return card in TWO_EYED_JACKS


def is_one_eyed(card: str) -> bool:
    """True for the removing jacks (hearts and spades)."""
    return card in ONE_EYED_JACKS


def is_red(card: str) -> bool:
    """True for hearts and diamonds."""
    return card[1] in RED_SUITS


def parse_card(text: str) -> str:
    """Parse ``"7s"``, ``"10H"``, ``"t♥"``, ``"qd"`` and the like into a card code.

    >>> parse_card("10h")
    'TH'
    >>> parse_card("j♣")
    'JC'
    """
    cleaned = text.strip()[:MAX_CARD_TEXT].upper().replace("10", "T")
    for suit, symbol in SUIT_SYMBOLS.items():
        cleaned = cleaned.replace(symbol, suit)
    if len(cleaned) == 2 and cleaned[0] in RANKS and cleaned[1] in SUITS:
        return cleaned
    raise CardError(
        f"{echo(text)} is not a card: write a rank and a suit, like 7S, TD, QH or JC."
    )


def card_label(card: str) -> str:
    """Short human label: ``"10♥"``, ``"J♣"``."""
    rank = "10" if card[0] == "T" else card[0]
    return rank + SUIT_SYMBOLS[card[1]]


def card_name(card: str) -> str:
    """Long human name: ``"Jack of clubs (two-eyed, wild)"``."""
    name = f"{RANK_NAMES[card[0]]} of {SUIT_NAMES[card[1]]}"
    if is_two_eyed(card):
        return name + " (two-eyed jack: wild)"
    if is_one_eyed(card):
        return name + " (one-eyed jack: removes a chip)"
    return name
