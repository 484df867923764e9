"""Give time: a player of another team adds a day to the time limit of the turn being played,
once per turn per team (at a bank table, a day to the player's bank: the deadline the bank
sets moves a day later, and what is left of it when the turn ends is kept).

A change through the game service like any other (under the game's lock, for the turn the
player acted on, one transaction): the turn's stored time limit moves a day later, and the
teams that gave time this turn are kept in that timer's payload (:data:`GIVEN_BY`), so that
the record lapses with the turn and survives a restart. :class:`TimeGiven` is published after
the commit: the turn clock arms the later time limit, the table says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from bot.table.bank import is_timed

from .errors import UserError
from .events import TimeGiven
from .games import Draft
from .games.commit import RACE_LOST, STALE
from .timing import LIMIT, clock_stopped

if TYPE_CHECKING:
    from bot.store.base import Store
    from bot.store.games.records import GameRecord

    from .games import GameService

#: The time one gift adds to the turn's limit.
DAY = 86400.0
#: The key of the time limit's payload that lists the teams that gave time this turn.
GIVEN_BY = "given_by"

NO_LIMIT = "This table has no time limit per turn: there is no time to give."
CLOCK_WAITS = (
    "The clock of this turn is stopped (nobody played a whole round): there is no time to give."
)
OWN_TURN = "It is your own turn: only a player of another team can give you more time."
OWN_TEAM = "It is your team's turn: only a player of another team can give it more time."
ALREADY = "Your team already gave time this turn (once per turn per team)."
TURN_OVER = "Too late: that turn is over (played, or its time ran out). No time was given."
NOT_PLAYING = "You no longer play in this game: only its players can give time."


@dataclass(frozen=True)
class Gift:
    """Time given: the table as committed and the event that tells it."""

    record: GameRecord
    event: TimeGiven


class GiveTime:
    """``bot.give_time``: an opponent gives the player on turn one more day."""

    def __init__(self, db: Store, games: GameService) -> None:
        self.db = db
        self.games = games

    async def give_day(self, game_id: int, user_id: int, *, expected_revision: int) -> Gift:
        """``user_id`` gives the turn being played one more day, if the game is still at
        ``expected_revision`` (the turn they acted on; an undo never brings it back); a
        :class:`UserError` (the turn is over, their own team's turn, given already, no time
        limit) changes nothing."""
        record = await self.games.fetch(game_id)
        giver = self.games.require_seat(record, user_id)

        async def work(draft: Draft) -> TimeGiven:
            game = draft.game
            seat = game.turn
            if game.out[giver]:
                raise UserError(NOT_PLAYING)
            if seat == giver:
                raise UserError(OWN_TURN)
            team = game.team_of(giver)
            if team == game.team_of(seat):
                raise UserError(OWN_TEAM)
            if not is_timed(draft.options):
                raise UserError(NO_LIMIT)
            timer = await self.db.timers.get(game_id, LIMIT)
            current = timer is not None and timer.payload.get("turn") == game.turn_number
            if timer is None or not current:
                if clock_stopped(game, len(draft.record.seats)):
                    raise UserError(CLOCK_WAITS)
                raise UserError(TURN_OVER)
            if timer.due_at <= draft.now:  # due: the time-out is on its way
                raise UserError(TURN_OVER)
            given = [int(t) for t in timer.payload.get(GIVEN_BY, [])]
            if team in given:
                raise UserError(ALREADY)
            due = timer.due_at + DAY
            payload = {**timer.payload, GIVEN_BY: [*given, team]}
            draft.write(partial(self.db.timers.set, game_id, LIMIT, due, payload))
            event = TimeGiven(
                draft.record, seat=seat, turn=game.turn_number, giver=giver, due_at=due
            )
            draft.events.append(event)
            return event

        try:
            _, draft = await self.games.change(game_id, work, expected_revision=expected_revision)
        except UserError as error:
            if str(error) in (STALE, RACE_LOST):
                raise UserError(TURN_OVER) from None
            raise
        (given,) = [e for e in draft.events if isinstance(e, TimeGiven)]
        return Gift(given.record, given)


def time_was_given(stored_due: float, fired_due: float) -> bool:
    """True when the turn's stored time limit (``stored_due``) is later than the deadline a
    time-out fired for (``fired_due``): time was given while it was on its way, and the
    time-out lost the race with the gift (it changes nothing)."""
    return stored_due > fired_due
