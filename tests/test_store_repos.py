"""Lobbies, preferences, timers, table-talk reports and results, on both backends (the
``db`` fixture of conftest)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from bot.store import ChannelBusyError, NotFoundError, Seat, Store, StoreError
from bot.store.connection import Connection
from bot.store.lobbies import MatchLink, lobby_from_json, lobby_to_json
from bot.store.tournaments.records import MatchRecord
from bot.table.options import TableOptions
from bot.table.tournament import TournamentSettings
from tests.store_util import create_game


async def test_lobbies(db: Store) -> None:
    lobby = await db.lobbies.create(1, 10, 100, TableOptions(), 5.0)
    assert lobby.id and lobby.seats == [] and lobby.created_at == 5.0
    with pytest.raises(ChannelBusyError, match="open lobby"):
        await db.lobbies.create(1, 10, 101, TableOptions(), 6.0)
    lobby.seats.append(Seat(100, "Ann", team=0))
    lobby.seats.append(Seat(-1, "Bot", bot_level="easy"))
    lobby.options = lobby.options.but(preset="convoy")
    stale = await db.lobbies.get(lobby.id)
    await db.lobbies.save(lobby)
    posted = await db.lobbies.set_message(lobby.id, 555)
    lobby.message_id = 555
    assert posted == lobby == await db.lobbies.get(lobby.id)
    assert stale is not None and stale.message_id is None
    await db.lobbies.save(stale)  # a save from before the message was posted: keeps it
    assert await db.lobbies.get(lobby.id) == dataclasses.replace(stale, message_id=555)
    await db.lobbies.save(lobby)
    assert await db.lobbies.get_for_channel(10) == lobby
    old = await db.lobbies.create(1, 11, 100, TableOptions(), 1.0)
    assert [x.id for x in await db.lobbies.list_all()] == [lobby.id, old.id]
    assert await db.lobbies.expire(older_than=3.0) == [old]
    assert await db.lobbies.list_all() == [lobby]
    assert await db.lobbies.delete(lobby.id)
    assert not await db.lobbies.delete(lobby.id)
    with pytest.raises(NotFoundError):
        await db.lobbies.save(lobby)
    assert await db.lobbies.set_message(lobby.id, 556) is None
    assert await db.lobbies.get(lobby.id) is None


async def test_seats_stored_as_before_load_unchanged(db: Store) -> None:
    """Seats were dicts: a game's without ``team``, older test rows without ``bot_level``."""
    record = await create_game(db, 4)
    lobby = await db.lobbies.create(1, 12, 100, TableOptions(), 1.0)
    game_seats = '[{"user_id":100,"name":"P0","bot_level":null},{"user_id":-1,"name":"Ada"}]'
    lobby_seats = '[{"user_id":100,"name":"Ann","team":1,"bot_level":null}]'

    async def store_old_rows(conn: Connection) -> None:
        await conn.execute("UPDATE games SET seats = ? WHERE id = ?", (game_seats, record.id))
        await conn.execute("UPDATE lobbies SET seats = ? WHERE id = ?", (lobby_seats, lobby.id))

    await db.run(store_old_rows)
    loaded = await db.games.load(record.id)
    assert loaded.seats == [Seat(100, "P0"), Seat(-1, "Ada")]
    again = await db.lobbies.get(lobby.id)
    assert again is not None and again.seats == [Seat(100, "Ann", team=1)]
    assert await db.lobbies.seating(100) == 1


async def test_a_match_lobby_keeps_its_link_apart_from_its_options(db: Store) -> None:
    """A tournament match's lobby holds its options and its match apart; both are stored in the
    options column as older versions wrote them (the link under "tournament"), so a row (or a
    tournament step in the outbox) they stored loads with its match."""
    options = TableOptions(teams=2, preset="convoy")
    link = MatchLink(tournament_id=4, match_id=9)
    lobby = await db.lobbies.create(1, 13, 100, options, 1.0, match=link)
    again = await db.lobbies.get(lobby.id)
    assert again is not None and again.match == link and again.options == options
    assert again == lobby
    written = {**options.to_dict(), "tournament": {"id": 4, "match": 9}}
    assert json.loads((await db.read(_lobby_options, lobby.id))[0]) == written
    casual = await db.lobbies.create(1, 14, 100, options, 1.0)
    assert casual.match is None and "tournament" not in json.loads(
        (await db.read(_lobby_options, casual.id))[0]
    )
    old = {"teams": 2, "tournament": {"id": 5, "match": 11}}

    async def store_old_row(conn: Connection) -> None:
        sql = "UPDATE lobbies SET options = ? WHERE id = ?"
        await conn.execute(sql, (json.dumps(old), casual.id))

    await db.run(store_old_row)
    loaded = await db.lobbies.get(casual.id)
    assert loaded is not None and loaded.match == MatchLink(5, 11)
    assert loaded.options == TableOptions(teams=2)
    step = {**lobby_to_json(loaded), "options": old}  # a stored step's lobby
    assert lobby_from_json(json.loads(json.dumps(step))) == loaded
    assert lobby_from_json(json.loads(json.dumps(lobby_to_json(lobby)))) == lobby


async def _lobby_options(conn: Connection, lobby_id: int) -> tuple[object, ...]:
    row = await conn.fetchone("SELECT options FROM lobbies WHERE id = ?", (lobby_id,))
    assert row is not None
    return tuple(row)


async def test_no_lobby_in_a_channel_with_an_active_game(db: Store) -> None:
    await create_game(db, 3)
    with pytest.raises(ChannelBusyError, match="active game"):
        await db.lobbies.create(1, 3, 100, TableOptions(), 1.0)


async def test_tournament_and_match_messages(db: Store) -> None:
    """The sign-up and match messages are written alone: a save made from a record read
    before the message was posted keeps them."""
    settings = TournamentSettings(TableOptions())
    cup = await db.tournaments.create(7, 70, 100, "Cup", "swiss", 1, settings, 1.0)
    a = await db.tournaments.add_entrant(cup.id, "P1", [{"user_id": 1}], 2.0)
    b = await db.tournaments.add_entrant(cup.id, "P2", [{"user_id": 2}], 2.0)
    stale = await db.tournaments.get(cup.id)
    posted = await db.tournaments.set_message(cup.id, 700)
    assert stale is not None and posted is not None and posted.message_id == 700
    stale.status = "running"
    await db.tournaments.save(stale)
    assert await db.tournaments.get(cup.id) == dataclasses.replace(stale, message_id=700)
    (match,) = await db.tournaments.add_round(cup.id, 1, [MatchRecord(0, cup.id, 1, 1, a.id, b.id)])
    shown = await db.tournaments.set_match_message(match.id, 701)
    assert shown is not None and shown.message_id == 701
    match.checkins.append(1)
    await db.tournaments.save_match(match)
    assert await db.tournaments.match(match.id) == dataclasses.replace(match, message_id=701)
    assert await db.tournaments.set_message(cup.id + 1, 1) is None
    assert await db.tournaments.set_match_message(match.id + 1, 1) is None


async def test_prefs(db: Store) -> None:
    assert await db.prefs.get(1, "theme") is None
    assert await db.prefs.get(1, "theme", "light") == "light"
    await db.prefs.set(1, "theme", "dark")
    await db.prefs.set(1, "theme", {"board": "wood", "size": [2, 3]})
    await db.prefs.set(1, "ping", True)
    await db.prefs.set(2, "ping", False)
    assert await db.prefs.get(1, "theme") == {"board": "wood", "size": [2, 3]}
    assert await db.prefs.all(1) == {"ping": True, "theme": {"board": "wood", "size": [2, 3]}}
    assert await db.prefs.delete(1, "ping") and not await db.prefs.delete(1, "ping")
    assert await db.prefs.get(2, "ping") is False


async def test_timers(db: Store) -> None:
    one = await create_game(db, 1)
    two = await create_game(db, 2)
    await db.timers.set(one.id, "turn", 100.0, {"seat": 0})
    await db.timers.set(one.id, "turn", 150.0, {"seat": 1})  # replaces
    await db.timers.set(one.id, "forfeit", 90.0)
    await db.timers.set(two.id, "turn", 120.0, {"seat": 0})
    assert [(t.game_id, t.kind, t.due_at) for t in await db.timers.all()] == [
        (one.id, "forfeit", 90.0),
        (two.id, "turn", 120.0),
        (one.id, "turn", 150.0),
    ]
    assert [(t.game_id, t.kind) for t in await db.timers.all("forfeit", "x")] == [
        (one.id, "forfeit")
    ]
    assert (await db.timers.get(one.id, "turn")).payload == {"seat": 1}  # type: ignore[union-attr]
    assert await db.timers.clear(one.id, "forfeit") and not await db.timers.clear(one.id, "x")
    assert await db.timers.clear_game(one.id) == 1
    assert [t.game_id for t in await db.timers.all()] == [two.id]
    with pytest.raises(NotFoundError):
        await db.timers.set(9999, "turn", 1.0)


async def test_tabletalk_reports(db: Store) -> None:
    record = await create_game(db, 1)
    report = await db.tabletalk.create(record.id, reporter_id=100, team=1, now=5.0)
    assert report.status == "pending" and report.message_id is None
    await db.tabletalk.set_message(report.id, 42)
    other = await db.tabletalk.create(record.id, 101, 0, 6.0, message_id=43)
    assert [r.id for r in await db.tabletalk.pending(record.id)] == [report.id, other.id]
    upheld = await db.tabletalk.resolve(report.id, "upheld", 7.0, resolved_by=100)
    assert (upheld.status, upheld.message_id, upheld.resolved_at, upheld.resolved_by) == (
        "upheld",
        42,
        7.0,
        100,
    )
    with pytest.raises(StoreError, match="already upheld"):
        await db.tabletalk.resolve(report.id, "dismissed", 8.0)
    assert [r.id for r in await db.tabletalk.pending()] == [other.id]
    assert await db.tabletalk.get(report.id) == upheld
    assert len(await db.tabletalk.for_game(record.id)) == 2
    with pytest.raises(NotFoundError):
        await db.tabletalk.resolve(999, "dismissed", 8.0)
    with pytest.raises(NotFoundError):
        await db.tabletalk.create(999, 1, 0, 1.0)


async def test_results(db: Store) -> None:
    games = [await create_game(db, channel) for channel in range(4)]
    await db.results.record(games[0].id, 7, [[1, 2], [3, 4]], 0, True, {"moves": 80}, 10.0)
    await db.results.record(games[1].id, 7, [[1], [5]], None, False, {}, 20.0)
    await db.results.record(games[2].id, 8, [[3], [1]], 1, True, {}, 30.0)
    assert [r.game_id for r in await db.results.for_guild(7)] == [games[0].id, games[1].id]
    assert [r.game_id for r in await db.results.for_guild(7, rated_only=True)] == [games[0].id]
    assert [r.game_id for r in await db.results.for_guild(7, since=15.0)] == [games[1].id]
    ones = await db.results.for_user(1)
    assert [r.game_id for r in ones] == [g.id for g in games[:3]]
    assert [r.team_of(1) for r in ones] == [0, 0, 1]
    assert [r.game_id for r in await db.results.for_user(1, guild_id=8)] == [games[2].id]
    assert [r.game_id for r in await db.results.for_user(1, rated_only=True)] == [
        games[0].id,
        games[2].id,
    ]
    result = await db.results.get(games[0].id)
    assert result is not None and result.summary == {"moves": 80} and result.rated
    # Recording again replaces the result and its players.
    await db.results.record(games[0].id, 7, [[9], [4]], 1, True, {}, 11.0)
    assert [r.game_id for r in await db.results.for_user(1)] == [games[1].id, games[2].id]
    assert [r.game_id for r in await db.results.for_user(9)] == [games[0].id]
    assert await db.results.get(games[3].id) is None
    with pytest.raises(ValueError):
        await db.results.record(games[3].id, 7, [[1], [2]], 2, True, {}, 1.0)
    with pytest.raises(NotFoundError):
        await db.results.record(999, 7, [[1], [2]], 0, True, {}, 1.0)
