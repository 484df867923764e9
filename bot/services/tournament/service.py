"""Tournaments as use cases: sign-up, start, pairing each round, match lobbies, results,
no-shows, hand-reported results, drops and the end. No Discord here: the cog turns what each
call returns (a :class:`Progress`) into threads and messages.

Rules chosen:

* **Entrants.** One player, or a fixed team of 2 or 3 named by whoever signs up
  (``/tournament join partner:... partner2:...``); any member can withdraw the team before
  the start. Seeds are fixed at the start: server rating (the members' mean), then sign-up order.
* **Matches** are ordinary rated games, one per pairing, the first entrant's players on Blue.
* **Show-up.** Each player presses *I'm here* in the match thread; when all have, the game starts
  itself (the host may also press Start). If the game has not started when the show-up time
  runs out, an entrant all of whose players checked in wins by forfeit; if neither did, both
  lose (a double forfeit: nobody advances in a knockout).
* **A cancelled game** is replayed: a fresh lobby, a fresh show-up time. So is a drawn
  knockout game; in round robin and Swiss a draw scores ½ each.
* **Byes** score as a win; in Swiss at most one per entrant (while anyone is left without one).
* **Dropping** an entrant forfeits its open match; it is never paired again (round-robin games
  against it are forfeits).
* **Ending early** voids the unfinished round (its open matches and its byes); every decided
  match counts.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bot.services.errors import UserError
from bot.services.locks import KeyedLocks
from bot.store.errors import ChannelBusyError
from bot.store.seats import Seat
from bot.store.tournaments import (
    AlreadyEnteredError,
    EntrantRecord,
    MatchRecord,
    StaleRoundError,
    TournamentRecord,
)

from .model import Snapshot, TournamentSettings, swiss_rounds
from .pairing import (
    Pair,
    elimination_first_round,
    elimination_rounds,
    next_elimination_round,
    round_robin_schedule,
    swiss_pairings,
)
from .standings import (
    BYE,
    DOUBLE_FORFEIT,
    ELIMINATION,
    FORFEIT,
    FORMATS,
    REPORTED,
    ROUND_ROBIN,
    SWISS,
    WIN,
)

if TYPE_CHECKING:
    from bot.services.games import GameService
    from bot.services.lobbies import Person
    from bot.services.ratings import RatingService
    from bot.store.database import Database
    from bot.store.games import GameRecord
    from bot.store.lobbies import LobbyRecord

log = logging.getLogger(__name__)

MAX_NAME = 60


@dataclass
class Progress:
    """What a change did, for the Discord side to show."""

    snapshot: Snapshot
    #: Matches decided by this change (results to announce).
    decided: list[MatchRecord] = field(default_factory=list)
    #: Lobbies this change closed (their messages lose their buttons).
    closed_lobbies: list[LobbyRecord] = field(default_factory=list)
    #: Games this change cancelled (the table is told; timers stop).
    cancelled_games: list[GameRecord] = field(default_factory=list)
    #: Rounds paired by this change.
    paired: list[int] = field(default_factory=list)
    #: New matches that need a thread and a seated lobby.
    to_open: list[MatchRecord] = field(default_factory=list)
    #: Matches whose game must be played again in their thread (a fresh lobby was opened).
    replays: list[tuple[MatchRecord, LobbyRecord]] = field(default_factory=list)
    #: True when the tournament just finished.
    finished: bool = False


@dataclass(frozen=True)
class CheckIn:
    """A player said they are here."""

    match: MatchRecord
    snapshot: Snapshot
    everyone_here: bool


class TournamentService:
    """Every tournament, kept in the store; one lock per tournament."""

    def __init__(
        self,
        db: Database,
        clock: Callable[[], float],
        games: GameService,
        ratings: RatingService | None = None,
    ) -> None:
        self.db = db
        self.clock = clock
        self.games = games
        self.ratings = ratings
        self._locks = KeyedLocks()

    # ------------------------------------------------------------------ reading
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
                "`/tournament create`."
            )
        return tournament

    async def latest_for_channel(self, channel_id: int) -> TournamentRecord:
        """The channel's open tournament, else its last one (standings stay readable)."""
        held = await self.db.tournaments.in_channel(channel_id)
        if not held:
            raise UserError("No tournament was ever held in this channel.")
        open_ones = [t for t in held if t.status in ("signup", "running")]
        return (open_ones or held)[-1]

    async def match_in_thread(self, thread_id: int) -> MatchRecord | None:
        """The open match played in a thread, if any."""
        return await self.db.tournaments.open_match_in_thread(thread_id)

    # ------------------------------------------------------------------ sign-up
    async def create(
        self,
        guild_id: int,
        channel_id: int,
        organiser: Person,
        name: str,
        fmt: str,
        team_size: int,
        settings: TournamentSettings,
    ) -> TournamentRecord:
        """Open a tournament for sign-ups in a channel."""
        name = " ".join(name.split())
        if not 1 <= len(name) <= MAX_NAME:
            raise UserError(f"Give the tournament a name of 1 to {MAX_NAME} characters.")
        if fmt not in FORMATS:
            raise UserError("The format must be round robin, Swiss or single elimination.")
        if team_size not in (1, 2, 3):
            raise UserError("Teams have 1, 2 or 3 players.")
        if settings.table.hints:
            raise UserError("Hints are not allowed in tournament games.")
        settings.table.but(teams=2).game_settings(2 * team_size)  # a clear error if unplayable
        if not 60 <= settings.show_up <= 86400:
            raise UserError("The show-up time must be between 1 minute and 1 day.")
        if settings.rounds is not None and not 1 <= settings.rounds <= 20:
            raise UserError("A Swiss tournament has 1 to 20 rounds.")
        try:
            return await self.db.tournaments.create(
                guild_id,
                channel_id,
                organiser.user_id,
                name,
                fmt,
                team_size,
                settings.to_dict(),
                now=self.clock(),
            )
        except ChannelBusyError:
            raise UserError(
                "A tournament is already open in this channel: end it first, or use another "
                "channel."
            ) from None

    async def join(
        self, tournament_id: int, person: Person, partners: list[Person]
    ) -> EntrantRecord:
        """Sign up a player, or a team: the person and their partners."""
        async with self._locks(tournament_id):
            tournament = await self._get(tournament_id)
            if tournament.status != "signup":
                raise UserError("Sign-up is closed: this tournament has started.")
            size = tournament.team_size
            members = [person, *partners]
            if len({m.user_id for m in members}) != len(members):
                raise UserError("Each member of a team must be a different person.")
            if len(members) != size:
                if size == 1:
                    raise UserError("This tournament is for single players: join without partners.")
                raise UserError(
                    f"This tournament is for teams of {size}: sign up with "
                    f"`/tournament join` and name your {size - 1} partner(s)."
                )
            name = " & ".join(m.name for m in members)
            try:
                return await self.db.tournaments.add_entrant(
                    tournament_id,
                    name,
                    [{"user_id": m.user_id, "name": m.name} for m in members],
                    now=self.clock(),
                )
            except AlreadyEnteredError as error:
                who = "You are" if error.user_id == person.user_id else f"<@{error.user_id}> is"
                raise UserError(f"{who} already signed up for this tournament.") from None

    async def leave(self, tournament_id: int, user_id: int) -> EntrantRecord:
        """Withdraw (a whole team) before the start."""
        async with self._locks(tournament_id):
            tournament = await self._get(tournament_id)
            if tournament.status != "signup":
                raise UserError(
                    "The tournament has started: ask the organiser to drop you instead."
                )
            entrant = await self.db.tournaments.entrant_of(tournament_id, user_id)
            if entrant is None:
                raise UserError("You are not signed up for this tournament.")
            await self.db.tournaments.remove_entrant(entrant.id)
            return entrant

    # ------------------------------------------------------------------ organiser
    async def start(self, tournament_id: int, actor_id: int, moderator: bool) -> Progress:
        """Close sign-up, fix the seeds and pair the first round (organiser only)."""
        async with self._locks(tournament_id):
            tournament = await self._get(tournament_id)
            require_organiser(tournament, actor_id, moderator, "start the tournament")
            if tournament.status != "signup":
                raise UserError("This tournament has already started.")
            entrants = await self.db.tournaments.entrants(tournament_id)
            if len(entrants) < 2:
                raise UserError("A tournament needs at least 2 entrants to start.")
            strength = await self._strength(tournament.guild_id, entrants)
            order = sorted(entrants, key=lambda e: (-strength.get(e.id, 0.0), e.joined_at, e.id))
            await self.db.tournaments.set_seeds({e.id: n for n, e in enumerate(order, start=1)})
            settings = TournamentSettings.from_dict(tournament.options)
            if tournament.format == SWISS:
                rounds = swiss_rounds(len(entrants), settings.rounds)
                tournament.options = settings.to_dict() | {"rounds": rounds}
            tournament.status = "running"
            await self.db.tournaments.save(tournament)
            progress = Progress(await self.snapshot(tournament_id))
            await self._advance(tournament_id, progress)
            return progress

    async def report(
        self,
        tournament_id: int,
        actor_id: int,
        moderator: bool,
        match_id: int,
        winner_user_id: int | None,
    ) -> Progress:
        """The organiser enters a match result by hand (``winner_user_id`` None: a draw)."""
        async with self._locks(tournament_id):
            tournament = await self._get(tournament_id)
            require_organiser(tournament, actor_id, moderator, "report results")
            match = await self.db.tournaments.match(match_id)
            if match is None or match.tournament_id != tournament_id:
                raise UserError(f"There is no match #{match_id} in this tournament.")
            if not match.is_open:
                raise UserError(f"Match #{match_id} is already decided.")
            snapshot = await self.snapshot(tournament_id)
            if winner_user_id is None:
                if tournament.format == ELIMINATION:
                    raise UserError("A knockout match needs a winner: name a player of it.")
                winner = None
            else:
                winner = _entrant_with(snapshot, match.sides, winner_user_id)
                if winner is None:
                    raise UserError("That player is not in this match.")
            progress = Progress(snapshot)
            await self._decide(match, winner, REPORTED, progress)
            await self._advance(tournament_id, progress)
            return progress

    async def drop(
        self, tournament_id: int, actor_id: int, moderator: bool, user_id: int
    ) -> tuple[EntrantRecord, Progress]:
        """The organiser drops the entrant a user plays for: its open match is forfeited."""
        async with self._locks(tournament_id):
            tournament = await self._get(tournament_id)
            require_organiser(tournament, actor_id, moderator, "drop entrants")
            entrant = await self.db.tournaments.entrant_of(tournament_id, user_id)
            if entrant is None:
                raise UserError("That player is not in this tournament.")
            if tournament.status == "signup":
                await self.db.tournaments.remove_entrant(entrant.id)
                return entrant, Progress(await self.snapshot(tournament_id))
            if tournament.status != "running":
                raise UserError("This tournament is over.")
            if entrant.dropped:
                raise UserError(f"{entrant.name} was already dropped.")
            await self.db.tournaments.drop(entrant.id, self.clock())
            snapshot = await self.snapshot(tournament_id)
            progress = Progress(snapshot)
            for match in snapshot.matches:
                if match.is_open and entrant.id in match.sides:
                    other = next((e for e in match.sides if e != entrant.id), None)
                    if other is not None and snapshot.entrants[other].dropped:
                        await self._decide(match, None, DOUBLE_FORFEIT, progress)
                    else:
                        await self._decide(match, other, FORFEIT, progress)
            await self._advance(tournament_id, progress)
            return snapshot.entrants[entrant.id], progress

    async def end(self, tournament_id: int, actor_id: int, moderator: bool) -> Progress:
        """The organiser ends the tournament now: the unfinished round's open matches and byes
        are cancelled; the standings are final."""
        async with self._locks(tournament_id):
            tournament = await self._get(tournament_id)
            require_organiser(tournament, actor_id, moderator, "end the tournament")
            if tournament.status not in ("signup", "running"):
                raise UserError("This tournament is already over.")
            progress = Progress(await self.snapshot(tournament_id))
            current = progress.snapshot.round_matches(tournament.round)
            unfinished = any(match.is_open for match in current)
            for match in current:
                # An unfinished round is void: its open matches, and its byes, count for nothing.
                if match.is_open or (unfinished and match.outcome == BYE):
                    await self._close_table(match, progress)
                    match.status = "cancelled"
                    match.deadline = None
                    match.finished_at = self.clock()
                    await self.db.tournaments.save_match(match)
            tournament.status = "finished" if tournament.status == "running" else "cancelled"
            tournament.finished_at = self.clock()
            await self.db.tournaments.save(tournament)
            progress.finished = tournament.status == "finished"
            progress.snapshot = await self.snapshot(tournament_id)
            return progress

    async def set_message(self, tournament: TournamentRecord, message_id: int) -> None:
        """Remember the sign-up message."""
        tournament.message_id = message_id
        await self.db.tournaments.save(tournament)

    # ------------------------------------------------------------------ match tables
    async def open_match(
        self, match_id: int, thread_id: int
    ) -> tuple[MatchRecord, LobbyRecord] | None:
        """Seat the match's players in a lobby in its thread and start the show-up clock.

        None when the match was decided meanwhile (a drop, a report, the end)."""
        match = await self.db.tournaments.match(match_id)
        if match is None:
            return None
        async with self._locks(match.tournament_id):
            match = await self.db.tournaments.match(match_id)
            if match is None or match.status != "pending" or match.entrant_b is None:
                return None
            snapshot = await self.snapshot(match.tournament_id)
            match.thread_id = thread_id
            return match, await self._seat_lobby(snapshot, match)

    async def set_match_message(self, match: MatchRecord, message_id: int) -> None:
        """Remember the match message (with its check-in button)."""
        match.message_id = message_id
        await self.db.tournaments.save_match(match)

    async def check_in(self, match_id: int, user_id: int) -> CheckIn:
        """A player of the match says they are here."""
        match = await self.db.tournaments.match(match_id)
        if match is None:
            raise UserError("This match no longer exists.")
        async with self._locks(match.tournament_id):
            match = await self.db.tournaments.match(match_id)
            assert match is not None
            if match.status == "playing":
                raise UserError("The game has already begun.")
            if match.status != "pending":
                raise UserError("This match is already decided.")
            snapshot = await self.snapshot(match.tournament_id)
            players = _players(snapshot, match)
            if user_id not in players:
                raise UserError("This match is not yours: only its players check in here.")
            if user_id not in match.checkins:
                match.checkins.append(user_id)
                await self.db.tournaments.save_match(match)
            here = set(match.checkins)
            return CheckIn(match, snapshot, all(p in here for p in players))

    async def game_started(self, record: GameRecord) -> tuple[MatchRecord, bool] | None:
        """A game began in a match thread: (match, seated as drawn). None if not a match.

        When the seating is wrong (someone left, joined or switched team), the caller cancels
        the game; :meth:`game_cancelled` then opens a fresh lobby.
        """
        match = await self.db.tournaments.open_match_in_thread(record.channel_id)
        if match is None:
            return None
        async with self._locks(match.tournament_id):
            match = await self.db.tournaments.match(match.id)
            if match is None or match.status != "pending":
                return None
            snapshot = await self.snapshot(match.tournament_id)
            match.status = "playing"
            match.game_id = record.id
            match.deadline = None
            await self.db.tournaments.save_match(match)
            return match, _seated_as_drawn(snapshot, match, record)

    async def game_finished(self, record: GameRecord) -> Progress | None:
        """A match's game ended: record the result and pair the next round when it is due."""
        match = await self.db.tournaments.match_for_game(record.id)
        if match is None:
            return None
        async with self._locks(match.tournament_id):
            match = await self.db.tournaments.match(match.id)
            if match is None or match.status != "playing" or match.game_id != record.id:
                return None
            snapshot = await self.snapshot(match.tournament_id)
            progress = Progress(snapshot)
            game = record.game
            winner = None
            if game.winner is not None:
                users = {record.seats[s].user_id for s in game.settings.seats_of(game.winner)}
                winner = next(
                    (e for e in match.sides if set(snapshot.entrants[e].user_ids) & users), None
                )
            if winner is None and snapshot.tournament.format == ELIMINATION:
                lobby = await self._replay(snapshot, match)  # a knockout needs a winner
                progress.replays.append((match, lobby))
                return progress
            await self._decide(match, winner, WIN, progress)
            await self._advance(match.tournament_id, progress)
            return progress

    async def game_cancelled(self, record: GameRecord) -> tuple[MatchRecord, LobbyRecord] | None:
        """A match's game was cancelled: the match is played again from a fresh lobby."""
        match = await self.db.tournaments.match_for_game(record.id)
        if match is None:
            return None
        async with self._locks(match.tournament_id):
            match = await self.db.tournaments.match(match.id)
            if match is None or match.status != "playing" or match.game_id != record.id:
                return None
            snapshot = await self.snapshot(match.tournament_id)
            if snapshot.tournament.status != "running":
                return None
            return match, await self._replay(snapshot, match)

    async def expire(self, match_id: int) -> Progress | None:
        """The show-up time of a match ran out: forfeits by the check-in rule (see above).

        None when the match was meanwhile started, decided or given a later deadline.
        """
        match = await self.db.tournaments.match(match_id)
        if match is None:
            return None
        async with self._locks(match.tournament_id):
            match = await self.db.tournaments.match(match_id)
            if (
                match is None
                or match.status != "pending"
                or match.deadline is None
                or match.deadline > self.clock() + 1e-6
            ):
                return None
            snapshot = await self.snapshot(match.tournament_id)
            progress = Progress(snapshot)
            here = set(match.checkins)
            present = [
                e for e in match.sides if all(u in here for u in snapshot.entrants[e].user_ids)
            ]
            if len(present) == 1:
                await self._decide(match, present[0], FORFEIT, progress)
            elif not present:
                await self._decide(match, None, DOUBLE_FORFEIT, progress)
            else:
                # Everyone is here, yet the game did not start: no forfeit; the host can still
                # start it, or the organiser reports the result.
                match.deadline = None
                await self.db.tournaments.save_match(match)
                return progress
            await self._advance(match.tournament_id, progress)
            return progress

    async def ended_match_games(self) -> list[GameRecord]:
        """Games of matches still marked playing that ended in the store (a restart came
        between a game's end and the tournament hearing of it): hand each to
        :meth:`game_finished` or :meth:`game_cancelled`, which act only once."""
        ended = []
        for tournament in await self.db.tournaments.running():
            for match in await self.db.tournaments.matches(tournament.id):
                if match.status != "playing" or match.game_id is None:
                    continue
                if match.game_id in self.games.records:
                    continue  # still being played
                record = await self.db.games.load(match.game_id)
                if record.status != "active":
                    ended.append(record)
        return ended

    async def pending_deadlines(self) -> list[MatchRecord]:
        """Every running tournament's matches waiting on a show-up deadline (for start-up)."""
        due = []
        for tournament in await self.db.tournaments.running():
            for match in await self.db.tournaments.matches(tournament.id):
                if match.status == "pending" and match.deadline is not None:
                    due.append(match)
        return due

    async def resume(self) -> list[Progress]:
        """At start-up: pair any round that is due, and list matches still without a table."""
        resumed = []
        for tournament in await self.db.tournaments.running():
            async with self._locks(tournament.id):
                progress = Progress(await self.snapshot(tournament.id))
                await self._advance(tournament.id, progress)
                known = {m.id for m in progress.to_open}
                progress.to_open += [
                    m
                    for m in progress.snapshot.matches
                    if m.status == "pending" and m.thread_id is None and m.id not in known
                ]
                if progress.to_open or progress.paired or progress.finished:
                    resumed.append(progress)
        return resumed

    # ------------------------------------------------------------------ internals
    async def _get(self, tournament_id: int) -> TournamentRecord:
        tournament = await self.db.tournaments.get(tournament_id)
        if tournament is None:
            raise UserError(f"There is no tournament #{tournament_id}.")
        return tournament

    async def _strength(self, guild_id: int, entrants: list[EntrantRecord]) -> dict[int, float]:
        """Each entrant's mean server rating (ordinal), for seeding."""
        if self.ratings is None:
            return {}
        book = await self.ratings.book(guild_id)
        return {
            e.id: sum(book.rating(u).ordinal for u in e.user_ids) / len(e.user_ids)
            for e in entrants
        }

    async def _seat_lobby(self, snapshot: Snapshot, match: MatchRecord) -> LobbyRecord:
        """A lobby in the match's thread with both entrants seated, and a new deadline."""
        assert match.thread_id is not None and match.entrant_b is not None
        settings = snapshot.settings
        seats = [
            Seat(m["user_id"], m["name"], team)
            for team, entrant in enumerate((match.entrant_a, match.entrant_b))
            for m in snapshot.entrants[entrant].members
        ]
        options = settings.table.but(teams=2, hints=False).to_dict()
        options["tournament"] = {"id": snapshot.tournament.id, "match": match.id}
        now = self.clock()
        existing = await self.db.lobbies.get_for_channel(match.thread_id)
        if existing is not None:
            await self.db.lobbies.delete(existing.id, self.clock())
        lobby = await self.db.lobbies.create(
            snapshot.tournament.guild_id,
            match.thread_id,
            seats[0].user_id,
            options,
            now=now,
            seats=seats,
        )
        match.status = "pending"
        match.game_id = None
        match.checkins = []
        match.deadline = now + settings.show_up
        await self.db.tournaments.save_match(match)
        return lobby

    async def _replay(self, snapshot: Snapshot, match: MatchRecord) -> LobbyRecord:
        """Back to a seated lobby in the same thread (a cancelled or drawn knockout game)."""
        return await self._seat_lobby(snapshot, match)

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
        """Close the match's lobby, or cancel its game, when the result comes from elsewhere."""
        if match.thread_id is None:
            return
        if match.status == "playing" and match.game_id is not None:
            record = self.games.records.get(match.game_id)
            if record is not None and not record.game.is_over():
                progress.cancelled_games.append(await self.games.cancel(match.game_id))
        elif match.status == "pending":
            lobby = await self.db.lobbies.get_for_channel(match.thread_id)
            if lobby is not None and await self.db.lobbies.delete(lobby.id, self.clock()):
                progress.closed_lobbies.append(lobby)

    async def _advance(self, tournament_id: int, progress: Progress) -> None:
        """Pair the next round when the current one is complete, or finish the tournament."""
        while True:
            snapshot = await self.snapshot(tournament_id)
            progress.snapshot = snapshot
            tournament = snapshot.tournament
            if tournament.status != "running":
                return
            if any(m.is_open for m in snapshot.round_matches(tournament.round)):
                return
            pairs = next_round(snapshot)
            if pairs is None:
                tournament.status = "finished"
                tournament.finished_at = self.clock()
                await self.db.tournaments.save(tournament)
                progress.finished = True
                progress.snapshot = await self.snapshot(tournament_id)
                return
            matches = [
                self._new_match(snapshot, number, pair)
                for number, pair in enumerate(pairs, start=1)
                if pair is not None
            ]
            try:
                await self.db.tournaments.add_round(tournament_id, tournament.round + 1, matches)
            except StaleRoundError:
                log.warning(
                    "Round %d of tournament %d was already paired",
                    tournament.round + 1,
                    tournament_id,
                )
                return
            progress.paired.append(tournament.round + 1)
            progress.to_open += [m for m in matches if m.status == "pending"]

    def _new_match(self, snapshot: Snapshot, number: int, pair: Pair) -> MatchRecord:
        """A match row for a pairing: a bye and games against dropped entrants are decided."""
        a, b = pair
        match = MatchRecord(0, snapshot.tournament.id, 0, number, a, b)
        dropped = {e for e in (a, b) if e is not None and snapshot.entrants[e].dropped}
        if b is None:
            match.status, match.outcome, match.winner = "done", BYE, a
        elif dropped == {a, b}:
            match.status, match.outcome = "done", DOUBLE_FORFEIT
        elif dropped:
            match.status, match.outcome = "done", FORFEIT
            match.winner = b if a in dropped else a
        if match.status == "done":
            match.finished_at = self.clock()
        return match


def next_round(snapshot: Snapshot) -> list[Pair | None] | None:
    """The pairings of the round after the current one, or None when the tournament is over."""
    tournament = snapshot.tournament
    played = tournament.round
    fmt = tournament.format
    if fmt == ROUND_ROBIN:
        schedule = round_robin_schedule(snapshot.seeds())
        return list(schedule[played]) if played < len(schedule) else None
    if fmt == SWISS:
        active = snapshot.active()
        total = swiss_rounds(len(snapshot.entrants), snapshot.settings.rounds)
        if played >= total or len(active) < 2:
            return None
        points = snapshot.points()
        seed_rank = {e: n for n, e in enumerate(snapshot.seeds())}
        ranked = sorted(active, key=lambda e: (-points.get(e, 0.0), seed_rank[e]))
        met = {frozenset(m.sides) for m in snapshot.matches if m.entrant_b is not None}
        had_bye = {m.entrant_a for m in snapshot.matches if m.entrant_b is None}
        return list(swiss_pairings(ranked, met, had_bye))
    total = elimination_rounds(len(snapshot.entrants))
    if played >= total:
        return None
    if played == 0:
        return elimination_first_round(snapshot.seeds())
    by_place = {m.number: m.winner for m in snapshot.round_matches(played)}
    places = 2 ** (total - played)  # the matches of the round just played
    return next_elimination_round([by_place.get(n) for n in range(1, places + 1)])


def require_organiser(
    tournament: TournamentRecord, actor_id: int, moderator: bool, action: str
) -> None:
    """Only the organiser (its creator) or someone with Manage Server may ``action``."""
    if actor_id != tournament.organiser_id and not moderator:
        raise UserError(
            f"Only the organiser (<@{tournament.organiser_id}>) or someone with Manage Server "
            f"can {action}."
        )


def _players(snapshot: Snapshot, match: MatchRecord) -> list[int]:
    return [u for e in match.sides for u in snapshot.entrants[e].user_ids]


def _entrant_with(snapshot: Snapshot, sides: list[int], user_id: int) -> int | None:
    return next((e for e in sides if user_id in snapshot.entrants[e].user_ids), None)


def _seated_as_drawn(snapshot: Snapshot, match: MatchRecord, record: GameRecord) -> bool:
    """True when the game's two teams are exactly the match's two entrants."""
    settings = record.game.settings
    if settings.teams != 2 or any(seat.is_computer for seat in record.seats):
        return False
    teams = {frozenset(record.seats[s].user_id for s in settings.seats_of(t)) for t in range(2)}
    wanted = {frozenset(snapshot.entrants[e].user_ids) for e in match.sides}
    return teams == wanted
