"""Games: saved and reloaded equal, the duplicate-move guard, undo, snapshot checks; on both
backends (the ``db`` and ``store_location`` fixtures of conftest)."""

from __future__ import annotations

import asyncio
import json
import logging
import random
from pathlib import Path

import pytest

from bot.game import Game, Move
from bot.store import (
    ChannelBusyError,
    CorruptGameError,
    GameNotActiveError,
    NotFoundError,
    Seat,
    StaleMoveError,
    Store,
    StoreError,
)
from bot.store.connection import Connection
from bot.store.location import open_database
from bot.table.options import TableOptions
from tests.store_util import create_game, new_game, play, push_random


async def test_a_game_saved_closed_and_reopened_is_equal(store_location: str | Path) -> None:
    path = store_location
    db = await open_database(path)
    record = await create_game(db, channel_id=5, seed=42, players=4)
    await play(db, record, 60, random.Random(1))
    await db.games.set_board_message(record.id, 999, 57)
    options = TableOptions(turn_time_limit=60, reminder_delay=0, rated=False, hints=True)
    await db.games.set_options(record.id, options)
    await db.close()

    db = await open_database(path)
    try:
        loaded = await db.games.load(record.id)
        assert loaded.game == record.game
        assert (
            loaded.game.to_dict()
            == Game.replay(record.game.settings, 42, record.game.moves).to_dict()
        )
        assert (loaded.guild_id, loaded.channel_id, loaded.status) == (7, 5, "active")
        assert loaded.seats == record.seats and loaded.options == options
        assert (loaded.board_message_id, loaded.board_move_count) == (999, 57)
        assert loaded.created_at == 1000.0
        assert await db.games.verify(record.id)
        [active] = await db.games.active()
        assert active.game == record.game
        assert (await db.games.active_for_channel(5)).game == record.game  # type: ignore[union-attr]
        assert await db.games.active_for_channel(6) is None
        entries = await db.games.log(record.id)
        assert [e.move for e in entries] == record.game.moves
        assert entries[3].actor_user_id == 100 + entries[3].seat
    finally:
        await db.close()


async def test_a_game_created_with_moves_keeps_them(db: Store) -> None:
    game = new_game(3)
    rng = random.Random(3)
    for _ in range(10):
        push_random(game, rng)
    record = await db.games.create(1, 2, game, [], TableOptions(), 55, 10.0)
    loaded = await db.games.load(record.id, verify=True)
    assert loaded.game == game and loaded.lobby_message_id == 55


async def test_the_same_move_number_is_refused_the_second_time(db: Store) -> None:
    record = await create_game(db, 1)
    game = record.game
    first = game.copy()
    move = push_random(first, random.Random(1))
    await db.games.append_move(record.id, 0, move, None, first, 1.0)
    second = game.copy()
    other = push_random(second, random.Random(2))
    with pytest.raises(StaleMoveError) as error:
        await db.games.append_move(record.id, 0, other, None, second, 2.0)
    assert (error.value.expected, error.value.actual) == (0, 1)
    loaded = await db.games.load(record.id, verify=True)
    assert loaded.game == first  # nothing of the refused move was written
    assert len(await db.games.log(record.id)) == 1
    ahead = first.copy()
    push_random(ahead, random.Random(3))
    push_random(ahead, random.Random(3))
    with pytest.raises(StaleMoveError):  # a gap in the numbering is refused too
        await db.games.append_move(record.id, 2, ahead.moves[-1], None, ahead, 3.0)


async def test_two_concurrent_writers_for_one_turn_only_one_wins(db: Store) -> None:
    record = await create_game(db, 1)
    attempts = []
    for seed in range(6):
        game = record.game.copy()
        attempts.append((push_random(game, random.Random(seed)), game))
    outcomes = await asyncio.gather(
        *(db.games.append_move(record.id, 0, m, None, g, 1.0) for m, g in attempts),
        return_exceptions=True,
    )
    assert sum(o is None for o in outcomes) == 1
    assert all(isinstance(o, StaleMoveError) for o in outcomes if o is not None)
    winner = attempts[outcomes.index(None)][1]
    assert (await db.games.load(record.id, verify=True)).game == winner


async def test_two_connections_cannot_both_apply_a_turn(store_location: str | Path) -> None:
    path = store_location
    one, two = await open_database(path), await open_database(path)
    try:
        record = await create_game(one, 1)
        games = []
        for seed in (1, 2):
            game = record.game.copy()
            games.append((push_random(game, random.Random(seed)), game))
        await one.games.append_move(record.id, 0, games[0][0], None, games[0][1], 1.0)
        with pytest.raises(StaleMoveError):
            await two.games.append_move(record.id, 0, games[1][0], None, games[1][1], 1.0)
    finally:
        await one.close()
        await two.close()


async def test_a_snapshot_must_match_the_move(db: Store) -> None:
    record = await create_game(db, 1)
    game = record.game.copy()
    move = push_random(game, random.Random(1))
    with pytest.raises(ValueError):
        await db.games.append_move(record.id, 0, move, None, record.game, 1.0)
    with pytest.raises(ValueError):
        await db.games.append_move(record.id, 0, Move("pass", 0), None, game, 1.0)


async def test_missing_and_finished_games(db: Store) -> None:
    game = new_game()
    move = push_random(game, random.Random(1))
    with pytest.raises(NotFoundError):
        await db.games.append_move(404, 0, move, None, game, 1.0)
    with pytest.raises(NotFoundError):
        await db.games.load(404)
    with pytest.raises(NotFoundError):
        await db.games.set_options(404, TableOptions())
    with pytest.raises(NotFoundError):
        await db.games.set_board_message(404, 1, 0)
    record = await create_game(db, 1)
    await db.timers.set(record.id, "turn", 50.0, {"seat": 0})
    await db.games.finish(record.id, "finished", 30.0)
    with pytest.raises(GameNotActiveError):
        await db.games.append_move(record.id, 0, move, None, game, 1.0)
    with pytest.raises(GameNotActiveError):
        await db.games.finish(record.id, "cancelled", 31.0)
    loaded = await db.games.load(record.id)
    assert (loaded.status, loaded.finished_at) == ("finished", 30.0)
    assert await db.games.active() == [] and await db.timers.all() == []


async def test_one_active_game_per_channel(db: Store) -> None:
    first = await create_game(db, 1)
    with pytest.raises(ChannelBusyError):
        await create_game(db, 1, seed=2)
    await create_game(db, 2)  # another channel is fine

    async def sneak_in(conn: Connection) -> None:  # past the repository: the schema refuses
        await conn.execute(
            "INSERT INTO games (guild_id, channel_id, settings, seed, seats, options, created_at)"
            " VALUES (1, 1, '{}', '1', '[]', '{}', 0)"
        )

    with pytest.raises(StoreError, match=r"(?i)unique"):
        await db.run(sneak_in)
    await db.games.finish(first.id, "cancelled", 5.0)
    again = await create_game(db, 1, seed=3)
    assert (await db.games.active_for_channel(1)).id == again.id  # type: ignore[union-attr]


async def test_a_paused_table_is_stored_on_its_channels_active_game(db: Store) -> None:
    """A table that cannot be used (a locked thread: 160005) is stored on the channel's active
    game, for every process; cleared when it can be used again; an ended game keeps none."""
    ended = await create_game(db, 1)
    await db.games.finish(ended.id, "cancelled", 5.0)
    record = await create_game(db, 1, seed=2)
    other = await create_game(db, 2)
    assert (await db.games.load(record.id)).paused is None
    await db.games.pause_channel(1, 160005)
    assert (await db.games.load(record.id)).paused == 160005
    assert [g.paused for g in await db.games.active() if g.id == record.id] == [160005]
    assert (await db.games.load(ended.id)).paused is None
    assert (await db.games.load(other.id)).paused is None
    async with db.transaction():
        assert await db.games.paused_now(record.id) == 160005
        assert await db.games.paused_now(other.id) is None
    await db.games.pause_channel(1, None)
    assert (await db.games.load(record.id)).paused is None

async def test_a_lobby_becomes_a_game_in_one_transaction(db: Store) -> None:
    lobby = await db.lobbies.create(1, 9, 100, TableOptions(), 1.0)
    with pytest.raises(ChannelBusyError):
        await db.lobbies.create(1, 9, 101, TableOptions(), 1.0)
    with pytest.raises(NotFoundError):
        await db.games.create(
            1, 9, new_game(), [], TableOptions(), None, 2.0, lobby_id=lobby.id + 1
        )
    assert await db.lobbies.get(lobby.id) is not None and await db.games.active() == []
    record = await db.games.create(1, 9, new_game(), [], TableOptions(), 77, 2.0, lobby_id=lobby.id)
    assert await db.lobbies.get_for_channel(9) is None
    assert record.lobby_message_id == 77
    with pytest.raises(ChannelBusyError, match="active game"):
        await db.lobbies.create(1, 9, 100, TableOptions(), 3.0)


async def test_undo_keeps_the_move_in_the_log_and_loading_ignores_it(db: Store) -> None:
    record = await create_game(db, 1)
    await play(db, record, 5, random.Random(5))
    moves = list(record.game.moves)
    before = Game.replay(record.game.settings, record.game.seed, moves[:-1])
    with pytest.raises(StaleMoveError):
        await db.games.truncate_last(record.id, 4, Game.replay(before.settings, 1, moves[:3]), 9.0)
    undone = await db.games.truncate_last(record.id, 5, before, 9.0)
    assert undone == moves[-1]
    loaded = await db.games.load(record.id, verify=True)
    assert loaded.game == before
    entries = await db.games.log(record.id)
    assert [e.move for e in entries] == moves and entries[-1].undone_at == 9.0
    game = loaded.game
    move = push_random(game, random.Random(99))
    await db.games.append_move(record.id, 4, move, None, game, 10.0)
    entries = await db.games.log(record.id)
    assert [(e.number, e.undone_at is not None) for e in entries][-2:] == [(4, True), (4, False)]
    assert (await db.games.load(record.id, verify=True)).game == game


async def test_an_undo_takes_back_several_moves_at_once(db: Store) -> None:
    """An undo against computers takes back a person's move and the replies after it: each
    is kept in the log, marked undone, and the game loads (and replays) without them."""
    record = await create_game(db, 1)
    await play(db, record, 5, random.Random(5))
    moves = list(record.game.moves)
    before = Game.replay(record.game.settings, record.game.seed, moves[:-3])
    with pytest.raises(StaleMoveError):  # the game has 5 moves, not 6
        await db.games.take_back(record.id, 6, 3, Game.replay(before.settings, 1, moves[:3]), 9.0)
    assert await db.games.take_back(record.id, 5, 3, before, 9.0) == moves[-3:]
    assert (await db.games.load(record.id, verify=True)).game == before
    entries = await db.games.log(record.id)
    assert [(e.move, e.undone_at) for e in entries] == [
        (move, 9.0 if number >= 2 else None) for number, move in enumerate(moves)
    ]
    game = before.copy()
    move = push_random(game, random.Random(99))
    await db.games.append_move(record.id, 2, move, None, game, 10.0)
    assert (await db.games.load(record.id, verify=True)).game == game


async def test_a_game_loads_with_the_moves_undo_took_back(db: Store) -> None:
    """The record counts the moves taken back (its revision, which hand panels are drawn for,
    never comes back after an undo, even across a restart or on another process)."""
    record = await create_game(db, 1)
    await play(db, record, 5, random.Random(5))
    assert (await db.games.load(record.id)).taken_back == 0
    revision = (await db.games.load(record.id)).revision
    moves = list(record.game.moves)
    before = Game.replay(record.game.settings, record.game.seed, moves[:-3])
    await db.games.take_back(record.id, 5, 3, before, 9.0)
    loaded = await db.games.load(record.id)
    assert loaded.taken_back == 3 and loaded.revision > revision
    game = before.copy()
    await db.games.append_move(record.id, 2, push_random(game, random.Random(9)), None, game, 10.0)
    again = await db.games.load(record.id)
    assert again.taken_back == 3 and again.revision >= loaded.revision
    assert [r.taken_back for r in await db.games.active()] == [3]


async def test_a_stale_snapshot_is_rebuilt_from_the_log(
    db: Store, caplog: pytest.LogCaptureFixture
) -> None:
    record = await create_game(db, 1)
    await play(db, record, 12, random.Random(8))
    expected = record.game

    async def roll_back_snapshot(conn: Connection) -> None:
        await conn.execute("UPDATE snapshots SET move_count = 3 WHERE game_id = ?", (record.id,))

    await db.run(roll_back_snapshot)
    with caplog.at_level(logging.WARNING, logger="bot.store.games"):
        assert (await db.games.load(record.id)).game == expected
    assert "replaying the log" in caplog.text
    assert await db.games.verify(record.id)  # repaired on the way


async def test_a_wrong_snapshot_is_caught_by_verification(
    db: Store, caplog: pytest.LogCaptureFixture
) -> None:
    record = await create_game(db, 1)
    await play(db, record, 12, random.Random(8))

    async def tamper(conn: Connection) -> None:
        other = new_game(seed=12345).state_dict()
        await conn.execute(
            "UPDATE snapshots SET state = ? WHERE game_id = ?",
            (json.dumps(other), record.id),
        )

    await db.run(tamper)
    with caplog.at_level(logging.WARNING, logger="bot.store.games"):
        assert not await db.games.verify(record.id)
    assert "differs" in caplog.text
    assert (await db.games.load(record.id)).game == record.game
    assert await db.games.verify(record.id)

    async def unreadable(conn: Connection) -> None:
        await conn.execute("UPDATE snapshots SET state = '{}'")

    await db.run(unreadable)
    assert (await db.games.load(record.id)).game == record.game  # unreadable: replayed


async def test_an_unreplayable_log_is_reported_and_skipped_at_start_up(
    db: Store, caplog: pytest.LogCaptureFixture
) -> None:
    good = await create_game(db, 1)
    bad = await create_game(db, 2)
    await play(db, bad, 3, random.Random(1))

    async def break_log(conn: Connection) -> None:
        await conn.execute(
            'UPDATE moves SET move = \'{"kind":"play","seat":0,"card":"2S","space":0}\''
            " WHERE game_id = ? AND number = 1",
            (bad.id,),
        )
        await conn.execute("UPDATE snapshots SET move_count = 0 WHERE game_id = ?", (bad.id,))

    await db.run(break_log)
    with pytest.raises(CorruptGameError):
        await db.games.load(bad.id)
    with caplog.at_level(logging.ERROR, logger="bot.store.games"):
        assert [r.id for r in await db.games.active()] == [good.id]
    assert f"Game {bad.id} cannot be loaded" in caplog.text


async def test_many_active_games_load_with_their_own_moves(db: Store) -> None:
    rng = random.Random(4)
    records = []
    for channel in range(20):
        record = await create_game(db, channel, seed=channel, players=rng.choice([2, 3, 4]))
        await play(db, record, rng.randrange(0, 30), rng)
        records.append(record)
    await db.games.finish(records[0].id, "finished", 1.0)
    loaded = {r.id: r for r in await db.games.active()}
    assert sorted(loaded) == [r.id for r in records[1:]]
    for record in records[1:]:
        assert loaded[record.id].game == record.game


async def test_a_closed_database_says_so(store_location: str | Path) -> None:
    db = await open_database(store_location)
    await db.close()
    await db.close()
    with pytest.raises(StoreError, match="closed"):
        await db.games.active()


async def test_the_computer_players_of_games_are_named_by_their_id(db: Store) -> None:
    """What /sequence history shows for a computer player, whose results know only its id."""
    seats = [Seat(100, "ann"), Seat(-1, "Ada (easy bot)", None, "easy")]
    with_computer = await db.games.create(7, 1, new_game(), seats, TableOptions(), None, 1.0)
    people = await create_game(db, 2)
    names = await db.games.computer_names([with_computer.id, people.id])
    assert names == {with_computer.id: {-1: "Ada (easy bot)"}, people.id: {}}
    assert await db.games.computer_names([]) == {}
