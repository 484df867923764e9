"""Engine positions for the computer players' tests: a random game still going, a game with
parts of its state replaced."""

from __future__ import annotations

import random

from bot.game import ChoiceRequired, Game, GameSettings


def random_position(players: int, preset: str, seed: int, **options: bool) -> Game:
    """A game after a random number of random moves, still going."""
    settings = GameSettings.create(players, preset=preset, **options)
    game = Game.new(settings, seed)
    rng = random.Random(seed)
    for _ in range(rng.randrange(0, 80)):
        moves = game.legal_moves
        if not moves or game.is_over():
            break
        move = rng.choice(moves)
        try:
            game.push(move)
        except ChoiceRequired as choice:
            game.push(move._replace(five=choice.options[0]))
        if game.is_over():
            return random_position(players, preset, seed + 1000, **options)
    return game


def with_state(game: Game, **changes: object) -> Game:
    """A copy of ``game`` with parts of its state replaced."""
    data = game.to_dict()
    data["state"].update(changes)
    return Game.from_dict(data)
