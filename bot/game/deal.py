"""The deal: each player cuts for the dealer, the deck is shuffled and dealt from the dealer's
left. Every draw comes from a ``random.Random`` seeded by the game's seed."""

from __future__ import annotations

import random
from typing import NamedTuple

from .cards import RANKS, full_deck
from .settings import GameSettings

#: Cut order: 2 lowest, ace highest.
_CUT_VALUE = {rank: value for value, rank in enumerate(RANKS)}


class Deal(NamedTuple):
    """The cut (one card per seat, the first round), the dealer, every hand and the deck."""

    cut: list[str]
    dealer: int
    hands: list[list[str]]
    deck: list[str]


def deal(settings: GameSettings, seed: int) -> Deal:
    """Cut for the dealer, shuffle and deal ``settings.hand_size`` cards to each seat, one at a
    time from the dealer's left; the rest is the deck (its top last).

    >>> first = deal(GameSettings.create(2), seed=1)
    >>> [len(hand) for hand in first.hands], len(first.deck)
    ([7, 7], 90)
    """
    count = settings.players
    cut, dealer = _cut_for_dealer(seed, count, highest_deals=settings.convoy)
    deck = full_deck()
    random.Random(f"{seed}:shuffle").shuffle(deck)
    hands: list[list[str]] = [[] for _ in range(count)]
    for _ in range(settings.hand_size):
        for offset in range(1, count + 1):
            hands[(dealer + offset) % count].append(deck.pop())
    return Deal(cut, dealer, hands, deck)


def _cut_for_dealer(seed: int, players: int, *, highest_deals: bool) -> tuple[list[str], int]:
    """Each player cuts a card; the lowest (convoy: highest) deals, aces high; ties cut again.

    Returns the first round's cards, one per seat, and the dealer's seat.
    """
    rng = random.Random(f"{seed}:cut")
    contenders = list(range(players))
    first_round: list[str] = []
    while True:
        drawn = rng.sample(full_deck(), len(contenders))
        cards = dict(zip(contenders, drawn, strict=True))
        if not first_round:
            first_round = [cards[seat] for seat in range(players)]
        values = {seat: _CUT_VALUE[card[0]] for seat, card in cards.items()}
        target = max(values.values()) if highest_deals else min(values.values())
        contenders = [seat for seat, value in values.items() if value == target]
        if len(contenders) == 1:
            return first_round, contenders[0]
