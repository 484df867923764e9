"""Playing: every move goes through here, under the game's lock, validated, then committed."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.game import ChoiceRequired, Game, IllegalMove, Move
from bot.game.moves import FORFEIT, PLAY, RESIGN, TABLETALK
from bot.game.sequences import Option

from .errors import UserError
from .lobbies import is_computer
from .locks import KeyedLocks

if TYPE_CHECKING:
    from bot.store.database import Database
    from bot.store.games import GameRecord

log = logging.getLogger(__name__)

STALE = "That was for an earlier turn: the game has moved on. Open your hand again."


class ChoiceNeeded(UserError):
    """The play makes a line of six or more: the mover picks the five from ``options``."""

    def __init__(self, move: Move, options: list[Option]) -> None:
        super().__init__(
            "Your move makes a line of six or more: choose which five form the sequence."
        )
        self.move = move
        self.options = options


@dataclass(frozen=True)
class MoveOutcome:
    """What a committed move did, for the messages that follow it."""

    record: GameRecord
    move: Move
    new_sequences: tuple[tuple[int, tuple[int, ...]], ...]
    turn_passed: bool

    @property
    def game(self) -> Game:
        """The game after the move."""
        return self.record.game

    @property
    def finished(self) -> bool:
        """True when this move ended the game."""
        return self.record.game.is_over()


@dataclass(frozen=True)
class ResignVote:
    """A resignation vote: the move once the whole team agreed, or who must still agree."""

    outcome: MoveOutcome | None
    waiting_for: list[int]


class GameService:
    """The active games, cached in memory, written through to the store on every move."""

    def __init__(self, db: Database, clock: Callable[[], float]) -> None:
        self.db = db
        self.clock = clock
        self.records: dict[int, GameRecord] = {}
        self.locks = KeyedLocks()

    async def load_active(self) -> list[GameRecord]:
        """Load every active game from the store (at start-up)."""
        records = await self.db.games.active()
        self.records = {record.id: record for record in records}
        return records

    def get(self, game_id: int) -> GameRecord:
        """An active game by id, or a clear error."""
        record = self.records.get(game_id)
        if record is None:
            raise UserError(f"There is no active game #{game_id}.")
        return record

    def for_channel(self, channel_id: int) -> GameRecord:
        """The active game of a channel, or a clear error."""
        record = self.find_in_channel(channel_id)
        if record is None:
            raise UserError("There is no game in this channel: open a lobby with `/sequence new`.")
        return record

    def find_in_channel(self, channel_id: int) -> GameRecord | None:
        """The active game of a channel, if any."""
        return next((r for r in self.records.values() if r.channel_id == channel_id), None)

    def games_of(self, user_id: int, guild_id: int | None = None) -> list[GameRecord]:
        """The active games a user plays in (in one server, or everywhere)."""
        return [
            record
            for record in self.records.values()
            if seat_of(record, user_id) is not None
            and (guild_id is None or record.guild_id == guild_id)
        ]

    def add(self, record: GameRecord) -> None:
        """Start serving a game just created from a lobby."""
        self.records[record.id] = record

    async def apply(
        self,
        game_id: int,
        move: Move,
        *,
        actor_id: int | None,
        expected_turn: int | None = None,
    ) -> MoveOutcome:
        """Validate ``move``, apply it and commit it; a :class:`UserError` changes nothing."""
        async with self.locks(game_id):
            record = self.get(game_id)
            game = record.game
            if expected_turn is not None and expected_turn != game.turn_number:
                raise UserError(STALE)
            sequences_before = len(game.sequences)
            turn_before = game.turn_number
            number = len(game.moves)
            try:
                game.push(move)
            except ChoiceRequired as choice:
                raise ChoiceNeeded(move, choice.options) from None
            except IllegalMove as error:
                raise UserError(str(error)) from None
            try:
                await self.db.games.append_move(
                    game_id, number, move, actor_id, game, now=self.clock()
                )
            except Exception:
                log.exception("Saving move %d of game %d failed; reloading it", number, game_id)
                self.records[game_id] = await self.db.games.load(game_id)
                raise
            if game.is_over():
                await self._finish(record)
            return MoveOutcome(
                record=record,
                move=move,
                new_sequences=tuple(game.sequences[sequences_before:]),
                turn_passed=game.turn_number != turn_before,
            )

    async def play(
        self,
        game_id: int,
        user_id: int,
        card: str,
        space: int,
        *,
        expected_turn: int | None,
        five: tuple[tuple[int, ...], ...] | None = None,
    ) -> MoveOutcome:
        """A player plays ``card`` on ``space`` (or removes the chip there with a one-eyed jack)."""
        seat = self.require_seat(self.get(game_id), user_id)
        move = Move(PLAY, seat, card, space, five)  # type: ignore[arg-type]
        return await self.apply(game_id, move, actor_id=user_id, expected_turn=expected_turn)

    async def move_as(
        self, game_id: int, user_id: int, kind: str, card: str | None = None, **extra: object
    ) -> MoveOutcome:
        """A move of another kind (dead card, pass, draw, forfeit) by the player ``user_id``."""
        seat = self.require_seat(self.get(game_id), user_id)
        expected = extra.pop("expected_turn", None)
        move = Move(kind, seat, card)
        return await self.apply(game_id, move, actor_id=user_id, expected_turn=expected)  # type: ignore[arg-type]

    async def penalise_table_talk(self, game_id: int, team: int, actor_id: int) -> MoveOutcome:
        """Every member of ``team`` now owes one card of their choice."""
        return await self.apply(game_id, Move(TABLETALK, -1, team=team), actor_id=actor_id)

    async def forfeit(self, game_id: int, user_id: int, card: str) -> MoveOutcome:
        """A penalised player gives up ``card`` to their discard pile."""
        seat = self.require_seat(self.get(game_id), user_id)
        return await self.apply(game_id, Move(FORFEIT, seat, card), actor_id=user_id)

    async def resign_team(self, game_id: int, team: int, actor_id: int) -> MoveOutcome:
        """A whole team resigns."""
        return await self.apply(game_id, Move(RESIGN, -1, team=team), actor_id=actor_id)

    async def vote_resign(self, game_id: int, user_id: int) -> ResignVote:
        """A player votes to resign; the team resigns when all its human players have voted."""
        async with self.locks(game_id):
            record = self.get(game_id)
            seat = self.require_seat(record, user_id)
            game = record.game
            team = game.team_of(seat)
            votes = set(record.options.get("resign_votes", [])) | {seat}
            members = [
                s
                for s in game.settings.seats_of(team)
                if not game.out[s] and not is_computer(record.seats[s])
            ]
            waiting = [record.seats[s]["user_id"] for s in members if s not in votes]
            if waiting:
                record.options["resign_votes"] = sorted(votes)
                await self.db.games.set_options(game_id, record.options)
                return ResignVote(None, waiting)
        outcome = await self.apply(game_id, Move(RESIGN, seat, team=team), actor_id=user_id)
        return ResignVote(outcome, [])

    async def cancel(self, game_id: int) -> GameRecord:
        """End a game without a result (host or a moderator)."""
        async with self.locks(game_id):
            record = self.get(game_id)
            await self.db.games.finish(game_id, "cancelled", now=self.clock())
            record.status = "cancelled"
            self.records.pop(game_id, None)
            return record

    async def _finish(self, record: GameRecord) -> None:
        game = record.game
        now = self.clock()
        await self.db.games.finish(record.id, "finished", now=now)
        record.status = "finished"
        record.finished_at = now
        teams = [
            [seat["user_id"] for seat in record.seats[team :: game.settings.teams]]
            for team in range(game.settings.teams)
        ]
        rated = bool(record.options.get("rated", True)) and not any(
            is_computer(seat) for seat in record.seats
        )
        summary = {
            "moves": len(game.moves),
            "duration": now - record.created_at,
            "sequences": [game.sequence_count(t) for t in range(game.settings.teams)],
            "reason": game.end_reason,
            "preset": game.settings.preset,
        }
        await self.db.results.record(
            record.id, record.guild_id, teams, game.winner, rated, summary, now=now
        )
        self.records.pop(record.id, None)

    def require_seat(self, record: GameRecord, user_id: int) -> int:
        """The seat of ``user_id`` in a game, or a clear error."""
        seat = seat_of(record, user_id)
        if seat is None:
            raise UserError("You are not playing in this game.")
        return seat


def seat_of(record: GameRecord, user_id: int) -> int | None:
    """The seat of a user in a game, or ``None``."""
    for index, seat in enumerate(record.seats):
        if seat["user_id"] == user_id:
            return index
    return None
