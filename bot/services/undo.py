"""Undo: the host asks to take back the last move; it happens when every other team agrees.
The move log keeps both the move and its undoing."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.game import Game

from .errors import UserError
from .games import GameService, seat_of
from .lobbies import is_computer

if TYPE_CHECKING:
    from bot.store.database import Database
    from bot.store.games import GameRecord

REQUEST = "undo_request"


@dataclass(frozen=True)
class UndoState:
    """Where an undo request stands."""

    record: GameRecord
    count: int
    waiting_teams: list[int]
    done: bool = False
    refused: bool = False


class UndoService:
    """Undo requests live in the game's options, so they survive a restart."""

    def __init__(self, db: Database, games: GameService, clock: Callable[[], float]) -> None:
        self.db = db
        self.games = games
        self.clock = clock

    async def request(self, game_id: int, user_id: int) -> UndoState:
        """The host asks to take back the last move."""
        async with self.games.locks(game_id):
            record = self.games.get(game_id)
            if record.options.get("host_id") != user_id:
                raise UserError("Only the host can ask to undo a move.")
            game = record.game
            if not game.moves:
                raise UserError("There is no move to undo yet.")
            seat = seat_of(record, user_id)
            host_team = game.team_of(seat) if seat is not None else None
            record.options[REQUEST] = {
                "count": len(game.moves),
                "agreed": [],
                "host_team": host_team,
            }
            await self.db.games.set_options(game_id, record.options)
        return await self._settle(game_id)

    async def answer(self, game_id: int, user_id: int, count: int, *, agree: bool) -> UndoState:
        """A player of another team agrees or refuses."""
        async with self.games.locks(game_id):
            record = self.games.get(game_id)
            request = record.options.get(REQUEST)
            if not request or request["count"] != count or len(record.game.moves) != count:
                raise UserError("This undo request is no longer open.")
            seat = seat_of(record, user_id)
            if seat is None:
                raise UserError("Only players of this game can answer.")
            team = record.game.team_of(seat)
            if team == request.get("host_team"):
                raise UserError("The other teams decide on an undo, not the host's own team.")
            if not agree:
                record.options.pop(REQUEST, None)
                await self.db.games.set_options(game_id, record.options)
                return UndoState(record, count, [], refused=True)
            if team not in request["agreed"]:
                request["agreed"].append(team)
                await self.db.games.set_options(game_id, record.options)
        return await self._settle(game_id)

    async def _settle(self, game_id: int) -> UndoState:
        async with self.games.locks(game_id):
            record = self.games.get(game_id)
            request = record.options[REQUEST]
            waiting = [t for t in self._deciding_teams(record) if t not in request["agreed"]]
            if waiting:
                return UndoState(record, request["count"], waiting)
            game = record.game
            previous = Game.replay(game.settings, game.seed, game.moves[:-1])
            record.options.pop(REQUEST, None)
            await self.db.games.truncate_last(game_id, len(game.moves), previous, now=self.clock())
            await self.db.games.set_options(game_id, record.options)
            record.game = previous
            return UndoState(record, request["count"], [], done=True)

    @staticmethod
    def _deciding_teams(record: GameRecord) -> list[int]:
        """Other teams with a person still playing (computers always agree)."""
        game = record.game
        host_team = record.options[REQUEST].get("host_team")
        teams = []
        for team in game.active_teams():
            if team == host_team:
                continue
            people = [
                s
                for s in game.settings.seats_of(team)
                if not game.out[s] and not is_computer(record.seats[s])
            ]
            if people:
                teams.append(team)
        return teams
