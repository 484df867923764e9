"""Years of history cost the event loop nothing (issue #37): with 10,000 finished games in the
server, no read command (leaderboard, stats, history, mygames) holds the loop for more than
50 ms in one go, on both backends.

The games are written in bulk with the bot's own encoders (one template game's settings, seed
and seats; each result's rows as ``Results.record`` writes them), and the server's standings
computed by the bot's own rebuild (:func:`bot.store.rebuild.rebuild_guild`, which the live path
equals: tests/test_standings.py). Each callback the loop runs during a command is timed in the
loop thread's CPU time (``Handle._run``), so other processes on the machine do not count.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Iterator

import pytest

from bot.config import Settings
from bot.game import GameSettings
from bot.store.codec import dumps
from bot.store.rebuild import rebuild_guild
from bot.store.results import ResultRecord
from bot.store.seats import Seat, seats_to_json
from bot.store.standings import player_rows
from bot.store.tallies import Tally

from .e2e_helpers import make_table

GAMES = 10_000
#: The longest one callback may hold the loop.
LIMIT = 0.050
#: Game ids of the bulk games (far above those the bot gives its own).
FIRST_ID = 1_000_000


@pytest.fixture
def bot_settings(settings_on_each_backend: Settings) -> Settings:
    return settings_on_each_backend


@contextlib.contextmanager
def longest_callback() -> Iterator[list[float]]:
    """The loop thread's CPU seconds of the longest callback run inside the block."""
    longest = [0.0]
    original = asyncio.events.Handle._run

    def timed(handle: asyncio.events.Handle) -> None:
        start = time.thread_time()
        try:
            original(handle)
        finally:
            longest[0] = max(longest[0], time.thread_time() - start)

    asyncio.events.Handle._run = timed  # type: ignore[method-assign]
    try:
        yield longest
    finally:
        asyncio.events.Handle._run = original  # type: ignore[method-assign]


async def fill(db, guild_id: int, heavy: list[int]) -> None:
    """``GAMES`` finished, mostly rated 1v1 games; the ``heavy`` players in many of them."""
    rng = random.Random(37)
    settings = dumps(GameSettings.create(2).to_dict())
    games, results, players = [], [], []
    for number in range(GAMES):
        game_id = FIRST_ID + number
        users = rng.sample(range(5_000, 5_300), 2)
        if rng.random() < 0.4:
            users[0] = rng.choice(heavy)
        seats = dumps(seats_to_json([Seat(user, f"p{user}") for user in users]))
        at = 1_000.0 + number
        games.append((game_id, guild_id, 1, settings, dumps(number), seats, "{}", at, at + 600))
        record = ResultRecord(
            game_id, guild_id, [[users[0]], [users[1]]], rng.choice([0, 1, None]),
            rng.random() < 0.9, {"moves": 80, "left": []}, at + 600,
        )
        results.append(
            (game_id, guild_id, dumps(record.teams), record.winner_team, int(record.rated),
             dumps(record.summary), record.finished_at, number + 1)
        )
        tallies = {user: Tally(rng.randrange(3), rng.randrange(3)) for user in users}
        players += player_rows(record, number + 1, tallies)

    async def write(conn) -> None:
        await conn.executemany(
            "INSERT INTO games (id, guild_id, channel_id, settings, seed, seats, options, "
            "status, created_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'finished', ?, ?)",
            games,
        )
        await conn.executemany(
            "INSERT INTO results (game_id, guild_id, teams, winner_team, rated, summary, "
            "finished_at, seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            results,
        )
        await conn.executemany(
            "INSERT INTO result_players (game_id, team, user_id, guild_id, seq, outcome, "
            "sequences, jacks) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            players,
        )

    await db.run(write)
    await db.run(rebuild_guild, guild_id)


@pytest.mark.slow
async def test_no_read_command_blocks_the_loop_at_10000_games(simcord_env) -> None:
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    await fill(simcord_env.bot.db, table.guild.id, [alice.id, bob.id])
    stats = await alice.slash(table.channel, "sequence stats")
    games = next(f.value for f in stats.response.embeds[0].fields if f.name == "Games")
    assert int(games.split("**")[1]) > 1_500  # about one game in five is alice's
    calls = [
        (alice, "sequence leaderboard", {}),
        (bob, "sequence leaderboard", {"page": 20}),
        (alice, "sequence stats", {}),
        (bob, "sequence stats", {"player": alice.user}),
        (alice, "sequence history", {}),
        (bob, "sequence history", {"player": alice.user}),
        (alice, "sequence mygames", {}),
    ]
    held = {}
    for actor, command, options in calls:
        with longest_callback() as longest:
            result = await actor.slash(table.channel, command, **options)
        assert result.response is not None, command
        held[f"{command} {options}"] = longest[0]
    assert max(held.values()) <= LIMIT, held
