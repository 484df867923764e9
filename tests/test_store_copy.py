"""``sequence-bot migrate-db``: a SQLite store full of randomly played games, copied to
PostgreSQL and verified; refused on a non-empty target; every table of the schema is copied."""

from __future__ import annotations

import asyncio
import contextlib
import random
import sqlite3
from pathlib import Path

import pytest

from bot.cli import main
from bot.game import Game
from bot.store import SQLiteStore, Store
from bot.store.copy import SCHEMA_VERSION, TABLES, CopyError, copy_store, verify_games
from bot.store.location import open_database
from bot.store.migrations import latest_version
from bot.store.tournaments.records import MatchRecord
from bot.table.options import TableOptions
from bot.table.tournament import TournamentSettings
from tests.helpers.store import query
from tests.store_util import create_game, play, push_random


async def fill(db: Store, games: int, seed: int = 11) -> None:
    """A store as months of play leave it: random games (finished with results, cancelled,
    with undone moves, still active with timers), lobbies, reports, preferences, a tournament."""
    rng = random.Random(seed)
    for channel in range(1, games + 1):
        record = await create_game(db, channel, seed=channel, players=rng.choice([2, 3, 4, 6]))
        await play(db, record, rng.randrange(0, 200), rng)
        game = record.game
        if game.moves and rng.random() < 0.3:  # an undo, then another move
            count = len(game.moves)
            before = Game.replay(game.settings, game.seed, game.moves[:-1])
            await db.games.truncate_last(record.id, count, before, 3000.0)
            if not before.is_over():
                move = push_random(before, rng)
                await db.games.append_move(record.id, count - 1, move, 7, before, 3001.0)
            record.game = before
        ending = rng.random()
        if record.game.is_over() or ending < 0.3:
            await db.games.finish(record.id, "finished", 4000.0 + channel)
            teams = [[100 + i] for i in range(record.game.settings.teams)]
            winner = rng.choice([None, 0])
            await db.results.record(record.id, 7, teams, winner, True, {"moves": 1}, 4000.0)
        elif ending < 0.4:
            await db.games.finish(record.id, "cancelled", 4000.0)
        else:
            await db.timers.set(record.id, "limit", 5000.0 + channel, {"turn": channel})
            if rng.random() < 0.3:
                report = await db.tabletalk.create(record.id, 100, 1, 4100.0, message_id=9)
                if rng.random() < 0.5:
                    await db.tabletalk.resolve(report.id, "upheld", 4200.0, resolved_by=100)
    for channel in range(games + 1, games + 4):
        lobby = await db.lobbies.create(7, channel, 100, TableOptions(), 10.0 + channel)
        if channel % 2:
            await db.lobbies.delete(lobby.id, 20.0)
    for user in range(5):
        await db.prefs.set(10**17 + user, "theme", {"board": "wood", "user": user})
    settings = TournamentSettings(TableOptions(), rounds=3)
    cup = await db.tournaments.create(7, 9999, 100, "Cup", "swiss", 1, settings, 50.0)
    entrants = [
        await db.tournaments.add_entrant(cup.id, f"P{u}", [{"user_id": u}], 51.0) for u in (1, 2)
    ]
    cup.status = "running"
    await db.tournaments.save(cup)
    await db.tournaments.add_round(
        cup.id, 1, [MatchRecord(0, cup.id, 1, 1, entrants[0].id, entrants[1].id)]
    )


async def filled(path: Path, games: int) -> dict[int, Game]:
    """Fill a new SQLite store at ``path``; its active games."""
    source = await SQLiteStore.open(path)
    try:
        await fill(source, games)
        return {r.id: r.game for r in await source.games.active()}
    finally:
        await source.close()


@pytest.mark.slow
def test_a_store_of_random_games_is_copied_to_postgresql_and_verified(
    tmp_path: Path, pg_url: str
) -> None:
    path = tmp_path / "old.db"
    active = asyncio.run(filled(path, 40))
    before = {t.name: asyncio.run(query(path, f"SELECT count(*) FROM {t.name}")) for t in TABLES}
    assert before["moves"][0][0] > 1000 and before["tournament_matches"] == [(1,)]

    assert main(["migrate-db", "--from", str(path), "--to", pg_url]) == 0

    asyncio.run(check_copy(pg_url, before, active, path))


async def check_copy(
    pg_url: str,
    before: dict[str, list[tuple[object, ...]]],
    active: dict[int, Game],
    path: Path,
) -> None:
    lines: list[str] = []
    target = await open_database(pg_url)
    try:
        for table in TABLES:
            assert await query(pg_url, f"SELECT count(*) FROM {table.name}") == before[table.name]
        assert await verify_games(target, lines.append) == before["games"][0][0]
        loaded = {r.id: r.game for r in await target.games.active()}
        assert loaded == active and loaded
        # Every game, finished and cancelled ones too, replays on PostgreSQL to the state it
        # had in the SQLite file (the target's log replayed, compared with the source's).
        source = await SQLiteStore.open(path)
        try:
            ids = [row[0] for row in await query(path, "SELECT id FROM games ORDER BY id")]
            for game_id in ids:
                copied = await target.games.load(game_id, verify=True)
                original = await source.games.load(game_id)
                assert copied.game == original.game and copied.status == original.status
                replayed = Game.replay(
                    copied.game.settings, copied.game.seed, list(copied.game.moves)
                )
                assert replayed == original.game
        finally:
            await source.close()
        # New rows get new ids: the sequences moved past the copied ones.
        game = await create_game(target, channel_id=123456)
        assert game.id > max(active)
        lobby = await target.lobbies.create(7, 654321, 1, TableOptions(), 1.0)
        assert not await target.lobbies.was_opened(lobby.id + 1)
    finally:
        await target.close()


def test_a_non_empty_target_is_refused_unless_forced(
    tmp_path: Path, pg_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "old.db"
    asyncio.run(filled(path, 3))

    async def one_game() -> None:
        target = await open_database(pg_url)
        await create_game(target, channel_id=1, seed=99)
        await target.close()

    asyncio.run(one_game())
    secret_url = pg_url.replace("sequence@", "sequence:hunter2@")

    assert main(["migrate-db", "--from", str(path), "--to", secret_url]) == 1
    out, err = capsys.readouterr()
    assert "already holds data" in err and "--force" in err
    assert asyncio.run(query(pg_url, "SELECT count(*) FROM games")) == [(1,)]  # as it was

    assert main(["migrate-db", "--from", str(path), "--to", secret_url, "--force"]) == 0
    out2, err2 = capsys.readouterr()
    assert asyncio.run(query(pg_url, "SELECT count(*) FROM games")) == [(3,)]
    assert "sequence:***@" in out2 and "hunter2" not in out + err + out2 + err2


async def test_a_game_that_does_not_replay_to_its_snapshot_fails_and_nothing_is_kept(
    tmp_path: Path, pg_url: str
) -> None:
    path = tmp_path / "old.db"
    await filled(path, 3)
    # every game's snapshot holds game 1's state
    with contextlib.closing(sqlite3.connect(path)) as conn, conn:
        conn.execute("UPDATE snapshots SET state = (SELECT state FROM snapshots WHERE game_id = 1)")
    source, target = await SQLiteStore.open(path), await open_database(pg_url)
    try:
        with pytest.raises(CopyError, match="do not replay to their snapshot"):
            await copy_store(source, target)
        assert await query(pg_url, "SELECT count(*) FROM games") == [(0,)]
    finally:
        await source.close()
        await target.close()


def test_a_forced_copy_that_fails_leaves_the_targets_ids_as_they_were(
    tmp_path: Path, pg_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A failed ``--force`` copy leaves the target as it was, its id sequences too: the bot
    still running on it opens new games and lobbies with ids it has not used yet."""
    path = tmp_path / "old.db"
    asyncio.run(filled(path, 2))
    # game 2's snapshot holds game 1's state (the connection closed: migrate-db refuses a file
    # another connection has open)
    with contextlib.closing(sqlite3.connect(path)) as conn, conn:
        conn.execute("UPDATE snapshots SET state = (SELECT state FROM snapshots WHERE game_id = 1)")

    async def own_data() -> None:  # the target's own games (ids 1 to 10) and lobby (id 1)
        target = await open_database(pg_url)
        for channel in range(1, 11):
            await create_game(target, channel_id=channel, seed=channel)
        await target.lobbies.create(7, 500, 1, TableOptions(), 1.0)
        await target.close()

    async def more_data() -> tuple[int, int]:
        target = await open_database(pg_url)
        try:
            game = await create_game(target, channel_id=11, seed=11)
            lobby = await target.lobbies.create(7, 501, 1, TableOptions(), 2.0)
            return game.id, lobby.id
        finally:
            await target.close()

    asyncio.run(own_data())
    assert main(["migrate-db", "--from", str(path), "--to", pg_url, "--force"]) == 1
    assert "do not replay to their snapshot" in capsys.readouterr().err
    assert asyncio.run(query(pg_url, "SELECT count(*) FROM games")) == [(10,)]  # as it was
    assert asyncio.run(more_data()) == (11, 2)


async def test_every_table_of_the_schema_is_copied(tmp_path: Path, pg_url: str) -> None:
    for location in (tmp_path / "s.db", pg_url):
        db = await open_database(location)
        await db.close()
        sql = (
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
            if location == pg_url
            else "SELECT name FROM sqlite_master WHERE type = 'table'"
        )
        # SQLite's own sqlite_sequence keeps the events' AUTOINCREMENT: never copied.
        internal = {"schema_version", "sqlite_sequence"}
        names = {name for (name,) in await query(location, sql)} - internal
        assert names == {t.name for t in TABLES}
        for table in TABLES:  # and every column of each
            sql = (
                "SELECT column_name FROM information_schema.columns "
                f"WHERE table_name = '{table.name}'"
                if location == pg_url
                else f"SELECT name FROM pragma_table_info('{table.name}')"
            )
            assert {name for (name,) in await query(location, sql)} == set(table.columns)
    assert latest_version() == SCHEMA_VERSION  # a new migration must teach the copy its changes


def test_a_missing_source_file_is_not_created(tmp_path: Path, capsys) -> None:
    missing = tmp_path / "nothing.db"
    assert main(["migrate-db", "--from", str(missing), "--to", "postgresql://x@127.0.0.1/y"]) == 2
    assert "no database file" in capsys.readouterr().err and not missing.exists()



def test_a_target_url_with_a_character_to_encode_is_refused_without_its_password(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "old.db"
    asyncio.run(filled(path, 1))
    target = "postgresql://sequence:hun/ter2@127.0.0.1/sequence"
    assert main(["migrate-db", "--from", str(path), "--to", target]) == 2
    out, err = capsys.readouterr()
    assert "postgresql://sequence:***@127.0.0.1/sequence" in err and "%2F" in err
    assert "hun" not in out + err and "ter2" not in out + err
