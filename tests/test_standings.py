"""Standings kept as results are recorded (issue #37), on both backends: the stored ratings,
rating changes and totals equal a replay of the results in the order they were recorded, and
the leaderboard, stats, history and seeding read from them show what the replay shows; a
replaced result, the ``standings`` command's rebuild, and migration 8 filling an older
database's standings."""

from __future__ import annotations

import random
from pathlib import Path
from types import SimpleNamespace

from bot.cli.standings import check_standings
from bot.game.randomplay import push_random
from bot.services.ratings import Rating, RatingService, build_book, places
from bot.services.stats import StatsService, tally_game
from bot.services.tournament.rounds import Rounds
from bot.store.codec import dumps
from bot.store.location import open_database
from bot.store.migrations import latest_version
from bot.store.postgres_migrations import POSTGRES_MIGRATIONS
from bot.store.rebuild import stored_problems
from bot.store.seats import Seat
from bot.store.sqlite_migrations import MIGRATIONS
from bot.store.tallies import Tally

from .store_util import create_game

GUILD = 7


def random_results(rng: random.Random, count: int) -> list[dict]:
    """Results of 1v1, 2v2 and three-way games among eight players (some computers, some
    unrated, some draws and resignations), each with what its players did."""
    made = []
    for _ in range(count):
        shape = rng.choice([(2, 1), (2, 2), (3, 1)])
        teams_count, size = shape
        users = rng.sample(range(1, 9), teams_count * size)
        teams = [users[t * size : (t + 1) * size] for t in range(teams_count)]
        if rng.random() < 0.1:
            teams[1][0] = -1  # a computer player
        winner = rng.choice([None, *range(teams_count)])
        left = [rng.randrange(teams_count)] if winner is None and rng.random() < 0.3 else []
        tallies = {u: Tally(rng.randrange(3), rng.randrange(4)) for team in teams for u in team}
        rated = rng.random() < 0.8 and all(u > 0 for team in teams for u in team)
        made.append(
            {"teams": teams, "winner": winner, "left": left, "tallies": tallies, "rated": rated}
        )
    return made


async def record_all(db, made: list[dict], times: list[float]) -> list[int]:
    ids = []
    for number, (result, at) in enumerate(zip(made, times, strict=True)):
        game = await create_game(db, channel_id=1000 + number, guild_id=GUILD)
        await db.results.record(
            game.id,
            GUILD,
            result["teams"],
            result["winner"],
            result["rated"],
            {"left": result["left"]},
            now=at,
            tallies=result["tallies"],
        )
        ids.append(game.id)
    return ids


def trend_of(history: list[tuple[int, float]], games: int = 10) -> list[float]:
    recent = history[-games:]
    if not recent:
        return []
    start = len(history) - len(recent)
    return [history[start - 1][1] if start else Rating().ordinal, *(o for _, o in recent)]


async def test_the_kept_standings_equal_a_replay_and_read_the_same(
    store_location: str | Path,
) -> None:
    """Sixty random results recorded one by one, their times out of order (clocks of a
    cluster that disagree): the stored standings equal a replay of the results in the order
    they were recorded, and every read shows what the replay shows."""
    db = await open_database(store_location)
    try:
        rng = random.Random(37)
        made = random_results(rng, 60)
        times = [1000.0 + n * 10 + rng.choice([0, -25, 25]) for n in range(len(made))]
        ids = await record_all(db, made, times)
        ratings = RatingService(db)
        assert await db.read(stored_problems, GUILD) == []  # ratings, changes and totals
        book = build_book(await db.results.in_order(GUILD, rated_only=True))
        assert [r.game_id for r in await db.results.in_order(GUILD)] == ids  # recorded order

        stats = StatsService(db, ratings)
        rows = book.leaderboard()
        expected = [
            (place, user, rating, games)
            for place, (user, rating, games) in zip(places(rows), rows, strict=True)
        ]
        shown, page, pages = await stats.leaderboard(GUILD, 2)
        assert (page, pages) == (1, 1) and shown == expected  # eight players: one page
        for user in range(1, 9):
            mine = [(n, r) for n, r in enumerate(made) if any(user in t for t in r["teams"])]
            player = await stats.player(GUILD, user)
            assert player.games == len(mine)
            assert player.sequences == sum(r["tallies"][user].sequences for _, r in mine)
            assert player.jacks == sum(r["tallies"][user].jacks for _, r in mine)
            assert player.wins + player.draws + player.losses == len(mine)
            assert player.rated_games == len(book.history.get(user, []))
            assert player.rating == (book.rating(user) if player.rated_games else None)
            assert player.trend == book.trend(user) == trend_of(book.history.get(user, []))
            place = next((p for p, u, _, _ in expected if u == user), None)
            assert player.place == place
            entries, total = await stats.history(GUILD, user)
            assert total == len(mine)
            newest = [ids[n] for n, _ in reversed(mine)][:10]
            assert [e.result.game_id for e in entries] == newest
            changes, previous = {}, Rating().ordinal
            for game_id, ordinal in book.history.get(user, []):
                changes[game_id], previous = ordinal - previous, ordinal
            assert [e.rating_change for e in entries] == [changes.get(g) for g in newest]
        entrants = [SimpleNamespace(id=n, user_ids=[n, n + 1]) for n in range(1, 8, 2)]
        seeding = await Rounds._strength(SimpleNamespace(db=db, ratings=ratings), GUILD, entrants)
        assert seeding == {
            e.id: sum(book.rating(u).ordinal for u in e.user_ids) / 2 for e in entrants
        }
    finally:
        await db.close()


async def test_a_leaderboard_page_past_the_first_places_ties_as_the_whole_board(
    store_location: str | Path,
) -> None:
    """Twelve winners tied, twelve losers tied: page 2 starts with a winner in 1st place and
    the losers share 13th, as the whole board ranks them."""
    db = await open_database(store_location)
    try:
        for n in range(12):
            game = await create_game(db, channel_id=500 + n, guild_id=GUILD)
            await db.results.record(game.id, GUILD, [[1000 + n], [2000 + n]], 0, True, {}, now=n)
        stats = StatsService(db, RatingService(db))
        second, page, pages = await stats.leaderboard(GUILD, 2)
        assert (page, pages) == (2, 3)
        assert [(place, user) for place, user, _, _ in second] == [(1, 1010), (1, 1011)] + [
            (13, 2000 + n) for n in range(8)
        ]
    finally:
        await db.close()


async def test_a_replaced_result_recomputes_its_servers_standings(
    store_location: str | Path,
) -> None:
    db = await open_database(store_location)
    try:
        rng = random.Random(5)
        made = random_results(rng, 12)
        ids = await record_all(db, made, [float(n) for n in range(12)])
        await db.results.record(ids[3], GUILD, [[1], [2]], 1, True, {}, 99.0)  # replaced
        await db.results.record(ids[4], 8, [[1], [2]], 0, True, {}, 99.0)  # moved elsewhere
        for guild in (GUILD, 8):
            assert await db.read(stored_problems, guild) == []  # ratings, changes and totals
        assert [r.game_id for r in await db.results.in_order(8)] == [ids[4]]
        assert await db.standings.totals(8, 1) != await db.standings.totals(8, 3)
    finally:
        await db.close()


async def test_the_standings_command_checks_and_rebuilds(store_location: str | Path) -> None:
    db = await open_database(store_location)
    try:
        made = random_results(random.Random(9), 10)
        await record_all(db, made, [float(n) for n in range(10)])

        async def spoil(conn) -> None:
            await conn.execute("UPDATE ratings SET mu = mu + 1 WHERE user_id = 1")
            await conn.execute("UPDATE player_totals SET jacks = jacks + 1 WHERE user_id = 2")

        await db.run(spoil)
    finally:
        await db.close()
    servers, problems = await check_standings(store_location, rebuild=False)
    assert servers == 1 and len(problems) == 2
    assert "player 1" in problems[0] and "player 2" in problems[1]
    assert await check_standings(store_location, rebuild=True) == (1, [])


async def test_migration_8_fills_the_standings_of_an_older_database(
    store_location: str | Path,
) -> None:
    """A database of version 7 with finished games and their results (one with a computer,
    one unrated, a draw one team left): migration 8 fills each player's games, outcomes,
    sequences and jacks (the replayed logs, as /sequence stats counted them) and the
    ratings, in the order the games ended."""
    postgres = not isinstance(store_location, Path)
    older = (POSTGRES_MIGRATIONS if postgres else MIGRATIONS)[:7]
    if postgres:
        from bot.store.postgres import PostgresStore

        db = await PostgresStore.open(str(store_location), migrations=older)
    else:
        from bot.store.database import SQLiteStore

        db = await SQLiteStore.open(store_location, migrations=older)
    finished = []
    try:
        teams_of = [([[11], [12]], 0), ([[12], [13]], None), ([[11], [-1]], 1), ([[13], [11]], 1)]
        for number, (teams, winner) in enumerate(teams_of):
            record = await create_game(db, channel_id=50 + number, seed=number, guild_id=GUILD)
            game = record.game
            rng = random.Random(number)
            while not game.is_over() and len(game.moves) < 120:
                push_random(game, rng)
            await db.games.append_moves(
                record.id, 0, [(m, 1) for m in game.moves], game, now=2000.0
            )
            await db.games.finish(record.id, "finished", 3000.0 + number)
            users = [u for team in teams for u in team]
            seats = [Seat(u, f"p{u}") for u in users]
            await db.run(_set_seats, record.id, dumps([s.to_dict() for s in seats]))
            finished.append((record.id, teams, winner, seats, game))

            async def insert(conn, game_id=record.id, teams=teams, winner=winner, n=number):
                summary = {"left": [0]} if winner is None else {}
                await conn.execute(
                    "INSERT INTO results (game_id, guild_id, teams, winner_team, rated, summary, "
                    "finished_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (game_id, GUILD, dumps(teams), winner, int(n != 3), dumps(summary), 10.0 - n),
                )
                await conn.executemany(
                    "INSERT INTO result_players (game_id, team, user_id) VALUES (?, ?, ?)",
                    [(game_id, t, u) for t, members in enumerate(teams) for u in members],
                )

            await db.run(insert)
    finally:
        await db.close()
    db = await open_database(store_location)  # migrations 8 and later run
    try:
        assert await db.schema_version() == latest_version()
        assert await db.read(stored_problems, GUILD) == []  # ratings, changes and totals
        ended = [r.game_id for r in await db.results.in_order(GUILD)]
        assert ended == [game_id for game_id, *_ in reversed(finished)]  # by the time they ended
        stats = StatsService(db, RatingService(db))
        for user in (11, 12, 13):
            counted = [
                tally_game(game.settings, game.seed, game.moves, seats).get(user, Tally())
                for _, _, _, seats, game in finished
            ]
            player = await stats.player(GUILD, user)
            assert player.sequences == sum(t.sequences for t in counted)
            assert player.jacks == sum(t.jacks for t in counted)
        eleven = await stats.player(GUILD, 11)
        assert (eleven.games, eleven.wins, eleven.losses, eleven.draws) == (3, 2, 1, 0)
        twelve = await stats.player(GUILD, 12)
        assert (twelve.games, twelve.losses, twelve.draws) == (2, 2, 0)  # left before the draw
        assert (await stats.player(GUILD, 13)).draws == 1
    finally:
        await db.close()


async def _set_seats(conn, game_id: int, seats: str) -> None:
    await conn.execute("UPDATE games SET seats = ? WHERE id = ?", (seats, game_id))
