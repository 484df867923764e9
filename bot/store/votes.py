"""Team votes of a game, in their own table: a vote to resign, a draw offer with the teams'
answers, a declined offer's cooldown, and the host's undo request with the teams' agreements.
One row per (game, kind, team).

The game service keeps a game's votes with its record and writes them, when a change alters
them, in the same transaction as the rest of the change (:meth:`Votes.replace`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .codec import dumps, loads

if TYPE_CHECKING:
    from .base import Store
    from .connection import Connection

#: A team votes to resign: ``seats`` are its players who voted.
RESIGN = "resign"
#: A team offers a draw: ``seats`` are the offering player and one player of each team that
#: accepted; ``move_count`` the game's moves when offered (any move lapses it); ``expires_at``
#: when it lapses by itself; ``message_id`` the public offer.
DRAW = "draw"
#: A team whose offer was declined: ``turns_left`` of its own turns before it may offer again.
DRAW_COOLDOWN = "draw_cooldown"
#: The host asks to take back the last move: ``team`` the host's team (-1: the host has no
#: seat), ``seats`` one seat of each team that agreed, ``move_count`` the game's moves when
#: asked (any move lapses it), ``created_at`` when, ``message_id`` the public request.
UNDO = "undo"
KINDS = (RESIGN, DRAW, DRAW_COOLDOWN, UNDO)


@dataclass(frozen=True, slots=True)
class TeamVote:
    """One team's vote, offer or cooldown in one game."""

    kind: str
    team: int
    seats: tuple[int, ...] = ()
    move_count: int = 0
    turns_left: int = 0
    message_id: int | None = None
    created_at: float = 0.0
    expires_at: float | None = None


#: A game's votes by (kind, team).
VoteMap = dict[tuple[str, int], TeamVote]

_COLUMNS = "game_id, kind, team, seats, move_count, turns_left, message_id, created_at, expires_at"


class Votes:
    """The votes repository (``db.votes``)."""

    def __init__(self, db: Store) -> None:
        self._db = db

    async def replace(self, game_id: int, votes: list[TeamVote]) -> None:
        """The game's votes become exactly ``votes``."""
        await self._db.run(_replace, game_id, [_row(game_id, vote) for vote in votes])

    async def of_game(self, game_id: int) -> VoteMap:
        """The game's votes as stored."""
        rows = await self._db.read(_select, "WHERE game_id = ?", (game_id,))
        return vote_map(rows).get(game_id, {})


def _row(game_id: int, vote: TeamVote) -> tuple[Any, ...]:
    return (
        game_id,
        vote.kind,
        vote.team,
        dumps(list(vote.seats)),
        vote.move_count,
        vote.turns_left,
        vote.message_id,
        vote.created_at,
        vote.expires_at,
    )


def vote_map(rows: list[tuple[Any, ...]]) -> dict[int, VoteMap]:
    """Rows of ``SELECT {columns}`` grouped by game."""
    games: dict[int, VoteMap] = {}
    for game_id, kind, team, seats, moves, turns, message, created, expires in rows:
        vote = TeamVote(
            kind, int(team), tuple(sorted(loads(seats))), moves, turns, message, created, expires
        )
        games.setdefault(game_id, {})[(vote.kind, vote.team)] = vote
    return games


async def select_for(conn: Connection, where: str, params: tuple[Any, ...]) -> dict[int, VoteMap]:
    """The votes of the games ``where`` (a condition on ``games g``) selects."""
    # ``where`` is a constant of the games repository; values go in ``params``.
    rows = await conn.fetchall(
        f"SELECT {_COLUMNS} FROM votes WHERE game_id IN (SELECT g.id FROM games g WHERE {where})",
        params,
    )
    return vote_map(rows)


async def clear_game(conn: Connection, game_id: int) -> None:
    """Delete a game's votes in the transaction open on ``conn`` (a finished game's)."""
    await _replace(conn, game_id, [])


async def _replace(conn: Connection, game_id: int, rows: list[tuple[Any, ...]]) -> None:
    await conn.execute("DELETE FROM votes WHERE game_id = ?", (game_id,))
    if rows:
        await conn.executemany(
            f"INSERT INTO votes ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows
        )


async def _select(conn: Connection, where: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    # ``where`` is a constant of this module; values go in ``params``.
    return await conn.fetchall(f"SELECT {_COLUMNS} FROM votes {where} ORDER BY game_id", params)
