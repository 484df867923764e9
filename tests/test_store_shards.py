"""A process of a cluster loads only its shards' rows (both backends): active games, open
lobbies, timers, pending table-talk calls and running tournaments; what spans processes (a
player's games, their count for the caps) reads every shard."""

from __future__ import annotations

import pytest

from bot.store import Store
from bot.store.shards import Shards
from bot.table.options import TableOptions
from bot.table.tournament import TournamentSettings
from tests.helpers.store import SHARD_COUNT, guild_on
from tests.store_util import create_game


async def fill(db: Store) -> dict[int, dict[str, int]]:
    """One game (with a timer and a pending report), one lobby and one running tournament in a
    guild of each shard; the ids by shard."""
    ids: dict[int, dict[str, int]] = {}
    for shard in range(SHARD_COUNT):
        guild = guild_on(shard)
        game = await create_game(db, 100 + shard, guild_id=guild)
        await db.timers.set(game.id, "turn", 50.0 + shard, {"turn": 0})
        report = await db.tabletalk.create(game.id, 100, 1, now=1.0)
        lobby = await db.lobbies.create(guild, 200 + shard, 100, TableOptions(), 1.0)
        tournament = await db.tournaments.create(
            guild, 300 + shard, 100, f"Cup {shard}", "swiss", 1, TournamentSettings(TableOptions()),
            1.0,
        )
        tournament.status = "running"
        await db.tournaments.save(tournament)
        ids[shard] = {
            "game": game.id,
            "report": report.id,
            "lobby": lobby.id,
            "tournament": tournament.id,
        }
    return ids


async def loaded(db: Store) -> dict[str, set[int]]:
    return {
        "game": {r.id for r in await db.games.active()},
        "timer": {t.game_id for t in await db.timers.all()},
        "report": {r.id for r in await db.tabletalk.pending()},
        "lobby": {lobby.id for lobby in await db.lobbies.list_all()},
        "tournament": {t.id for t in await db.tournaments.running()},
    }


@pytest.mark.parametrize("mine", [(1,), (0, 3), (0, 1, 2, 3)])
async def test_start_up_queries_load_only_this_process_s_shards(
    db: Store, mine: tuple[int, ...]
) -> None:
    ids = await fill(db)
    db.shards = Shards(SHARD_COUNT, mine)
    found = await loaded(db)
    for kind in ("game", "report", "lobby", "tournament"):
        assert found[kind] == {ids[s][kind] for s in mine}, kind
    assert found["timer"] == {ids[s]["game"] for s in mine}
    db.shards = None  # one process: everything
    assert (await loaded(db))["game"] == {ids[s]["game"] for s in range(SHARD_COUNT)}


async def test_a_player_s_games_are_read_across_every_shard(db: Store) -> None:
    ids = await fill(db)
    db.shards = Shards(SHARD_COUNT, (2,))
    everywhere = {r.id for r in await db.games.active_of(100)}
    assert everywhere == {ids[s]["game"] for s in range(SHARD_COUNT)}
    assert [r.id for r in await db.games.active_of(100, guild_on(3))] == [ids[3]["game"]]
    assert await db.games.playing(100) == SHARD_COUNT and await db.games.playing(101) == 4
    # A text match is not a seat: user 10 is a prefix of 100 and 101 but plays nowhere.
    assert await db.games.active_of(10) == [] and await db.games.playing(10) == 0
    await db.games.finish(ids[0]["game"], "finished", now=2.0)
    assert await db.games.playing(100) == SHARD_COUNT - 1
