"""The replay cache on disk: one file per game as it was played, never another game's."""

from __future__ import annotations

import random
from pathlib import Path

from bot.game import Game, GameSettings
from bot.game.randomplay import push_random
from bot.services.stats import ReplayInput
from cogs.common.replays import ReplayCache


def finished(game_id: int, seed: int, names: list[str]) -> ReplayInput:
    """Game ``game_id`` of three random moves from ``seed``."""
    settings = GameSettings.create(2)
    game = Game.new(settings, seed)
    rng = random.Random(seed)
    for _ in range(3):
        push_random(game, rng)
    return ReplayInput(game_id, settings, seed, list(game.moves), names)


async def test_a_game_reusing_an_id_gets_its_own_replay(tmp_path: Path) -> None:
    """A backup restored, then a new game #1 of as many moves: before, it was served the old
    game #1's file (``game-1-3.gif``), byte for byte."""
    cache = ReplayCache(tmp_path / "replays")
    old = finished(1, seed=11, names=["ann", "ben"])
    new = finished(1, seed=12, names=["cat", "dan"])
    old_gif = await cache.gif(old)
    new_gif = await cache.gif(new)
    assert new_gif != old_gif
    assert new_gif == cache.render(new.settings, new.seed, new.moves, new.names)
    assert await cache.gif(old) == old_gif  # each kept under its own name
    assert len(list((tmp_path / "replays").glob("game-1-3-*.gif"))) == 2
