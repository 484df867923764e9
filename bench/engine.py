"""Engine speed: random complete games, a uniformly random legal move each turn, on one core.

Prints moves applied per second (legal-move generation, validation, apply and the sequence check
included) and complete games per second. Run: ``python bench/engine.py [--games N]``.
"""

from __future__ import annotations

import argparse
import random
import time

from bot.game import Game, GameSettings
from bot.game.randomplay import push_random

CONFIGS = [(players, "classic") for players in (2, 3, 4, 6, 8, 9, 10, 12)] + [
    (players, "convoy") for players in (2, 4, 6, 8)
]


def play_random_game(settings: GameSettings, seed: int) -> int:
    """Play one complete game of uniformly random legal moves; return the number of moves."""
    game = Game.new(settings, seed)
    rng = random.Random(seed)
    while not game.is_over():
        push_random(game, rng)
    return len(game.moves)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=50, help="games per configuration")
    args = parser.parse_args()
    settings = [GameSettings.create(players, preset=preset) for players, preset in CONFIGS]
    moves = games = 0
    start = time.process_time()
    for seed in range(args.games):
        for setting in settings:
            moves += play_random_game(setting, seed)
            games += 1
    elapsed = time.process_time() - start
    print(f"engine: {games} random complete games ({len(CONFIGS)} configurations), {moves} moves")
    print(
        f"engine: {moves / elapsed:,.0f} moves/s, {games / elapsed:,.1f} games/s "
        "(CPU time, one core)"
    )


if __name__ == "__main__":
    main()
