"""Realistic games for the bench, the tests and previews: seeded random play, no I/O."""

from __future__ import annotations

import random

from bot.game.game import Game
from bot.game.moves import PLAY
from bot.game.randomplay import push_random
from bot.game.settings import GameSettings


def random_game(settings: GameSettings, seed: int, plays: int | None = None) -> Game:
    """Play random legal moves from a seeded deal until ``plays`` plays or the end."""
    game = Game.new(settings, seed)
    rng = random.Random(seed)
    made = 0
    while not game.is_over() and (plays is None or made < plays):
        made += push_random(game, rng).kind == PLAY
    return game


#: Two sequences laid by hand on the mid-game board: a row for team 0, a diagonal for team 1.
_HAND_SEQUENCES = ((0, (41, 42, 43, 44, 45)), (1, (58, 67, 76, 85, 94)))


def midgame(players: int = 2, seed: int = 5) -> Game:
    """A mid-game: about 50 chips and two completed sequences (one per team), still active.

    Random play rarely completes sequences this early, so two are set by hand on the board
    through the game's own snapshot format.
    """
    settings = GameSettings.create(players)
    game = random_game(settings, seed, plays=48)
    data = game.to_dict()
    state = data["state"]
    chips = state["chips"]
    teams = settings.teams
    for team, window in _HAND_SEQUENCES:
        for space in window:
            if chips[space] != -2:
                chips[space] = team % teams
    state["sequences"] = [[team % teams, list(window)] for team, window in _HAND_SEQUENCES]
    state["status"] = "active"
    state["winner"] = None
    return Game.from_dict(data)


def sample_names(players: int) -> list[str]:
    """Display names for ``players`` seats, some long, one with an emoji."""
    pool = [
        "Alice",
        "Bob the Builder",
        "Carol 🎲",
        "Dmitri Ivanovich Longname",
        "Eve",
        "Frank",
        "Grace",
        "Heidi",
        "Ivan",
        "Judy",
        "Mallory",
        "Niaj",
    ]
    return pool[:players]
