"""Replay GIFs of finished games, rendered once and kept on disk.

A finished game never changes, so its GIF is keyed by the game's id and its final number of
moves (``game-12-87.gif``) in a ``replays`` folder beside the database. The oldest files go
past :data:`KEEP` files. Rendering and file access run off the event loop, on the replays'
own worker thread (:mod:`bot.services.workers`), not where boards and hands are drawn.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from bot.services.workers import REPLAYS, run_on
from render.replay import render_replay_gif

if TYPE_CHECKING:
    from bot.services.stats import ReplayInput

log = logging.getLogger(__name__)

#: How many replay files are kept (the least recently made go first).
KEEP = 200

Renderer = Callable[..., bytes]


class ReplayCache:
    """``await cache.gif(found)``: the cached GIF, or a fresh one (then cached)."""

    def __init__(self, folder: Path, render: Renderer = render_replay_gif) -> None:
        self.folder = folder
        self.render = render

    def path(self, found: ReplayInput) -> Path:
        """The file of a game's replay: its id and final move count."""
        return self.folder / f"game-{found.game_id}-{len(found.moves)}.gif"

    async def gif(self, found: ReplayInput) -> bytes:
        """The replay of a finished game, rendered at most once."""
        return await run_on(REPLAYS, self._gif, found)

    def _gif(self, found: ReplayInput) -> bytes:
        path = self.path(found)
        with contextlib.suppress(OSError):
            return path.read_bytes()
        gif = self.render(found.settings, found.seed, found.moves, found.names)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            partial = path.with_suffix(f".{os.getpid()}.part")
            partial.write_bytes(gif)
            os.replace(partial, path)
            self._trim()
        except OSError as error:  # a full or read-only disk: serve it uncached
            log.warning("Could not keep the replay of game %d: %s", found.game_id, error)
        return gif

    def _trim(self) -> None:
        files = sorted(self.folder.glob("game-*.gif"), key=_age)
        for old in files[:-KEEP]:
            with contextlib.suppress(OSError):
                old.unlink()


def _age(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
