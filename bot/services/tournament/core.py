"""What the tournament service's parts share: the store, the clock, one lock per tournament,
reading a tournament, and recording a match's result (:class:`Progress` says what a change did
for the Discord side to show).

A *step* (a result and the pairing it makes due, a seated lobby, a drop, a report, the end) runs
under its tournament's lock in one transaction (:meth:`TournamentCore._step`), and writes what it
did to the outbox in that transaction (:mod:`.steps`): it is saved whole or not at all, and what
follows it (threads, messages, stopping games, the podium) is shown once it has committed, again
after a crash if need be."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bot.services.errors import UserError
from bot.services.locks import KeyedLocks
from bot.store.tournaments.records import MatchRecord, TournamentRecord

from .model import Snapshot

if TYPE_CHECKING:
    from bot.services.games import GameService
    from bot.services.ratings import RatingService
    from bot.store.base import Store
    from bot.store.games.records import GameRecord
    from bot.store.lobbies import LobbyRecord


@dataclass
class Progress:
    """What a change did, for the Discord side to show."""

    snapshot: Snapshot
    #: Matches decided by this change (results to announce).
    decided: list[MatchRecord] = field(default_factory=list)
    #: Decided matches whose result the organiser replaced (the old and new to announce).
    corrected: list[Correction] = field(default_factory=list)
    #: Open matches this change called off (the tournament ended before they were played).
    called_off: list[MatchRecord] = field(default_factory=list)
    #: Lobbies this change closed (their messages lose their buttons).
    closed_lobbies: list[LobbyRecord] = field(default_factory=list)
    #: Games to stop after the commit (the match was decided elsewhere; see
    #: :meth:`~.steps.Steps.stop_games`).
    stop_games: list[int] = field(default_factory=list)
    #: Games stopped after the commit (the table is told; timers stop).
    cancelled_games: list[GameRecord] = field(default_factory=list)
    #: Rounds paired by this change.
    paired: list[int] = field(default_factory=list)
    #: New matches that need a thread and a seated lobby.
    to_open: list[MatchRecord] = field(default_factory=list)
    #: Matches whose game was drawn in a knockout: a tie-break game (a fresh lobby).
    replays: list[tuple[MatchRecord, LobbyRecord]] = field(default_factory=list)
    #: Matches whose game was cancelled: played again (a fresh lobby).
    reseated: list[tuple[MatchRecord, LobbyRecord]] = field(default_factory=list)
    #: Best-of matches whose game ended with the series still on: its next game (a fresh
    #: lobby whose options carry the series).
    next_games: list[tuple[MatchRecord, LobbyRecord]] = field(default_factory=list)
    #: The final score of each best-of match decided by its games (match id -> each side's
    #: points, in side order).
    series: dict[int, tuple[float, ...]] = field(default_factory=dict)
    #: Matches just seated in their new thread (their lobby and match message to post).
    seated: list[tuple[MatchRecord, LobbyRecord]] = field(default_factory=list)
    #: True when the tournament just finished.
    finished: bool = False
    #: The outbox's id of this step (None: not stored; nothing to mark once shown).
    step: int | None = None
    #: The outbox's id of the event that opens ``to_open``'s threads, one by one in the
    #: background (None: none stored; see :mod:`~.steps`).
    threads_step: int | None = None


@dataclass(frozen=True)
class Correction:
    """The organiser replaced a decided match's result: the match ``before`` and as it now
    stands; ``game``, the match's game when it was played to its end (its result is then
    worth saying), and ``game_winner``, the entrant that won it (None: drawn)."""

    before: MatchRecord
    after: MatchRecord
    game: GameRecord | None = None
    game_winner: int | None = None


@dataclass(frozen=True)
class CheckIn:
    """A player said they are here."""

    match: MatchRecord
    snapshot: Snapshot
    everyone_here: bool


class TournamentCore:
    """The state every part of the service works on, and the steps they share."""

    def __init__(
        self,
        db: Store,
        clock: Callable[[], float],
        games: GameService,
        ratings: RatingService | None = None,
    ) -> None:
        self.db = db
        self.clock = clock
        self.games = games
        self.ratings = ratings
        self._locks = KeyedLocks()

    @contextlib.asynccontextmanager
    async def _step(self, tournament_id: int) -> AsyncIterator[None]:
        """A step of one tournament: under its lock, in one transaction (joined by every store
        call of this task meanwhile), committed as the block ends, rolled back on an error."""
        async with self._locks(tournament_id), self.db.transaction():
            yield

    @contextlib.asynccontextmanager
    async def _locked(self, found: MatchRecord | None) -> AsyncIterator[MatchRecord | None]:
        """A step on the match ``found``, read again in it (None: no match, or it is gone):
        what a match is checked against is what it is while the lock is held."""
        if found is None:
            yield None
            return
        async with self._step(found.tournament_id):
            yield await self.db.tournaments.match(found.id)

    async def snapshot(self, tournament_id: int) -> Snapshot:
        """The tournament, its entrants and its matches now."""
        tournament = await self.db.tournaments.get(tournament_id)
        if tournament is None:
            raise UserError(f"There is no tournament #{tournament_id}.")
        entrants = await self.db.tournaments.entrants(tournament_id)
        matches = await self.db.tournaments.matches(tournament_id)
        return Snapshot(tournament, {e.id: e for e in entrants}, matches)

    async def for_channel(self, channel_id: int) -> TournamentRecord:
        """The tournament signing up or running in a channel, or a clear error."""
        tournament = await self.db.tournaments.open_in_channel(channel_id)
        if tournament is None:
            raise UserError(
                "There is no tournament in this channel: an organiser opens one with "
                "`/tournament-admin create`."
            )
        return tournament

    async def latest_for_channel(self, channel_id: int) -> TournamentRecord:
        """The channel's open tournament, else its last one (standings stay readable)."""
        held = await self.db.tournaments.in_channel(channel_id)
        if not held:
            raise UserError("No tournament was ever held in this channel.")
        open_ones = [t for t in held if t.status in ("signup", "running")]
        return (open_ones or held)[-1]

    async def _get(self, tournament_id: int) -> TournamentRecord:
        tournament = await self.db.tournaments.get(tournament_id)
        if tournament is None:
            raise UserError(f"There is no tournament #{tournament_id}.")
        return tournament

    async def _decide(
        self, match: MatchRecord, winner: int | None, outcome: str, progress: Progress
    ) -> None:
        """Record a match's result and close its lobby or game if still open."""
        await self._close_table(match, progress)
        match.status = "done"
        match.winner = winner
        match.outcome = outcome
        match.deadline = None
        match.finished_at = self.clock()
        await self.db.tournaments.save_match(match)
        progress.decided.append(match)

    async def _close_table(self, match: MatchRecord, progress: Progress) -> None:
        """Close the match's lobby, or have its game stopped once the step has committed (a
        game is a change of its own), when the result comes from elsewhere."""
        if match.thread_id is None:
            return
        record = None
        if match.status == "playing" and match.game_id is not None:
            record = self.games.records.get(match.game_id)
        elif match.status == "pending":
            lobby = await self.db.lobbies.get_for_channel(match.thread_id)
            if lobby is not None and await self.db.lobbies.delete(lobby.id, self.clock()):
                progress.closed_lobbies.append(lobby)
            # Its host started the game just now (the match has not heard of it yet): stop it.
            record = self.games.find_in_channel(match.thread_id)
        if record is not None and not record.game.is_over():
            progress.stop_games.append(record.id)

    async def _advance(self, tournament_id: int, progress: Progress) -> None:
        """Pair the next round when the current one is complete (:mod:`.rounds`)."""
        raise NotImplementedError

    async def _record(self, progress: Progress) -> Progress:
        """In the step's transaction: write what it did to the outbox (:mod:`.steps`)."""
        raise NotImplementedError


def require_organiser(
    tournament: TournamentRecord,
    actor_id: int,
    moderator: bool,
    action: str,
    others: tuple[str, ...] = ("someone with Manage Server",),
    changed_by: str = "",
) -> None:
    """Only the organiser (its creator) or a ``moderator`` (who may run any tournament of the
    server: ``others``, in words) may ``action``; ``changed_by`` says who changes that rule."""
    if actor_id != tournament.organiser_id and not moderator:
        who = [f"the organiser (<@{tournament.organiser_id}>)", *others]
        allowed = " or ".join(filter(None, [", ".join(who[:-1]), who[-1]]))
        raise UserError(f"Only {allowed} can {action}." + (f" {changed_by}" if changed_by else ""))


def match_players(snapshot: Snapshot, match: MatchRecord) -> list[int]:
    """Every player (user id) of a match's two sides."""
    return [u for e in match.sides for u in snapshot.entrants[e].user_ids]


def game_winner(snapshot: Snapshot, match: MatchRecord, record: GameRecord) -> int | None:
    """The side of ``match`` that won its game ``record`` (None: no winner, a draw)."""
    game = record.game
    if game.winner is None:
        return None
    users = {record.seats[s].user_id for s in game.settings.seats_of(game.winner)}
    return next((e for e in match.sides if set(snapshot.entrants[e].user_ids) & users), None)


def entrant_with(snapshot: Snapshot, sides: list[int], user_id: int) -> int | None:
    """The side of ``sides`` that ``user_id`` plays for, if any."""
    return next((e for e in sides if user_id in snapshot.entrants[e].user_ids), None)
