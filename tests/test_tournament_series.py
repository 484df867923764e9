"""Best-of matches in the tournament service, on a real store without Discord: the series
score (a drawn game half a point each), the next game seated through the step, a level series
(more games in a knockout, a draw elsewhere), the first deal alternating, and the races: an
organiser's report, a deleted thread and a game's end in flight together."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import pytest

from bot.game.moves import AGREE_DRAW, RESIGN, Move
from bot.services.errors import UserError
from bot.services.lobbies import Person
from bot.services.tournament import TournamentSettings
from bot.store.base import Store
from bot.table.options import TableOptions
from bot.table.tournament import FINAL
from tests.test_tournament_service import CHANNEL, GUILD, ORGANISER, Clock, World

THREAD = 300
#: Team 0 (the match's first entrant, u1) resigns; team 1 (u2) resigns; both agree a draw.
BLUE_RESIGNS = Move(RESIGN, -1, team=0)
GREEN_RESIGNS = Move(RESIGN, -1, team=1)
DRAWN = Move(AGREE_DRAW, -1)


@pytest.fixture
async def world(db: Store) -> World:
    """The service on a store of each backend, each deal from a new seed (the first deal
    alternates by choosing the seed)."""
    made = World(db, Clock())
    made.lobbies.new_seed = itertools.count(1).__next__
    return made


async def best_of_final(world: World, best_of: int = 3, fmt: str = "elimination") -> Any:
    """u1 v u2, a match of ``best_of`` games (from the final, which is round 1), seated in
    its thread: the match."""
    tid = await world.tournament(fmt, 2, best_of=best_of, best_of_from=FINAL)
    (match,) = (await world.service.start(tid, ORGANISER, False)).to_open
    opened = await world.service.open_match(match.id, THREAD)
    assert opened is not None
    _, lobby = opened.seated[0]
    assert lobby.options.series_best_of == best_of and lobby.options.series_game == 1
    assert lobby.options.series_names == ("u1", "u2")
    assert lobby.options.tournament_match == match.id
    return match


async def start_next(world: World) -> Any:
    """The seated lobby's game begins (as the last check-in starts it)."""
    lobby = await world.db.lobbies.get_for_channel(THREAD)
    assert lobby is not None, "no lobby is seated"
    record = await world.lobbies.start(THREAD, lobby.host_id)
    world.games.add(record)
    found = await world.service.game_started(record)
    assert found is not None and found[1] is True
    return record


async def play_out(world: World, record: Any, move: Move) -> Any:
    """End a game with ``move`` (a resignation or an agreed draw); the tournament hears of it."""
    actor = 1 if move.team == 0 or move.kind == AGREE_DRAW else 2
    outcome = await world.games.apply(record.id, move, actor_id=actor)
    return await world.service.game_finished(outcome.record)


async def test_a_knockout_series_level_after_three_games_plays_a_deciding_game(
    world: World,
) -> None:
    match = await best_of_final(world)
    first = await start_next(world)
    step = await play_out(world, first, BLUE_RESIGNS)  # u2 wins game 1
    assert step is not None and step.step is not None and not step.decided
    (seated, lobby) = step.next_games[0]
    assert seated.status == "pending" and seated.game_id is None
    assert lobby.options.series_game == 2 and lobby.options.series_score == (0, 1)
    assert lobby.options.series_after == first.id
    second = await start_next(world)
    dealt = first.game.team_of(first.game.dealer)
    assert second.game.team_of(second.game.dealer) != dealt  # the first deal alternates
    assert await world.service.game_finished(first) is None  # a second delivery: nothing
    step = await play_out(world, second, GREEN_RESIGNS)  # u1 wins game 2: 1–1
    assert step.next_games[0][1].options.series_score == (1, 1)
    third = await start_next(world)
    step = await play_out(world, third, DRAWN)  # drawn: 1½–1½ after all three games
    assert not step.decided and step.next_games[0][1].options.series_score == (1.5, 1.5)
    assert step.next_games[0][1].options.series_game == 4
    fourth = await start_next(world)
    step = await play_out(world, fourth, GREEN_RESIGNS)  # the deciding game: u1
    assert step is not None and step.finished
    (decided,) = step.decided
    assert decided.id == match.id and decided.outcome == "win" and decided.game_id == fourth.id
    assert step.snapshot.name(decided.winner) == "u1"
    assert step.series == {match.id: (2.5, 1.5)}
    assert await world.db.lobbies.get_for_channel(THREAD) is None
    results = await world.db.results.for_guild(GUILD)
    assert len(results) == 4  # each game rated as any


async def test_a_swiss_series_level_after_its_games_is_a_draw(world: World) -> None:
    match = await best_of_final(world, fmt="swiss")
    for move in (BLUE_RESIGNS, GREEN_RESIGNS):
        step = await play_out(world, await start_next(world), move)
        assert step is not None and step.next_games
    step = await play_out(world, await start_next(world), DRAWN)
    assert step is not None and step.finished
    (decided,) = step.decided
    assert decided.id == match.id and decided.winner is None and decided.outcome == "win"
    assert step.snapshot.points() == {match.entrant_a: 0.5, match.entrant_b: 0.5}


async def test_a_best_of_five_is_decided_by_a_majority_and_a_cancelled_game_is_replayed(
    world: World,
) -> None:
    match = await best_of_final(world, best_of=5)
    step = await play_out(world, await start_next(world), GREEN_RESIGNS)
    cancelled = await world.games.cancel((await start_next(world)).id)
    again = await world.service.game_cancelled(cancelled)  # game 2 again, the score as it was
    assert again is not None
    options = again.reseated[0][1].options
    assert (options.series_game, options.series_score) == (2, (1, 0))
    assert options.series_after == step.next_games[0][1].options.series_after
    for _ in range(2):
        step = await play_out(world, await start_next(world), GREEN_RESIGNS)
    assert step.finished and step.series == {match.id: (3, 0)}  # 3 of 5: no more games


async def test_best_of_settings_are_checked(world: World) -> None:
    person = Person(ORGANISER, "org")
    table = TableOptions(teams=2)
    for settings, message in (
        (TournamentSettings(table, best_of=2), "best of 1, 3 or 5"),
        (TournamentSettings(table, best_of=3, best_of_from=0), "final"),
        (TournamentSettings(table, best_of_from=FINAL), "choose best_of"),
    ):
        with pytest.raises(UserError, match=message):
            await world.service.create(GUILD, CHANNEL, person, "Cup", "swiss", 1, settings)


@pytest.mark.parametrize("report_first", [True, False])
async def test_a_game_ending_as_the_organiser_reports_the_series(
    world: World, report_first: bool
) -> None:
    """Game 1 of 3 ends (u2 wins it) while the organiser reports u1 as the match's winner,
    both in flight, in either order: the report decides the match; the game is rated as
    played; no next game is left seated, and the tournament finishes once."""
    match = await best_of_final(world)
    record = await start_next(world)
    reported, game_over = asyncio.Event(), asyncio.Event()

    async def report() -> Any:
        if not report_first:
            await game_over.wait()
        progress = await world.service.report(match.tournament_id, ORGANISER, False, match.id, 1)
        await world.service.stop_games(progress)
        reported.set()
        return progress

    async def game_ends() -> Any:
        outcome = await world.games.apply(record.id, BLUE_RESIGNS, actor_id=1)
        if report_first:
            await reported.wait()
        step = await world.service.game_finished(outcome.record)
        game_over.set()
        return step

    by_report, by_game = await asyncio.gather(report(), game_ends())
    snap = await world.service.snapshot(match.tournament_id)
    (decided,) = snap.matches
    assert decided.status == "done" and decided.outcome == "reported"
    assert snap.name(decided.winner) == "u1" and snap.tournament.status == "finished"
    assert by_report.finished and by_report.decided[0].id == match.id
    assert not by_report.cancelled_games  # the game was over: it stays won, and rated
    if report_first:
        assert by_game is None  # the match was decided: the game's end changes nothing
    else:
        assert by_game.next_games and not by_game.finished  # seated, then closed by the report
        assert [lobby.channel_id for lobby in by_report.closed_lobbies] == [THREAD]
    assert await world.db.lobbies.get_for_channel(THREAD) is None
    assert world.games.find_in_channel(THREAD) is None
    assert len(await world.db.results.for_guild(GUILD)) == 1


@pytest.mark.parametrize("move_lands_first", [True, False])
async def test_a_report_in_the_middle_of_a_game_stops_it_cleanly(
    world: World, move_lands_first: bool
) -> None:
    """Game 2 is being played when the organiser reports u2 the winner; the players agree a
    draw meanwhile, landing after the report's commit and before its game is stopped, or
    after: the game ends once (drawn as played, or stopped: cancelled, unrated), its end
    seats nothing again, and the report's result stands."""
    match = await best_of_final(world)
    await play_out(world, await start_next(world), BLUE_RESIGNS)
    second = await start_next(world)
    committed, stopped = asyncio.Event(), asyncio.Event()

    async def report() -> Any:
        progress = await world.service.report(match.tournament_id, ORGANISER, False, match.id, 2)
        committed.set()
        if move_lands_first:
            await stopped.wait()
        await world.service.stop_games(progress)
        if not move_lands_first:
            stopped.set()
        return progress

    async def draw() -> Any:
        await (committed if move_lands_first else stopped).wait()
        try:
            return await world.games.apply(second.id, DRAWN, actor_id=1)
        finally:
            if move_lands_first:
                stopped.set()

    progress, drawn = await asyncio.gather(report(), draw(), return_exceptions=True)
    assert not isinstance(progress, BaseException)
    assert progress.decided[0].outcome == "reported" and progress.finished
    ended = await world.db.games.load(second.id)
    if move_lands_first:  # the game ended as played; the report stops nothing
        assert not isinstance(drawn, BaseException) and ended.status == "finished"
        assert not progress.cancelled_games
        assert await world.service.game_finished(ended) is None
    else:  # stopped: the draw is refused
        assert isinstance(drawn, UserError) and ended.status == "cancelled"
        assert [g.id for g in progress.cancelled_games] == [second.id]
        assert await world.service.game_cancelled(ended) is None
    assert await world.db.lobbies.get_for_channel(THREAD) is None
    assert world.games.find_in_channel(THREAD) is None
    snap = await world.service.snapshot(match.tournament_id)
    assert snap.name(snap.matches[0].winner) == "u2"
    assert len(await world.db.results.for_guild(GUILD)) == (2 if move_lands_first else 1)


async def test_a_series_whose_thread_is_deleted_as_a_game_ends(world: World) -> None:
    """The thread goes as game 1 ends: whichever the tournament hears first, no next game is
    left seated there, the show-up clock is off, and the organiser's report decides it."""
    match = await best_of_final(world)
    record = await start_next(world)
    outcome = await world.games.apply(record.id, BLUE_RESIGNS, actor_id=1)
    gone, step = await asyncio.gather(
        world.service.thread_gone(THREAD), world.service.game_finished(outcome.record)
    )
    assert gone is not None and step is not None and not step.decided
    current = await world.db.tournaments.match(match.id)
    assert current is not None and current.status == "pending" and current.deadline is None
    assert current.thread_gone_at is not None
    assert await world.db.lobbies.get_for_channel(THREAD) is None
    assert await world.service.thread_gone(THREAD) is None  # asked once
    done = await world.service.report(match.tournament_id, ORGANISER, False, match.id, 2)
    assert done.finished and done.decided[0].outcome == "reported"


async def test_a_series_goes_on_after_a_restart(world: World) -> None:
    """Game 1 ends as the process stops, before the tournament hears of it: a new process,
    delivered the game's end again (the outbox), seats game 2 with the score from the store."""
    match = await best_of_final(world)
    record = await start_next(world)
    await world.games.apply(record.id, GREEN_RESIGNS, actor_id=2)
    restarted = World(world.db, world.clock)
    restarted.lobbies.new_seed = itertools.count(50).__next__
    step = await restarted.service.game_finished(await restarted.db.games.load(record.id))
    assert step is not None and step.next_games[0][1].options.series_score == (1, 0)
    assert await restarted.service.game_finished(record) is None
    (shown,) = [p for p in await restarted.service.undelivered_steps() if p.next_games]
    assert shown.next_games[0][0].id == match.id  # the step, read back to be shown
