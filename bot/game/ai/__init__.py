"""Computer players that see only a player's view: easy, medium and hard.

Hard's work is a fixed number of guesses of the hidden cards, so a view and a seed give the
same move on any machine; nothing here reads a clock unless the caller passes one.

>>> import random
>>> from bot.game import Game, GameSettings, player_view
>>> game = Game.new(GameSettings.create(2), seed=1)
>>> move = choose_move(player_view(game, game.turn), "medium", random.Random(1))
>>> game.validate(move) is None
True
"""

from .draws import accepts_draw, offers_draw
from .player import LEVELS, NoMoveError, choose_move, hint, legal_moves

__all__ = [
    "LEVELS",
    "NoMoveError",
    "accepts_draw",
    "choose_move",
    "hint",
    "legal_moves",
    "offers_draw",
]
