"""The store fails while the bot runs: PostgreSQL stopped (``pg_ctl stop -m fast``) and started
again, or the SQLite file locked by another process (an admin's ``BEGIN IMMEDIATE``) for longer
than the busy timeout. Players are told the bot cannot reach its database, nothing half-done is
shown, the bot needs no restart when the store is back, and timers that fell due meanwhile run
then."""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.config import Settings
from bot.store.errors import DatabaseUnavailableError
from cogs.common.replies import DATABASE_DOWN
from tests.helpers.tournament import announced, check_in, game_in, snapshot, started_cup, thread_of

from . import pg_server
from .conftest import make_settings
from .e2e_helpers import against_a_computer, make_table, open_and_start, play_one, timeouts

_SCHEMAS = itertools.count(1)
#: A computer's pause: longer than SimCord's settle window (5 s), which runs shorter sleeps at once.
PAUSE = 30.0


class FileLocked:
    """SQLite: another process holds the write lock (``BEGIN IMMEDIATE``) until :meth:`end`."""

    def __init__(self, path: Path) -> None:
        self.settings: dict[str, Any] = {"database_path": path}
        self._holder: sqlite3.Connection | None = None

    async def begin(self, bot: Any) -> None:
        bot.db.busy_wait_ms = 50  # the bot waits up to 10 s in the background: the test 50 ms
        self._holder = sqlite3.connect(self.settings["database_path"], isolation_level=None)
        self._holder.execute("BEGIN IMMEDIATE")

    async def end(self) -> None:
        assert self._holder is not None
        self._holder.execute("ROLLBACK")
        self._holder.close()


class ServerStopped:
    """PostgreSQL: the server is stopped (``-m fast``: every session ends) until :meth:`end`."""

    def __init__(self, server: pg_server.Server, url: str) -> None:
        self.settings: dict[str, Any] = {"database_url": url}
        self.server = server

    async def begin(self, bot: Any) -> None:
        self.server.stop("fast")

    async def end(self) -> None:
        self.server.start()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def outage(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """How the store fails, on each backend."""
    if request.param == "sqlite":
        yield FileLocked(tmp_path / "sequence.db")
        return
    server = request.getfixturevalue("own_server")
    shared = request.getfixturevalue("own_database_url")
    stopped = ServerStopped(server, pg_server.create_schema_now(shared, f"outage_{next(_SCHEMAS)}"))
    yield stopped
    if not pg_server.accepts_connections(server):  # a test that failed while it was down
        server.start()


@pytest.fixture
def bot_settings(outage: Any, tmp_path: Path) -> Settings:
    return make_settings(tmp_path, computer_move_delay=PAUSE, **outage.settings)


async def test_a_move_during_an_outage_is_refused_clearly_and_made_once_it_is_over(
    simcord_env, outage
):
    """Before: "Something went wrong on our side" for a move the bot could not save."""
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table)
    posted = len(list(table.channel.history()))
    await outage.begin(table.bot)
    refused = await play_one(table, record)
    assert refused.ephemeral and refused.response.content == DATABASE_DOWN
    assert record.game.moves == [] and len(list(table.channel.history())) == posted
    await outage.end()
    await simcord_env.advance_time(60)  # no restart: the store is used again as it answers
    played = await play_one(table, record)
    assert played.ephemeral and len(record.game.moves) == 1
    assert "played" in table.channel.last_message.embeds[0].description
    assert await table.bot.db.alive()  # on PostgreSQL, the listening connection is back too


async def test_a_button_pressed_during_an_outage_is_refused_clearly_and_works_once_it_is_over(
    simcord_env, outage
):
    """A component answers an outage as a command does: Join on the lobby message says the
    bot cannot reach its database (nothing was saved), and works once the store answers."""
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    lobby = (await alice.slash(table.channel, "sequence new")).response
    await outage.begin(table.bot)
    refused = await bob.click(lobby, label="Join")
    assert refused.ephemeral and refused.response.content == DATABASE_DOWN
    await outage.end()
    await simcord_env.advance_time(60)
    joined = await bob.click(lobby, label="Join")
    assert joined.acknowledged
    seats = (await table.bot.db.lobbies.get_for_channel(table.channel.id)).seats
    assert [seat.user_id for seat in seats] == [alice.id, bob.id]


async def test_a_time_limit_due_during_an_outage_is_applied_once_it_is_over(simcord_env, outage):
    """Before: the time-out failed once and was dropped; the turn waited until a restart."""
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table, time_limit="10m", on_timeout="skip")
    seat = record.game.turn
    await outage.begin(table.bot)
    await simcord_env.advance_time(10 * 60 + 1)
    assert record.game.moves == [] and timeouts(table) == []
    await simcord_env.advance_time(10 * 60)  # still down: tried again, and again later
    assert record.game.moves == []
    await outage.end()
    await simcord_env.advance_time(60)
    assert [(m.kind, m.seat) for m in record.game.moves] == [("skip", seat)]
    assert len(timeouts(table)) == 1


async def test_a_computer_move_due_during_an_outage_is_made_once_it_is_over(simcord_env, outage):
    """Before: the computer's move failed once and it never moved again until a restart."""
    table, record = await against_a_computer(simcord_env, "medium", seed=3)
    await outage.begin(table.bot)
    await simcord_env.advance_time(PAUSE + 1)
    assert record.game.moves == []
    await outage.end()
    await simcord_env.advance_time(60)
    assert [m.kind for m in record.game.moves] == ["play"]
    assert "played" in table.channel.last_message.embeds[0].description


async def test_a_show_up_deadline_due_during_an_outage_is_applied_once_it_is_over(
    simcord_env, outage
):
    """Before: the tournament's show-up deadline failed once and the match waited, pending,
    until a restart."""
    env = simcord_env
    channel, _ = await started_cup(env, ["ann", "ben"], show_up="10m")
    (match,) = (await snapshot(env.bot, channel)).round_matches(1)
    await outage.begin(env.bot)
    await env.advance_time(10 * 60 + 1)
    await outage.end()
    assert (await snapshot(env.bot, channel)).round_matches(1)[0].status == "pending"
    await env.advance_time(60)
    (decided,) = (await snapshot(env.bot, channel)).round_matches(1)
    assert (decided.id, decided.status, decided.outcome) == (match.id, "done", "double_forfeit")


def down_at_the_next_tournament_save(env: Any, monkeypatch: Any) -> None:
    """The store fails at the next write of a tournament's record (its end, or its next
    round), half way through the step that also saved a match's result."""
    tournaments = env.bot.db.tournaments

    async def down_at_the_save(record: Any) -> None:
        monkeypatch.undo()
        raise DatabaseUnavailableError("the store went away half way through the step")

    monkeypatch.setattr(tournaments, "save", down_at_the_save)


async def nothing_of_the_step_was_saved(env: Any, channel: Any) -> None:
    """The step is one transaction: neither the final's result nor the tournament's end."""
    (match,) = (await snapshot(env.bot, channel)).round_matches(1)
    cup = (await snapshot(env.bot, channel)).tournament
    assert (match.status, match.outcome, cup.status) == ("pending", None, "running")


async def test_a_tournament_step_cut_short_by_an_outage_is_done_whole_once_it_is_over(
    simcord_env, outage, monkeypatch
):
    """The store fails half way through a tournament's step (the show-up deadline decides the
    final and ends the tournament): nothing of it is saved, and the scheduler runs the whole
    step again, which then ends the tournament. Before, the result was saved without the end
    and a recovery of its own finished the step."""
    env = simcord_env
    channel, _ = await started_cup(env, ["ann", "ben"], show_up="10m")
    down_at_the_next_tournament_save(env, monkeypatch)
    await env.advance_time(10 * 60 + 1)  # the show-up deadline: both forfeit, the cup ends
    await nothing_of_the_step_was_saved(env, channel)
    await env.advance_time(60)  # the scheduler's next try
    (match,) = (await snapshot(env.bot, channel)).round_matches(1)
    assert (match.status, match.outcome) == ("done", "double_forfeit")
    assert (await snapshot(env.bot, channel)).tournament.status == "finished"


async def test_a_report_cut_short_by_an_outage_saves_nothing_and_can_be_made_again(
    simcord_env, outage, monkeypatch
):
    """The organiser reports the final's result and the store fails half way: the organiser
    is told that nothing was saved, which is so (the step is one transaction), and the same
    report once the store answers ends the tournament. Before, the result was saved without
    the end, and a recovery of its own finished the step."""
    env = simcord_env
    channel, (ann, _) = await started_cup(env, ["ann", "ben"], show_up="1h")
    (match,) = (await snapshot(env.bot, channel)).round_matches(1)
    down_at_the_next_tournament_save(env, monkeypatch)
    answer = await ann.slash(channel, "tournament-admin report", match=match.id, winner=ann)
    assert answer.ephemeral and answer.response.content == DATABASE_DOWN
    await nothing_of_the_step_was_saved(env, channel)
    again = await ann.slash(channel, "tournament-admin report", match=match.id, winner=ann)
    assert announced(channel, again), again.response.content
    assert (await snapshot(env.bot, channel)).tournament.status == "finished"


def down_when_the_tournament_hears(env: Any, outage: Any, monkeypatch: Any, step: str) -> None:
    """The store stops answering just as the tournament's handler of a match game's start (or
    end) runs: the game's change has committed, the handler's first store call is refused."""
    service = env.bot.tournament_service
    handler = getattr(service, step)

    async def down_first(*args: Any) -> Any:
        monkeypatch.undo()
        await outage.begin(env.bot)
        return await handler(*args)

    monkeypatch.setattr(service, step, down_first)


async def a_match_game(env: Any) -> tuple[Any, Any, list[Any]]:
    """ann and ben's cup, its one match, both checked in except ben (his I'm here starts the
    game): the channel, the match and the players."""
    channel, players = await started_cup(env, ["ann", "ben"], show_up="10m")
    (match,) = (await snapshot(env.bot, channel)).round_matches(1)
    await check_in(channel, match, players[:1])
    return channel, match, players


async def test_a_match_game_begun_as_the_store_stops_answering_is_played_for_its_match(
    simcord_env, outage, monkeypatch
):
    """The last I'm here starts the match's game; the store stops answering as the tournament
    hears of it. Once the store is back, the match is on with that game: at the show-up time it
    is not double-forfeited, and the game goes on. Before, the handler failed once, was logged
    and never tried again: the match stayed pending and its show-up time cancelled the game."""
    env = simcord_env
    channel, match, players = await a_match_game(env)
    down_when_the_tournament_hears(env, outage, monkeypatch, "game_started")
    await check_in(channel, match, players[1:])
    record = game_in(env.bot, match)
    await outage.end()
    # The handler was refused: the match waits for it (the store answers again).
    assert (await snapshot(env.bot, channel)).round_matches(1)[0].status == "pending"
    await env.advance_time(60)  # the handler is tried again
    (on,) = (await snapshot(env.bot, channel)).round_matches(1)
    assert (on.status, on.game_id) == ("playing", record.id)
    await env.advance_time(10 * 60)  # past the show-up time
    (on,) = (await snapshot(env.bot, channel)).round_matches(1)
    assert (on.status, on.outcome) == ("playing", None)
    assert game_in(env.bot, match) is record and not record.game.is_over()


async def test_a_match_game_cancelled_during_an_outage_is_played_again(
    simcord_env, outage, monkeypatch
):
    """The organiser cancels the match's game and the store stops answering as the tournament
    hears of it. Once the store is back, the match is set to be played again: pending, a fresh
    lobby in its thread. Before, the handler failed once and the match stayed "playing" a game
    that no longer was, for ever."""
    env = simcord_env
    channel, match, players = await a_match_game(env)
    await check_in(channel, match, players[1:])
    record = game_in(env.bot, match)
    down_when_the_tournament_hears(env, outage, monkeypatch, "game_cancelled")
    thread = thread_of(channel, match)
    cancelled = await players[0].slash(thread, "sequence cancel")
    assert not cancelled.ephemeral, cancelled.response.content
    await outage.end()
    await env.advance_time(60)  # the handler is tried again
    (again,) = (await snapshot(env.bot, channel)).round_matches(1)
    assert again.status == "pending" and again.game_id != record.id
    lobby = await env.bot.db.lobbies.get_for_channel(thread.id)
    assert lobby is not None  # set for the match's players to sit down again
