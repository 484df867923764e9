"""Lobbies: a game being gathered in a channel (or thread), at most one per channel."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bot.table.options import TableOptions

from .codec import dumps, loads
from .errors import ChannelBusyError, IntegrityError, NotFoundError
from .seats import Seat, seats_from_json, seats_to_json

if TYPE_CHECKING:
    from .base import Store
    from .connection import Connection


@dataclass(frozen=True, slots=True)
class MatchLink:
    """The tournament match a lobby is seated for."""

    tournament_id: int
    match_id: int


@dataclass(frozen=True, slots=True)
class LookingCall:
    """A lobby's one call for players to the server's looking-for-game role: offered when the
    lobby opened in a server with that role set; who made it and when, once made."""

    pinged_by: int | None = None
    pinged_at: float | None = None

    @property
    def made(self) -> bool:
        """Whether the role was pinged for this lobby."""
        return self.pinged_by is not None


@dataclass(frozen=True, slots=True)
class RematchCall:
    """A rematch's lobby: the people of the game before who have not yet pressed Accept (a
    seat of theirs is not ready), and how the host seats the teams (``same``, ``shuffled`` or
    ``rotated``)."""

    waiting: tuple[int, ...] = ()
    arrangement: str = "same"


@dataclass(frozen=True, slots=True)
class SeekCall:
    """A table ``/sequence find`` seated: the seekers who have not yet pressed Ready (the game
    starts when nobody is left), and how many players the table seats."""

    waiting: tuple[int, ...] = ()
    players: int = 2


@dataclass(slots=True)
class LobbyRecord:
    """An open lobby and the seats taken so far."""

    id: int
    guild_id: int
    channel_id: int
    host_id: int
    options: TableOptions
    seats: list[Seat] = field(default_factory=list)
    message_id: int | None = None
    created_at: float = 0.0
    #: The tournament match the lobby is seated for; None for a lobby people opened.
    match: MatchLink | None = None
    #: Its call to the looking-for-game role; None: not offered (no such role when it opened).
    looking: LookingCall | None = None
    #: The rematch it gathers; None for any other lobby.
    rematch: RematchCall | None = None
    #: The seekers it waits for; None for a table ``/sequence find`` did not seat.
    seek: SeekCall | None = None


#: Where a match's lobby keeps its link in the stored options: the ``options`` column (and a
#: lobby in a stored tournament step) holds the table's options and, for a match's lobby, the
#: link under this key, ``{"id": tournament, "match": match}``. The layout is the one older
#: versions wrote and read, so stored rows and steps load as they are.
_MATCH_KEY = "tournament"
#: Where a lobby keeps its :class:`LookingCall` in the stored options (absent: not offered),
#: ``{"pinged_by": user or null, "pinged_at": time or null}``.
_LOOKING_KEY = "looking"
#: Where a rematch's lobby keeps its :class:`RematchCall`: ``{"waiting": [user], "arrangement"}``.
_REMATCH_KEY = "rematch"
#: Where a table seated for seekers keeps its :class:`SeekCall`:
#: ``{"waiting": [user], "players": n}``.
_SEEK_KEY = "seek"


def options_to_json(
    options: TableOptions,
    match: MatchLink | None,
    looking: LookingCall | None = None,
    rematch: RematchCall | None = None,
    seek: SeekCall | None = None,
) -> dict[str, Any]:
    """A lobby's options, match link and looking-for-game call as stored (see
    :data:`_MATCH_KEY` and :data:`_LOOKING_KEY`)."""
    data = options.to_dict()
    if match is not None:
        data[_MATCH_KEY] = {"id": match.tournament_id, "match": match.match_id}
    if looking is not None:
        data[_LOOKING_KEY] = {"pinged_by": looking.pinged_by, "pinged_at": looking.pinged_at}
    if rematch is not None:
        data[_REMATCH_KEY] = {"waiting": list(rematch.waiting), "arrangement": rematch.arrangement}
    if seek is not None:
        data[_SEEK_KEY] = {"waiting": list(seek.waiting), "players": seek.players}
    return data


def seek_from_json(data: dict[str, Any]) -> SeekCall | None:
    """A seated table's call from its stored options (None: not seated for seekers)."""
    call = data.get(_SEEK_KEY)
    if call is None:
        return None
    waiting = tuple(int(user) for user in call.get("waiting", []))
    return SeekCall(waiting, int(call.get("players", 2)))


def rematch_from_json(data: dict[str, Any]) -> RematchCall | None:
    """A rematch lobby's call from its stored options (None: not a rematch's lobby)."""
    call = data.get(_REMATCH_KEY)
    if call is None:
        return None
    waiting = tuple(int(user) for user in call.get("waiting", []))
    return RematchCall(waiting, str(call.get("arrangement", "same")))


def looking_from_json(data: dict[str, Any]) -> LookingCall | None:
    """A lobby's looking-for-game call from its stored options (None: not offered)."""
    call = data.get(_LOOKING_KEY)
    if call is None:
        return None
    return LookingCall(call.get("pinged_by"), call.get("pinged_at"))


def options_from_json(data: dict[str, Any]) -> tuple[TableOptions, MatchLink | None]:
    """A lobby's options and match link from their stored form."""
    link = data.get(_MATCH_KEY)
    match = None if link is None else MatchLink(int(link.get("id", 0)), int(link.get("match", 0)))
    return TableOptions.from_dict(data), match


def lobby_to_json(record: LobbyRecord) -> dict[str, Any]:
    """The whole record as plain data (for a tournament step in the outbox)."""
    return {
        "id": record.id,
        "guild_id": record.guild_id,
        "channel_id": record.channel_id,
        "host_id": record.host_id,
        "options": options_to_json(
            record.options, record.match, record.looking, record.rematch, record.seek
        ),
        "seats": seats_to_json(record.seats),
        "message_id": record.message_id,
        "created_at": record.created_at,
    }


def lobby_from_json(data: dict[str, Any]) -> LobbyRecord:
    """A record stored by :func:`lobby_to_json`."""
    options, match = options_from_json(data["options"])
    seats = seats_from_json(data.get("seats", []))
    return LobbyRecord(
        data["id"],
        data["guild_id"],
        data["channel_id"],
        data["host_id"],
        options,
        seats,
        data.get("message_id"),
        data.get("created_at", 0.0),
        match,
        looking_from_json(data["options"]),
        rematch_from_json(data["options"]),
        seek_from_json(data["options"]),
    )


def _seats(record: LobbyRecord) -> str:
    return dumps(seats_to_json(record.seats))


def _options(record: LobbyRecord) -> str:
    return dumps(
        options_to_json(record.options, record.match, record.looking, record.rematch, record.seek)
    )


_COLUMNS = "id, guild_id, channel_id, host_id, options, seats, message_id, created_at"


class Lobbies:
    """The lobbies repository (``db.lobbies``)."""

    def __init__(self, db: Store) -> None:
        self._db = db

    async def create(
        self,
        guild_id: int,
        channel_id: int,
        host_id: int,
        options: TableOptions,
        now: float,
        *,
        seats: list[Seat] | None = None,
        message_id: int | None = None,
        match: MatchLink | None = None,
        looking: LookingCall | None = None,
        rematch: RematchCall | None = None,
        seek: SeekCall | None = None,
    ) -> LobbyRecord:
        """Open a lobby (with ``match``, a tournament match's; with ``looking``, one that may
        call the looking-for-game role; with ``rematch``, a rematch's);
        :class:`ChannelBusyError` if the channel has a lobby or active game."""
        record = LobbyRecord(
            0,
            guild_id,
            channel_id,
            host_id,
            options,
            list(seats or []),
            message_id,
            now,
            match,
            looking,
            rematch,
            seek,
        )
        record.id = await self._db.run(_create, record, _options(record), _seats(record))
        return record

    async def get(self, lobby_id: int) -> LobbyRecord | None:
        """The lobby with this id, if it is still open."""
        rows = await self._db.read(_select, "WHERE id = ? AND closed_at IS NULL", (lobby_id,))
        return rows[0] if rows else None

    async def was_opened(self, lobby_id: int) -> bool:
        """True when a lobby with this id ever existed (open or closed: ids are never reused)."""
        return bool(await self._db.read(_select, "WHERE id = ?", (lobby_id,)))

    async def rematches_of(self, channel_id: int, game_id: int) -> list[LobbyRecord]:
        """The lobbies (open or closed) opened in a channel as a rematch of game ``game_id``."""
        rows = await self._db.read(
            _select, "WHERE channel_id = ? AND options LIKE ?", (channel_id, f"%{game_id}%")
        )
        return [
            row for row in rows if row.rematch is not None and row.options.series_after == game_id
        ]

    async def get_for_channel(self, channel_id: int) -> LobbyRecord | None:
        """The channel's open lobby, if any."""
        rows = await self._db.read(
            _select, "WHERE channel_id = ? AND closed_at IS NULL", (channel_id,)
        )
        return rows[0] if rows else None

    async def save(self, record: LobbyRecord) -> None:
        """Store the record's host, options and seats (its message: :meth:`set_message`)."""
        params = (record.host_id, _options(record), _seats(record))
        await self._db.run(_save, record.id, params)

    async def set_message(self, lobby_id: int, message_id: int) -> LobbyRecord | None:
        """Remember the message that shows the lobby; the lobby as it now stands, or None if it
        has closed. Only this writes the column, so no save of the seats can undo it."""
        return await self._db.run(_set_message, lobby_id, message_id)

    async def delete(self, lobby_id: int, now: float = 0.0) -> bool:
        """Close a lobby (its row stays, so its id is never reused); False if already closed."""
        return await self._db.run(_close, lobby_id, now)

    async def list_all(self) -> list[LobbyRecord]:
        """Every open lobby of this process's shards (for start-up), oldest first."""
        mine, params = self._db.on_my_shards("guild_id")
        return await self._db.read(_select, f"WHERE closed_at IS NULL AND {mine}", params)

    async def open_in(self, guild_id: int) -> list[LobbyRecord]:
        """A server's open lobbies, oldest first (``/sequence find tables``)."""
        return await self._db.read(_select, "WHERE guild_id = ? AND closed_at IS NULL", (guild_id,))

    async def hosted_by(self, host_id: int, guild_id: int | None = None) -> int:
        """How many open lobbies this person hosts (in one server, or anywhere; a tournament
        match's not counted)."""
        where = f"host_id = ? AND guild_id = coalesce(?, guild_id) AND {_NOT_A_MATCH}"
        return await self._db.read(_count, where, (host_id, guild_id))

    async def in_guild(self, guild_id: int) -> int:
        """How many lobbies are open in a server (tournament matches' not counted)."""
        return await self._db.read(_count, f"guild_id = ? AND {_NOT_A_MATCH}", (guild_id,))

    async def seating(self, user_id: int, guild_id: int | None = None) -> int:
        """How many open lobbies this person sits in (in one server, or anywhere)."""
        return await self._db.read(_seating, user_id, guild_id)

    async def expire(self, older_than: float) -> list[LobbyRecord]:
        """Close the open lobbies created before ``older_than`` and return them."""
        return await self._db.run(_expire, older_than)


#: A lobby opened by people, not by a tournament for one of its matches (which the tournament
#: seats itself: in the thread of a match still to be played).
_NOT_A_MATCH = (
    "channel_id NOT IN (SELECT thread_id FROM tournament_matches "
    "WHERE status = 'pending' AND thread_id IS NOT NULL)"
)


def _record(row: tuple[Any, ...]) -> LobbyRecord:
    stored = loads(row[4])
    options, match = options_from_json(stored)
    seats = seats_from_json(loads(row[5]))
    looking = looking_from_json(stored)
    return LobbyRecord(
        row[0],
        row[1],
        row[2],
        row[3],
        options,
        seats,
        row[6],
        row[7],
        match,
        looking,
        rematch_from_json(stored),
        seek_from_json(stored),
    )


async def _select(conn: Connection, where: str, params: tuple[Any, ...]) -> list[LobbyRecord]:
    # ``where`` is a constant of this module; values go in ``params``.
    rows = await conn.fetchall(f"SELECT {_COLUMNS} FROM lobbies {where} ORDER BY id", params)
    return [_record(row) for row in rows]


async def _count(conn: Connection, where: str, params: tuple[Any, ...]) -> int:
    # ``where`` is a constant of this module; values go in ``params``.
    row = await conn.fetchone(
        f"SELECT COUNT(*) FROM lobbies WHERE closed_at IS NULL AND {where}", params
    )
    return int(row[0]) if row else 0


async def _seating(conn: Connection, user_id: int, guild_id: int | None) -> int:
    # A text match narrows the rows (on either backend); the seats decide.
    rows = await conn.fetchall(
        "SELECT seats FROM lobbies WHERE closed_at IS NULL AND seats LIKE ? "
        "AND guild_id = coalesce(?, guild_id)",
        (f"%{user_id}%", guild_id),
    )
    return sum(
        any(seat.user_id == user_id for seat in seats_from_json(loads(text))) for (text,) in rows
    )


async def _create(conn: Connection, record: LobbyRecord, options: str, seats: str) -> int:
    channel = record.channel_id
    if await conn.fetchone(
        "SELECT 1 FROM lobbies WHERE channel_id = ? AND closed_at IS NULL", (channel,)
    ):
        raise ChannelBusyError(channel, "an open lobby")
    if await conn.fetchone(
        "SELECT 1 FROM games WHERE channel_id = ? AND status = 'active'", (channel,)
    ):
        raise ChannelBusyError(channel, "an active game")
    try:
        row = await conn.fetchone(
            "INSERT INTO lobbies (guild_id, channel_id, host_id, options, seats, message_id, "
            "created_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
            (
                record.guild_id,
                channel,
                record.host_id,
                options,
                seats,
                record.message_id,
                record.created_at,
            ),
        )
    except IntegrityError as error:  # another process's lobby, committed since the check
        raise ChannelBusyError(channel, "an open lobby") from error
    assert row is not None
    return int(row[0])


async def _save(conn: Connection, lobby_id: int, params: tuple[Any, ...]) -> None:
    updated = await conn.execute(
        "UPDATE lobbies SET host_id = ?, options = ?, seats = ? WHERE id = ? AND closed_at IS NULL",
        (*params, lobby_id),
    )
    if updated != 1:
        raise NotFoundError(f"There is no open lobby {lobby_id}.")


async def _set_message(conn: Connection, lobby_id: int, message_id: int) -> LobbyRecord | None:
    await conn.execute(
        "UPDATE lobbies SET message_id = ? WHERE id = ? AND closed_at IS NULL",
        (message_id, lobby_id),
    )
    rows = await _select(conn, "WHERE id = ? AND closed_at IS NULL", (lobby_id,))
    return rows[0] if rows else None


async def _close(conn: Connection, lobby_id: int, now: float) -> bool:
    closed = await conn.execute(
        "UPDATE lobbies SET closed_at = ? WHERE id = ? AND closed_at IS NULL", (now, lobby_id)
    )
    return closed == 1


async def close_into_game(conn: Connection, lobby_id: int, channel_id: int, now: float) -> None:
    """Close the open lobby ``lobby_id`` of ``channel_id`` in the transaction that stores the
    game it became; :class:`NotFoundError` when there is no such lobby."""
    closed = await conn.execute(
        "UPDATE lobbies SET closed_at = ? WHERE id = ? AND channel_id = ? AND closed_at IS NULL",
        (now, lobby_id, channel_id),
    )
    if closed != 1:
        raise NotFoundError(f"There is no lobby {lobby_id} in this channel.")


async def _expire(conn: Connection, older_than: float) -> list[LobbyRecord]:
    expired = await _select(conn, "WHERE created_at < ? AND closed_at IS NULL", (older_than,))
    await conn.execute(
        "UPDATE lobbies SET closed_at = created_at WHERE created_at < ? AND closed_at IS NULL",
        (older_than,),
    )
    return expired
