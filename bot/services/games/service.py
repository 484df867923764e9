"""The game service: the public API of the changes to a game, and the start-up pass.

:class:`GameService` is built in layers, each a module of one job: the served games
(:mod:`.registry`), another process's games and catching up with them (:mod:`.cluster`), the one
path of every change (:mod:`.commit`), and the bookkeeping of the boards (:mod:`.boards`). Here
are the changes themselves (a move, a forfeit, a resignation vote, a cancel), the start of a
game, and :meth:`GameService.reconcile`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.game import Move
from bot.game.moves import FORFEIT, PLAY, REMOVE, RESIGN, TABLETALK
from bot.store.votes import RESIGN as RESIGN_VOTE
from bot.store.votes import TeamVote
from bot.table.away import computer_covers

from ..errors import UserError
from ..events import GameEvent, GameStarted, MoveOutcome, TurnStarted
from .boards import BoardBookkeeping
from .commit import GameChanges
from .draft import Draft
from .seats import seat_of

if TYPE_CHECKING:
    from bot.store.games.records import GameRecord
    from bot.store.timers import TimerRecord

log = logging.getLogger(__name__)

#: The answer to a player's own move while a computer plays for them (they are away).
COVERED = (
    "A computer plays your turns while you are away: use `/sequence-me back` first to play "
    "yourself. Nothing was played; your cards are kept."
)


@dataclass(frozen=True)
class ResignVote:
    """A resignation vote: the move once the whole team agreed, or who must still agree."""

    outcome: MoveOutcome | None
    waiting_for: list[int]


class GameService(GameChanges, BoardBookkeeping):
    """The active games, served from memory and written through to the store on every change.

    In a cluster (``SHARD_IDS``) a process serves the games of its shards' guilds; a change to
    another process's game is made on a copy loaded from the store, and the owner catches up
    (see :mod:`bot.services.games.cluster`).
    """

    async def reconcile(self) -> None:
        """At start-up: the events a crash (or a process that was down) left undelivered are
        delivered, in order; a game of an older release whose final move was saved but not its
        end is finished now. Delivered events of long ago are pruned."""
        await self.bus.recover(self.stored)
        for record in [r for r in self.records.values() if r.game.is_over()]:
            log.warning("Game %d ended before a restart; recording its end now", record.id)
            await self.change(record.id, _nothing)
        pruned = await self.bus.prune()
        if pruned:
            log.info("Pruned %d delivered event(s)", pruned)

    # ------------------------------------------------------------------ starting
    async def begin(
        self, record: GameRecord, timers: list[TimerRecord]
    ) -> list[tuple[int | None, GameEvent]]:
        """In the transaction that creates a game from a lobby: write its first events (the
        game started, its first turn) to the outbox; hand them to :meth:`started`."""
        committed = dataclasses.replace(record, seats=list(record.seats))
        events: list[GameEvent] = [
            GameStarted(committed),
            TurnStarted(committed, game=record.game, timers=tuple(timers)),
        ]
        ids = await self.bus.record(events, record.created_at)
        return list(zip(ids, events, strict=True))

    def started(self, record: GameRecord, events: list[tuple[int | None, GameEvent]]) -> None:
        """A game was just created from a lobby (committed with ``events``): serve it."""
        self.add(record)
        self.bus.deliver(events)

    # ------------------------------------------------------------------ moves
    async def apply(
        self,
        game_id: int,
        move: Move,
        *,
        actor_id: int | None,
        expected_turn: int | None = None,
        expected_revision: int | None = None,
    ) -> MoveOutcome:
        """Validate ``move``, apply it and commit it; a :class:`UserError` changes nothing.
        ``expected_turn`` or ``expected_revision``: what the player acted on (see
        :meth:`change`). A player's move (``actor_id``) at a paused table is refused; the
        bot's own (a banned player leaving) is not. A player's own move while a computer
        covers them (away: :mod:`bot.table.away`) is refused too."""

        async def work(draft: Draft) -> None:
            if actor_id is not None and computer_covers(draft.options, move.seat, draft.now):
                raise UserError(COVERED)
            draft.push(move, actor_id)

        _, draft = await self.change(
            game_id,
            work,
            expected_turn=expected_turn,
            expected_revision=expected_revision,
            asked_by=actor_id,
            played=True,
        )
        assert draft.outcome is not None
        return draft.outcome

    async def leave_server(self, user_id: int, guild_id: int) -> list[int]:
        """A player who can no longer play in a server (banned, or gone from it) leaves their
        active games there as a player removed for time does: their team plays on; the last of
        a team gone, the game ends. The ids of the games they left."""
        left = []
        for record in self.games_of(user_id, guild_id):
            seat = seat_of(record, user_id)
            if seat is None or record.game.out[seat]:
                continue
            with contextlib.suppress(UserError):  # it ended, or they left, meanwhile
                await self.apply(record.id, Move(REMOVE, seat), actor_id=None)
                left.append(record.id)
        return left

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
        seat = self.require_seat(await self.fetch(game_id), user_id)
        move = Move(PLAY, seat, card, space, five)  # type: ignore[arg-type]
        return await self.apply(game_id, move, actor_id=user_id, expected_turn=expected_turn)

    async def forfeit(self, game_id: int, user_id: int, card: str) -> MoveOutcome:
        """A penalised player gives up ``card`` to their discard pile."""
        seat = self.require_seat(await self.fetch(game_id), user_id)
        return await self.apply(game_id, Move(FORFEIT, seat, card), actor_id=user_id)

    @staticmethod
    def penalty(team: int) -> Move:
        """The engine's table-talk penalty on ``team``: each member owes one card."""
        return Move(TABLETALK, -1, team=team)

    # ------------------------------------------------------------------ pauses
    async def set_pause(self, channel_id: int, code: int | None) -> None:
        """The table of ``channel_id`` cannot be used (``code``: why Discord refuses the bot
        its thread) or can again (None), for every process: in this process's games and in the
        store (one write at a time per channel: the last one says what is known last). Raises
        the store's error; this process's own games are paused all the same."""
        for record in self.records.values():
            if record.channel_id == channel_id:
                record.paused = code
        async with self.pause_locks(channel_id):
            await self.db.games.pause_channel(channel_id, code)

    # ------------------------------------------------------------------ ending early
    async def vote_resign(self, game_id: int, user_id: int) -> ResignVote:
        """A player votes to resign; the team resigns when all its human players have voted."""
        seat = self.require_seat(self.get(game_id), user_id)

        async def work(draft: Draft) -> list[int]:
            game = draft.game
            team = game.team_of(seat)
            key = (RESIGN_VOTE, team)
            vote = draft.votes.get(key) or TeamVote(
                RESIGN_VOTE, team, move_count=len(game.moves), created_at=draft.now
            )
            votes = set(vote.seats) | {seat}
            members = [
                s
                for s in game.settings.seats_of(team)
                if not game.out[s] and not draft.record.seats[s].is_computer
            ]
            waiting = [draft.record.seats[s].user_id for s in members if s not in votes]
            if waiting:
                draft.votes[key] = dataclasses.replace(vote, seats=tuple(sorted(votes)))
            else:
                draft.votes.pop(key, None)
                draft.push(Move(RESIGN, seat, team=team), user_id)
            return waiting

        waiting, draft = await self.change(game_id, work, asked_by=user_id)
        return ResignVote(draft.outcome, waiting)

    async def cancel(self, game_id: int) -> GameRecord:
        """End a game without a result (host, a moderator, or a tournament's ruling); also at
        a paused table, which nobody can use (see :mod:`bot.services.pauses`)."""

        async def work(draft: Draft) -> None:
            draft.cancelled = True

        _, draft = await self.change(game_id, work)
        return draft.record


async def _nothing(draft: Draft) -> None:
    """A change that writes nothing of its own (the commit path completes a game's end)."""
