"""Rounds: the start (seeds, the first pairing), pairing each round when the last one is
complete (in the step that completes it), the organiser's results by hand, drops and ending
early. Each is one step (:meth:`~.core.TournamentCore._step`): saved whole or not at all."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import random

from bot.seasons import NONE, season_at, stored_plan
from bot.services.errors import UserError
from bot.skill import Rating
from bot.store.errors import NotFoundError
from bot.store.games.records import FINISHED
from bot.store.seasons import SEASON_PLAN
from bot.store.tournaments.records import EntrantRecord, MatchRecord, StaleRoundError

from .core import Correction, Progress, TournamentCore, entrant_with, game_winner, require_organiser
from .model import Snapshot, swiss_rounds
from .pairing import (
    Pair,
    elimination_first_round,
    elimination_rounds,
    next_elimination_round,
    round_robin_schedule,
    swiss_pairings,
)
from .standings import BYE, DOUBLE_FORFEIT, ELIMINATION, FORFEIT, REPORTED, ROUND_ROBIN, SWISS

log = logging.getLogger(__name__)

#: Why a tournament no longer signing up cannot start, by its status.
_STARTED = {
    "running": "This tournament has already started.",
    "finished": "This tournament is over.",
    "cancelled": "This tournament was cancelled before it started.",
}


class Rounds(TournamentCore):
    """The organiser's decisions and the pairing of rounds."""

    async def start(self, tournament_id: int, actor_id: int, moderator: bool) -> Progress:
        """Close sign-up, fix the seeds and pair the first round (organiser only)."""
        async with self._step(tournament_id):
            tournament = await self._get(tournament_id)
            require_organiser(tournament, actor_id, moderator, "start the tournament")
            if tournament.status != "signup":  # started, or ended by another organiser
                raise UserError(_STARTED[tournament.status])
            entrants = await self.db.tournaments.entrants(tournament_id)
            if len(entrants) < 2:
                raise UserError("A tournament needs at least 2 entrants to start.")
            strength = await self._strength(
                tournament.guild_id, entrants, tournament.settings.seeding
            )
            order = sorted(entrants, key=lambda e: (-strength.get(e.id, 0.0), e.joined_at, e.id))
            await self.db.tournaments.set_seeds({e.id: n for n, e in enumerate(order, start=1)})
            if tournament.format == SWISS:
                rounds = swiss_rounds(len(entrants), tournament.settings.rounds)
                tournament.settings = dataclasses.replace(tournament.settings, rounds=rounds)
            tournament.status = "running"
            await self.db.tournaments.save(tournament)
            progress = Progress(await self.snapshot(tournament_id))
            await self._advance(tournament_id, progress)
            return await self._record(progress)

    async def report(
        self,
        tournament_id: int,
        actor_id: int,
        moderator: bool,
        match_id: int,
        winner_user_id: int | None,
    ) -> Progress:
        """The organiser enters a match result by hand (``winner_user_id`` None: a draw), or
        corrects the result of a decided match of the current round (see :meth:`_correct`)."""
        async with self._step(tournament_id):
            tournament = await self._get(tournament_id)
            require_organiser(tournament, actor_id, moderator, "report results")
            if tournament.status not in ("signup", "running"):  # ended as the report came
                raise UserError("This tournament is over.")
            match = await self.db.tournaments.match(match_id)
            if match is None or match.tournament_id != tournament_id:
                raise UserError(f"There is no match #{match_id} in this tournament.")
            if match.status != "done" and not match.is_open:  # called off: never so if running
                raise UserError(f"Match #{match_id} was called off.")
            if match.round < tournament.round:
                raise UserError(
                    "Results cannot be changed once the next round is paired: a result can be "
                    "corrected only while its round is still being played."
                )
            if match.entrant_b is None:
                raise UserError(f"Match #{match_id} is a bye: it has no result to change.")
            snapshot = await self.snapshot(tournament_id)
            if winner_user_id is None:
                if tournament.format == ELIMINATION:
                    raise UserError("A knockout match needs a winner: name a player of it.")
                winner = None
            else:
                winner = entrant_with(snapshot, match.sides, winner_user_id)
                if winner is None:
                    raise UserError("That player is not in this match.")
            progress = Progress(snapshot)
            if match.is_open:
                await self._decide(match, winner, REPORTED, progress)
            else:  # a correction leaves the round as complete as it was (no pairing due)
                await self._correct(snapshot, match, winner, progress)
            await self._advance(tournament_id, progress)
            return await self._record(progress)

    async def _correct(
        self, snapshot: Snapshot, match: MatchRecord, winner: int | None, progress: Progress
    ) -> None:
        """Replace a decided match's result by the organiser's (ratings keep the game's). Only
        a match of the current round, so no pairing was made from the result it replaces: as
        a round's last result pairs the next one at once, that is a round still being played."""
        if winner == match.winner and match.outcome != DOUBLE_FORFEIT:
            raise UserError(f"Match #{match.id} already has that result.")
        game = None
        if match.game_id is not None:
            with contextlib.suppress(NotFoundError):
                game = await self.db.games.load(match.game_id)
        if game is not None and game.status != FINISHED:
            game = None  # cancelled, or stopped by a report: no result of its own
        before = dataclasses.replace(match, checkins=list(match.checkins))
        match.winner = winner
        match.outcome = REPORTED
        match.finished_at = self.clock()
        await self.db.tournaments.save_match(match)
        won = None if game is None else game_winner(snapshot, match, game)
        progress.corrected.append(Correction(before, match, game, won))

    async def drop(
        self, tournament_id: int, actor_id: int, moderator: bool, user_id: int
    ) -> tuple[EntrantRecord, Progress]:
        """The organiser drops the entrant a user plays for: its open match is forfeited."""
        async with self._step(tournament_id):
            tournament = await self._get(tournament_id)
            require_organiser(tournament, actor_id, moderator, "drop entrants")
            entrant = await self.db.tournaments.entrant_of(tournament_id, user_id)
            if entrant is None:
                raise UserError("That player is not in this tournament.")
            if tournament.status == "signup":
                await self.db.tournaments.remove_entrant(entrant.id)
                return entrant, await self._record(Progress(await self.snapshot(tournament_id)))
            if tournament.status != "running":
                raise UserError("This tournament is over.")
            if entrant.dropped:
                verb = "were" if len(entrant.members) > 1 else "was"  # a team: were
                raise UserError(f"{entrant.name} {verb} already dropped.")
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
            return snapshot.entrants[entrant.id], await self._record(progress)

    async def end(self, tournament_id: int, actor_id: int, moderator: bool) -> Progress:
        """The organiser ends the tournament now: the unfinished round's open matches and byes
        are cancelled; the standings are final."""
        async with self._step(tournament_id):
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
                    if match.is_open:
                        progress.called_off.append(match)
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
            return await self._record(progress)

    async def _strength(
        self, guild_id: int, entrants: list[EntrantRecord], seeding: str = "all_time"
    ) -> dict[int, float]:
        """Each entrant's mean server rating (ordinal), for seeding: all-time, or the running
        season's (a player without one counts as a newcomer); at random, a random number."""
        if seeding == "random":
            draw = random.SystemRandom()
            return {e.id: draw.random() for e in entrants}
        if self.ratings is None:
            return {}
        users = sorted({user for e in entrants for user in e.user_ids})
        season = None
        if seeding == "season":
            stored = await self.db.guild_settings.all(guild_id)
            plan = stored_plan(stored[SEASON_PLAN].value) if SEASON_PLAN in stored else NONE
            season = season_at(plan, self.clock())
        if season is not None:
            ratings = await self.db.seasons.ratings_of(guild_id, season.name, users)
        else:
            ratings = await self.db.standings.ratings_of(guild_id, users)  # the stored ratings
        return {
            e.id: sum(ratings.get(u, Rating()).ordinal for u in e.user_ids) / len(e.user_ids)
            for e in entrants
        }

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
            # A Swiss search can take seconds (many entrants, many rounds): off the loop.
            pairs = await asyncio.to_thread(next_round, snapshot)
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
                if pair is not None and not _dropped_bye(snapshot, pair)
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


def _dropped_bye(snapshot: Snapshot, pair: Pair) -> bool:
    """A bye of a dropped entrant: no match at all (a bye would score it a win, and in a
    knockout carry it on)."""
    a, b = pair
    return b is None and snapshot.entrants[a].dropped


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
        met = [frozenset(m.sides) for m in snapshot.matches if m.entrant_b is not None]
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
