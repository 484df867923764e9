"""Games stored by an old release keep the rules they were started under.

``tests/data/a68c04c_games.sql.gz`` is a SQLite store written by a68c04c's own code (made by
``bench/old_games.py``): games that today's rules (revision 2) would play on differently
(stalemates after a time-out or a departure, convoy endings, late manual draws; games still
active after a pass holding a dead card) and ordinary ones. Under this tree every one replays to
its snapshot, copies to PostgreSQL, and an active one plays on by revision 1 after an in-place
upgrade. Games stored without a revision get, once, the one their log replays to its snapshot
under (``bot/store/revisions.py``): the old release's games revision 1, except those that never
met a changed rule; games this tree stored before the field, revision 2.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import sqlite3
from dataclasses import replace
from functools import partial
from pathlib import Path

import pytest

from bot.app import create_bot
from bot.cli import main
from bot.config import Settings
from bot.game import ACTIVE, DRAWN, Game, GameSettings, IllegalMove, Move, Termination
from bot.game.moves import PASS, SKIP
from bot.store import SQLiteStore
from bot.store.connection import Connection
from bot.store.copy import CopyError, verify_games
from bot.store.location import open_database
from bot.store.revisions import stamp_rules
from bot.store.upgrades import upgrade_state
from bot.table.options import TableOptions
from cogs.common.describe import end_reason
from tests.e2e_driver import make_move
from tests.e2e_helpers import make_table
from tests.engine_helpers import out_of_turn, play_random_game
from tests.helpers.store import query
from tests.store_util import create_game

FIXTURE = Path(__file__).parent / "data" / "a68c04c_games.sql.gz"
#: The kinds of game the fixture holds, by game id (its table options say so too).
KINDS = ["skip"] * 2 + ["dead"] * 2 + ["departure"] * 2 + ["convoy"] * 2 + ["late draw"] * 2
KINDS += ["draw"] + ["ordinary"] * 3
#: The game still active, one skip after two passes: the next pass ends it under revision 1.
ACTIVE_GAME = 1


def restore(path: Path) -> Path:
    """The old release's SQLite file, at ``path``."""
    conn = sqlite3.connect(path)
    try:
        conn.executescript(gzip.decompress(FIXTURE.read_bytes()).decode())
    finally:
        conn.close()
    return path


def stored(path: Path) -> dict[int, tuple[GameSettings, int, list[Move], dict[str, object]]]:
    """Each game's settings, seed, live moves and snapshot state, read past the store."""
    games = {}
    with contextlib.closing(sqlite3.connect(path)) as conn, conn:
        for game_id, settings, seed, state in conn.execute(
            "SELECT g.id, g.settings, g.seed, s.state FROM games g JOIN snapshots s "
            "ON s.game_id = g.id ORDER BY g.id"
        ):
            moves = [
                Move.from_dict(json.loads(text))
                for (text,) in conn.execute(
                    "SELECT move FROM moves WHERE game_id = ? AND undone_at IS NULL "
                    "ORDER BY number",
                    (game_id,),
                )
            ]
            snapshot = json.loads(state)
            snapshot.pop("log", None)
            settings = GameSettings.from_dict(json.loads(settings))
            games[game_id] = (settings, json.loads(seed), moves, snapshot)
    return games


def upgraded(games: dict[int, tuple[GameSettings, int, list[Move], dict[str, object]]]) -> None:
    """Each snapshot in the engine's layout, as the store reads it (``bot/store/upgrades.py``:
    the old release wrote the end as a sentence)."""
    for settings, seed, moves, snapshot in games.values():
        upgrade_state(snapshot, partial(Game.replay, settings, seed, moves))


def test_the_fixture_holds_old_games_that_todays_rules_replay_otherwise(tmp_path: Path) -> None:
    """What the other tests rest on: the stored settings say no revision (so revision 1),
    and revision 2 replays every game but the ordinary ones to another state."""
    games = stored(restore(tmp_path / "old.db"))
    upgraded(games)
    assert FIXTURE.stat().st_size < 50_000 and len(games) == len(KINDS)
    ended = 0
    for game_id, (settings, seed, moves, snapshot) in games.items():
        assert settings.rules == 1
        try:
            today = Game.replay(replace(settings, rules=2), seed, moves).state_dict()
        except IllegalMove:
            today = {}
        assert (today == snapshot) == (KINDS[game_id - 1] == "ordinary"), game_id
        ended += snapshot["status"] != ACTIVE and today.get("status") == ACTIVE
    assert ended >= 5  # revision 2 would have these finished games still going


async def test_games_stored_by_an_old_release_replay_to_their_snapshots(tmp_path: Path) -> None:
    path = restore(tmp_path / "old.db")
    games = stored(path)
    upgraded(games)
    for settings, seed, moves, snapshot in games.values():
        assert Game.replay(settings, seed, moves).state_dict() == snapshot
    db = await SQLiteStore.open(path)
    try:
        assert await verify_games(db) == len(KINDS)
        for game_id in range(1, len(KINDS) + 1):
            record = await db.games.load(game_id, verify=True)
            assert record.game.settings.rules == 1
    finally:
        await db.close()


async def test_the_old_games_end_in_the_words_they_were_stored_with(tmp_path: Path) -> None:
    """The old release stored each end as a sentence; the outcome it loads as now is worded
    (by the cogs) in exactly those words."""
    path = restore(tmp_path / "old.db")
    sentences = {game_id: game[3]["end_reason"] for game_id, game in stored(path).items()}
    assert sum(bool(sentence) for sentence in sentences.values()) >= 10
    db = await SQLiteStore.open(path)
    try:
        for game_id, sentence in sentences.items():
            game = (await db.games.load(game_id)).game
            assert end_reason(game.outcome) == sentence, game_id
    finally:
        await db.close()


def test_migrate_db_copies_the_old_games_to_postgresql(tmp_path: Path, pg_url: str) -> None:
    """The copy records each old game's revision (1 for those whose log today's rules replay
    otherwise) and verifies every one by replaying it; a new game there is revision 2."""
    path = restore(tmp_path / "old.db")
    assert main(["migrate-db", "--from", str(path), "--to", pg_url]) == 0

    async def check() -> None:
        target = await open_database(pg_url)
        source = await SQLiteStore.open(path)
        try:
            sql = "SELECT id, settings FROM games ORDER BY id"
            revisions = [2 if kind == "ordinary" else 1 for kind in KINDS]
            assert [
                (game_id, json.loads(str(text))) for game_id, text in await query(pg_url, sql)
            ] == [
                (game_id, json.loads(str(text)) | {"rules": rules})
                for (game_id, text), rules in zip(await query(path, sql), revisions, strict=True)
            ]
            assert await verify_games(target) == len(KINDS)
            for game_id, rules in enumerate(revisions, start=1):
                copied = await target.games.load(game_id, verify=True)
                old = (await source.games.load(game_id)).game
                assert copied.game.settings.rules == rules
                assert copied.game.state_dict() == old.state_dict()  # the same game
            new = await create_game(target, channel_id=999)
            assert (await target.games.load(new.id, verify=True)).game.settings.rules == 2
            [(text,)] = await query(pg_url, f"SELECT settings FROM games WHERE id = {new.id}")
            assert json.loads(str(text))["rules"] == 2
        finally:
            await source.close()
            await target.close()

    asyncio.run(check())


async def test_an_old_sqlite_file_plays_its_active_game_on_by_its_own_rules(
    simcord_env, bot_settings: Settings
) -> None:
    """An admin puts this release on the old release's SQLite file (in place). The old active
    game (3 players; two passed, then the first was skipped while holding a card) is undone by
    agreement, its player runs out of time again, and the next pass draws it: revision 1's
    skip left the count at two (today's rules start it again), as the old release played it."""
    table = await make_table(simcord_env, ["ann", "ben", "cal"])
    await simcord_env.bot.close()
    path = bot_settings.database_path
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    restore(path)
    # the old game is this server's, its seats these members
    with contextlib.closing(sqlite3.connect(path)) as conn, conn:
        seats, options = conn.execute(
            "SELECT seats, options FROM games WHERE id = ?", (ACTIVE_GAME,)
        ).fetchone()
        people = zip(json.loads(seats), table.players, strict=True)
        seats = [seat | {"user_id": person.id, "name": person.name} for seat, person in people]
        options = json.loads(options) | {"host_id": table.players[0].id}
        conn.execute(
            "UPDATE games SET guild_id = ?, channel_id = ?, seats = ?, options = ? WHERE id = ?",
            (table.guild.id, table.channel.id, json.dumps(seats), json.dumps(options), ACTIVE_GAME),
        )
        conn.execute(  # the other servers' boards were posted (the old bot ran there)
            "UPDATE games SET board_move_count = (SELECT move_count FROM snapshots "
            "WHERE game_id = games.id) WHERE id != ?",
            (ACTIVE_GAME,),
        )
    settings, seed, moves, _ = stored(path)[ACTIVE_GAME]
    await simcord_env.restart_bot(create_bot(bot_settings))
    ann, ben, cal = table.players
    record = table.game()
    assert record.id == ACTIVE_GAME and record.game.settings.rules == 1
    assert moves[-1] == Move(SKIP, 0) and record.game.passes_in_row == 2

    ask = await ann.slash(table.channel, "sequence undo")
    await ben.click(ask.response, label="Agree")
    await cal.click(ask.response, label="Agree")
    record = table.game()
    assert "Undone" in ask.response.content and record.game.turn == 0
    assert record.game == Game.replay(settings, seed, moves[:-1])

    await simcord_env.advance_time(600 + 1)  # ann runs out of time again: skipped
    record = table.game()
    assert record.game.moves[-1] == Move(SKIP, 0) and record.game.passes_in_row == 2
    assert record.game.has_playable_card(0)  # revision 2 would start the count again
    await make_move(table, record, 1, Move(PASS, 1))

    game = (await table.bot.db.games.load(ACTIVE_GAME, verify=True)).game
    assert game.status == DRAWN and game.termination == Termination.STALEMATE
    assert "Nobody can play on" in table.channel.history()[-1].content
    assert await verify_games(table.bot.db) == len(KINDS)
    # the finished games too, once the bot was ready
    with contextlib.closing(sqlite3.connect(path)) as conn, conn:
        (unstamped,) = conn.execute(
            "SELECT count(*) FROM games WHERE settings NOT LIKE '%\"rules\"%'"
        ).fetchone()
    assert unstamped == 0


def _differs_under_revision_1(settings: GameSettings, seed: int) -> Game | None:
    """A random game by today's rules whose log revision 1 replays to another state."""
    game = play_random_game(settings, seed, extra=out_of_turn)
    old = Game.replay(replace(settings, rules=1), seed, game.moves) if game.moves else None
    try:
        return game if old is None or old.state_dict() != game.state_dict() else None
    except IllegalMove:
        return game


async def test_each_game_stored_without_a_revision_gets_the_one_its_log_was_played_under(
    tmp_path: Path,
) -> None:
    """Games were stored without a revision by two engines: the old release's (revision 1) and
    this tree's between the fixes and the field (revision 2). At start-up each gets the one that
    replays its log to its snapshot; one that replays the same under both has met no changed
    rule and goes on by today's rules. Before, every such game was taken for revision 1, so a
    game of the second kind no longer replayed to its snapshot."""
    path = restore(tmp_path / "old.db")
    settings = GameSettings.create(3, 3, "classic", manual_draw=True)
    game = next(
        g for seed in range(200) if (g := _differs_under_revision_1(settings, seed)) is not None
    )
    db = await SQLiteStore.open(path)
    try:
        new = Game.new(settings, game.seed)
        record = await db.games.create(7, 999, new, [], TableOptions(), None, 1.0)
        replayed = Game.new(settings, game.seed)
        for number, move in enumerate(game.moves):
            replayed.push(move)
            await db.games.append_move(record.id, number, move, None, replayed, 2.0)
        text = json.dumps({k: v for k, v in settings.to_dict().items() if k != "rules"})
        await db.run(_set_settings, record.id, text)  # stored before the field existed
        with pytest.raises(CopyError, match="1 game"):  # taken for revision 1: it breaks
            await verify_games(db)
        assert await stamp_rules(db) == len(KINDS) + 1
        assert await stamp_rules(db) == 0  # once
        assert await verify_games(db) == len(KINDS) + 1
        assert (await db.games.load(record.id, verify=True)).game.settings.rules == 2
        for game_id, kind in enumerate(KINDS, start=1):
            loaded = (await db.games.load(game_id, verify=True)).game
            assert loaded.settings.rules == (2 if kind == "ordinary" else 1), kind
    finally:
        await db.close()


async def _set_settings(conn: Connection, game_id: int, text: str) -> None:
    await conn.execute("UPDATE games SET settings = ? WHERE id = ?", (text, game_id))


async def test_start_up_stamps_the_rules_revisions_once_for_all(tmp_path: Path) -> None:
    """Each start scanned the settings of every stored game for one without a rules revision
    (issue #37: a query over the whole history at every start). The bot's pass over every
    game is now recorded once done (``chores``), and later starts skip it."""
    path = restore(tmp_path / "old.db")
    db = await SQLiteStore.open(path)
    try:
        assert await stamp_rules(db, remember=True) == len(KINDS)
        settings = GameSettings.create(2)
        record = await db.games.create(7, 998, Game.new(settings, 3), [], TableOptions(), None, 1.0)
        text = json.dumps({k: v for k, v in settings.to_dict().items() if k != "rules"})
        await db.run(_set_settings, record.id, text)
        assert await stamp_rules(db, remember=True) == 0  # done: not scanned again
        assert await stamp_rules(db, active=True) == 0
    finally:
        await db.close()
