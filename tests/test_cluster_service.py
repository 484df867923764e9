"""Two processes of a cluster on one real PostgreSQL, at the game service: a change to the other
process's game is made once (the move-number guard) and its owner hears of it (LISTEN/NOTIFY),
reloads the game from the log and publishes it; the same move sent to both, exactly one commits
(the last move too: the loser is told); the owner's timer of a turn another process played lapses.

Each "process" is the real service stack on its own store connection (its own pool and its own
listening connection), with its own shards; the end-to-end tests drive whole bots."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator

import pytest

from bot.game import Game, GameSettings, Move, player_view
from bot.game.ai import choose_move
from bot.services.dispatch import Dispatcher
from bot.services.errors import UserError
from bot.services.events import (
    GameEnded,
    MoveCommitted,
    ReminderDue,
    TimedOut,
    TurnStarted,
    UndoRequestLapsed,
)
from bot.services.games import GAMES_CHANNEL, RACE_LOST, STALE, GameService
from bot.services.pauses import TablePaused
from bot.services.scheduler import Scheduler
from bot.services.timing import LIMIT, REMINDER
from bot.services.turns import TurnClock
from bot.services.undo import UndoService
from bot.store.location import open_database
from bot.store.seats import Seat
from bot.store.shards import Shards
from bot.store.timers import TimerRecord
from bot.table.options import TableOptions
from tests.engine_helpers import playable
from tests.helpers.store import guild_on
from tests.store_util import new_game

SEATS = [Seat(1, "ada"), Seat(2, "bob")]


class Process:
    """A game service on its own store, serving ``shards`` of 2, recording its events."""

    def __init__(self, games: GameService) -> None:
        self.games = games
        self.events: list[object] = []
        for kind in (
            MoveCommitted,
            TurnStarted,
            GameEnded,
            TimedOut,
            ReminderDue,
            UndoRequestLapsed,
        ):
            games.bus.subscribe(kind, self._record)

    async def _record(self, event: object) -> None:
        self.events.append(event)

    @classmethod
    async def start(cls, url: str, shard: int) -> Process:
        db = await open_database(url, shards=Shards(2, (shard,)))
        games = GameService(db, time.time, Dispatcher(time.time))
        await games.load_active()
        await db.listen(GAMES_CHANNEL, games.heard)
        return cls(games)

    async def close(self) -> None:
        await self.games.bus.close()
        await self.games.db.close()

    async def heard_of(self, count: int) -> None:
        """Wait (really: another connection delivers it) until ``count`` moves were published."""
        async with asyncio.timeout(10):
            while sum(isinstance(e, MoveCommitted) for e in self.events) < count:
                await asyncio.sleep(0.01)
            await self.games.bus.idle()


@pytest.fixture
def pg_url(pg_database_url: str) -> str:
    """Several processes at once: a database of their own (their shards' advisory locks and
    their ``NOTIFY`` channels are per database)."""
    return pg_database_url


@pytest.fixture
async def cluster(pg_url: str) -> AsyncIterator[tuple[Process, Process, int]]:
    """Process 0 and process 1, and a game in a guild on shard 1 (process 1's)."""
    db = await open_database(pg_url)
    options = TableOptions()
    record = await db.games.create(guild_on(1, 2), 55, new_game(7), SEATS, options, None, 1.0)
    await db.close()
    zero, one = await Process.start(pg_url, 0), await Process.start(pg_url, 1)
    assert list(one.games.records) == [record.id] and zero.games.records == {}
    yield zero, one, record.id
    await zero.close()
    await one.close()


def a_play(game) -> Move:
    return Move.play(*playable(game))


async def test_a_move_on_another_process_is_made_once_and_its_owner_hears(cluster) -> None:
    zero, one, game_id = cluster
    owned = one.games.records[game_id]
    move = a_play(owned.game)
    user = SEATS[move.seat].user_id
    outcome = await zero.games.play(
        game_id, user, move.card, move.space, expected_turn=owned.game.turn_number
    )
    assert outcome.game.moves == [move] and zero.events == []  # the owner announces, not zero
    assert zero.games.records == {}  # and zero does not start serving it
    await one.heard_of(1)
    assert owned.game.moves == [move]  # reloaded from the log
    kinds = [type(e).__name__ for e in one.events]
    assert kinds == ["MoveCommitted", "TurnStarted"]
    turn = one.events[1]
    assert isinstance(turn, TurnStarted) and turn.game.turn_number == 1
    # Once: a repeated notification (or the same click again) changes nothing more.
    one.games.heard(str(game_id))
    with pytest.raises(UserError):
        await zero.games.play(game_id, user, move.card, move.space, expected_turn=0)
    await asyncio.sleep(0.2)
    await one.games.bus.idle()
    assert len(one.events) == 2 and len(owned.game.moves) == 1
    stored = await one.games.db.games.load(game_id)
    assert stored.game.moves == [move]


async def test_an_undo_request_lapses_on_its_owner_when_another_process_moves(
    cluster,
) -> None:
    """The host asked (on the owner) to undo; the next move is made on the other process (from
    a DM): the owner publishes the request's lapse, so that its message is closed there."""
    zero, one, game_id = cluster
    owned = one.games.records[game_id]

    async def host(draft) -> None:
        draft.options = draft.options.but(host_id=SEATS[0].user_id)

    await one.games.change(game_id, host)
    for process in (one, zero):  # the host's move, then the undo request, then a move on zero
        if process is zero:
            undo = UndoService(one.games)
            state = await undo.request(game_id, SEATS[0].user_id)
            await undo.set_message(game_id, state, 999)
        move, turn = a_play(owned.game), owned.game.turn_number
        user = SEATS[move.seat].user_id
        await process.games.play(game_id, user, move.card, move.space, expected_turn=turn)
    await one.heard_of(2)
    lapsed = [e for e in one.events if isinstance(e, UndoRequestLapsed)]
    assert [e.message_id for e in lapsed] == [999]
    assert "undo_request" not in owned.options.to_dict()


async def test_the_same_move_on_both_processes_commits_once(cluster) -> None:
    zero, one, game_id = cluster
    owned = one.games.records[game_id]
    for _ in range(5):  # several rounds: either side may win each
        move = a_play(owned.game)
        user = SEATS[move.seat].user_id
        turn = owned.game.turn_number
        results = await asyncio.gather(
            zero.games.play(game_id, user, move.card, move.space, expected_turn=turn),
            one.games.play(game_id, user, move.card, move.space, expected_turn=turn),
            return_exceptions=True,
        )
        won = [r for r in results if not isinstance(r, BaseException)]
        lost = [r for r in results if isinstance(r, BaseException)]
        assert len(won) == 1 and len(lost) == 1, results
        assert isinstance(lost[0], UserError) and str(lost[0]) in (RACE_LOST, STALE)
        await one.heard_of(turn + 1)
        assert len(owned.game.moves) == turn + 1
    stored = await one.games.db.games.load(game_id)
    assert stored.game.moves == owned.game.moves
    log = await one.games.db.games.log(game_id)
    assert len(log) == len(stored.game.moves)  # nothing written twice
    announced = [e for e in one.events if isinstance(e, MoveCommitted)]
    assert [len(e.outcome.moves) for e in announced] == [1] * 5  # each move announced once


#: Discord's error code of a locked thread (the owner's pause, see bot/services/pauses.py).
LOCKED = 160005


async def test_a_pause_stored_while_a_move_on_another_process_is_drafted_refuses_it(
    cluster,
) -> None:
    """The owner stores its table's pause (its thread was locked) after process 0 loaded the
    game for a move from a DM, and before that move commits: the move is refused with why,
    and nothing of it is written."""
    zero, one, game_id = cluster
    owned = one.games.records[game_id]
    move = a_play(owned.game)
    user = SEATS[move.seat].user_id
    load = zero.games.db.games.load

    async def load_then_pause(wanted: int, **kwargs: object):
        loaded = await load(wanted, **kwargs)
        await one.games.db.games.pause_channel(owned.channel_id, LOCKED)  # the owner learns it
        return loaded

    zero.games.db.games.load = load_then_pause  # type: ignore[method-assign]
    with pytest.raises(TablePaused) as refused:
        await zero.games.play(game_id, user, move.card, move.space, expected_turn=0)
    assert str(refused.value) == (
        f"Game #{game_id} is paused: its thread <#{owned.channel_id}> is locked, so I cannot "
        "post the board there. A moderator can unlock the thread: the game then carries on "
        "where it stopped (`/sequence board` there tries again at once). Nothing was played; "
        "your cards are kept."
    )
    assert await one.games.db.games.log(game_id) == []
    await asyncio.sleep(0.2)
    assert one.events == []  # no notification: nothing to deliver


async def test_a_pause_stored_while_a_move_on_another_process_commits_waits_for_it(
    cluster,
) -> None:
    """Both in flight the other way: process 0's move is in its transaction (past the pause
    check) when the owner stores the pause. The pause waits for that transaction (the row is
    share-locked), so the move, checked against a table that was usable, is saved; the pause
    is stored after it, and the next move is refused."""
    zero, one, game_id = cluster
    owned = one.games.records[game_id]
    move = a_play(owned.game)
    user = SEATS[move.seat].user_id
    record = zero.games.bus.record
    pausing: list[asyncio.Task[None]] = []

    async def record_while_pausing(events, now):
        task = asyncio.create_task(one.games.db.games.pause_channel(owned.channel_id, LOCKED))
        pausing.append(task)
        await asyncio.sleep(0.3)
        assert not task.done()  # held by the move's transaction
        return await record(events, now)

    zero.games.bus.record = record_while_pausing  # type: ignore[method-assign]
    outcome = await zero.games.play(game_id, user, move.card, move.space, expected_turn=0)
    assert outcome.game.moves == [move]
    await pausing[0]
    zero.games.bus.record = record  # type: ignore[method-assign]
    stored = await one.games.db.games.load(game_id)
    assert stored.game.moves == [move] and stored.paused == LOCKED
    nxt = a_play(stored.game)
    with pytest.raises(TablePaused):
        await zero.games.play(
            game_id, SEATS[nxt.seat].user_id, nxt.card, nxt.space, expected_turn=1
        )
    assert len(await one.games.db.games.log(game_id)) == 1


async def _terminate_listeners(conn) -> list[tuple[object, ...]]:
    return await conn.fetchall(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        "WHERE query LIKE 'LISTEN%' AND pid <> pg_backend_pid() "
        "AND datname = current_database()"  # not another test's bot, still to be collected
    )


async def test_a_dropped_listener_reconnects_and_catches_up(cluster) -> None:
    zero, one, game_id = cluster
    db = one.games.db
    assert await db.alive()
    dropped = await db.read(_terminate_listeners)  # both processes' listening connections
    assert len(dropped) == 2
    async with asyncio.timeout(10):
        while await db.alive():  # the health check sees it at once
            await asyncio.sleep(0.01)
    owned = one.games.records[game_id]
    move = a_play(owned.game)
    user = SEATS[move.seat].user_id
    await zero.games.play(game_id, user, move.card, move.space, expected_turn=0)  # unheard
    await one.heard_of(1)  # the reconnected listener catches up with what it missed
    assert owned.game.moves == [move] and await db.alive()


def hold_news(process: Process) -> asyncio.Event:
    """Hold back what ``process`` hears of other processes' changes (as in the moment before a
    NOTIFY arrives, or while its listener reconnects) until the returned event is set."""
    release = asyncio.Event()
    catch_up = process.games.catch_up

    async def later(game_id: int) -> None:
        await release.wait()
        await catch_up(game_id)

    process.games.catch_up = later  # type: ignore[method-assign]
    return release


@pytest.mark.parametrize("kind", [LIMIT, REMINDER])
async def test_a_timer_of_a_turn_played_on_another_process_lapses(pg_url: str, kind: str) -> None:
    """The owner's time-out (or reminder) of turn 0 falls due just as turn 0 is played from a
    DM on process 0, before the owner has heard of it: the timer lapses. The player who moved is
    not told they ran out of time, and the next turn keeps the timers its move stored."""
    db = await open_database(pg_url)
    options = TableOptions(turn_time_limit=3600, time_limit_policy="computer")
    record = await db.games.create(guild_on(1, 3), 56, new_game(7), SEATS, options, None, 1.0)
    await db.close()
    zero, one = await Process.start(pg_url, 0), await Process.start(pg_url, 1)
    try:
        clock = TurnClock(one.games.db, one.games, Scheduler(time.time), time.time)
        release = hold_news(one)
        move = a_play(one.games.records[record.id].game)
        user = SEATS[move.seat].user_id
        await zero.games.play(record.id, user, move.card, move.space, expected_turn=0)
        stored = await one.games.db.timers.of_game(record.id)
        assert sorted((t.kind, t.payload["turn"]) for t in stored) == [(LIMIT, 1), (REMINDER, 1)]
        # Until the owner hears of the move, what it caused waits in the outbox.
        waiting = await one.games.db.outbox.undelivered(record.id)
        assert [row.kind for row in waiting] == ["MoveCommitted", "TurnStarted"]
        await clock.fire(TimerRecord(record.id, kind, 2.0, {"turn": 0, "seat": 0}))
        release.set()
        await one.heard_of(1)
        assert await one.games.db.timers.of_game(record.id) == stored  # the next turn's, kept
        assert not [e for e in one.events if isinstance(e, TimedOut | ReminderDue)]
    finally:
        await zero.close()
        await one.close()


def one_move_from_the_end(seed: int) -> tuple[Game, Move]:
    """A game to one sequence whose player to move wins with the returned play."""
    game = Game.new(GameSettings.create(2, sequences_to_win=1), seed)
    rng = random.Random(seed)
    while True:
        move = choose_move(player_view(game, game.turn), "easy", rng)
        after = game.copy()
        after.push(move)
        if after.is_over():
            return game, move
        game = after


async def test_the_winning_move_on_both_processes_the_owner_loses_and_is_told(
    pg_url: str,
) -> None:
    """The last move of a game, made from a DM on process 0 and, before the owner heard of it,
    in the channel on the owner: the owner's is refused with the race's answer (not an error
    on our side), and the owner ends the game once."""
    game, move = one_move_from_the_end(8)
    db = await open_database(pg_url)
    record = await db.games.create(guild_on(1, 4), 57, game, SEATS, TableOptions(), None, 1.0)
    await db.close()
    zero, one = await Process.start(pg_url, 0), await Process.start(pg_url, 1)
    try:
        release = hold_news(one)
        user, turn = SEATS[move.seat].user_id, game.turn_number
        won = await zero.games.play(
            record.id, user, move.card, move.space or 0, expected_turn=turn, five=move.five
        )
        assert won.game.is_over()
        with pytest.raises(UserError) as refused:
            await one.games.play(
                record.id, user, move.card, move.space or 0, expected_turn=turn, five=move.five
            )
        assert str(refused.value) == RACE_LOST
        release.set()
        await one.heard_of(1)
        await asyncio.sleep(0.2)
        await one.games.bus.idle()
        assert [type(e).__name__ for e in one.events] == ["MoveCommitted", "GameEnded"]
        assert one.games.records == {}
    finally:
        await zero.close()
        await one.close()


async def _host_moves_first(one: Process, game_id: int) -> None:
    """ada hosts and makes the first move on the owner."""

    async def host(draft) -> None:
        draft.options = draft.options.but(host_id=SEATS[0].user_id)

    await one.games.change(game_id, host)
    owned = one.games.records[game_id]
    move = a_play(owned.game)
    await one.games.play(
        game_id, SEATS[move.seat].user_id, move.card, move.space, expected_turn=0
    )


@pytest.mark.parametrize("vote", ["draw offer", "undo request", "offer's message"])
async def test_a_vote_on_a_copy_another_process_moved_past_is_made_on_the_stored_game(
    cluster, vote: str
) -> None:
    """A move is made from a DM on process 0; before the owner has heard of it, a change there
    writes only votes (a draw offer, the host's undo request, the offer's public message). It
    is checked against the stored game like a move: the owner catches up and makes it on the
    game as stored (the offer names the stored move count, the request takes back the move
    just made, the lapsed offer's message revives nothing), never for a position gone."""
    from bot.services.draws import LAPSED_TEXT, DrawService
    from bot.store.votes import DRAW

    zero, one, game_id = cluster
    await _host_moves_first(one, game_id)
    draws = DrawService(one.games, timeout=lambda: 3600)
    offered = None
    if vote == "offer's message":  # the offer is open before the move, its message comes after
        offered = await draws.offer(game_id, SEATS[0].user_id)
    release = hold_news(one)
    owned = one.games.records[game_id]
    move = a_play(owned.game)
    await zero.games.play(game_id, SEATS[move.seat].user_id, move.card, move.space,
                          expected_turn=1)
    assert len(owned.game.moves) == 1  # the owner has not heard yet
    if vote == "draw offer":
        state = await draws.offer(game_id, SEATS[1].user_id)
        assert state.status == "open" and state.offer.move_count == 2
    elif vote == "undo request":
        request = await UndoService(one.games).request(game_id, SEATS[0].user_id)
        assert request.count == 2 and request.moves == (move,)
    else:
        assert offered is not None
        assert not await draws.set_message(game_id, offered.offer, 999)
    release.set()
    await one.heard_of(2)
    stored = await one.games.db.votes.of_game(game_id)
    assert all(v.move_count == 2 for v in stored.values() if v.kind != "draw_cooldown")
    if vote != "undo request":  # an answer to an offer of the gone position changes nothing
        with pytest.raises(UserError, match=LAPSED_TEXT[:20]):
            await draws.answer(game_id, SEATS[0 if vote == "draw offer" else 1].user_id, 1,
                               accept=True)
        assert (DRAW, 0) not in stored or vote == "draw offer"
    finished = await one.games.db.games.load(game_id)
    assert finished.status == "active" and len(finished.game.moves) == 2
