"""Seeks (``db.seeks``): the people of a server looking for a game with ``/sequence find``
(the table: :mod:`.seeks_schema`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .base import Store
    from .connection import Connection

#: A seek's statuses (see :mod:`.seeks_schema`).
OPEN, MATCHED, CANCELLED, EXPIRED, OFFERED, DROPPED = (
    "open",
    "matched",
    "cancelled",
    "expired",
    "offered",
    "dropped",
)


@dataclass(frozen=True, slots=True)
class SeekRecord:
    """One person's seek: what game they look for, where they asked, and until when."""

    id: int
    guild_id: int
    user_id: int
    name: str
    players: int
    speed: str
    rated: bool
    computer_after: bool
    rating: float
    channel_id: int
    created_at: float
    expires_at: float
    status: str = OPEN
    lobby_id: int | None = None

    def matches(self, other: SeekRecord) -> bool:
        """Whether two seeks look for the same game (players, speed, rated)."""
        return (self.players, self.speed, self.rated) == (other.players, other.speed, other.rated)


_COLUMNS = (
    "id, guild_id, user_id, name, players, speed, rated, computer_after, rating, channel_id, "
    "created_at, expires_at, status, lobby_id"
)


class Seeks:
    """The seeks repository (``db.seeks``)."""

    def __init__(self, db: Store) -> None:
        self._db = db

    async def create(self, seek: SeekRecord) -> SeekRecord:
        """Store a new open seek (its ``id`` is ignored); the seek with its id."""
        seek_id = await self._db.run(_create, seek)
        return SeekRecord(**{**_as_dict(seek), "id": seek_id})

    async def get(self, seek_id: int) -> SeekRecord | None:
        """The seek with this id (whatever its status)."""
        rows = await self._db.read(_select, "WHERE id = ?", (seek_id,))
        return rows[0] if rows else None

    async def open_of(self, guild_id: int, user_id: int) -> SeekRecord | None:
        """The person's open seek in a server, if any."""
        rows = await self._db.read(
            _select, "WHERE guild_id = ? AND user_id = ? AND status = 'open'", (guild_id, user_id)
        )
        return rows[0] if rows else None

    async def open_in(self, guild_id: int) -> list[SeekRecord]:
        """A server's open seeks, oldest first (the queue)."""
        return await self._db.read(_select, "WHERE guild_id = ? AND status = 'open'", (guild_id,))

    async def of_lobby(self, lobby_id: int) -> list[SeekRecord]:
        """The seeks seated at the table ``lobby_id``."""
        return await self._db.read(_select, "WHERE lobby_id = ?", (lobby_id,))

    async def open_everywhere(self) -> list[SeekRecord]:
        """Every open seek of this process's shards, oldest first (start-up)."""
        mine, params = self._db.on_my_shards("guild_id")
        return await self._db.read(_select, f"WHERE status = 'open' AND {mine}", params)

    async def set_status(
        self, seek_ids: list[int], status: str, *, was: str = OPEN, lobby_id: int | None = None
    ) -> int:
        """Move the seeks ``seek_ids`` that are ``was`` to ``status`` (matched: at ``lobby_id``,
        once known); how many were ``was`` (a seek changed meanwhile is left as it is)."""
        return await self._db.run(_set_status, seek_ids, status, was, lobby_id)


def _as_dict(seek: SeekRecord) -> dict[str, Any]:
    return {name: getattr(seek, name) for name in SeekRecord.__slots__}


def _record(row: tuple[Any, ...]) -> SeekRecord:
    return SeekRecord(
        int(row[0]),
        int(row[1]),
        int(row[2]),
        str(row[3]),
        int(row[4]),
        str(row[5]),
        bool(row[6]),
        bool(row[7]),
        float(row[8]),
        int(row[9]),
        float(row[10]),
        float(row[11]),
        str(row[12]),
        None if row[13] is None else int(row[13]),
    )


async def _select(conn: Connection, where: str, params: tuple[Any, ...]) -> list[SeekRecord]:
    # ``where`` is a constant of this module; values go in ``params``.
    rows = await conn.fetchall(f"SELECT {_COLUMNS} FROM seeks {where} ORDER BY id", params)
    return [_record(row) for row in rows]


async def _create(conn: Connection, seek: SeekRecord) -> int:
    row = await conn.fetchone(
        "INSERT INTO seeks (guild_id, user_id, name, players, speed, rated, computer_after, "
        "rating, channel_id, created_at, expires_at, status) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'open') RETURNING id",
        (
            seek.guild_id,
            seek.user_id,
            seek.name,
            seek.players,
            seek.speed,
            int(seek.rated),
            int(seek.computer_after),
            seek.rating,
            seek.channel_id,
            seek.created_at,
            seek.expires_at,
        ),
    )
    assert row is not None
    return int(row[0])


async def _set_status(
    conn: Connection, seek_ids: list[int], status: str, was: str, lobby_id: int | None
) -> int:
    changed = 0
    for seek_id in seek_ids:
        changed += await conn.execute(
            "UPDATE seeks SET status = ?, lobby_id = ? WHERE id = ? AND status = ?",
            (status, lobby_id, seek_id, was),
        )
    return changed
