"""Hidden information: the cards a player cannot see, dealt at random into a playable game.

The unseen cards are the 104 minus the player's own hand minus every discard pile (a played
card always lands on a discard pile, and a reshuffle turns the piles into the deck). They are
dealt to the other seats by their public hand sizes, the rest forming the deck.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import NamedTuple

from ..cards import full_deck
from ..game import Game
from ..view import PlayerView


class Deal(NamedTuple):
    """One guess at the hidden cards: every seat's hand (the viewer's is real) and the deck."""

    hands: list[list[str]]
    deck: list[str]


def own_hand(view: PlayerView) -> list[str]:
    """The viewer's hand; a public view (no seat) cannot choose moves."""
    if view.seat is None or view.hand is None:
        raise ValueError("A computer player needs a player's view, not the public one.")
    return list(view.hand)


def unseen_cards(view: PlayerView) -> list[str]:
    """The cards in other hands and the deck, as far as the viewer can tell, in sorted order."""
    unseen = Counter(full_deck())
    unseen.subtract(own_hand(view))
    for pile in view.discards:
        unseen.subtract(pile)
    if any(n < 0 for n in unseen.values()):
        raise ValueError("The view holds more copies of a card than the deck has.")
    return sorted(unseen.elements())


def sample_deal(
    view: PlayerView,
    rng: random.Random,
    unseen: list[str] | None = None,
    unlikely: tuple[int, frozenset[str]] | None = None,
) -> Deal:
    """Deal the unseen cards at random, consistently with the public hand sizes.

    ``unlikely`` (a seat and cards, see :mod:`.inference`) keeps those cards out of that
    seat's hand but for one card: the one it drew since it showed it held none of them.
    """
    pool = list(unseen_cards(view) if unseen is None else unseen)
    rng.shuffle(pool)
    hands: dict[int, list[str]] = {}
    if unlikely is not None:
        seat, cards = unlikely
        size = view.hand_sizes[seat]
        drawn = pool[-1:] if size else []
        kept = [card for card in pool[:-1] if card not in cards][: size - len(drawn)]
        if len(kept) + len(drawn) == size:
            hands[seat] = drawn + kept
            for card in hands[seat]:
                pool.remove(card)
    return _deal(view, pool, hands)


def fixed_deal(view: PlayerView) -> Deal:
    """A deal that depends on the public state only (for legal moves, which ignore other hands)."""
    return _deal(view, unseen_cards(view), {})


def _deal(view: PlayerView, pool: list[str], hands: dict[int, list[str]]) -> Deal:
    """Every seat's hand: the viewer's own, ``hands`` as given, the rest from the top of
    ``pool``; what is left of the pool is the deck."""
    pool = list(pool)
    dealt: list[list[str]] = []
    for seat, size in enumerate(view.hand_sizes):
        if seat == view.seat:
            dealt.append(own_hand(view))
        elif seat in hands:
            dealt.append(hands[seat])
        else:
            dealt.append(pool[:size])
            del pool[:size]
    return Deal(dealt, pool)


def game_from_view(view: PlayerView, deal: Deal, seed: int = 0) -> Game:
    """A playable :class:`Game` with the view's public state and the guessed hidden cards.

    The endless-play count and the kind of ending come from the view, so the guessed game
    follows the same rules from here on (a reshuffle that would draw the real game draws it).
    """
    state = {
        "chips": list(view.chips),
        "sequences": [[team, list(window)] for team, window in view.sequences],
        "hands": [list(hand) for hand in deal.hands],
        "deck": list(deal.deck),
        "discards": [list(pile) for pile in view.discards],
        "cut": list(view.cut),
        "dealer": view.dealer,
        "turn": view.turn,
        "turn_number": view.turn_number,
        "dead_card_used": view.dead_card_used,
        "owed_forfeits": list(view.owed_forfeits),
        "owed_draws": {str(seat): view.turn_number - 1 for seat in view.owed_draws},
        "out": list(view.out),
        "status": view.status,
        "winner": view.winner,
        "termination": view.termination,
        "leaving_team": view.outcome.leaving_team if view.outcome else None,
        "passes_in_row": 0,
        # The endless-play count, so the guess ends (or draws) exactly as the real game would;
        # the view does not show earlier reshuffles, which only seed the next shuffle.
        "reshuffles": view.reshuffles_since_sequence,
        "reshuffles_since_sequence": view.reshuffles_since_sequence,
        "last_change": list(view.last_change) if view.last_change else None,
    }
    data = {"settings": view.settings.to_dict(), "seed": seed, "moves": [], "state": state}
    return Game.from_dict(data)
