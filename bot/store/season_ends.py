"""Each season's end (``db.season_ends``): a stored timer, then its podium's step in the outbox.

A row is written, ``timer``, for the next season to end when a server's plan is stored (in the
transaction that stores it, with its season ratings recomputed: :meth:`SeasonEnds.replan`). When
it falls due, :meth:`SeasonEnds.fire` marks it ``ended``, writes its podium's step to the outbox
(:data:`PODIUM_STEP`, the season's top three frozen in its payload) and the timer of the season
after, in one transaction; the update's ``WHERE state = 'timer'`` makes that happen once,
whichever process or restart gets there. The podium's poster marks the step delivered.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bot.seasons import NONE, next_end, stored_plan

from .codec import dumps
from .guild_settings import _put, _remove
from .rebuild import rebuild_guild
from .replay import results_in_order
from .seasons import (
    SEASON_PLAN,
    TIME_AWAY,
    RatingRules,
    rating_rules,
    rebuild_seasons,
    replay_seasons,
)
from .standings import lock_guild

if TYPE_CHECKING:
    from .base import Store
    from .connection import Connection

TIMER, ENDED = "timer", "ended"
#: The kind of a season end's step: its podium (``top`` [{user_id, mu, sigma, games}],
#: ``players``).
PODIUM_STEP = "SeasonPodium"
#: The places a podium shows.
PODIUM = 3
_COLUMNS = "id, guild_id, season, ends_at, state"


@dataclass(frozen=True, slots=True)
class SeasonEnd:
    """One season's end: its timer (``timer``), or ``ended`` (its podium is an outbox step)."""

    id: int
    guild_id: int
    season: str
    ends_at: float
    state: str


class SeasonEnds:
    """The season ends repository (``db.season_ends``)."""

    def __init__(self, db: Store) -> None:
        self._db = db

    async def replan(
        self, guild_id: int, name: str, value: Any, by: int, at: float, *, remove: bool = False
    ) -> Any:
        """Store (or ``remove``) a setting that decides how the server's results are rated (its
        season plan, its time away), recompute its ratings from its results (a plan: its season
        ratings; time away: all of them) and arm the end of its next season, in one
        transaction; the value it replaced (None: none). A plan's season ratings are replayed
        before the transaction (on SQLite it holds the whole file): it writes them if no result
        was recorded meanwhile, else replays again inside."""
        early = None
        if name == SEASON_PLAN:  # the replay, the long part, before the transaction's locks
            results = await self._db.read(results_in_order, guild_id, rated_only=True)
            stored = await self._db.guild_settings.all(guild_id)
            away = int(stored[TIME_AWAY].value) if TIME_AWAY in stored else 0
            rules = RatingRules(NONE if remove else stored_plan(value), away)
            early = (results, rules, await asyncio.to_thread(replay_seasons, results, rules))
        async with self._db.transaction() as conn:
            await self._db.lock_keys(guild_id)
            await lock_guild(conn, self._db.dialect, guild_id)
            if remove:
                before = await _remove(conn, guild_id, name)
            else:
                before = await _put(conn, guild_id, name, dumps(value), by, at)
            if early is not None:  # the all-time ratings stay: the seasons' are computed again
                results, rules, replayed = early
                now = await results_in_order(conn, guild_id, rated_only=True)
                if now == results and await rating_rules(conn, guild_id) == rules:
                    await rebuild_seasons(conn, guild_id, results, rules, replayed)
                else:  # a result came meanwhile: replayed again, inside
                    await rebuild_seasons(conn, guild_id, now, await rating_rules(conn, guild_id))
            else:  # time away changes every rating
                await rebuild_guild(conn, guild_id)
            await _arm_next(conn, guild_id, at)
            return before

    async def waiting(self) -> list[SeasonEnd]:
        """The timers of this process's shards, soonest first."""
        mine, params = self._db.on_my_shards("guild_id")
        return await self._db.read(
            _select, f"state = '{TIMER}' AND {mine} ORDER BY ends_at", params
        )

    async def of_guild(self, guild_id: int) -> list[SeasonEnd]:
        """A server's season ends, soonest first (none: a server of another process)."""
        mine, params = self._db.on_my_shards("guild_id")
        where = f"guild_id = ? AND {mine} ORDER BY ends_at"
        return await self._db.read(_select, where, (guild_id, *params))

    async def get(self, end_id: int) -> SeasonEnd | None:
        """One season end (None: gone, or of a server another process serves)."""
        mine, params = self._db.on_my_shards("guild_id")
        rows = await self._db.read(_select, f"id = ? AND {mine}", (end_id, *params))
        return rows[0] if rows else None

    async def fire(self, end_id: int, now: float) -> bool:
        """End a due timer: its podium's step to the outbox (the podium frozen) and the next
        season's end armed, in one transaction; False when it is not a due timer (fired
        already, or replanned)."""
        async with self._db.transaction() as conn:
            podium = await _fire(conn, self._db.dialect, end_id, now)
            if podium is None:
                return False
            await self._db.outbox.add_season_step(end_id, PODIUM_STEP, podium, now)
            return True


async def _arm_next(conn: Connection, guild_id: int, after: float) -> None:
    """The server's timers become the end of its next season after ``after`` (if any)."""
    await conn.execute(
        f"DELETE FROM season_ends WHERE guild_id = ? AND state = '{TIMER}'", (guild_id,)
    )
    plan = (await rating_rules(conn, guild_id)).plan
    season = next_end(plan, after)
    if season is not None and season.end is not None:
        await conn.execute(
            "INSERT INTO season_ends (guild_id, season, ends_at, state) "
            f"VALUES (?, ?, ?, '{TIMER}') ON CONFLICT (guild_id, season) DO NOTHING",
            (guild_id, season.name, season.end),
        )


async def _fire(conn: Connection, dialect: str, end_id: int, now: float) -> dict[str, Any] | None:
    """End a due timer and arm the next; its podium (None: not a due timer)."""
    row = await conn.fetchone("SELECT guild_id FROM season_ends WHERE id = ?", (end_id,))
    if row is None:
        return None
    guild_id = int(row[0])
    await lock_guild(conn, dialect, guild_id)  # no result of the season is recorded meanwhile
    found = await conn.fetchone(
        f"SELECT season, ends_at FROM season_ends WHERE id = ? AND state = '{TIMER}' "
        "AND ends_at <= ?",
        (end_id, now),
    )
    if found is None:
        return None
    season, ends_at = str(found[0]), float(found[1])
    top = await conn.fetchall(
        "SELECT user_id, mu, sigma, games FROM season_ratings WHERE guild_id = ? AND season = ? "
        "ORDER BY ordinal DESC, games DESC, user_id LIMIT ?",
        (guild_id, season, PODIUM),
    )
    count = await conn.fetchone(
        "SELECT count(*) FROM season_ratings WHERE guild_id = ? AND season = ?", (guild_id, season)
    )
    payload = {
        "top": [
            {"user_id": int(user), "mu": mu, "sigma": sigma, "games": int(games)}
            for user, mu, sigma, games in top
        ],
        "players": int(count[0]) if count else 0,
    }
    changed = await conn.execute(
        f"UPDATE season_ends SET state = '{ENDED}' WHERE id = ? AND state = '{TIMER}'", (end_id,)
    )
    if not changed:
        return None
    await _arm_next(conn, guild_id, ends_at)
    return payload


async def _select(conn: Connection, where: str, params: tuple[Any, ...]) -> list[SeasonEnd]:
    rows = await conn.fetchall(f"SELECT {_COLUMNS} FROM season_ends WHERE {where}", params)
    return [SeasonEnd(int(i), int(g), str(s), float(e), str(st)) for i, g, s, e, st in rows]


__all__ = ["ENDED", "PODIUM_STEP", "TIMER", "SeasonEnd", "SeasonEnds"]
