"""Lobbies: a game being gathered in a channel (or thread), at most one per channel."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .codec import dumps, loads, transaction
from .errors import ChannelBusyError, NotFoundError

if TYPE_CHECKING:
    from .database import Database


@dataclass(slots=True)
class LobbyRecord:
    """An open lobby. Seats are dicts ``{user_id, name, team, bot_level}``."""

    id: int
    guild_id: int
    channel_id: int
    host_id: int
    options: dict[str, Any]
    seats: list[dict[str, Any]] = field(default_factory=list)
    message_id: int | None = None
    created_at: float = 0.0


_COLUMNS = "id, guild_id, channel_id, host_id, options, seats, message_id, created_at"


class Lobbies:
    """The lobbies repository (``db.lobbies``)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def create(
        self,
        guild_id: int,
        channel_id: int,
        host_id: int,
        options: dict[str, Any],
        now: float,
        *,
        seats: list[dict[str, Any]] | None = None,
        message_id: int | None = None,
    ) -> LobbyRecord:
        """Open a lobby; :class:`ChannelBusyError` if the channel has a lobby or active game."""
        record = LobbyRecord(
            0, guild_id, channel_id, host_id, dict(options), list(seats or []), message_id, now
        )
        record.id = await self._db.run(_create, record, dumps(record.options), dumps(record.seats))
        return record

    async def get(self, lobby_id: int) -> LobbyRecord | None:
        """The lobby with this id, if it is still open."""
        rows = await self._db.run(_select, "WHERE id = ?", (lobby_id,))
        return rows[0] if rows else None

    async def get_for_channel(self, channel_id: int) -> LobbyRecord | None:
        """The channel's open lobby, if any."""
        rows = await self._db.run(_select, "WHERE channel_id = ?", (channel_id,))
        return rows[0] if rows else None

    async def save(self, record: LobbyRecord) -> None:
        """Store the record's host, options, seats and message id."""
        params = (record.host_id, dumps(record.options), dumps(record.seats), record.message_id)
        await self._db.run(_save, record.id, params)

    async def delete(self, lobby_id: int) -> bool:
        """Close a lobby; False if it was already gone."""
        return await self._db.run(_delete, lobby_id)

    async def list_all(self) -> list[LobbyRecord]:
        """Every open lobby (for start-up), oldest first."""
        return await self._db.run(_select, "", ())

    async def hosted_by(self, host_id: int) -> int:
        """How many open lobbies this person hosts."""
        return await self._db.run(_count, "WHERE host_id = ?", (host_id,))

    async def in_guild(self, guild_id: int) -> int:
        """How many lobbies are open in a server."""
        return await self._db.run(_count, "WHERE guild_id = ?", (guild_id,))

    async def seating(self, user_id: int) -> int:
        """How many open lobbies this person sits in."""
        return await self._db.run(_count, _SEATED, (user_id,))

    async def expire(self, older_than: float) -> list[LobbyRecord]:
        """Delete the lobbies created before ``older_than`` and return them."""
        return await self._db.run(_expire, older_than)


def _record(row: tuple[Any, ...]) -> LobbyRecord:
    return LobbyRecord(row[0], row[1], row[2], row[3], loads(row[4]), loads(row[5]), row[6], row[7])


def _select(conn: sqlite3.Connection, where: str, params: tuple[Any, ...]) -> list[LobbyRecord]:
    # ``where`` is a constant of this module; values go in ``params``.
    rows = conn.execute(f"SELECT {_COLUMNS} FROM lobbies {where} ORDER BY id", params)
    return [_record(row) for row in rows]


_SEATED = (
    "WHERE EXISTS (SELECT 1 FROM json_each(lobbies.seats) "
    "WHERE json_extract(json_each.value, '$.user_id') = ?)"
)


def _count(conn: sqlite3.Connection, where: str, params: tuple[Any, ...]) -> int:
    # ``where`` is a constant of this module; values go in ``params``.
    return conn.execute(f"SELECT COUNT(*) FROM lobbies {where}", params).fetchone()[0]


def _create(conn: sqlite3.Connection, record: LobbyRecord, options: str, seats: str) -> int:
    with transaction(conn):
        channel = record.channel_id
        if conn.execute("SELECT 1 FROM lobbies WHERE channel_id = ?", (channel,)).fetchone():
            raise ChannelBusyError(channel, "an open lobby")
        if conn.execute(
            "SELECT 1 FROM games WHERE channel_id = ? AND status = 'active'", (channel,)
        ).fetchone():
            raise ChannelBusyError(channel, "an active game")
        lobby_id = conn.execute(
            "INSERT INTO lobbies (guild_id, channel_id, host_id, options, seats, message_id, "
            "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                record.guild_id,
                channel,
                record.host_id,
                options,
                seats,
                record.message_id,
                record.created_at,
            ),
        ).lastrowid
    assert lobby_id is not None
    return lobby_id


def _save(conn: sqlite3.Connection, lobby_id: int, params: tuple[Any, ...]) -> None:
    updated = conn.execute(
        "UPDATE lobbies SET host_id = ?, options = ?, seats = ?, message_id = ? WHERE id = ?",
        (*params, lobby_id),
    )
    if updated.rowcount != 1:
        raise NotFoundError(f"There is no open lobby {lobby_id}.")


def _delete(conn: sqlite3.Connection, lobby_id: int) -> bool:
    return conn.execute("DELETE FROM lobbies WHERE id = ?", (lobby_id,)).rowcount == 1


def _expire(conn: sqlite3.Connection, older_than: float) -> list[LobbyRecord]:
    with transaction(conn):
        expired = _select(conn, "WHERE created_at < ?", (older_than,))
        conn.execute("DELETE FROM lobbies WHERE created_at < ?", (older_than,))
    return expired
