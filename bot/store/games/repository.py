"""The games repository (``db.games``): what the bot asks of a game's rows, on either backend.

It turns engine values into rows and back; the SQL of its writes is in :mod:`.writes`, that of
loading in :mod:`.loading`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bot.game import Game, Move
from bot.table.options import TableOptions

from ..codec import dumps, loads
from ..errors import NotFoundError
from ..move_rows import move_text, read_move
from ..seats import Seat, seats_from_json, seats_to_json
from ..snapshots import kept_snapshot_text
from . import writes
from .loading import ACTIVE_GAMES, ACTIVE_IN_CHANNEL, ACTIVE_SEATED, BY_ID, load_games
from .records import ACTIVE, CANCELLED, FINISHED, GameRecord, GameStatus, LogEntry

if TYPE_CHECKING:
    from ..base import Store
    from ..connection import Connection


class Games:
    """The games repository (``db.games``)."""

    def __init__(self, db: Store) -> None:
        self._db = db

    async def create(
        self,
        guild_id: int,
        channel_id: int,
        game: Game,
        seats: list[Seat],
        options: TableOptions,
        lobby_message_id: int | None,
        now: float,
        *,
        lobby_id: int | None = None,
    ) -> GameRecord:
        """Store a new active game (and any moves it already has).

        With ``lobby_id``, that lobby is deleted in the same transaction (a lobby becomes a game).
        Raises :class:`ChannelBusyError` when the channel already has an active game. The record
        holds ``game`` itself, not a copy.
        """
        moves = [(i, m.seat, move_text(m)) for i, m in enumerate(game.moves)]
        row = (
            guild_id,
            channel_id,
            dumps(game.settings.to_dict()),
            dumps(game.seed),
            dumps(seats_to_json(seats)),
            dumps(options.to_dict()),
            lobby_message_id,
            now,
        )
        state = kept_snapshot_text(game)
        game_id = await self._db.run(writes.create, row, moves, state, lobby_id)
        return GameRecord(
            game_id,
            guild_id,
            channel_id,
            list(seats),
            options,
            ACTIVE,
            None,
            lobby_message_id,
            now,
            None,
            game,
        )

    async def append_move(
        self,
        game_id: int,
        move_number: int,
        move: Move,
        actor_user_id: int | None,
        snapshot: Game,
        now: float,
    ) -> None:
        """Append ``move`` as number ``move_number`` (0-based) with the game after it.

        ``snapshot`` is the game with the move applied. Raises :class:`StaleMoveError` if the
        log does not have exactly ``move_number`` live moves (the turn was taken), and
        :class:`GameNotActiveError` for a finished game; nothing is written then.
        """
        if len(snapshot.moves) != move_number + 1 or snapshot.moves[-1] != move:
            raise ValueError("snapshot must be the game just after the move being appended.")
        await self.append_moves(game_id, move_number, [(move, actor_user_id)], snapshot, now)

    async def append_moves(
        self,
        game_id: int,
        first_number: int,
        moves: list[tuple[Move, int | None]],
        snapshot: Game,
        now: float,
    ) -> None:
        """Append ``moves`` (each with its actor) from number ``first_number``, one snapshot.

        The guard is the same as :meth:`append_move`'s: the log must have exactly
        ``first_number`` live moves, else :class:`StaleMoveError` and nothing is written.
        """
        if len(snapshot.moves) != first_number + len(moves):
            raise ValueError("snapshot must be the game just after the moves being appended.")
        state = kept_snapshot_text(snapshot)
        rows = [
            (first_number + i, move.seat, actor, move_text(move))
            for i, (move, actor) in enumerate(moves)
        ]
        append = writes.append_in_one if self._db.dialect == "postgresql" else writes.append_many
        await self._db.run(append, game_id, first_number, rows, state, now)

    async def truncate_last(
        self, game_id: int, expected_count: int, snapshot: Game, now: float
    ) -> Move:
        """Undo the last live move: keep it in the log marked undone, store ``snapshot``.

        ``expected_count`` is the number of live moves before the undo; ``snapshot`` the game
        without the last move. Returns the undone move.
        """
        return (await self.take_back(game_id, expected_count, 1, snapshot, now))[0]

    async def take_back(
        self, game_id: int, expected_count: int, count: int, snapshot: Game, now: float
    ) -> list[Move]:
        """Undo the last ``count`` live moves at once (an undo against computer players takes
        back their replies too): each kept in the log marked undone, ``snapshot`` stored.

        ``expected_count`` is the number of live moves before the undo; ``snapshot`` the game
        without those moves. Returns the undone moves, in order.
        """
        if not 1 <= count <= expected_count or len(snapshot.moves) != expected_count - count:
            raise ValueError("snapshot must be the game without the moves taken back.")
        state = kept_snapshot_text(snapshot)
        texts = await self._db.run(writes.truncate, game_id, expected_count, count, state, now)
        return [read_move(text) for text in texts]

    async def keep_at(self, game_id: int, move_count: int) -> None:
        """In a transaction that writes no move: hold the game at ``move_count`` live moves
        until the commit (its snapshot row is locked). Raises :class:`StaleMoveError` (or
        :class:`GameNotActiveError`) if it has moved on, or ended, meanwhile."""
        await self._db.run(writes.keep_at, game_id, move_count)

    async def load(self, game_id: int, *, verify: bool = False) -> GameRecord:
        """The game rebuilt from its snapshot and checked against its log.

        The cheap check compares the snapshot's move count with the log; ``verify=True`` also
        replays the log and compares states. A snapshot that fails is rebuilt from the log, with
        a warning, and repaired. Raises :class:`NotFoundError`, :class:`CorruptGameError`.
        """
        loaded = await self._db.run(load_games, BY_ID, (game_id,), verify, True)
        if not loaded:
            raise NotFoundError(f"There is no game {game_id}.")
        return loaded[0][0]

    async def verify(self, game_id: int) -> bool:
        """Replay the log and compare with the snapshot; True when it matched (else repaired)."""
        loaded = await self._db.run(load_games, BY_ID, (game_id,), True, True)
        if not loaded:
            raise NotFoundError(f"There is no game {game_id}.")
        return loaded[0][1]

    async def active(self) -> list[GameRecord]:
        """Every active game of this process's shards, for start-up. A game that cannot be
        rebuilt is logged and left out."""
        mine, params = self._db.on_my_shards("g.guild_id")
        loaded = await self._db.run(
            load_games, f"{ACTIVE_GAMES} AND {mine}", params, False, False, lazy=True, upgrade=True
        )
        return [record for record, _ in loaded]

    async def active_of(self, user_id: int, guild_id: int | None = None) -> list[GameRecord]:
        """The active games ``user_id`` still plays in (in one server, or anywhere; not those
        they resigned from or were removed from), from the store: every process's games, not
        only this one's."""
        # A text match narrows the rows (on either backend); the seats decide.
        where, params = ACTIVE_SEATED, (f"%{user_id}%", guild_id)
        loaded = await self._db.read(load_games, where, params, False, False, lazy=True)
        return [record for record, _ in loaded if _still_plays(record, user_id)]

    async def playing(self, user_id: int, guild_id: int | None = None) -> int:
        """How many active games ``user_id`` still plays in (in one server, or anywhere), on
        every process."""
        return len(await self.active_of(user_id, guild_id))

    async def active_for_channel(self, channel_id: int) -> GameRecord | None:
        """The channel's active game, if any."""
        loaded = await self._db.run(load_games, ACTIVE_IN_CHANNEL, (channel_id,), False, True)
        return loaded[0][0] if loaded else None

    async def log(self, game_id: int) -> list[LogEntry]:
        """The whole move log in order, undone moves included (for audits and replays)."""
        rows = await self._db.read(_fetch_log, game_id)
        return [
            LogEntry(number, read_move(text), seat, actor, created, undone)
            for number, seat, actor, text, created, undone in rows
        ]

    async def computer_names(self, game_ids: list[int]) -> dict[int, dict[int, str]]:
        """The names of the computer players of games ``game_ids`` (finished ones, say, whose
        results know them only by id): by game, then by their id in it."""
        if not game_ids:
            return {}
        rows = await self._db.read(_seats_of, game_ids)
        return {
            game_id: {s.user_id: s.name for s in seats_from_json(loads(text)) if s.is_computer}
            for game_id, text in rows
        }

    async def set_board_message(self, game_id: int, message_id: int, move_count: int) -> None:
        """Remember the message that shows the board, and the move count it shows."""
        await self._db.run_alone(
            writes.set_columns,
            game_id,
            "board_message_id = ?, board_move_count = ?",
            (message_id, move_count),
        )

    async def pause_channel(self, channel_id: int, code: int | None) -> None:
        """Store why the table of the channel's active game cannot be used (the code Discord
        refused the bot with), or that it can again (None)."""
        await self._db.run(writes.pause_channel, channel_id, code)

    async def paused_now(self, game_id: int) -> int | None:
        """In a change's transaction: why the game's table cannot be used, as committed now
        (None: it can). On PostgreSQL the row stays share-locked until the commit, so a pause
        stored by another process lands either before this change (which then sees it) or
        after it."""
        share = " FOR SHARE" if self._db.dialect == "postgresql" else ""
        return await self._db.run(writes.paused_now, game_id, share)

    async def set_options(self, game_id: int, options: TableOptions) -> None:
        """Replace the table's options of a game."""
        await self._db.run(writes.set_columns, game_id, "options = ?", (dumps(options.to_dict()),))

    async def finish(self, game_id: int, status: GameStatus, now: float) -> None:
        """Close an active game as ``finished`` or ``cancelled``; its timers and votes go."""
        if status not in (FINISHED, CANCELLED):
            raise ValueError("A game is finished with status 'finished' or 'cancelled'.")
        await self._db.run(writes.finish, game_id, status, now)


def _still_plays(record: GameRecord, user_id: int) -> bool:
    """True when ``user_id`` has a seat in the game and is not out of it."""
    return any(
        seat.user_id == user_id and not record.game.out[index]
        for index, seat in enumerate(record.seats)
    )


async def _seats_of(conn: Connection, game_ids: list[int]) -> list[tuple[Any, ...]]:
    marks = ", ".join("?" * len(game_ids))
    return await conn.fetchall(f"SELECT id, seats FROM games WHERE id IN ({marks})", game_ids)


async def _fetch_log(conn: Connection, game_id: int) -> list[tuple[Any, ...]]:
    if not await conn.fetchone("SELECT 1 FROM games WHERE id = ?", (game_id,)):
        raise NotFoundError(f"There is no game {game_id}.")
    return await conn.fetchall(
        "SELECT number, seat, actor_id, move, created_at, undone_at FROM moves "
        "WHERE game_id = ? ORDER BY id",
        (game_id,),
    )
