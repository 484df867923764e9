"""Undo: the host asks to take back the last move; it happens when every other team agrees.
Against computer players, the last move made by a person is taken back together with every
computer move after it (:func:`takes_back`): it is that person's turn again.

The request names the move it would take back (the move count when it was made): once the game
moves on, the request lapses (:func:`bot.services.votes.settle_votes`) and an answer to it
changes nothing. The request is one of the game's votes (:data:`bot.store.votes.UNDO`) and
changes with the game, under its lock, in one transaction. The move log keeps both the move
and its undoing."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.game import Game, Move
from bot.store.votes import UNDO, TeamVote, VoteMap

from .errors import UserError
from .events import UndoRefused, UndoRequestLapsed
from .games import Draft, GameService, computer_seats_to_act, seat_of

if TYPE_CHECKING:
    from bot.store.games.records import GameRecord

LAPSED = "This undo request is no longer open: the game has moved on, or it was answered."


@dataclass(frozen=True)
class UndoState:
    """Where an undo request stands."""

    record: GameRecord
    count: int
    waiting_teams: list[int]
    done: bool = False
    refused: bool = False
    #: When the request was made: which request a message is for (two may share a count).
    at: float | None = None
    #: The moves the request takes back (or took back, once done), in order.
    moves: tuple[Move, ...] = ()


class UndoService:
    """Undo requests and their answers, each one change of the game."""

    def __init__(self, games: GameService) -> None:
        self.games = games

    async def request(self, game_id: int, user_id: int) -> UndoState:
        """The host asks to take back the last move."""

        async def work(draft: Draft) -> UndoState:
            if draft.options.host_id != user_id:
                raise UserError("Only the host can ask to undo a move.")
            game = draft.game
            if not game.moves:
                raise UserError("There is no move to undo yet.")
            if not takes_back(draft.record, game):
                raise UserError("No person has moved yet: there is no move of theirs to undo.")
            seat = seat_of(draft.record, user_id)
            asked = undo_request(draft.votes)
            if asked is not None:
                del draft.votes[(UNDO, asked.team)]
                if asked.message_id is not None:  # asked again: the first is closed
                    draft.events.append(
                        UndoRequestLapsed(draft.record, message_id=asked.message_id, replaced=True)
                    )
            host_team = game.team_of(seat) if seat is not None else NO_TEAM
            request = TeamVote(UNDO, host_team, move_count=len(game.moves), created_at=draft.now)
            draft.votes[(UNDO, host_team)] = request
            return _settle(draft, request)

        state, _ = await self.games.change(game_id, work, asked_by=user_id)
        return state

    async def answer(
        self, game_id: int, user_id: int, count: int, *, agree: bool, message_id: int | None = None
    ) -> UndoState:
        """A player of another team agrees or refuses; the last needed agreement undoes.

        ``message_id`` is the message answered on: an older request's message, made for the
        same move count (the game moved on, then moves were taken back), answers nothing."""

        async def work(draft: Draft) -> UndoState:
            request = undo_request(draft.votes)
            if request is None or request.move_count != count or len(draft.game.moves) != count:
                raise UserError(LAPSED)
            if message_id is not None and request.message_id not in (None, message_id):
                raise UserError(LAPSED)
            seat = seat_of(draft.record, user_id)
            if seat is None:
                raise UserError("Only players of this game can answer.")
            if draft.game.out[seat]:
                raise UserError("You are no longer in this game.")
            team = draft.game.team_of(seat)
            if team == request.team:
                raise UserError("The other teams decide on an undo, not the host's own team.")
            if not agree:
                del draft.votes[(UNDO, request.team)]
                draft.events.append(UndoRefused(draft.record))
                return UndoState(draft.record, count, [], refused=True)
            if team not in agreed_teams(draft.game, request):
                request = dataclasses.replace(request, seats=(*request.seats, seat))
                draft.votes[(UNDO, request.team)] = request
            return _settle(draft, request)

        state, _ = await self.games.change(game_id, work, asked_by=user_id)
        return state

    async def set_message(self, game_id: int, state: UndoState, message_id: int) -> bool:
        """Remember the public message of the request ``state`` is for; False when that request
        is no longer open (it lapsed while its message was posted)."""

        async def work(draft: Draft) -> bool:
            request = undo_request(draft.votes)
            if request is None or request.move_count != state.count:
                return False
            if request.created_at != state.at:
                return False
            draft.votes[(UNDO, request.team)] = dataclasses.replace(request, message_id=message_id)
            return True

        try:
            still_open, _ = await self.games.change(game_id, work)
        except UserError:  # the game is over
            return False
        return still_open

    async def withdraw(self, game_id: int, count: int) -> None:
        """Close the request made at move ``count`` unanswered (nobody saw it: Discord refused
        its message), so that nothing waits for its answer; a later request is left alone."""

        async def work(draft: Draft) -> None:
            request = undo_request(draft.votes)
            if request is not None and request.move_count == count:
                del draft.votes[(UNDO, request.team)]
                draft.events.append(UndoRefused(draft.record))

        await self.games.change(game_id, work)


#: The team of a host who has no seat at the table (an undo request's ``team``).
NO_TEAM = -1


def undo_request(votes: VoteMap) -> TeamVote | None:
    """The game's undo request, if any (open or not: see :func:`open_request`)."""
    return next((vote for vote in votes.values() if vote.kind == UNDO), None)


def open_request(record: GameRecord) -> TeamVote | None:
    """The host's undo request still open for the game as it stands, if any."""
    request = undo_request(record.votes)
    if request is None or request.move_count != len(record.game.moves):
        return None
    return request


def agreed_teams(game: Game, request: TeamVote) -> set[int]:
    """The teams that agreed to ``request``."""
    return {game.team_of(seat) for seat in request.seats}


def takes_back(record: GameRecord, game: Game) -> tuple[Move, ...]:
    """The moves an undo takes back, in order: the last move made by a person, with every
    computer move after it (in a game of people only, the last move); none when no person
    has moved. Should a computer still have to act at once (a manual draw, a forfeit or a
    penalty came after the person's move), it would only play the same again: the undo goes
    back to the move of a person before, so that it is a person's turn."""
    moves = game.moves
    count = 0
    while True:
        while count < len(moves) and _by_computer(record, moves[-1 - count]):
            count += 1
        if count == len(moves):
            return ()
        count += 1
        if not any(info.is_computer for info in record.seats):
            return tuple(moves[-count:])
        before = Game.replay(game.settings, game.seed, moves[:-count])
        if not computer_seats_to_act(dataclasses.replace(record, game=before)):
            return tuple(moves[-count:])


def _by_computer(record: GameRecord, move: Move) -> bool:
    return move.seat >= 0 and record.seats[move.seat].is_computer


def _settle(draft: Draft, request: TeamVote) -> UndoState:
    """Undo now if every deciding team agreed, else say who is still waited for."""
    moves = takes_back(draft.record, draft.game)
    agreed = agreed_teams(draft.game, request)
    waiting = [t for t in _deciding_teams(draft, request) if t not in agreed]
    count = request.move_count
    if waiting:
        return UndoState(draft.record, count, waiting, at=request.created_at, moves=moves)
    del draft.votes[(UNDO, request.team)]
    draft.undo_last(len(moves))
    return UndoState(draft.record, count, [], done=True, moves=moves)


def _deciding_teams(draft: Draft, request: TeamVote) -> list[int]:
    """Other teams with a person still playing (computers always agree)."""
    game = draft.game
    host_team = request.team
    teams = []
    for team in game.active_teams():
        if team == host_team:
            continue
        people = [
            s
            for s in game.settings.seats_of(team)
            if not game.out[s] and not draft.record.seats[s].is_computer
        ]
        if people:
            teams.append(team)
    return teams
