"""The game service: the one path for every change to a game.

A move, a pass, a time-out, a table-talk ruling, a forfeit, an undo, a resignation, a cancel:
each is a *change*. :meth:`GameService.change` takes the game's lock, checks that what the change
acts on is still current, lets the change work on a :class:`Draft` (a copy of the game), commits
everything it wrote in one transaction (moves, snapshot, options, votes, the end and its result
row, the next turn's timers, a report's or a request's state) and only then swaps the copy in and
publishes the events. No other coroutine ever sees a move that is not saved.

Its length is one transaction's: the draft, the commit and the changes that go through it belong
together; what follows a change (timers, computers, tournaments) lives in its own services.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import dataclasses
import logging
from collections import OrderedDict, defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from bot.game import ChoiceRequired, Game, IllegalMove, Move
from bot.game.moves import FORFEIT, PLAY, REMOVE, RESIGN, TABLETALK
from bot.game.sequences import Option
from bot.store.errors import GameNotActiveError, NotFoundError, StaleMoveError
from bot.store.votes import RESIGN as RESIGN_VOTE
from bot.store.votes import TeamVote

from .dispatch import Dispatcher
from .errors import UserError
from .events import (
    GameEnded,
    GameEvent,
    GameStarted,
    MoveCommitted,
    MoveOutcome,
    MoveUndone,
    RulingMade,
    TurnStarted,
)
from .locks import KeyedLocks
from .options import TableOptions
from .timing import turn_timers
from .votes import settle_votes

if TYPE_CHECKING:
    from bot.store.base import Store
    from bot.store.games.records import GameRecord
    from bot.store.timers import TimerRecord

log = logging.getLogger(__name__)

STALE = "That was for an earlier turn: the game has moved on. Open your hand again."
#: The answer to a change that lost a race with another process's (the move-number guard).
RACE_LOST = (
    "That turn was already played: another move was saved just before yours, so yours was "
    "not made. Open your hand again."
)
#: The channel on which a process tells the others it changed a game they serve.
GAMES_CHANNEL = "sequence_games"

#: Games that ended lately, still looked up by the consumers of their last events.
_ENDED_KEPT = 512

T = TypeVar("T")

__all__ = [
    "GAMES_CHANNEL",
    "RACE_LOST",
    "STALE",
    "ChoiceNeeded",
    "Draft",
    "GameService",
    "MoveOutcome",
    "ResignVote",
    "computer_seats_to_act",
    "nobody_playing",
    "seat_of",
]


class ChoiceNeeded(UserError):
    """The play makes a line of six or more: the mover picks the five from ``options``."""

    def __init__(self, move: Move, options: list[Option]) -> None:
        super().__init__(
            "Your move makes a line of six or more: choose which five form the sequence."
        )
        self.move = move
        self.options = options


@dataclass(frozen=True)
class ResignVote:
    """A resignation vote: the move once the whole team agreed, or who must still agree."""

    outcome: MoveOutcome | None
    waiting_for: list[int]


class Draft:
    """A change being prepared under the game's lock, on a copy of the game.

    ``push`` validates and applies moves to the copy; ``options`` is a copy of the table's
    options and ``votes`` of the teams' votes (resignations, a draw offer); ``writes`` are
    further store calls that belong to the same transaction; ``events`` are published (before
    the derived ones) once it is committed.
    """

    def __init__(self, record: GameRecord, now: float) -> None:
        self.record = record
        self.now = now
        self.game = record.game.copy()
        self.options: dict[str, Any] = copy.deepcopy(record.options)
        self.votes = dict(record.votes)  # values are frozen: a shallow copy is a copy
        self.moves: list[tuple[Move, int | None]] = []
        self.undone: tuple[Move, ...] = ()
        self.cancelled = False
        #: The change left no person playing, and so cancels the game with it.
        self.unattended = False
        self.writes: list[Callable[[], Awaitable[object]]] = []
        #: The events of the change (the work's, then the commit's), and their outbox ids.
        self.events: list[GameEvent] = []
        self.event_ids: list[int | None] = []
        self.outcome: MoveOutcome | None = None

    def push(self, move: Move, actor_id: int | None) -> None:
        """Apply ``move`` to the copy, or raise the reason it is illegal (nothing changes)."""
        try:
            self.game.push(move)
        except ChoiceRequired as choice:
            raise ChoiceNeeded(move, choice.options) from None
        except IllegalMove as error:
            raise UserError(str(error)) from None
        self.moves.append((move, actor_id))

    def undo_last(self, count: int = 1) -> tuple[Move, ...]:
        """Take back the last ``count`` moves (the copy becomes the game replayed without
        them); the moves taken back, in order."""
        game = self.game
        self.undone = tuple(game.moves[-count:])
        self.game = Game.replay(game.settings, game.seed, game.moves[:-count])
        return self.undone

    def write(self, call: Callable[[], Awaitable[object]]) -> None:
        """A store call that commits (or not) with this change."""
        self.writes.append(call)

    @property
    def changed(self) -> bool:
        """True when there is something to commit."""
        return bool(
            self.moves
            or self.undone
            or self.cancelled
            or self.writes
            or self.events
            or self.options != self.record.options
            or self.votes != self.record.votes
        )


class GameService:
    """The active games, served from memory and written through to the store on every change.

    In a cluster (``SHARD_IDS``) a process serves the games of its shards' guilds. A change to
    another process's game (a move made from a DM, which reaches shard 0's process) is made on
    a copy loaded from the store, guarded by the move number like any other, and the owner is
    told in the same transaction (``NOTIFY``); the owner takes the stored game in and delivers
    the events that change wrote to the outbox (:meth:`heard`), so it posts the board and runs
    the next turn.
    """

    def __init__(
        self, db: Store, clock: Callable[[], float], bus: Dispatcher | None = None
    ) -> None:
        self.db = db
        self.clock = clock
        self.bus = bus or Dispatcher(clock)
        self.bus.db = db
        self.records: dict[int, GameRecord] = {}
        self._ended: OrderedDict[int, GameRecord] = OrderedDict()
        self._by_channel: dict[int, int] = {}
        self._by_player: defaultdict[int, set[int]] = defaultdict(set)
        self.locks = KeyedLocks()
        self._catching_up: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------------ the registry
    async def load_active(self) -> list[GameRecord]:
        """Load every active game from the store (at start-up)."""
        for record in await self.db.games.active():
            self.add(record)
        return list(self.records.values())

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

    async def stored(self, game_id: int) -> GameRecord | None:
        """A game as the store holds it, for the delivery of its events: ours in memory, an
        ended one loaded (and kept a while for its consumers); None if it is not ours."""
        record = self.live(game_id)
        if record is not None:
            return record
        try:
            record = await self.db.games.load(game_id)
        except NotFoundError:
            return None
        if not self.owns(record.guild_id):
            return None
        if record.status == "active":
            self.add(record)
        else:
            self._keep_ended(record)
        return record

    def live(self, game_id: int) -> GameRecord | None:
        """The game as this process serves it now (one that ended lately too): what its
        latest board shows, where its events' consumers read it rather than the event's copy."""
        return self.records.get(game_id) or self._ended.get(game_id)

    def _keep_ended(self, record: GameRecord) -> None:
        self._ended[record.id] = record
        while len(self._ended) > _ENDED_KEPT:
            self._ended.popitem(last=False)

    def add(self, record: GameRecord) -> None:
        """Start serving a game."""
        self.records[record.id] = record
        self._by_channel[record.channel_id] = record.id
        for seat in record.seats:
            self._by_player[seat.user_id].add(record.id)

    def _forget(self, record: GameRecord) -> None:
        self.records.pop(record.id, None)
        self._keep_ended(record)
        if self._by_channel.get(record.channel_id) == record.id:
            del self._by_channel[record.channel_id]
        for seat in record.seats:
            games = self._by_player.get(seat.user_id)
            if games is not None:
                games.discard(record.id)
                if not games:
                    del self._by_player[seat.user_id]

    def get(self, game_id: int) -> GameRecord:
        """An active game of this process by id, or a clear error."""
        record = self.records.get(game_id)
        if record is None:
            raise UserError(f"There is no active game #{game_id}.")
        return record

    def owns(self, guild_id: int) -> bool:
        """True when this process serves the games of ``guild_id`` (always, in one process)."""
        shards = self.db.shards
        return shards is None or shards.owns(guild_id)

    async def fetch(self, game_id: int) -> GameRecord:
        """An active game by id: this process's from memory, another process's (in a cluster)
        freshly loaded from the store; else a clear error."""
        record = self.records.get(game_id)
        if record is not None:
            return record
        return await self._foreign(game_id)

    async def _foreign(self, game_id: int) -> GameRecord:
        missing = UserError(f"There is no active game #{game_id}.")
        try:
            record = await self.db.games.load(game_id)
        except NotFoundError:
            raise missing from None
        if record.status != "active":  # it ended while the change waited for the game
            raise UserError(f"Game #{game_id} has ended.")
        if self.owns(record.guild_id):
            raise missing  # ours and so already forgotten: it ended
        return record

    def for_channel(self, channel_id: int) -> GameRecord:
        """The active game of a channel, or a clear error."""
        record = self.find_in_channel(channel_id)
        if record is None:
            raise UserError(
                "There is no game in this channel now: a game begins when the host of a lobby "
                "here presses **Start** (`/sequence new` opens a lobby)."
            )
        return record

    def find_in_channel(self, channel_id: int) -> GameRecord | None:
        """The active game of a channel, if any."""
        game_id = self._by_channel.get(channel_id)
        return None if game_id is None else self.records.get(game_id)

    def games_of(self, user_id: int, guild_id: int | None = None) -> list[GameRecord]:
        """The active games a user plays in (in one server, or everywhere)."""
        found = (self.records[g] for g in self._by_player.get(user_id, ()) if g in self.records)
        return [r for r in found if guild_id is None or r.guild_id == guild_id]

    def require_seat(self, record: GameRecord, user_id: int) -> int:
        """The seat of ``user_id`` in a game, or a clear error."""
        seat = seat_of(record, user_id)
        if seat is None:
            raise UserError("You are not playing in this game.")
        return seat

    async def remember_board(self, record: GameRecord, message_id: int, move_count: int) -> None:
        """Remember the message that shows the game's latest board and the move count it shows
        (presentation, not play)."""
        record.board_message_id, record.board_move_count = message_id, move_count
        await self.db.games.set_board_message(record.id, message_id, move_count)

    # ------------------------------------------------------------------ the one path
    async def change(
        self,
        game_id: int,
        work: Callable[[Draft], Awaitable[T]],
        *,
        expected_turn: int | None = None,
    ) -> tuple[T, Draft]:
        """Run ``work`` on a draft of the game under its lock, commit it, then publish.

        ``expected_turn`` is the turn the caller acted on: if the game has moved on, the change
        is refused with :data:`STALE` and nothing is written. A :class:`UserError` raised by
        ``work`` also changes nothing.
        """
        async with self.locks(game_id):
            record = self.records.get(game_id)
            foreign = record is None
            if record is None:  # another process's game (a cluster): a copy from the store
                record = await self._foreign(game_id)
            if expected_turn is not None and expected_turn != record.game.turn_number:
                raise UserError(STALE)
            draft = Draft(record, self.clock())
            result = await work(draft)
            if draft.moves and not draft.cancelled and nobody_playing(record, draft.game):
                draft.cancelled = draft.unattended = True  # nobody is left to watch it
            settle_votes(draft)
            if draft.changed or draft.game.is_over():
                await self._commit(draft, foreign=foreign, held=expected_turn is not None)
        if not foreign:  # the owner delivers, once it hears of the change
            self.bus.deliver(zip(draft.event_ids, draft.events, strict=True))
        return result, draft

    async def _commit(self, draft: Draft, *, foreign: bool = False, held: bool = False) -> None:
        """Write the draft, and the events it causes (the outbox), in one transaction.
        ``held``: the change was made for the current turn, so even one that writes no move (a
        reminder, a time-out) is refused if another process moved the game on in the store
        meanwhile."""
        record, game, now = draft.record, draft.game, draft.now
        before = record.game
        finished = game.is_over() and record.status == "active" and not draft.cancelled
        new_turn = (
            not finished
            and not draft.cancelled
            and (bool(draft.undone) or game.turn_number != before.turn_number)
        )
        table = TableOptions.from_dict(draft.options)
        timers = turn_timers(record, game, table, now) if new_turn else []
        events = self._events(draft, finished=finished, new_turn=new_turn, timers=timers)
        live = len(before.moves)
        try:
            async with self.db.transaction():
                if held and not draft.moves and not draft.undone:
                    await self.db.games.keep_at(record.id, live)
                if draft.undone:
                    count = len(draft.undone)
                    await self.db.games.take_back(record.id, live, count, draft.game, now=now)
                    live -= count
                if draft.moves:
                    await self.db.games.append_moves(record.id, live, draft.moves, game, now=now)
                if draft.options != record.options:
                    await self.db.games.set_options(record.id, draft.options)
                if draft.votes != record.votes:
                    await self.db.votes.replace(record.id, list(draft.votes.values()))
                for write in draft.writes:
                    await write()
                if draft.cancelled:
                    await self.db.games.finish(record.id, "cancelled", now=now)
                elif finished:
                    await self.db.games.finish(record.id, "finished", now=now)
                    await self._record_result(record, game, table, now)
                elif new_turn:
                    await self.db.timers.replace(record.id, timers)
                ids = await self.bus.record(events, now)
                if foreign:  # delivered to the owner at the commit, never on a rollback
                    await self.db.notify(GAMES_CHANNEL, str(record.id))
        except (StaleMoveError, GameNotActiveError):
            # Another process moved first (perhaps ending the game): serve the stored game from
            # now on, and deliver what its change caused (the board, timers and computers).
            log.warning("Game %d moved on in the store before this change", record.id)
            if not foreign:
                await self._take_in(record)
                await self.bus.recover(self.stored, record.id)
            raise UserError(RACE_LOST) from None
        # Committed: only now does anyone see the change (a game no move changed stays as it
        # was: a reminder or a vote swaps in no copy).
        if draft.moves or draft.undone:
            record.game = game
        record.options = draft.options
        record.votes = draft.votes
        draft.events, draft.event_ids = events, ids
        if draft.cancelled or finished:
            record.status = "cancelled" if draft.cancelled else "finished"
            record.finished_at = now
            self._forget(record)

    def _events(
        self, draft: Draft, *, finished: bool, new_turn: bool, timers: list[TimerRecord]
    ) -> list[GameEvent]:
        """The events of a change about to commit, each with the table as committed (a copy):
        the work's own, then the moves, the undo, the new turn and the end."""
        record, game, now = draft.record, draft.game, draft.now
        ended = draft.cancelled or finished
        committed = dataclasses.replace(
            record,
            game=game if draft.moves or draft.undone else record.game,
            options=copy.deepcopy(draft.options),
            votes=dict(draft.votes),
            seats=list(record.seats),
            status=("cancelled" if draft.cancelled else "finished") if ended else record.status,
            finished_at=now if ended else record.finished_at,
        )
        if draft.moves:
            draft.outcome = MoveOutcome(
                record=committed,
                game=game,
                moves=tuple(move for move, _ in draft.moves),
                new_sequences=tuple(game.sequences[len(record.game.sequences) :]),
                turn_passed=game.turn_number != record.game.turn_number,
                unattended=draft.unattended,
            )
        events: list[GameEvent] = []
        for event in draft.events:
            if isinstance(event, RulingMade) and event.outcome is None:
                event = dataclasses.replace(event, outcome=draft.outcome)
            events.append(dataclasses.replace(event, record=committed))
        if draft.outcome is not None:
            events.append(MoveCommitted(committed, outcome=draft.outcome))
        if draft.undone:
            events.append(MoveUndone(committed, undone=draft.undone, game=game))
        if new_turn:
            events.append(TurnStarted(committed, game=game, timers=tuple(timers)))
        if ended:
            events.append(
                GameEnded(committed, cancelled=draft.cancelled, unattended=draft.unattended)
            )
        return events

    async def _record_result(
        self, record: GameRecord, game: Game, options: TableOptions, now: float
    ) -> None:
        teams = [
            [seat.user_id for seat in record.seats[team :: game.settings.teams]]
            for team in range(game.settings.teams)
        ]
        rated = options.rated and not any(
            seat.is_computer for seat in record.seats
        )
        summary = {
            "moves": len(game.moves),
            "duration": now - record.created_at,
            "sequences": [game.sequence_count(t) for t in range(game.settings.teams)],
            # Teams that resigned or left: they lose a game the others then draw.
            "left": [t for t in range(game.settings.teams) if t not in game.active_teams()],
            "termination": game.termination,
            "leaving_team": game.leaving_team,
            "preset": game.settings.preset,
        }
        await self.db.results.record(
            record.id, record.guild_id, teams, game.winner, rated, summary, now=now
        )

    # ------------------------------------------------------------------ other processes
    def heard(self, payload: str) -> None:
        """A notification on :data:`GAMES_CHANNEL`: another process changed game ``payload``
        (an empty payload: the listener reconnected, any game may have moved). Each game of
        ours that moved is taken in from the store, and the events its changes wrote are
        delivered."""
        if payload and not payload.isdigit():
            return
        ids = [int(payload)] if payload else list(self.records)
        for game_id in ids:
            if game_id in self.records:
                task = asyncio.create_task(self.catch_up(game_id))
                self._catching_up.add(task)
                task.add_done_callback(self._catching_up.discard)

    async def catch_up(self, game_id: int) -> None:
        """Take one of our games in from the store and deliver what other processes did."""
        async with self.locks(game_id):
            record = self.records.get(game_id)
            if record is None:
                return
            try:
                await self._take_in(record)
                await self.bus.recover(self.stored, game_id)
            except Exception:
                log.exception("Game %d could not be reloaded from the store", game_id)

    async def _take_in(self, record: GameRecord) -> None:
        """Under the game's lock: serve the game as the store holds it (another process
        changed it); the events of that change come from the outbox."""
        stored = await self.db.games.load(record.id)
        record.game, record.options, record.votes = stored.game, stored.options, stored.votes
        if stored.status != "active":
            record.status, record.finished_at = stored.status, stored.finished_at
            self._forget(record)

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
    ) -> MoveOutcome:
        """Validate ``move``, apply it and commit it; a :class:`UserError` changes nothing."""

        async def work(draft: Draft) -> None:
            draft.push(move, actor_id)

        _, draft = await self.change(game_id, work, expected_turn=expected_turn)
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

        waiting, draft = await self.change(game_id, work)
        return ResignVote(draft.outcome, waiting)

    async def cancel(self, game_id: int) -> GameRecord:
        """End a game without a result (host, a moderator, or a tournament's ruling)."""

        async def work(draft: Draft) -> None:
            draft.cancelled = True

        _, draft = await self.change(game_id, work)
        return draft.record


async def _nothing(draft: Draft) -> None:
    """A change that writes nothing of its own (the commit path completes a game's end)."""


def nobody_playing(record: GameRecord, game: Game) -> bool:
    """True when a game still on has no person playing: only computers, or nobody, are left
    (a game never starts so: a lobby with no person closes)."""
    return not game.is_over() and all(
        game.out[seat] or info.is_computer for seat, info in enumerate(record.seats)
    )


def computer_seats_to_act(record: GameRecord) -> list[int]:
    """Computer seats that must act now: the one to move, and any owing a forfeit or a draw."""
    game = record.game
    if game.is_over():
        return []
    seats = [
        seat
        for seat, info in enumerate(record.seats)
        if info.is_computer
        and not game.out[seat]
        and (game.owed_forfeits[seat] or seat in game.owed_draws)
    ]
    if record.seats[game.turn].is_computer and game.turn not in seats:
        seats.append(game.turn)
    return seats


def seat_of(record: GameRecord, user_id: int) -> int | None:
    """The seat of a user in a game, or ``None``."""
    for index, seat in enumerate(record.seats):
        if seat.user_id == user_id:
            return index
    return None
