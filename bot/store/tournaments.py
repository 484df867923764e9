"""Tournaments: the event, its entrants (a user or a fixed team) and its matches, round by round.

A user plays for at most one entrant per tournament (the ``tournament_players`` key), and at
most one tournament is open (signing up or running) per channel. A round's matches are written
in one transaction together with the tournament's round number, guarded by the number before:
two writers can never pair the same round twice.

Its length is the tournament tables': every query on an event, its entrants and its matches,
kept in one place so a change to the schema is made once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .codec import dumps, loads
from .errors import ChannelBusyError, IntegrityError, NotFoundError, StoreError

if TYPE_CHECKING:
    from .base import Store
    from .connection import Connection


class AlreadyEnteredError(StoreError):
    """A user is already an entrant (or a team member) in the tournament."""

    def __init__(self, user_id: int) -> None:
        self.user_id = user_id
        super().__init__(f"User {user_id} is already entered in this tournament.")


class StaleRoundError(StoreError):
    """The round was already paired (the tournament is not at the round before it)."""


@dataclass(slots=True)
class TournamentRecord:
    """A tournament. ``options`` holds the table options and the tournament's own settings."""

    id: int
    guild_id: int
    channel_id: int
    organiser_id: int
    name: str
    format: str
    team_size: int
    options: dict[str, Any]
    status: str = "signup"
    round: int = 0
    message_id: int | None = None
    created_at: float = 0.0
    finished_at: float | None = None


@dataclass(slots=True)
class EntrantRecord:
    """An entrant: members are ``{user_id, name}`` dicts, the one who signed up first."""

    id: int
    tournament_id: int
    name: str
    members: list[dict[str, Any]]
    seed: int | None = None
    joined_at: float = 0.0
    dropped_at: float | None = None

    @property
    def user_ids(self) -> list[int]:
        """The members' user ids, in order."""
        return [int(member["user_id"]) for member in self.members]

    @property
    def dropped(self) -> bool:
        """True once the organiser dropped the entrant."""
        return self.dropped_at is not None


@dataclass(slots=True)
class MatchRecord:
    """A match of a round: ``entrant_b`` None is a bye; ``winner`` None with an outcome is a
    draw or a double forfeit."""

    id: int
    tournament_id: int
    round: int
    number: int
    entrant_a: int
    entrant_b: int | None
    status: str = "pending"
    outcome: str | None = None
    winner: int | None = None
    thread_id: int | None = None
    game_id: int | None = None
    message_id: int | None = None
    checkins: list[int] = field(default_factory=list)
    deadline: float | None = None
    finished_at: float | None = None

    @property
    def is_open(self) -> bool:
        """Waiting to be played or being played."""
        return self.status in ("pending", "playing")

    @property
    def sides(self) -> list[int]:
        """The entrant ids of the match (one for a bye)."""
        return [self.entrant_a] if self.entrant_b is None else [self.entrant_a, self.entrant_b]


_T_COLUMNS = (
    "id, guild_id, channel_id, organiser_id, name, format, team_size, options, status, round, "
    "message_id, created_at, finished_at"
)
_E_COLUMNS = "id, tournament_id, name, members, seed, joined_at, dropped_at"
_M_COLUMNS = (
    "id, tournament_id, round, number, entrant_a, entrant_b, status, outcome, winner, thread_id, "
    "game_id, message_id, checkins, deadline, finished_at"
)


class Tournaments:
    """The tournaments repository (``db.tournaments``)."""

    def __init__(self, db: Store) -> None:
        self._db = db

    # ------------------------------------------------------------------ tournaments
    async def create(
        self,
        guild_id: int,
        channel_id: int,
        organiser_id: int,
        name: str,
        fmt: str,
        team_size: int,
        options: dict[str, Any],
        now: float,
    ) -> TournamentRecord:
        """A new tournament taking sign-ups; :class:`ChannelBusyError` if one is open here."""
        record = TournamentRecord(
            0, guild_id, channel_id, organiser_id, name, fmt, team_size, dict(options)
        )
        record.created_at = now
        record.id = await self._db.run(_create, record, dumps(record.options))
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

    async def open_by(self, organiser_id: int) -> int:
        """How many tournaments one person organises that are signing up or running."""
        return await self._db.read(_count_open, "organiser_id", organiser_id)

    async def in_channel(self, channel_id: int) -> list[TournamentRecord]:
        """Every tournament ever held in a channel, oldest first."""
        return await self._db.read(_select_t, "WHERE channel_id = ?", (channel_id,))

    async def running(self) -> list[TournamentRecord]:
        """Every running tournament (for start-up)."""
        mine, params = self._db.on_my_shards("guild_id")
        return await self._db.read(_select_t, f"WHERE status = 'running' AND {mine}", params)

    async def save(self, record: TournamentRecord) -> None:
        """Store the tournament's options, status, round and end time (its sign-up message:
        :meth:`set_message`)."""
        await self._db.run(_save_t, record, dumps(record.options))

    async def set_message(self, tournament_id: int, message_id: int) -> TournamentRecord | None:
        """Remember the sign-up message; the tournament as it now stands, or None if there is
        no such tournament. Only this writes the column, so no other save can undo it."""
        return await self._db.run(_set_message_t, tournament_id, message_id)

    # ------------------------------------------------------------------ entrants
    async def add_entrant(
        self, tournament_id: int, name: str, members: list[dict[str, Any]], now: float
    ) -> EntrantRecord:
        """Sign up an entrant; :class:`AlreadyEnteredError` if any member is already in."""
        record = EntrantRecord(0, tournament_id, name, [dict(m) for m in members], None, now)
        record.id = await self._db.run(_add_entrant, record, dumps(record.members))
        return record

    async def remove_entrant(self, entrant_id: int) -> bool:
        """Withdraw an entrant before the start (its members may sign up again)."""
        return await self._db.run(_remove_entrant, entrant_id)

    async def entrants(self, tournament_id: int) -> list[EntrantRecord]:
        """The entrants in sign-up order."""
        return await self._db.read(_select_e, "WHERE tournament_id = ?", (tournament_id,))

    async def entrant_of(self, tournament_id: int, user_id: int) -> EntrantRecord | None:
        """The entrant a user plays for, if any."""
        rows = await self._db.read(
            _select_e,
            "WHERE id = (SELECT entrant_id FROM tournament_players "
            "WHERE tournament_id = ? AND user_id = ?)",
            (tournament_id, user_id),
        )
        return rows[0] if rows else None

    async def set_seeds(self, seeds: dict[int, int]) -> None:
        """Fix the seeds (entrant id -> seed, 1 the top seed)."""
        await self._db.run(_set_seeds, seeds)

    async def drop(self, entrant_id: int, now: float) -> None:
        """Mark an entrant dropped: it is paired no more."""
        await self._db.run(_drop, entrant_id, now)

    # ------------------------------------------------------------------ matches
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
    """What :meth:`Tournaments.save_match` writes, in ``_save_m``'s order."""
    return (
        m.status,
        m.outcome,
        m.winner,
        m.thread_id,
        m.game_id,
        dumps(m.checkins),
        m.deadline,
        m.finished_at,
    )


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
        TournamentRecord(*row[:7], loads(row[7]), *row[8:])  # type: ignore[call-arg]  # a row
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


async def _add_entrant(conn: Connection, record: EntrantRecord, members: str) -> int:
    for user_id in record.user_ids:
        if await conn.fetchone(
            "SELECT 1 FROM tournament_players WHERE tournament_id = ? AND user_id = ?",
            (record.tournament_id, user_id),
        ):
            raise AlreadyEnteredError(user_id)
    try:
        row = await conn.fetchone(
            "INSERT INTO tournament_entrants (tournament_id, name, members, joined_at) "
            "VALUES (?, ?, ?, ?) RETURNING id",
            (record.tournament_id, record.name, members, record.joined_at),
        )
    except IntegrityError as error:
        raise NotFoundError(f"There is no tournament {record.tournament_id}.") from error
    assert row is not None
    entrant_id = int(row[0])
    await conn.executemany(
        "INSERT INTO tournament_players (tournament_id, user_id, entrant_id) VALUES (?, ?, ?)",
        [(record.tournament_id, user_id, entrant_id) for user_id in record.user_ids],
    )
    return entrant_id


async def _remove_entrant(conn: Connection, entrant_id: int) -> bool:
    await conn.execute("DELETE FROM tournament_players WHERE entrant_id = ?", (entrant_id,))
    removed = await conn.execute("DELETE FROM tournament_entrants WHERE id = ?", (entrant_id,))
    return removed == 1


async def _select_e(conn: Connection, where: str, params: tuple[Any, ...]) -> list[EntrantRecord]:
    # ``where`` is a constant of this module; values go in ``params``.
    rows = await conn.fetchall(
        f"SELECT {_E_COLUMNS} FROM tournament_entrants {where} ORDER BY id", params
    )
    return [
        EntrantRecord(row[0], row[1], row[2], loads(row[3]), row[4], row[5], row[6]) for row in rows
    ]


async def _set_seeds(conn: Connection, seeds: dict[int, int]) -> None:
    await conn.executemany(
        "UPDATE tournament_entrants SET seed = ? WHERE id = ?",
        [(seed, entrant_id) for entrant_id, seed in seeds.items()],
    )


async def _drop(conn: Connection, entrant_id: int, now: float) -> None:
    updated = await conn.execute(
        "UPDATE tournament_entrants SET dropped_at = coalesce(dropped_at, ?) WHERE id = ?",
        (now, entrant_id),
    )
    if updated != 1:
        raise NotFoundError(f"There is no entrant {entrant_id}.")


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
        MatchRecord(*row[:12], loads(row[12]), row[13], row[14])  # type: ignore[call-arg]  # a row
        for row in rows
    ]


async def _save_m(conn: Connection, match_id: int, params: tuple[Any, ...]) -> None:
    updated = await conn.execute(
        "UPDATE tournament_matches SET status = ?, outcome = ?, winner = ?, thread_id = ?, "
        "game_id = ?, checkins = ?, deadline = ?, finished_at = ? WHERE id = ?",
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


async def _count_open(conn: Connection, column: str, value: int) -> int:
    # ``column`` is a constant of this module; the value goes in the parameters.
    sql = f"SELECT COUNT(*) FROM tournaments WHERE {column} = ? AND status IN ('signup', 'running')"
    row = await conn.fetchone(sql, (value,))
    return int(row[0]) if row else 0
