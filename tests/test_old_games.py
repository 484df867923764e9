"""Games stored by an old release keep the rules they were started under.

``tests/data/a68c04c_games.sql.gz`` is a SQLite store written by a68c04c's own code (made by
``bench/old_games.py``): games that today's rules (revision 2) would play on differently
(stalemates after a time-out or a departure, convoy endings, late manual draws; games still active
after a pass holding a dead card) and ordinary ones. Under this tree every one replays to its snapshot, copies to
PostgreSQL, and an active one plays on by revision 1 after an in-place upgrade.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import sqlite3
from dataclasses import replace
from pathlib import Path

from bot.app import create_bot
from bot.cli import main
from bot.config import Settings
from bot.game import ACTIVE, DRAWN, Game, GameSettings, IllegalMove, Move, Termination
from bot.game.moves import PASS, SKIP
from bot.store import Database
from bot.store.copy import verify_games
from bot.store.location import open_database
from tests.e2e_driver import make_move
from tests.e2e_helpers import make_table
from tests.store_util import create_game
from tests.test_store_migrations import query

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
    with sqlite3.connect(path) as conn:
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


def test_the_fixture_holds_old_games_that_todays_rules_replay_otherwise(tmp_path: Path) -> None:
    """What the other tests rest on: the stored settings say no revision (so revision 1),
    and revision 2 replays every game but the ordinary ones to another state."""
    games = stored(restore(tmp_path / "old.db"))
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
    for settings, seed, moves, snapshot in stored(path).values():
        assert Game.replay(settings, seed, moves).state_dict() == snapshot
    db = await Database.open(path)
    try:
        assert await verify_games(db) == len(KINDS)
        for game_id in range(1, len(KINDS) + 1):
            record = await db.games.load(game_id, verify=True)
            assert record.game.settings.rules == 1
    finally:
        await db.close()


def test_migrate_db_copies_the_old_games_to_postgresql(tmp_path: Path, pg_url: str) -> None:
    """The copy verifies every old game by replaying it; on PostgreSQL they keep revision 1,
    their settings as they were stored, and a new game there is revision 2."""
    path = restore(tmp_path / "old.db")
    assert main(["migrate-db", "--from", str(path), "--to", pg_url]) == 0

    async def check() -> None:
        target = await open_database(pg_url)
        source = await Database.open(path)
        try:
            sql = "SELECT id, settings FROM games ORDER BY id"
            assert await query(pg_url, sql) == await query(path, sql)
            assert await verify_games(target) == len(KINDS)
            for game_id in range(1, len(KINDS) + 1):
                copied = await target.games.load(game_id, verify=True)
                assert copied.game == (await source.games.load(game_id)).game
                assert copied.game.settings.rules == 1
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
    with sqlite3.connect(path) as conn:  # the old game is this server's, its seats these members
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
    assert "taken back" in ask.response.content and record.game.turn == 0
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
