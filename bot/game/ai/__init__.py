"""Computer players that see only a player's view: easy, medium and hard.

>>> import random
>>> from bot.game import Game, GameSettings, player_view
>>> game = Game.new(GameSettings.create(2), seed=1)
>>> move = choose_move(player_view(game, game.turn), "medium", random.Random(1))
>>> game.validate(move) is None
True
"""

from .player import LEVELS, NoMoveError, choose_move, hint, legal_moves

__all__ = ["LEVELS", "NoMoveError", "choose_move", "hint", "legal_moves"]
