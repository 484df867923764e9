"""Draw by agreement: a team offers a draw, every other team answers (one player for each), and
the last acceptance ends the game as a draw (the engine's ``AGREE_DRAW`` move).

Each step is one change of the game (:meth:`GameService.change`): the offer, each answer, the
offer's public message, its expiry. The offer names the move count it was made at: once the game
moves on it lapses (:func:`bot.services.votes.settle_votes`) and a late answer changes nothing.
A team whose offer was declined may offer again after :data:`COOLDOWN_TURNS` of its own turns.

A computer team answers at once (:func:`bot.game.ai.accepts_draw`: only when not ahead), and
offers a draw itself only under the engine's endless-play condition
(:func:`bot.game.ai.offers_draw`), right after its own move; its offer starts the same cooldown
at once, so it offers at most once every few of its turns.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.game import Move, player_view
from bot.game.ai import accepts_draw, offers_draw
from bot.game.moves import AGREE_DRAW
from bot.store.votes import DRAW, DRAW_COOLDOWN, TeamVote
from bot.table.options import own_or_bot

from .dispatch import Subscriptions
from .errors import UserError
from .events import DrawOfferClosed, DrawOffered, MoveCommitted
from .games import Draft, GameService, seat_of
from .votes import ACCEPTED, DECLINED, EXPIRED

if TYPE_CHECKING:
    from bot.store.games.records import GameRecord

    from .events import MoveOutcome

log = logging.getLogger(__name__)

#: A team whose offer was declined may offer again after this many of its own turns.
COOLDOWN_TURNS = 3
LAPSED_TEXT = "This draw offer is no longer open: the game has moved on, or it was answered."


@dataclass(frozen=True)
class DrawState:
    """Where an offer stands after a change: ``status`` is open, declined or accepted."""

    record: GameRecord
    offer: TeamVote
    status: str
    waiting_teams: tuple[int, ...] = ()
    #: The team that declined (a computer team declines at once).
    declined_by: int | None = None
    outcome: MoveOutcome | None = None


def open_offer(votes: dict[tuple[str, int], TeamVote]) -> TeamVote | None:
    """The game's open draw offer, if any."""
    return next((vote for vote in votes.values() if vote.kind == DRAW), None)


def computer_team(record: GameRecord, team: int) -> bool:
    """True when no person still plays for ``team`` (its computers answer for it)."""
    game = record.game
    return all(record.seats[s].is_computer for s in game.settings.seats_of(team) if not game.out[s])


class DrawService:
    """Draw offers and their answers, each one change of the game."""

    def __init__(self, games: GameService, *, timeout: Callable[[], float]) -> None:
        """``timeout``: the bot's draw-offer timeout, for a game stored before games had their
        own (:attr:`TableOptions.draw_offer_timeout`)."""
        self.games = games
        self.timeout = timeout

    def subscriptions(self) -> Subscriptions:
        """After a move, a computer team may offer a draw."""
        return [(MoveCommitted, self._after_move)]

    async def offer(self, game_id: int, user_id: int) -> DrawState:
        """A player offers a draw for their team; computer teams answer at once."""
        seat = self.games.require_seat(self.games.get(game_id), user_id)

        async def work(draft: Draft) -> DrawState:
            return self._offer(draft, seat, user_id)

        state, draft = await self.games.change(game_id, work, asked_by=user_id)
        return dataclasses.replace(state, outcome=draft.outcome)

    def _offer(self, draft: Draft, seat: int, actor_id: int | None) -> DrawState:
        game = draft.game
        if game.out[seat]:
            raise UserError("You are no longer in this game.")
        if open_offer(draft.votes) is not None:
            raise UserError("A draw offer is already open: answer it, or wait until it lapses.")
        team = game.team_of(seat)
        cooldown = draft.votes.get((DRAW_COOLDOWN, team))
        if cooldown is not None:
            turns = cooldown.turns_left
            raise UserError(
                "Your team's last draw offer was declined: it may offer again after "
                f"{turns} more of its own turn{'s' if turns != 1 else ''}."
            )
        offer = TeamVote(
            DRAW,
            team,
            (seat,),
            move_count=len(game.moves),
            created_at=draft.now,
            expires_at=draft.now + own_or_bot(draft.options.draw_offer_timeout, self.timeout()),
        )
        draft.votes[(DRAW, team)] = offer
        if computer_team(draft.record, team):
            draft.votes[(DRAW_COOLDOWN, team)] = _cooldown(draft, team)
        for other in self._waiting(draft, offer):
            if computer_team(draft.record, other):
                voter = next(s for s in game.settings.seats_of(other) if not game.out[s])
                if not accepts_draw(player_view(game, voter)):
                    return self._decline(draft, offer, other, None)
                offer = self._agree(draft, offer, voter)
        state = self._settle(draft, offer, actor_id)
        if state.status == "open":
            draft.events.append(DrawOffered(draft.record, offer=offer, actor_id=actor_id))
        return state

    async def answer(
        self, game_id: int, user_id: int, move_count: int, *, accept: bool
    ) -> DrawState:
        """A player answers the open offer for their team; the last acceptance draws the game.

        ``move_count`` is the offer the button was drawn for: a later or lapsed offer refuses.
        """

        async def work(draft: Draft) -> DrawState:
            offer = open_offer(draft.votes)
            if offer is None or offer.move_count != move_count:
                raise UserError(LAPSED_TEXT)
            seat = seat_of(draft.record, user_id)
            if seat is None:
                raise UserError("Only players of this game can answer a draw offer.")
            game = draft.game
            team = game.team_of(seat)
            if game.out[seat]:
                raise UserError("You are no longer in this game.")
            if team == offer.team:
                raise UserError("Your team made this offer: the other teams answer it.")
            if team not in self._waiting(draft, offer):
                raise UserError("Your team has already accepted this offer.")
            if not accept:
                return self._decline(draft, offer, team, user_id)
            return self._settle(draft, self._agree(draft, offer, seat), user_id)

        state, draft = await self.games.change(game_id, work, asked_by=user_id)
        return dataclasses.replace(state, outcome=draft.outcome)

    async def set_message(self, game_id: int, offer: TeamVote, message_id: int) -> bool:
        """Remember the offer's public message; False when the offer is no longer open."""

        async def work(draft: Draft) -> bool:
            current = draft.votes.get((DRAW, offer.team))
            if current is None or current.created_at != offer.created_at:
                return False
            draft.votes[(DRAW, offer.team)] = dataclasses.replace(current, message_id=message_id)
            return True

        try:
            still_open, _ = await self.games.change(game_id, work)
        except UserError:  # the game is over
            return False
        return still_open

    async def expire(self, game_id: int, offer: TeamVote) -> None:
        """The offer's time ran out: it lapses, if it is still open."""

        async def work(draft: Draft) -> None:
            current = draft.votes.get((DRAW, offer.team))
            if current is None or current.created_at != offer.created_at:
                raise UserError(LAPSED_TEXT)
            del draft.votes[(DRAW, offer.team)]
            draft.events.append(DrawOfferClosed(draft.record, offer=current, status=EXPIRED))

        await self.games.change(game_id, work)

    # ------------------------------------------------------------------ computer teams
    async def _after_move(self, event: MoveCommitted) -> None:
        """After a computer's move under the endless-play condition, its team may offer."""
        outcome = event.outcome
        game, record = outcome.game, outcome.record
        seat = outcome.move.seat
        if game.is_over() or not 0 <= seat < len(record.seats):
            return
        if not game.endless_play() or not record.seats[seat].is_computer:
            return
        if not computer_team(record, game.team_of(seat)):
            return
        if not offers_draw(player_view(game, seat), endless=True):
            return

        async def work(draft: Draft) -> DrawState:
            if len(draft.game.moves) != len(game.moves):
                raise UserError(LAPSED_TEXT)  # the game moved on meanwhile
            return self._offer(draft, seat, None)

        try:
            await self.games.change(record.id, work)
        except UserError:
            log.debug("A computer's draw offer in game %d was not made", record.id)

    # ------------------------------------------------------------------ the steps
    def _waiting(self, draft: Draft, offer: TeamVote) -> list[int]:
        """The other teams still in the game that have not accepted."""
        game = draft.game
        agreed = {game.team_of(s) for s in offer.seats}
        return [t for t in game.active_teams() if t != offer.team and t not in agreed]

    @staticmethod
    def _agree(draft: Draft, offer: TeamVote, seat: int) -> TeamVote:
        offer = dataclasses.replace(offer, seats=tuple(sorted({*offer.seats, seat})))
        draft.votes[(DRAW, offer.team)] = offer
        return offer

    def _settle(self, draft: Draft, offer: TeamVote, actor_id: int | None) -> DrawState:
        waiting = self._waiting(draft, offer)
        if waiting:
            return DrawState(draft.record, offer, "open", tuple(waiting))
        del draft.votes[(DRAW, offer.team)]
        draft.push(Move(AGREE_DRAW, -1), actor_id)
        draft.events.append(
            DrawOfferClosed(draft.record, offer=offer, status=ACCEPTED, actor_id=actor_id)
        )
        return DrawState(draft.record, offer, ACCEPTED)

    def _decline(self, draft: Draft, offer: TeamVote, team: int, actor_id: int | None) -> DrawState:
        draft.votes.pop((DRAW, offer.team), None)
        draft.votes[(DRAW_COOLDOWN, offer.team)] = _cooldown(draft, offer.team)
        draft.events.append(
            DrawOfferClosed(
                draft.record, offer=offer, status=DECLINED, team=team, actor_id=actor_id
            )
        )
        return DrawState(draft.record, offer, DECLINED, declined_by=team)


def _cooldown(draft: Draft, team: int) -> TeamVote:
    """``team`` may not offer a draw for its next :data:`COOLDOWN_TURNS` turns."""
    return TeamVote(
        DRAW_COOLDOWN,
        team,
        move_count=len(draft.game.moves),
        turns_left=COOLDOWN_TURNS,
        created_at=draft.now,
    )
