"""Matches: a seated lobby in each match's thread, check-ins, the show-up deadline, and the
match's game (started as drawn, finished, cancelled and replayed; a drawn knockout game is
replayed as a tie-break game; a best-of match's games are a series, the next one seated as one
ends). Each change is one step (:meth:`~.core.TournamentCore._step`);
those that follow a game's events answer a second delivery of the same event without changing
anything."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.services.errors import UserError
from bot.store.lobbies import MatchLink
from bot.store.seats import Seat
from bot.store.tournaments.records import MatchRecord
from bot.table.options import TableOptions
from bot.table.series import scored, series_decided

from .core import CheckIn, Progress, TournamentCore, game_winner, match_players
from .model import Snapshot
from .standings import DOUBLE_FORFEIT, ELIMINATION, FORFEIT, WIN

if TYPE_CHECKING:
    from bot.store.games.records import GameRecord
    from bot.store.lobbies import LobbyRecord


class Matches(TournamentCore):
    """One match from its table to its result."""

    async def open_match(self, match_id: int, thread_id: int) -> Progress | None:
        """Seat the match's players in a lobby in its thread and start the show-up clock (in
        ``seated``).

        None when the match was decided meanwhile (a drop, a report, the end), or was given
        another thread already (a step shown twice)."""
        async with self._locked(await self.db.tournaments.match(match_id)) as match:
            if match is None or match.status != "pending" or match.entrant_b is None:
                return None
            if match.thread_id not in (None, thread_id):
                return None
            snapshot = await self.snapshot(match.tournament_id)
            match.thread_id = thread_id
            progress = Progress(snapshot)
            progress.seated.append((match, await self._seat_lobby(snapshot, match)))
            return await self._record(progress)

    async def set_match_message(self, match: MatchRecord, message_id: int) -> MatchRecord | None:
        """Remember the match message (with its check-in button). Returns the match as it now
        stands (its game may have started, or someone checked in, while the message was
        posted: that is kept), or None if it is gone."""
        return await self.db.tournaments.set_match_message(match.id, message_id)

    async def check_in(self, match_id: int, user_id: int) -> CheckIn:
        """A player of the match says they are here."""
        async with self._locked(await self.db.tournaments.match(match_id)) as match:
            if match is None:
                raise UserError("This match no longer exists.")
            if match.status == "playing":
                raise UserError("The game has already begun.")
            if match.status == "cancelled":
                raise UserError("This match is off: the tournament ended.")
            if match.status != "pending":
                raise UserError("This match is already decided.")
            snapshot = await self.snapshot(match.tournament_id)
            players = match_players(snapshot, match)
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
        the game; :meth:`game_cancelled` then opens a fresh lobby. A second delivery of the
        same start gets the same answer and changes nothing.
        """
        found = await self.db.tournaments.open_match_in_thread(record.channel_id)
        async with self._locked(found) as match:
            if match is not None and match.status == "playing" and match.game_id == record.id:
                snapshot = await self.snapshot(match.tournament_id)
                return match, _seated_as_drawn(snapshot, match, record)
            if match is None or match.status != "pending":
                return None
            snapshot = await self.snapshot(match.tournament_id)
            match.status = "playing"
            match.game_id = record.id
            match.deadline = None
            await self.db.tournaments.save_match(match)
            return match, _seated_as_drawn(snapshot, match, record)

    async def game_finished(self, record: GameRecord) -> Progress | None:
        """A match's game ended: record the result and pair the next round when it is due, in
        one step. None when it is not a match's game, or its result is recorded already (a
        second delivery of the game's end changes nothing)."""
        async with self._locked(await self.db.tournaments.match_for_game(record.id)) as match:
            if match is None or match.status != "playing" or match.game_id != record.id:
                return None
            snapshot = await self.snapshot(match.tournament_id)
            progress = Progress(snapshot)
            winner = game_winner(snapshot, match, record)
            if record.options.series_best_of > 1:
                return await self._series_game_ended(snapshot, match, record, winner, progress)
            if winner is None and snapshot.tournament.format == ELIMINATION:
                lobby = await self._seat_lobby(snapshot, match)  # a knockout needs a winner
                progress.replays.append((match, lobby))
                return await self._record(progress)
            await self._decide(match, winner, WIN, progress)
            await self._advance(match.tournament_id, progress)
            return await self._record(progress)

    async def game_cancelled(self, record: GameRecord) -> Progress | None:
        """A match's game was cancelled: the match is played again from a fresh lobby (in
        ``reseated``). None when it is not a running match's game, or was reseated already."""
        async with self._locked(await self.db.tournaments.match_for_game(record.id)) as match:
            if match is None or match.status != "playing" or match.game_id != record.id:
                return None
            snapshot = await self.snapshot(match.tournament_id)
            if snapshot.tournament.status != "running":
                return None
            progress = Progress(snapshot)
            again = None  # game N of a series is played again, the score as it was
            if record.options.series_best_of > 1:
                again = _series_options(match_table(snapshot, match), record.options)
            progress.reseated.append((match, await self._seat_lobby(snapshot, match, again)))
            return await self._record(progress)

    async def expire(self, match_id: int) -> Progress | None:
        """The show-up time of a match ran out: forfeits by the check-in rule (see above).

        None when the match was meanwhile started, decided or given a later deadline.
        """
        async with self._locked(await self.db.tournaments.match(match_id)) as match:
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
            return await self._record(progress)

    async def thread_gone(self, thread_id: int) -> tuple[MatchRecord, Snapshot] | None:
        """A match's thread was deleted: nobody can check in or play there any more, so its
        show-up clock stops, its lobby closes, and the organiser decides it
        (``/tournament-admin report``). None when no open match was played there."""
        found = await self.db.tournaments.open_match_in_thread(thread_id)
        async with self._locked(found) as match:
            if match is None or not match.is_open or match.thread_id != thread_id:
                return None
            if match.thread_gone_at is not None:
                return None  # the organiser was asked already
            lobby = await self.db.lobbies.get_for_channel(thread_id)
            if lobby is not None:  # nobody can check in there: the report decides the match
                await self.db.lobbies.delete(lobby.id, self.clock())
            match.deadline = None
            match.thread_gone_at = self.clock()
            await self.db.tournaments.save_match(match)
            return match, await self.snapshot(match.tournament_id)

    async def open_threads(self) -> dict[int, set[int]]:
        """The threads of every running tournament's open matches, by server (for start-up:
        one deleted while the bot was down goes to :meth:`thread_gone`)."""
        threads: dict[int, set[int]] = {}
        for tournament in await self.db.tournaments.running():
            for match in await self.db.tournaments.matches(tournament.id):
                if match.is_open and match.thread_id is not None:
                    threads.setdefault(tournament.guild_id, set()).add(match.thread_id)
        return threads

    async def pending_deadlines(self) -> list[MatchRecord]:
        """Every running tournament's matches waiting on a show-up deadline (for start-up)."""
        due = []
        for tournament in await self.db.tournaments.running():
            for match in await self.db.tournaments.matches(tournament.id):
                if match.status == "pending" and match.deadline is not None:
                    due.append(match)
        return due

    async def _series_game_ended(
        self,
        snapshot: Snapshot,
        match: MatchRecord,
        record: GameRecord,
        winner: int | None,
        progress: Progress,
    ) -> Progress:
        """A game of a best-of match ended (won by the entrant ``winner``; None: drawn, half
        a point each): the series is decided, drawn (level once all its games are played,
        where the format allows a draw), or its next game is seated in the thread (in
        ``next_games``; a knockout level after all its games plays one more at a time until a
        game is won). A thread deleted meanwhile seats nothing: the organiser reports it."""
        options = record.options
        side = None if winner is None else match.sides.index(winner)
        score = scored(options.series_score, 2, side)
        played, best_of = options.series_game, options.series_best_of
        if series_decided(score, best_of, played):
            leader = match.sides[0 if score[0] > score[1] else 1]
            progress.series[match.id] = score
            await self._decide(match, leader, WIN, progress)
        elif played >= best_of and snapshot.tournament.format != ELIMINATION:
            progress.series[match.id] = score
            await self._decide(match, None, WIN, progress)
        elif match.thread_gone_at is not None:
            match.status, match.game_id, match.deadline = "pending", None, None
            await self.db.tournaments.save_match(match)
            return await self._record(progress)
        else:
            following = match_table(snapshot, match).but(
                series_game=played + 1,
                series_after=record.id,
                series_score=score,
                series_dealer_team=record.game.team_of(record.game.dealer),
            )
            lobby = await self._seat_lobby(snapshot, match, following)
            progress.next_games.append((match, lobby))
            return await self._record(progress)
        await self._advance(match.tournament_id, progress)
        return await self._record(progress)

    async def _seat_lobby(
        self, snapshot: Snapshot, match: MatchRecord, options: TableOptions | None = None
    ) -> LobbyRecord:
        """A lobby in the match's thread with both entrants seated, and a new deadline; its
        table's ``options`` (default: a first game's, :func:`match_table`)."""
        assert match.thread_id is not None and match.entrant_b is not None
        settings = snapshot.settings
        seats = [
            Seat(m["user_id"], m["name"], team)
            for team, entrant in enumerate((match.entrant_a, match.entrant_b))
            for m in snapshot.entrants[entrant].members
        ]
        options = options or match_table(snapshot, match)
        now = self.clock()
        existing = await self.db.lobbies.get_for_channel(match.thread_id)
        if existing is not None:
            await self.db.lobbies.delete(existing.id, now)
        lobby = await self.db.lobbies.create(
            snapshot.tournament.guild_id,
            match.thread_id,
            seats[0].user_id,
            options,
            now=now,
            seats=seats,
            match=MatchLink(snapshot.tournament.id, match.id),
        )
        match.status = "pending"
        match.game_id = None
        match.checkins = []
        match.deadline = now + settings.show_up
        await self.db.tournaments.save_match(match)
        return lobby


def match_table(snapshot: Snapshot, match: MatchRecord) -> TableOptions:
    """The table options of a match's first game: the tournament's, for two teams without
    hints, marked as the match's; a best-of match's first game of its series."""
    options = snapshot.settings.table.but(teams=2, hints=False, tournament_match=match.id)
    best_of = snapshot.settings.best_of_in(match.round, snapshot.total_rounds())
    if best_of <= 1:
        return options
    names = (snapshot.name(match.entrant_a), snapshot.name(match.entrant_b))
    return options.but(series_best_of=best_of, series_names=names, series_score=(0, 0))


def _series_options(first: TableOptions, game: TableOptions) -> TableOptions:
    """A series game's options (``first``, the match's) at the place of the ``game`` before."""
    return first.but(
        series_game=game.series_game,
        series_after=game.series_after,
        series_score=game.series_score,
        series_dealer_team=game.series_dealer_team,
    )


def _seated_as_drawn(snapshot: Snapshot, match: MatchRecord, record: GameRecord) -> bool:
    """True when the game's two teams are exactly the match's two entrants."""
    settings = record.game.settings
    if settings.teams != 2 or any(seat.is_computer for seat in record.seats):
        return False
    teams = {frozenset(record.seats[s].user_id for s in settings.seats_of(t)) for t in range(2)}
    wanted = {frozenset(snapshot.entrants[e].user_ids) for e in match.sides}
    return teams == wanted
