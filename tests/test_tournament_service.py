"""The tournament service on a real store, without Discord: sign-up, seeding, the show-up rule,
results, drops, hand reports, the end, and resuming after a crash."""

from __future__ import annotations

import asyncio
import threading

import pytest

from bot.game.moves import RESIGN, Move
from bot.services.errors import UserError
from bot.services.games import GameService
from bot.services.lobbies import LobbyService, Person
from bot.services.ratings import RatingService
from bot.services.tournament import TournamentService, TournamentSettings, rounds
from bot.store.base import Store
from bot.store.errors import DatabaseUnavailableError
from bot.table.options import TableOptions

GUILD, CHANNEL, ORGANISER = 1, 10, 99
#: Blue (team 0) resigns as a whole.
RESIGNS = Move(RESIGN, -1, team=0)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class World:
    """A store, the game and lobby services, and the tournament service, sharing a clock."""

    def __init__(self, db, clock: Clock) -> None:
        self.db = db
        self.clock = clock
        self.games = GameService(db, clock)
        self.lobbies = LobbyService(db, clock, new_seed=lambda: 7)
        self.service = TournamentService(db, clock, self.games, RatingService(db))

    async def tournament(self, fmt: str, players: int, **settings: object) -> int:
        table = TableOptions(teams=2, sequences_to_win=1)
        created = await self.service.create(
            GUILD,
            CHANNEL,
            Person(ORGANISER, "org"),
            "Test Cup",
            fmt,
            1,
            TournamentSettings(table, **settings),  # type: ignore[arg-type]
        )
        for user in range(1, players + 1):
            await self.service.join(created.id, Person(user, f"u{user}"), [])
        return created.id

    async def start_game(self, match_id: int, thread_id: int):
        """Seat the match in a thread, start its game as the host would."""
        opened = await self.service.open_match(match_id, thread_id)
        assert opened is not None
        _, lobby = opened.seated[0]
        record = await self.lobbies.start(thread_id, lobby.host_id)
        self.games.add(record)
        found = await self.service.game_started(record)
        assert found is not None and found[1] is True
        return record

    async def names(self, tournament_id: int, number: int) -> list[tuple[str, str | None]]:
        snap = await self.service.snapshot(tournament_id)
        return [
            (snap.name(m.entrant_a), None if m.entrant_b is None else snap.name(m.entrant_b))
            for m in snap.round_matches(number)
        ]


@pytest.fixture
async def world(db: Store) -> World:
    """The service on a store of each backend (``db`` of conftest)."""
    return World(db, Clock())


async def test_create_refuses_bad_settings(world: World) -> None:
    table = TableOptions(teams=2)
    person = Person(ORGANISER, "org")
    for name, fmt, size, settings, message in (
        ("", "swiss", 1, TournamentSettings(table), "a name"),
        ("Cup", "ladder", 1, TournamentSettings(table), "format"),
        ("Cup", "swiss", 4, TournamentSettings(table), "1, 2 or 3"),
        ("Cup", "swiss", 1, TournamentSettings(table, show_up=10), "show-up time"),
        ("Cup", "swiss", 1, TournamentSettings(table, rounds=40), "1 to 20 rounds"),
        ("Cup", "swiss", 3, TournamentSettings(table.but(preset="convoy")), ""),
    ):
        if not message:  # convoy takes 6 players: allowed
            created = await world.service.create(GUILD, 50, person, name, fmt, size, settings)
            assert created.team_size == 3
            continue
        with pytest.raises(UserError, match=message):
            await world.service.create(GUILD, CHANNEL, person, name, fmt, size, settings)
    await world.tournament("swiss", 0)
    with pytest.raises(UserError, match="already open in this channel"):
        await world.tournament("swiss", 0)


async def test_a_round_is_paired_off_the_event_loop(world: World, monkeypatch) -> None:
    """A Swiss pairing is a search: with 30 to 44 entrants and up to 20 rounds, one in five
    such tournaments (in a simulation) had a round whose pairing took 0.1 to 2.3 s, all of
    it on the event loop, which froze every game the bot serves. It runs on a worker thread:
    the event loop goes on with its other work meanwhile."""
    tid = await world.tournament("swiss", 4)
    loop = asyncio.get_running_loop()
    other_work, seen = threading.Event(), []
    real = rounds.swiss_pairings

    def long_pairing(*args: object) -> object:
        loop.call_soon_threadsafe(other_work.set)  # runs only when the event loop is free
        seen.append(other_work.wait(timeout=10))
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(rounds, "swiss_pairings", long_pairing)
    progress = await world.service.start(tid, ORGANISER, False)
    assert progress.paired == [1] and len(progress.to_open) == 2
    assert seen == [True]  # the event loop ran other work while the round was paired


async def test_sign_up_rules(world: World) -> None:
    tid = await world.tournament("round_robin", 2)
    service = world.service
    with pytest.raises(UserError, match="already signed up"):
        await service.join(tid, Person(1, "u1"), [])
    with pytest.raises(UserError, match="single players"):
        await service.join(tid, Person(5, "u5"), [Person(6, "u6")])
    await service.leave(tid, 2)
    with pytest.raises(UserError, match="not signed up"):
        await service.leave(tid, 2)
    with pytest.raises(UserError, match="at least 2 entrants"):
        await service.start(tid, ORGANISER, False)
    await service.join(tid, Person(2, "u2"), [])
    with pytest.raises(UserError, match="Only the organiser"):
        await service.start(tid, 1, False)
    await service.start(tid, 1, True)  # Manage Server may act for the organiser
    with pytest.raises(UserError, match="Sign-up is closed"):
        await service.join(tid, Person(3, "u3"), [])
    with pytest.raises(UserError, match="ask the organiser to drop you"):
        await service.leave(tid, 1)


async def test_teams_sign_up_together(world: World) -> None:
    created = await world.service.create(
        GUILD, CHANNEL, Person(ORGANISER, "o"), "Pairs", "swiss", 2,
        TournamentSettings(TableOptions(teams=2)),
    )  # fmt: skip
    with pytest.raises(UserError, match="teams of 2"):
        await world.service.join(created.id, Person(1, "a"), [])
    with pytest.raises(UserError, match="different person"):
        await world.service.join(created.id, Person(1, "a"), [Person(1, "a")])
    team = await world.service.join(created.id, Person(1, "a"), [Person(2, "b")])
    assert team.name == "a & b" and team.user_ids == [1, 2]
    with pytest.raises(UserError, match="<@2> is already signed up"):
        await world.service.join(created.id, Person(3, "c"), [Person(2, "b")])


async def test_seeds_follow_the_server_rating(world: World) -> None:
    # u3 has beaten u9 in a rated game: seed 1; then u1, u2, u4 in sign-up order (1 v 4, 2 v 3)
    from .store_util import create_game

    game = await create_game(world.db, channel_id=500, guild_id=GUILD)
    await world.db.results.record(game.id, GUILD, [[3], [9]], 0, True, {}, now=1.0)
    tid = await world.tournament("elimination", 4)
    await world.service.start(tid, ORGANISER, False)
    assert await world.names(tid, 1) == [("u3", "u4"), ("u1", "u2")]


async def test_show_up_rule(world: World) -> None:
    tid = await world.tournament("swiss", 6, show_up=600)
    progress = await world.service.start(tid, ORGANISER, False)
    one, both, none = progress.to_open
    for number, match in enumerate((one, both, none), start=1):
        await world.service.open_match(match.id, 100 + number)
    await world.service.check_in(one.id, 1)  # u1 here, u2 not
    with pytest.raises(UserError, match="not yours"):
        await world.service.check_in(one.id, 3)
    assert (await world.service.check_in(both.id, 3)).everyone_here is False
    assert (await world.service.check_in(both.id, 4)).everyone_here is True
    assert await world.service.expire(one.id) is None  # not due yet
    world.clock.now += 600
    decided = await world.service.expire(one.id)
    assert decided is not None and decided.decided[0].outcome == "forfeit"
    assert decided.closed_lobbies and decided.closed_lobbies[0].channel_id == 101
    assert await world.service.expire(both.id) is not None  # everyone here: no forfeit
    assert (await world.db.tournaments.match(both.id)).status == "pending"  # type: ignore[union-attr]
    last = await world.service.expire(none.id)
    assert last is not None and last.decided[0].outcome == "double_forfeit"
    assert last.paired == []  # the both-present match is still open: no round 2 yet


async def test_game_results_draws_and_cancellations(world: World) -> None:
    tid = await world.tournament("elimination", 2)
    progress = await world.service.start(tid, ORGANISER, False)
    (match,) = progress.to_open
    record = await world.start_game(match.id, 200)
    # a cancelled game: the match goes back to a seated lobby with a new deadline
    world.clock.now += 30
    cancelled = await world.games.cancel(record.id)
    reseated = await world.service.game_cancelled(cancelled)
    assert reseated is not None
    again, lobby = reseated.reseated[0]
    assert again.status == "pending" and again.deadline == world.clock.now + 15 * 60
    assert [s.user_id for s in lobby.seats] == [1, 2]
    # the next game: u1 (Blue) resigns, u2 wins the final and the tournament
    record = await world.start_game(match.id, 200)
    outcome = await world.games.apply(record.id, RESIGNS, actor_id=1)
    done = await world.service.game_finished(outcome.record)
    assert done is not None and done.finished
    assert done.snapshot.name(done.snapshot.champion()) == "u2"
    assert await world.service.game_finished(outcome.record) is None  # only once


async def test_a_match_whose_game_ended_before_a_restart_moves_on(world: World) -> None:
    tid = await world.tournament("elimination", 2)
    progress = await world.service.start(tid, ORGANISER, False)
    (match,) = progress.to_open
    record = await world.start_game(match.id, 200)
    await world.games.apply(record.id, RESIGNS, actor_id=1)
    # the process stops before the tournament hears of the end: a new one is delivered the
    # game's end again (the outbox), as the store holds it
    restarted = World(world.db, world.clock)
    ended = await restarted.db.games.load(record.id)
    assert ended.id == record.id and ended.status == "finished"
    done = await restarted.service.game_finished(ended)
    assert done is not None and done.finished
    assert await restarted.service.game_finished(ended) is None  # a second delivery: nothing


async def test_reports_and_drops(world: World) -> None:
    tid = await world.tournament("swiss", 4, rounds=2)
    progress = await world.service.start(tid, ORGANISER, False)
    first, _ = progress.to_open
    with pytest.raises(UserError, match="not in this match"):
        await world.service.report(tid, ORGANISER, False, first.id, 3)
    with pytest.raises(UserError, match="Only the organiser"):
        await world.service.report(tid, 1, False, first.id, 1)
    reported = await world.service.report(tid, ORGANISER, False, first.id, None)  # a draw
    assert reported.decided[0].winner is None
    with pytest.raises(UserError, match="already has that result"):  # a correction
        await world.service.report(tid, ORGANISER, False, first.id, None)
    # dropping u4 forfeits its open match to u3 and completes round 1
    entrant, dropped = await world.service.drop(tid, ORGANISER, False, 4)
    assert entrant.name == "u4" and dropped.decided[0].outcome == "forfeit"
    assert dropped.paired == [2]
    # round 2: u3 (1 pt) v u1 (½), and u2 (½) has the bye (u4 is out)
    assert await world.names(tid, 2) == [("u3", "u1"), ("u2", None)]
    with pytest.raises(UserError, match="once the next round is paired"):
        await world.service.report(tid, ORGANISER, False, first.id, 1)
    with pytest.raises(UserError, match="already dropped"):
        await world.service.drop(tid, ORGANISER, False, 4)


async def test_knockout_draws_are_replayed_and_cannot_be_reported(world: World) -> None:
    tid = await world.tournament("elimination", 2)
    (match,) = (await world.service.start(tid, ORGANISER, False)).to_open
    with pytest.raises(UserError, match="needs a winner"):
        await world.service.report(tid, ORGANISER, False, match.id, None)
    record = await world.start_game(match.id, 300)
    await world.db.games.finish(record.id, "finished", now=world.clock())  # ends with no winner
    assert record.game.winner is None
    progress = await world.service.game_finished(record)
    assert progress is not None and not progress.decided and len(progress.replays) == 1
    replayed, lobby = progress.replays[0]
    assert replayed.status == "pending" and lobby.channel_id == 300


async def test_end_and_resume(world: World) -> None:
    tid = await world.tournament("round_robin", 2)
    ended = await world.service.end(tid, ORGANISER, False)
    assert ended.snapshot.tournament.status == "cancelled"  # ended before it started
    tid = await world.tournament("round_robin", 3)
    progress = await world.service.start(tid, ORGANISER, False)
    (match,) = progress.to_open
    # the result and the next pairing are one step: no crash can come between them
    winner = progress.snapshot.entrants[match.entrant_a].user_ids[0]
    resumed = await world.service.report(tid, ORGANISER, False, match.id, winner)
    assert resumed.paired == [2] and [m.round for m in resumed.to_open] == [2]


async def test_a_step_whose_transaction_fails_leaves_nothing_half_written(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The final's report writes the result, closes the match's lobby and ends the tournament
    in one transaction: the store failing at its last write leaves none of it written."""
    tid = await world.tournament("elimination", 2)
    (match,) = (await world.service.start(tid, ORGANISER, False)).to_open
    await world.service.open_match(match.id, 300)
    steps = await world.db.outbox.undelivered_steps()
    save = world.db.tournaments.save

    async def refused(record: object) -> None:
        raise DatabaseUnavailableError("the store went away")

    monkeypatch.setattr(world.db.tournaments, "save", refused)
    with pytest.raises(DatabaseUnavailableError):
        await world.service.report(tid, ORGANISER, False, match.id, 1)
    snap = await world.service.snapshot(tid)
    assert snap.tournament.status == "running"
    assert [(m.status, m.winner, m.outcome) for m in snap.matches] == [("pending", None, None)]
    assert await world.db.lobbies.get_for_channel(300) is not None  # still open
    assert await world.db.outbox.undelivered_steps() == steps  # no step written
    monkeypatch.setattr(world.db.tournaments, "save", save)
    done = await world.service.report(tid, ORGANISER, False, match.id, 1)
    assert done.finished and [m.status for m in done.decided] == ["done"]
    assert await world.db.lobbies.get_for_channel(300) is None
    assert [s.id for s in await world.db.outbox.undelivered_steps()][-1] == done.step
