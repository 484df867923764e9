"""A tournament step in the outbox: what it did (a :class:`~.core.Progress`), written in the
step's own transaction, shown once it has committed, and read back if it was not shown (a crash,
a restart, a store outage while it was being shown).

The stored form holds the records as the step left them (matches, lobbies) and ids for the rest:
read back, the tournament is read as it stands now and the games to stop are looked up again.
Showing a step is at least once: the tables stop a game only if it is still on, and open a
thread only for a match that has none.

A step that pairs matches also writes a second event, :data:`THREADS`: the threads of those
matches, opened one by one in the background (Discord limits thread creation for minutes at a
time). It is delivered once every one of them is open (or no longer needs one), so a crash or a
restart meanwhile opens the rest.
"""

from __future__ import annotations

import contextlib
import dataclasses
from typing import TYPE_CHECKING, Any

from bot.services.errors import UserError
from bot.store.errors import NotFoundError
from bot.store.lobbies import lobby_from_json, lobby_to_json
from bot.store.tournaments.records import MatchRecord

from .core import Correction, Progress, TournamentCore

if TYPE_CHECKING:
    from bot.store.outbox import StepRow

#: The kind of a stored step.
STEP = "TournamentStepped"
#: The kind of a stored event whose matches' threads are still to open.
THREADS = "MatchThreadsToOpen"
#: The Progress fields that are lists of matches.
_MATCHES = ("decided", "called_off", "to_open")
#: The Progress fields that are lists of (match, lobby).
_SEATINGS = ("replays", "reseated", "next_games", "seated")


class Steps(TournamentCore):
    """Writing a step to the outbox, reading back those not shown, and marking them shown."""

    async def _record(self, progress: Progress) -> Progress:
        """In the step's transaction: write ``progress`` to the outbox (its id in ``step``)."""
        tournament_id = progress.snapshot.tournament.id
        payload = encode(progress)
        progress.step = await self.db.outbox.add_step(tournament_id, STEP, payload, self.clock())
        if progress.to_open:
            threads = {"matches": [match.id for match in progress.to_open]}
            progress.threads_step = await self.db.outbox.add_step(
                tournament_id, THREADS, threads, self.clock()
            )
        return progress

    async def undelivered_steps(self) -> list[Progress]:
        """The steps of this process's tournaments not shown yet, oldest first."""
        steps = []
        for row in await self.db.outbox.undelivered_steps():
            steps.append(await self._decode(row))
        return steps

    async def step_shown(self, step: int) -> None:
        """The step was shown: it is delivered (never shown again)."""
        await self.db.outbox.mark({step: frozenset()}, self.clock())

    async def stop_games(self, progress: Progress) -> None:
        """After the step's commit: stop the games of matches it decided elsewhere (a report,
        a drop, a forfeit, the end) that are still on, into ``cancelled_games``."""
        for game_id in progress.stop_games:
            record = self.games.records.get(game_id)
            if record is None or record.game.is_over():
                continue  # over already (won as the step landed, or stopped by a first showing)
            with contextlib.suppress(UserError):
                progress.cancelled_games.append(await self.games.cancel(game_id))

    async def _decode(self, row: StepRow) -> Progress:
        payload = row.payload
        if row.kind == THREADS:  # only threads to open: the matches as they stand now
            snapshot = await self.snapshot(row.tournament_id)
            wanted = {int(match_id) for match_id in payload.get("matches", [])}
            to_open = [m for m in snapshot.matches if m.id in wanted]
            return Progress(snapshot, to_open=to_open, threads_step=row.id)
        progress = Progress(await self.snapshot(row.tournament_id), step=row.id)
        for name in _MATCHES:
            getattr(progress, name).extend(_match(data) for data in payload.get(name, []))
        for name in _SEATINGS:
            seatings = getattr(progress, name)
            seatings.extend((_match(m), lobby_from_json(lo)) for m, lo in payload.get(name, []))
        closed = payload.get("closed_lobbies", [])
        progress.closed_lobbies = [lobby_from_json(data) for data in closed]
        progress.stop_games = [int(game_id) for game_id in payload.get("stop_games", [])]
        progress.paired = [int(number) for number in payload.get("paired", [])]
        progress.finished = bool(payload.get("finished"))
        progress.series = {
            int(match_id): tuple(score) for match_id, score in payload.get("series", {}).items()
        }
        for before, after, game_id, winner in payload.get("corrected", []):
            game = None
            if game_id is not None:
                with contextlib.suppress(NotFoundError):
                    game = await self.db.games.load(game_id)
            progress.corrected.append(Correction(_match(before), _match(after), game, winner))
        return progress


def encode(progress: Progress) -> dict[str, Any]:
    """The stored form of a step's ``progress``."""
    payload: dict[str, Any] = {
        name: [dataclasses.asdict(m) for m in getattr(progress, name)] for name in _MATCHES
    }
    for name in _SEATINGS:
        seatings = getattr(progress, name)
        payload[name] = [[dataclasses.asdict(m), lobby_to_json(lo)] for m, lo in seatings]
    payload["closed_lobbies"] = [lobby_to_json(lobby) for lobby in progress.closed_lobbies]
    payload["stop_games"] = list(progress.stop_games)
    payload["paired"] = list(progress.paired)
    payload["finished"] = progress.finished
    payload["series"] = {str(match_id): list(score) for match_id, score in progress.series.items()}
    payload["corrected"] = [
        [
            dataclasses.asdict(c.before),
            dataclasses.asdict(c.after),
            None if c.game is None else c.game.id,
            c.game_winner,
        ]
        for c in progress.corrected
    ]
    return payload


def _match(data: dict[str, Any]) -> MatchRecord:
    return MatchRecord(**{**data, "checkins": list(data.get("checkins", []))})
