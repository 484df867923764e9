"""Compact history: a move row holds the move's notation where it reads back (its JSON
otherwise, and rows written before stay readable), and a game that is over keeps no log in its
snapshot; such games still load, verify and give their log exactly (on both backends)."""

from __future__ import annotations

import json
import random

from bot.game import Move
from bot.game.moves import PLAY
from bot.store import Store
from bot.store.connection import Connection
from bot.store.move_rows import move_dicts, move_text, read_move
from tests.store_util import create_game, play
from tests.test_store_snapshots import EVERY_KIND


def test_every_kind_of_move_reads_back_from_its_row_text() -> None:
    odd = Move(PLAY, 0, "7S", 32, team=1)  # a team on a play: its notation has no room for it
    moves = [*EVERY_KIND, odd]
    texts = [move_text(move) for move in moves]
    assert json.loads(texts[0]) == "0:7S@C4"
    assert json.loads(texts[-1]) == odd.to_dict()  # kept as JSON
    assert [read_move(text) for text in texts] == moves
    old = [json.dumps(move.to_dict()) for move in moves]  # rows as written before
    assert [read_move(text) for text in old] == moves
    assert move_dicts(texts) == move_dicts(old) == [move.to_dict() for move in moves]


async def _rows(db: Store, game_id: int) -> list[tuple[int, str]]:
    async def read(conn: Connection) -> list[tuple[int, str]]:
        rows = await conn.fetchall(
            "SELECT number, move FROM moves WHERE game_id = ? ORDER BY number", (game_id,)
        )
        return [(int(number), str(text)) for number, text in rows]

    return await db.read(read)


async def _snapshot(db: Store, game_id: int) -> dict[str, object]:
    async def read(conn: Connection) -> str:
        row = await conn.fetchone("SELECT state FROM snapshots WHERE game_id = ?", (game_id,))
        assert row is not None
        return str(row[0])

    return dict(json.loads(await db.read(read)))


async def test_rows_hold_notations_and_old_rows_still_load(db: Store) -> None:
    record = await create_game(db, 1, players=3)
    await play(db, record, 30, random.Random(4))
    rows = await _rows(db, record.id)
    assert [json.loads(text) for _, text in rows] == [m.notation() for m in record.game.moves]

    async def as_before(conn: Connection) -> None:  # half the rows in the old form, no log
        for number, _ in rows[::2]:
            old = json.dumps(record.game.moves[number].to_dict())
            await conn.execute(
                "UPDATE moves SET move = ? WHERE game_id = ? AND number = ?",
                (old, record.id, number),
            )
        plain = json.dumps(record.game.state_dict())
        await conn.execute("UPDATE snapshots SET state = ? WHERE game_id = ?", (plain, record.id))

    await db.run(as_before)
    loaded = await db.games.load(record.id, verify=True)
    assert loaded.game == record.game and loaded.game.moves == record.game.moves
    assert [entry.move for entry in await db.games.log(record.id)] == record.game.moves
    assert await db.games.verify(record.id)


async def test_a_game_over_keeps_no_log_in_its_snapshot_and_replays_from_its_rows(
    db: Store,
) -> None:
    record = await create_game(db, 1, seed=3)
    await play(db, record, 2000, random.Random(3))
    assert record.game.is_over()
    assert "log" not in await _snapshot(db, record.id)
    await db.games.finish(record.id, "finished", 9000.0)
    for verify in (False, True):
        loaded = await db.games.load(record.id, verify=verify)
        assert loaded.game == record.game and loaded.game.moves == record.game.moves
    assert await db.games.verify(record.id)
    assert [entry.move for entry in await db.games.log(record.id)] == record.game.moves
    assert "log" not in await _snapshot(db, record.id)  # verifying wrote nothing back


async def test_a_game_going_on_keeps_its_log(db: Store) -> None:
    record = await create_game(db, 1)
    await play(db, record, 12, random.Random(1))
    assert (await _snapshot(db, record.id))["log"] == [m.notation() for m in record.game.moves]
