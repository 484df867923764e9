"""Replay GIFs of finished games, rendered once and kept on disk.

A finished game never changes, so its GIF is kept under the game's id, its final number of
moves and a digest of everything it is drawn from (``game-12-87-3f2a9c0b1d4e5f60.gif``) in a
``replays`` folder beside the database: a game that reuses an id (a backup restored, then new
games played) never gets another game's replay. The oldest files go
past :data:`KEEP` files. Rendering and file access run off the event loop, on the replays'
own worker thread (:mod:`bot.services.workers`), not where boards and hands are drawn.
"""

from __future__ import annotations

import contextlib
import hashlib
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
        """The file of a game's replay: its id, final move count and :func:`drawn_from`."""
        return self.folder / f"game-{found.game_id}-{len(found.moves)}-{drawn_from(found)}.gif"

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


async def forget_replays(folder: Path, game_ids: list[int]) -> None:
    """Delete the kept replays of ``game_ids`` (a member forgotten: their name is drawn in
    them); a replay asked for again is drawn with the names as they are now."""
    await run_on(REPLAYS, _delete_replays, folder, set(game_ids))


def _delete_replays(folder: Path, game_ids: set[int]) -> None:
    for path in folder.glob("game-*.gif"):
        parts = path.name.split("-")
        if len(parts) > 1 and parts[1].isdigit() and int(parts[1]) in game_ids:
            with contextlib.suppress(OSError):
                path.unlink()


def drawn_from(found: ReplayInput) -> str:
    """A digest of what the replay shows: the settings, the seed, the moves and the names."""
    what = repr((found.settings, found.seed, found.moves, found.names))
    return hashlib.sha256(what.encode()).hexdigest()[:16]


def _age(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
