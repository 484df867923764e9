"""The tournaments table: the event itself (its settings, status, round and sign-up message).

At most one tournament is open (signing up or running) per channel.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bot.table.tournament import TournamentSettings

from ..codec import dumps, loads
from ..errors import ChannelBusyError, IntegrityError, NotFoundError
from .records import TournamentRecord

if TYPE_CHECKING:
    from ..base import Store
    from ..connection import Connection

_T_COLUMNS = (
    "id, guild_id, channel_id, organiser_id, name, format, team_size, options, status, round, "
    "message_id, created_at, finished_at"
)


class TournamentRows:
    """The tournaments' own rows (part of ``db.tournaments``)."""

    def __init__(self, db: Store) -> None:
        self._db = db

    async def create(
        self,
        guild_id: int,
        channel_id: int,
        organiser_id: int,
        name: str,
        fmt: str,
        team_size: int,
        settings: TournamentSettings,
        now: float,
    ) -> TournamentRecord:
        """A new tournament taking sign-ups; :class:`ChannelBusyError` if one is open here."""
        record = TournamentRecord(
            0, guild_id, channel_id, organiser_id, name, fmt, team_size, settings
        )
        record.created_at = now
        record.id = await self._db.run(_create, record, dumps(settings.to_dict()))
        return record

    async def get(self, tournament_id: int) -> TournamentRecord | None:
        """A tournament by id."""
        rows = await self._db.read(_select_t, "WHERE id = ?", (tournament_id,))
        return rows[0] if rows else None

    async def open_in_channel(self, channel_id: int) -> TournamentRecord | None:
        """The channel's tournament that is signing up or running, if any."""
        rows = await self._db.read(
            _select_t, "WHERE channel_id = ? AND status IN ('signup', 'running')", (channel_id,)
        )
        return rows[0] if rows else None

    async def open_in_guild(self, guild_id: int) -> int:
        """How many tournaments are signing up or running in a server."""
        return await self._db.read(_count_open, "guild_id", guild_id)

    async def open_of_guild(self, guild_id: int) -> list[TournamentRecord]:
        """A server's tournaments that are signing up or running."""
        return await self._db.read(
            _select_t, "WHERE guild_id = ? AND status IN ('signup', 'running')", (guild_id,)
        )

    async def open_all(self) -> list[TournamentRecord]:
        """Every tournament signing up or running on this process's shards (for start-up)."""
        mine, params = self._db.on_my_shards("guild_id")
        where = f"WHERE status IN ('signup', 'running') AND {mine}"
        return await self._db.read(_select_t, where, params)

    async def open_by(self, organiser_id: int, guild_id: int | None = None) -> int:
        """How many tournaments one person organises that are signing up or running (in one
        server, or anywhere)."""
        return await self._db.read(_count_open, "organiser_id", organiser_id, guild_id)

    async def in_channel(self, channel_id: int) -> list[TournamentRecord]:
        """Every tournament ever held in a channel, oldest first."""
        return await self._db.read(_select_t, "WHERE channel_id = ?", (channel_id,))

    async def running(self) -> list[TournamentRecord]:
        """Every running tournament (for start-up)."""
        mine, params = self._db.on_my_shards("guild_id")
        return await self._db.read(_select_t, f"WHERE status = 'running' AND {mine}", params)

    async def save(self, record: TournamentRecord) -> None:
        """Store the tournament's settings, status, round and end time (its sign-up message:
        :meth:`set_message`)."""
        await self._db.run(_save_t, record, dumps(record.settings.to_dict()))

    async def set_message(self, tournament_id: int, message_id: int) -> TournamentRecord | None:
        """Remember the sign-up message; the tournament as it now stands, or None if there is
        no such tournament. Only this writes the column, so no other save can undo it."""
        return await self._db.run(_set_message_t, tournament_id, message_id)


async def _create(conn: Connection, record: TournamentRecord, options: str) -> int:
    try:
        row = await conn.fetchone(
            "INSERT INTO tournaments (guild_id, channel_id, organiser_id, name, format, "
            "team_size, options, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            (
                record.guild_id,
                record.channel_id,
                record.organiser_id,
                record.name,
                record.format,
                record.team_size,
                options,
                record.created_at,
            ),
        )
    except IntegrityError as error:
        raise ChannelBusyError(record.channel_id, "an open tournament") from error
    assert row is not None
    return int(row[0])


async def _select_t(
    conn: Connection, where: str, params: tuple[Any, ...]
) -> list[TournamentRecord]:
    # ``where`` is a constant of this module; values go in ``params``.
    rows = await conn.fetchall(f"SELECT {_T_COLUMNS} FROM tournaments {where} ORDER BY id", params)
    return [
        TournamentRecord(
            *row[:7],  # type: ignore[call-arg]  # a row
            TournamentSettings.from_dict(loads(row[7])),
            *row[8:],
        )
        for row in rows
    ]


async def _save_t(conn: Connection, record: TournamentRecord, options: str) -> None:
    updated = await conn.execute(
        "UPDATE tournaments SET options = ?, status = ?, round = ?, finished_at = ? WHERE id = ?",
        (options, record.status, record.round, record.finished_at, record.id),
    )
    if updated != 1:
        raise NotFoundError(f"There is no tournament {record.id}.")


async def _set_message_t(
    conn: Connection, tournament_id: int, message_id: int
) -> TournamentRecord | None:
    await conn.execute(
        "UPDATE tournaments SET message_id = ? WHERE id = ?", (message_id, tournament_id)
    )
    rows = await _select_t(conn, "WHERE id = ?", (tournament_id,))
    return rows[0] if rows else None


async def _count_open(
    conn: Connection, column: str, value: int, guild_id: int | None = None
) -> int:
    # ``column`` is a constant of this module; the values go in the parameters.
    sql = (
        f"SELECT COUNT(*) FROM tournaments WHERE {column} = ? AND status IN ('signup', 'running') "
        "AND guild_id = coalesce(?, guild_id)"
    )
    row = await conn.fetchone(sql, (value, guild_id))
    return int(row[0]) if row else 0
