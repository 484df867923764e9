"""The pure rules engine of Sequence: no Discord, no I/O, no clock, no global random."""

from .board import CARD_SPACES, CORNERS, LAYOUT, SpaceError, parse_space, space_name
from .cards import CardError, card_label, card_name, full_deck, is_one_eyed, is_two_eyed, parse_card
from .game import ChoiceRequired, Game, IllegalMove, rules_class
from .moves import Move, MoveError
from .outcome import Outcome, Termination
from .revision1 import Revision1Game
from .sequences import CORNER, EMPTY
from .settings import GameSettings, SettingsError
from .state import ACTIVE, DRAWN, WON
from .view import PlayerView, player_view, public_view

__all__ = [
    "ACTIVE",
    "CARD_SPACES",
    "CORNER",
    "CORNERS",
    "DRAWN",
    "EMPTY",
    "LAYOUT",
    "WON",
    "CardError",
    "ChoiceRequired",
    "Game",
    "GameSettings",
    "IllegalMove",
    "Move",
    "MoveError",
    "Outcome",
    "PlayerView",
    "Revision1Game",
    "SettingsError",
    "SpaceError",
    "Termination",
    "card_label",
    "card_name",
    "full_deck",
    "is_one_eyed",
    "is_two_eyed",
    "parse_card",
    "parse_space",
    "player_view",
    "public_view",
    "rules_class",
    "space_name",
]
