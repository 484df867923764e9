"""Snapshots that hold their log, and games loaded lazily from them: a game loaded from its
snapshot alone is exactly the game that was saved; one that cannot be is loaded from its move
rows; nothing is decoded until the game is used (on both backends where a store is involved)."""

from __future__ import annotations

import asyncio
import json
import random

import pytest

from bot.game import Game, GameSettings, Move
from bot.game.moves import (
    AGREE_DRAW,
    DEAD,
    DRAW,
    FORFEIT,
    PASS,
    PLAY,
    REMOVE,
    RESIGN,
    SKIP,
    TABLETALK,
)
from bot.store import CorruptGameError, Store
from bot.store.codec import dumps
from bot.store.connection import Connection
from bot.store.snapshots import (
    StoredGame,
    decode,
    decode_log,
    notations,
    snapshot_text,
    stored_game,
)
from tests.store_util import create_game, play

EVERY_KIND = [
    Move(PLAY, 0, "7S", 32),
    Move(PLAY, 1, "JD", 0 + 55),
    Move(PLAY, 2, "JH", 99),
    Move(PLAY, 3, "TD", 12, ((11, 12, 13, 14, 15), (12, 22, 32, 42, 52))),
    Move(PLAY, 0, "2S", 44, ((44, 34, 24, 14, 4),)),
    Move(DEAD, 1, "QH"),
    Move(PASS, 2),
    Move(DRAW, 3),
    Move(FORFEIT, 0, "AC"),
    Move(TABLETALK, -1, team=1),
    Move(SKIP, 1),
    Move(RESIGN, -1, team=0),
    Move(RESIGN, 2, team=2),
    Move(REMOVE, 3),
    Move(AGREE_DRAW, -1),
]


def played(seed: int, players: int, moves: int) -> Game:
    """A game of random legal moves (lines of six included: the five chosen at random)."""
    from bot.game.randomplay import push_random

    rng = random.Random(seed)
    game = Game.new(GameSettings.create(players), seed)
    for _ in range(moves):
        if game.is_over():
            break
        push_random(game, rng)
    return game


def test_every_kind_of_move_reads_back_from_its_notation() -> None:
    texts = notations(EVERY_KIND)
    assert texts is not None
    assert decode_log(texts) == EVERY_KIND


def test_a_move_that_would_not_read_back_leaves_the_log_out() -> None:
    odd = Move(PLAY, 0, "7S", 32, team=1)  # a team on a play: the notation has no room for it
    assert notations([Move(PASS, 0), odd]) is None
    game = played(3, 2, 10)
    game.moves.append(odd)
    assert "log" not in json.loads(snapshot_text(game))


@pytest.mark.parametrize(("seed", "players"), [(s, p) for s in range(6) for p in (2, 3, 4, 6, 8)])
def test_a_snapshot_decodes_to_the_same_game(seed: int, players: int) -> None:
    game = played(seed, players, 40 + 30 * seed)
    text = snapshot_text(game)
    assert json.loads(text)["log"] == [move.notation() for move in game.moves]
    decoded = decode(game.settings, game.seed, len(game.moves), text)
    assert decoded.to_dict() == game.to_dict()
    assert decoded.moves == game.moves
    assert type(decoded) is Game


def test_a_stored_game_decodes_on_first_use_only() -> None:
    game = played(7, 4, 50)
    lazy = stored_game(game.settings, game.seed, len(game.moves), snapshot_text(game))
    assert isinstance(lazy, StoredGame)
    # What start-up asks needs no decoding.
    assert (lazy.turn, lazy.turn_number, lazy.is_over()) == (
        game.turn,
        game.turn_number,
        game.is_over(),
    )
    assert lazy.team_of(3) == game.team_of(3) and lazy.seed == game.seed
    assert "_stored" in lazy.__dict__
    twin = lazy.copy()  # a copy of a stored game is stored too
    assert isinstance(twin, StoredGame)
    assert lazy.hands == game.hands  # anything else: decoded, now a plain game
    assert type(lazy) is Game and "_stored" not in lazy.__dict__
    assert lazy == game and twin == game
    twin.push(twin.legal_moves[0])  # the copy is independent
    assert lazy == game and twin != game


def test_a_stored_game_decodes_once_when_a_thread_reads_it_too() -> None:
    game = played(8, 3, 60)
    lazy = stored_game(game.settings, game.seed, len(game.moves), snapshot_text(game))
    assert lazy is not None

    async def both() -> list[object]:
        return await asyncio.gather(
            asyncio.to_thread(lambda: lazy.chips), asyncio.to_thread(lambda: lazy.deck)
        )

    chips, deck = asyncio.run(both())
    assert chips == game.chips and deck == game.deck and lazy == game


def test_a_stored_game_whose_log_is_short_says_it_is_corrupt() -> None:
    game = played(9, 2, 30)
    lazy = stored_game(game.settings, game.seed, len(game.moves) + 1, snapshot_text(game))
    assert lazy is not None
    with pytest.raises(CorruptGameError):
        _ = lazy.chips


async def test_active_games_load_lazily_and_equal(db: Store) -> None:
    rng = random.Random(11)
    records = []
    for channel in range(8):
        record = await create_game(db, channel, seed=channel, players=rng.choice([2, 3, 4]))
        await play(db, record, rng.randrange(0, 60), rng)
        records.append(record)
    loaded = {r.id: r for r in await db.games.active()}
    for record in records:
        game = loaded[record.id].game
        assert isinstance(game, StoredGame)
        assert game.turn_number == record.game.turn_number
        assert game == record.game and game.moves == record.game.moves


async def test_an_old_snapshot_loads_from_its_moves_and_gets_its_log(db: Store) -> None:
    record = await create_game(db, 1, players=3)
    await play(db, record, 25, random.Random(2))
    plain = json.dumps(record.game.state_dict())

    async def as_before(conn: Connection) -> None:
        await conn.execute("UPDATE snapshots SET state = ? WHERE game_id = ?", (plain, record.id))

    await db.run(as_before)
    [loaded] = await db.games.active()
    assert not isinstance(loaded.game, StoredGame)  # rebuilt from its move rows
    assert loaded.game == record.game
    [again] = await db.games.active()  # the first start-up wrote the log into the snapshot
    assert isinstance(again.game, StoredGame) and again.game == record.game


async def test_a_snapshot_whose_log_is_wrong_is_caught_and_repaired(db: Store) -> None:
    record = await create_game(db, 1)
    await play(db, record, 12, random.Random(8))
    state = json.loads(snapshot_text(record.game))
    state["log"][3], state["log"][5] = state["log"][5], state["log"][3]

    async def tamper(conn: Connection) -> None:
        await conn.execute(
            "UPDATE snapshots SET state = ? WHERE game_id = ?", (dumps(state), record.id)
        )

    await db.run(tamper)
    assert not await db.games.verify(record.id)
    assert await db.games.verify(record.id)  # repaired
    [loaded] = await db.games.active()
    assert loaded.game == record.game and loaded.game.moves == record.game.moves


async def test_a_snapshot_behind_its_log_is_replayed(db: Store) -> None:
    record = await create_game(db, 1)
    await play(db, record, 10, random.Random(5))
    stale = snapshot_text(played(1, 2, 0))

    async def roll_back(conn: Connection) -> None:
        await conn.execute(
            "UPDATE snapshots SET move_count = 0, state = ? WHERE game_id = ?", (stale, record.id)
        )

    await db.run(roll_back)
    [loaded] = await db.games.active()
    assert loaded.game == record.game


def test_move_count_of_a_stored_game_decodes_nothing() -> None:
    import random

    from bot.game import Game, GameSettings
    from bot.game.randomplay import push_random
    from bot.store.snapshots import StoredGame, move_count, snapshot_text, stored_game

    game = Game.new(GameSettings.create(2), 5)
    rng = random.Random(5)
    for _ in range(9):
        push_random(game, rng)
    stored = stored_game(game.settings, game.seed, 9, snapshot_text(game))
    assert isinstance(stored, StoredGame)
    assert move_count(stored) == 9 and type(stored) is StoredGame  # still undecoded
    assert move_count(game) == 9 and stored == game


@pytest.mark.parametrize("rules", [1, 2])
def test_a_stored_game_plays_by_its_own_rules_revision_from_its_first_move(rules: int) -> None:
    """A game of revision 1 loaded lazily is a game of that revision before it is decoded, and
    its next move follows revision 1: a pass holding a dead card counted, so seat 1's pass
    ends the game (revision 2 started the count again)."""
    from dataclasses import replace

    from bot.game import DRAWN, Revision1Game, rules_class
    from bot.game.board import CARD_SPACES
    from tests.engine_helpers import build_game

    settings = replace(GameSettings.create(2), rules=rules)
    covered = {space: 1 for card in ("2S", "3S", "4S") for space in CARD_SPACES[card]}
    game = build_game(
        settings, hands={0: ["2S", "3S"], 1: ["JH"]}, chips=covered, deck=["JD", "4S"]
    )
    game.push(Move(DEAD, 0, "2S"))
    game.push(Move(PASS, 0))  # holding 3S, dead too
    lazy = stored_game(settings, game.seed, len(game.moves), snapshot_text(game))
    assert isinstance(lazy, StoredGame) and "_stored" in lazy.__dict__
    assert isinstance(lazy, Revision1Game) == (rules == 1)
    lazy.push(Move(PASS, 1))
    assert type(lazy) is rules_class(settings) and "_stored" not in lazy.__dict__
    assert (lazy.status == DRAWN) == (rules == 1)
    game.push(Move(PASS, 1))
    assert lazy == game
