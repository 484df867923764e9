"""What the store holds about one member (``db.members``): the reads of ``/sequence-me``'s
export, what stops a forget-me (a seat in an open lobby, an active game or an open
tournament), and the forget-me itself (:mod:`.forgetting`).

A game's seats are JSON, so the games a member sat at are found by a text match that narrows
the rows (on either backend) and their seats decide, as :meth:`Games.active_of` does. The rest
are indexed reads by user id, or scans of small tables.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bot.game import Move

from .codec import loads, loads_many
from .forgetting import Forgotten, anonymise, holds_anything
from .results import _COLUMNS as RESULT_COLUMNS
from .results import BY_TIME, ResultRecord
from .results import _records as result_records
from .seats import Seat, seats_from_json

if TYPE_CHECKING:
    from .base import Store
    from .connection import Connection

#: Game ids per ``IN (...)`` list (well within both backends' limits on parameters).
CHUNK = 500


@dataclass(frozen=True, slots=True)
class SeatedGame:
    """A game a member sat at, any status."""

    id: int
    guild_id: int
    status: str
    settings: dict[str, Any]
    seats: list[Seat]
    created_at: float
    finished_at: float | None


@dataclass(frozen=True, slots=True)
class RatingStep:
    """One rated game's change of a member's rating in a server."""

    guild_id: int
    seq: int
    game_id: int
    ordinal: float
    delta: float


@dataclass(frozen=True, slots=True)
class Entry:
    """A member's entry in a tournament, and how its matches went."""

    tournament_id: int
    guild_id: int
    tournament: str
    format: str
    status: str
    entrant_id: int
    entrant: str
    seed: int | None
    joined_at: float
    dropped_at: float | None
    #: ``(round, match id, outcome, winner entrant or None, game id or None)``, in order.
    matches: list[tuple[int, int, str | None, int | None, int | None]]


@dataclass(frozen=True, slots=True)
class Blockers:
    """What keeps a member from being forgotten now (all empty: nothing)."""

    lobbies: int = 0
    games: int = 0
    tournaments: int = 0

    def __bool__(self) -> bool:
        return bool(self.lobbies or self.games or self.tournaments)


class Members:
    """The members repository (``db.members``)."""

    def __init__(self, db: Store) -> None:
        self._db = db

    async def seated_games(self, user_id: int) -> list[SeatedGame]:
        """Every game the member sat at (any status), oldest first (parsed off the loop)."""
        rows = await self._db.read(_seated, user_id)
        return await asyncio.to_thread(_seated_games, rows, user_id)

    async def results(self, user_id: int) -> list[ResultRecord]:
        """The results of the member's games, oldest first (what ``db.results.for_user``
        gives, parsed off the loop: a long history is thousands)."""
        rows = await self._db.read(
            _all,
            f"SELECT {RESULT_COLUMNS} FROM results r WHERE r.game_id IN "
            f"(SELECT game_id FROM result_players WHERE user_id = ?) {BY_TIME}",
            user_id,
        )
        return await asyncio.to_thread(result_records, rows)

    async def live_moves(self, game_ids: list[int]) -> dict[int, list[str]]:
        """Each game's live moves (not undone), in order, in notation (``"1:7S@C4"``); read a
        few hundred games at a time, each batch parsed off the event loop."""
        moves: dict[int, list[str]] = {game_id: [] for game_id in game_ids}
        for start in range(0, len(game_ids), CHUNK):
            rows = await self._db.read(_moves, self._db.dialect, game_ids[start : start + CHUNK])
            moves.update(await asyncio.to_thread(_notations, rows))
        return moves

    async def rating_steps(self, user_id: int) -> list[RatingStep]:
        """Every rated game's change of the member's ratings, by server, in order."""
        rows = await self._db.read(
            _all,
            "SELECT guild_id, seq, game_id, ordinal, delta FROM rating_changes "
            "WHERE user_id = ? ORDER BY guild_id, seq",
            user_id,
        )
        return [RatingStep(int(g), int(s), int(game), o, d) for g, s, game, o, d in rows]

    async def ratings(self, user_id: int) -> list[tuple[int, float, float, float, int]]:
        """The member's rating in each server: ``(guild, mu, sigma, ordinal, rated games)``."""
        rows = await self._db.read(
            _all,
            "SELECT guild_id, mu, sigma, ordinal, games FROM ratings WHERE user_id = ? "
            "ORDER BY guild_id",
            user_id,
        )
        return [(int(g), mu, sigma, ordinal, int(n)) for g, mu, sigma, ordinal, n in rows]

    async def totals(self, user_id: int) -> list[tuple[int, ...]]:
        """The member's totals in each server: ``(guild, games, wins, draws, losses,
        sequences, jacks)``."""
        rows = await self._db.read(
            _all,
            "SELECT guild_id, games, wins, draws, losses, sequences, jacks FROM player_totals "
            "WHERE user_id = ? ORDER BY guild_id",
            user_id,
        )
        return [tuple(int(v) for v in row) for row in rows]

    async def entries(self, user_id: int) -> list[Entry]:
        """The member's tournament entries, oldest first."""
        return await self._db.read(_entries, user_id)

    async def reports(self, user_id: int) -> list[tuple[int, int, str, float]]:
        """The table-talk calls the member made: ``(game, team called, status, when)``."""
        rows = await self._db.read(
            _all,
            "SELECT game_id, team, status, created_at FROM tabletalk_reports "
            "WHERE reporter_id = ? ORDER BY id",
            user_id,
        )
        return [(int(g), int(t), str(s), at) for g, t, s, at in rows]

    async def blockers(self, user_id: int) -> Blockers:
        """The open lobbies, active games and open tournaments the member is part of."""
        return await self._db.read(_blockers, user_id)

    async def holds_anything(self, user_id: int) -> bool:
        """True when any row still names the member (a second forget-me finds none)."""
        return await self._db.read(holds_anything, user_id)

    async def forget(self, user_id: int, pseudonym: int, name: str) -> Forgotten:
        """Put ``pseudonym`` (shown as ``name``) in place of the member everywhere and delete
        their preferences, in the open transaction (or one of its own)."""
        return await self._db.run(anonymise, user_id, pseudonym, name)


async def _all(conn: Connection, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    return await conn.fetchall(sql, params)


async def _seated(conn: Connection, user_id: int) -> list[tuple[Any, ...]]:
    return await conn.fetchall(
        "SELECT id, guild_id, status, settings, seats, created_at, finished_at FROM games "
        "WHERE seats LIKE ? ORDER BY id",
        (f"%{user_id}%",),
    )


#: Joins a game's move rows in one text: JSON text never holds it raw (a control character).
UNIT = "\x1f"


async def _moves(conn: Connection, dialect: str, game_ids: list[int]) -> list[tuple[Any, ...]]:
    # One row per game (``number|move`` joined by UNIT, put in order by the reader): a long
    # history is a few thousand rows to fetch, not a million.
    marks = ", ".join("?" * len(game_ids))
    joined = (
        "string_agg(number::text || '|' || move, chr(31))"
        if dialect == "postgresql"
        else "group_concat(number || '|' || move, char(31))"
    )
    return await conn.fetchall(
        f"SELECT game_id, {joined} FROM moves WHERE game_id IN ({marks}) "
        "AND undone_at IS NULL GROUP BY game_id",
        game_ids,
    )


def _seated_games(rows: list[tuple[Any, ...]], user_id: int) -> list[SeatedGame]:
    games = []
    for game_id, guild, status, settings, seats, created, finished in rows:
        seated = seats_from_json(loads(seats))
        if any(seat.user_id == user_id for seat in seated):
            games.append(
                SeatedGame(game_id, guild, status, loads(settings), seated, created, finished)
            )
    return games


def _notations(rows: list[tuple[Any, ...]]) -> dict[int, list[str]]:
    """Each row's game id and its moves, parsed and put in order."""
    moves = {}
    for game_id, joined in rows:
        numbered = sorted(
            (int(number), text)
            for number, text in (item.split("|", 1) for item in joined.split(UNIT))
        )
        values = loads_many([text for _, text in numbered])
        moves[int(game_id)] = [
            value if isinstance(value, str) else Move.from_dict(value).notation()
            for value in values
        ]
    return moves


async def _entries(conn: Connection, user_id: int) -> list[Entry]:
    rows = await conn.fetchall(
        "SELECT t.id, t.guild_id, t.name, t.format, t.status, e.id, e.name, e.seed, "
        "e.joined_at, e.dropped_at FROM tournament_players p "
        "JOIN tournament_entrants e ON e.id = p.entrant_id "
        "JOIN tournaments t ON t.id = p.tournament_id WHERE p.user_id = ? ORDER BY t.id",
        (user_id,),
    )
    entries = []
    for t_id, guild, t_name, fmt, status, e_id, e_name, seed, joined, dropped in rows:
        matches = await conn.fetchall(
            "SELECT round, id, outcome, winner, game_id FROM tournament_matches "
            "WHERE tournament_id = ? AND (entrant_a = ? OR entrant_b = ?) ORDER BY round, number",
            (t_id, e_id, e_id),
        )
        entries.append(
            Entry(
                int(t_id),
                int(guild),
                t_name,
                fmt,
                status,
                int(e_id),
                e_name,
                seed,
                joined,
                dropped,
                [tuple(row) for row in matches],
            )
        )
    return entries


async def _blockers(conn: Connection, user_id: int) -> Blockers:
    lobbies = await conn.fetchall(
        "SELECT host_id, seats FROM lobbies WHERE closed_at IS NULL AND "
        "(host_id = ? OR seats LIKE ?)",
        (user_id, f"%{user_id}%"),
    )
    games = await conn.fetchall(
        "SELECT seats FROM games WHERE status = 'active' AND seats LIKE ?", (f"%{user_id}%",)
    )
    tournaments = await conn.fetchone(
        "SELECT count(*) FROM tournaments t WHERE t.status IN ('signup', 'running') AND "
        "(t.organiser_id = ? OR EXISTS (SELECT 1 FROM tournament_players p "
        "WHERE p.tournament_id = t.id AND p.user_id = ?))",
        (user_id, user_id),
    )
    return Blockers(
        sum(1 for host, seats in lobbies if host == user_id or _seated_in(seats, user_id)),
        sum(1 for (seats,) in games if _seated_in(seats, user_id)),
        int(tournaments[0]) if tournaments else 0,
    )


def _seated_in(seats: str, user_id: int) -> bool:
    return any(seat.user_id == user_id for seat in seats_from_json(loads(seats)))


__all__ = ["Blockers", "Entry", "Forgotten", "Members", "RatingStep", "SeatedGame"]
