"""Games stored before the engine recorded its rules revision get the one they were played under.

A game's settings name its rules revision (:attr:`~bot.game.GameSettings.rules`), and the engine
plays each game by its own. Games stored before the field existed say nothing, and they were
played by one of two engines: before the fixes of 2026-11-26 (revision 1) or after them
(revision 2, with no field until later). Their own log and snapshot tell which: once, at
start-up, each such game is replayed under revision 2 and then revision 1, and the first that
replays to its snapshot is written into its settings: the active games before they are loaded,
the others after the bot is ready. A game that replays the same under both
never met a rule that changed: it goes on under revision 2, the fixed rules. A game that
replays to neither (a snapshot behind its log, say) is left to the checks that report it, and
loads as revision 1. Once every game has been through it, the chore is recorded as done
(``chores``) and later starts skip it (new games are stored with their revision).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any

from bot.game.settings import RULES_REVISION

from .codec import dumps, loads
from .games.loading import from_snapshot, live_move_texts, replay
from .move_rows import move_dicts

if TYPE_CHECKING:
    from .base import Store
    from .connection import Connection

log = logging.getLogger(__name__)

#: Games read at a time.
BATCH = 200
#: The ``chores`` row that records that every stored game has been stamped.
CHORE = "rules_stamped"


async def stamp_rules(db: Store, *, active: bool = False, remember: bool = False) -> int:
    """Write the rules revision into the settings of every game stored without one (see the
    module), or of the active ones only; the number of games stamped. The replays run off the
    event loop. Safe with several processes at once: each write applies only to settings still
    as read. With ``remember``, a pass over every game records the chore as done; nothing is
    done (no query of the games) once it is recorded."""
    if await db.read(_done):
        return 0
    stamped = 0
    last = 0
    while True:
        rows = await db.read(_unstamped, last, active)
        if not rows:
            if remember and not active:
                await db.run(_record_done, time.time())
            return stamped
        ids = [row[0] for row in rows]
        logs = await db.read(live_move_texts, _where(active), (last,), ids)
        for game_id, settings_text, seed_text, count, state_text in rows:
            revision = await asyncio.to_thread(
                _revision, settings_text, seed_text, count, state_text, logs[game_id]
            )
            if revision is None:
                log.warning("Game %d: no rules revision replays it to its snapshot", game_id)
                continue
            settings = {**loads(settings_text), "rules": revision}
            stamped += await db.run(_stamp, game_id, settings_text, dumps(settings))
        last = rows[-1][0]


def _revision(
    settings_text: str, seed_text: str, count: int | None, state_text: str | None, moves: list[str]
) -> int | None:
    """The newest revision under which the game's log replays to its snapshot, or None."""
    if count is None or state_text is None or count != len(moves):
        return None
    settings, seed, logged = loads(settings_text), loads(seed_text), move_dicts(moves)
    for revision in range(RULES_REVISION, 0, -1):
        tried = {**settings, "rules": revision}
        try:
            agrees = from_snapshot(tried, seed, logged, state_text) == replay(tried, seed, logged)
        except Exception:  # not this revision (a move illegal under it, say)
            continue
        if agrees:
            return revision
    return None


def _where(active: bool) -> str:
    """The games still without a revision (of the active ones), after an id (the parameter)."""
    where = "g.id > ? AND g.settings NOT LIKE '%\"rules\"%'"
    return f"{where} AND g.status = 'active'" if active else where


async def _unstamped(conn: Connection, after: int, active: bool) -> list[tuple[Any, ...]]:
    rows = await conn.fetchall(
        "SELECT g.id, g.settings, g.seed, s.move_count, s.state FROM games g "
        f"LEFT JOIN snapshots s ON s.game_id = g.id WHERE {_where(active)} ORDER BY g.id LIMIT ?",
        (after, BATCH),
    )
    return [tuple(row) for row in rows]


async def _stamp(conn: Connection, game_id: int, before: str, after: str) -> int:
    return await conn.execute(
        "UPDATE games SET settings = ? WHERE id = ? AND settings = ?", (after, game_id, before)
    )


async def _done(conn: Connection) -> bool:
    return await conn.fetchone("SELECT 1 FROM chores WHERE name = ?", (CHORE,)) is not None


async def _record_done(conn: Connection, now: float) -> None:
    await conn.execute(
        "INSERT INTO chores (name, done_at) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
        (CHORE, now),
    )
