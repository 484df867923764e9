"""A tournament's matches, round by round.

A round's matches are written in one transaction together with the tournament's round number,
guarded by the number before: two writers can never pair the same round twice.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..codec import dumps, loads
from ..errors import NotFoundError
from .records import MatchRecord, StaleRoundError

if TYPE_CHECKING:
    from ..base import Store
    from ..connection import Connection

_M_COLUMNS = (
    "id, tournament_id, round, number, entrant_a, entrant_b, status, outcome, winner, thread_id, "
    "game_id, message_id, checkins, deadline, finished_at, thread_gone_at"
)


class Matches:
    """A tournament's matches (part of ``db.tournaments``)."""

    def __init__(self, db: Store) -> None:
        self._db = db

    async def add_round(
        self, tournament_id: int, round_number: int, matches: list[MatchRecord]
    ) -> list[MatchRecord]:
        """Store a round's matches (numbered by the caller: elimination keeps bracket places)
        and move the tournament to that round, in one transaction.

        :class:`StaleRoundError` when the tournament is not at ``round_number - 1``.
        """
        rows = [(match.number, *_match_params(match)) for match in matches]
        ids = await self._db.run(_add_round, tournament_id, round_number, rows)
        for match, match_id in zip(matches, ids, strict=True):
            match.id = match_id
            match.tournament_id = tournament_id
            match.round = round_number
        return matches

    async def matches(self, tournament_id: int) -> list[MatchRecord]:
        """Every match, by round and number."""
        return await self._db.read(_select_m, "WHERE tournament_id = ?", (tournament_id,))

    async def match(self, match_id: int) -> MatchRecord | None:
        """A match by id."""
        rows = await self._db.read(_select_m, "WHERE id = ?", (match_id,))
        return rows[0] if rows else None

    async def open_match_in_thread(self, thread_id: int) -> MatchRecord | None:
        """The match waiting or being played in a thread."""
        rows = await self._db.read(
            _select_m, "WHERE thread_id = ? AND status IN ('pending', 'playing')", (thread_id,)
        )
        return rows[0] if rows else None

    async def match_for_game(self, game_id: int) -> MatchRecord | None:
        """The match a game is played for."""
        rows = await self._db.read(_select_m, "WHERE game_id = ?", (game_id,))
        return rows[0] if rows else None

    async def save_match(self, match: MatchRecord) -> None:
        """Store a match's status, result, thread, game, check-ins and deadline (its message:
        :meth:`set_match_message`)."""
        await self._db.run(_save_m, match.id, _match_update(match))

    async def set_match_message(self, match_id: int, message_id: int) -> MatchRecord | None:
        """Remember the match message; the match as it now stands, or None if there is no such
        match. Only this writes the column, so no other save can undo it."""
        return await self._db.run(_set_message_m, match_id, message_id)


def _match_params(m: MatchRecord) -> tuple[Any, ...]:
    return (
        m.entrant_a,
        m.entrant_b,
        m.status,
        m.outcome,
        m.winner,
        m.thread_id,
        m.game_id,
        m.message_id,
        dumps(m.checkins),
        m.deadline,
        m.finished_at,
    )


def _match_update(m: MatchRecord) -> tuple[Any, ...]:
    """What :meth:`Matches.save_match` writes, in ``_save_m``'s order."""
    return (
        m.status,
        m.outcome,
        m.winner,
        m.thread_id,
        m.game_id,
        dumps(m.checkins),
        m.deadline,
        m.finished_at,
        m.thread_gone_at,
    )


async def _add_round(
    conn: Connection, tournament_id: int, number: int, rows: list[tuple[Any, ...]]
) -> list[int]:
    moved = await conn.execute(
        "UPDATE tournaments SET round = ? WHERE id = ? AND round = ? AND status = 'running'",
        (number, tournament_id, number - 1),
    )
    if moved != 1:
        raise StaleRoundError(f"Round {number} of tournament {tournament_id} is not next.")
    ids = []
    for row in rows:
        inserted = await conn.fetchone(
            "INSERT INTO tournament_matches (tournament_id, round, number, entrant_a, "
            "entrant_b, status, outcome, winner, thread_id, game_id, message_id, checkins, "
            "deadline, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "RETURNING id",
            (tournament_id, number, *row),
        )
        assert inserted is not None
        ids.append(int(inserted[0]))
    return ids


async def _select_m(conn: Connection, where: str, params: tuple[Any, ...]) -> list[MatchRecord]:
    # ``where`` is a constant of this module; values go in ``params``.
    rows = await conn.fetchall(
        f"SELECT {_M_COLUMNS} FROM tournament_matches {where} ORDER BY round, number", params
    )
    return [
        MatchRecord(*row[:12], loads(row[12]), *row[13:16])  # type: ignore[call-arg]  # a row
        for row in rows
    ]


async def _save_m(conn: Connection, match_id: int, params: tuple[Any, ...]) -> None:
    updated = await conn.execute(
        "UPDATE tournament_matches SET status = ?, outcome = ?, winner = ?, thread_id = ?, "
        "game_id = ?, checkins = ?, deadline = ?, finished_at = ?, thread_gone_at = ? "
        "WHERE id = ?",
        (*params, match_id),
    )
    if updated != 1:
        raise NotFoundError(f"There is no match {match_id}.")


async def _set_message_m(conn: Connection, match_id: int, message_id: int) -> MatchRecord | None:
    await conn.execute(
        "UPDATE tournament_matches SET message_id = ? WHERE id = ?", (message_id, match_id)
    )
    rows = await _select_m(conn, "WHERE id = ?", (match_id,))
    return rows[0] if rows else None
