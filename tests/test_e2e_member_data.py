"""``/sequence-me``: what the bot keeps (privacy), a copy of it (export) and forget-me (issue
#41, players' data), on both backends."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from bot import pseudonyms
from bot.config import Settings
from bot.game import Game, GameSettings
from bot.game.randomplay import push_random
from bot.store import Seat
from bot.store.copy import TABLES
from bot.store.rebuild import stored_problems
from bot.table.options import TableOptions

from .e2e_driver import components
from .e2e_helpers import make_table, open_and_start, play_one
from .helpers.tournament import (
    check_in,
    game_in,
    resign,
    snapshot,
    standings_rows,
    started_cup,
    thread_of,
)


@pytest.fixture
def bot_settings(settings_on_each_backend: Settings) -> Settings:
    """Both backends."""
    return settings_on_each_backend


async def exported(member: Any, channel: Any) -> tuple[Any, list[dict[str, Any]]]:
    """``/sequence-me export``: the answer and its files, parsed."""
    answer = await member.slash(channel, "sequence-me export")
    assert answer.ephemeral
    files = [json.loads(await a.read()) for a in answer.response.attachments]
    return answer, files


async def two_games(table: Any) -> list[Any]:
    """Alice and Bob play two rated games (a few moves, then Bob resigns)."""
    bob = table.players[1]
    records = []
    for seed in (3, 4):
        record = await open_and_start(table, seed=seed)
        for _ in range(3):
            await play_one(table, record)
        await bob.slash(table.channel, "sequence resign")
        assert record.game.is_over()
        records.append(record)
    return records


async def test_privacy_answers_privately_in_a_server_and_in_a_dm(simcord_env) -> None:
    table = await make_table(simcord_env, ["alice"])
    (alice,) = table.players
    here = await alice.slash(table.channel, "sequence-me privacy")
    assert here.ephemeral
    text = here.response.content
    assert "What this bot keeps about you" in text
    assert "a hand is only ever shown to its owner" in text
    assert "/sequence-me forget-me" in text and len(text) <= 2000
    in_dm = await alice.user.slash("sequence-me privacy")
    assert in_dm.ephemeral and in_dm.response.content == text


async def test_the_export_is_what_the_database_holds(simcord_env) -> None:
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    bot = table.bot
    await alice.slash(table.channel, "sequence-me notify", setting="on")
    records = await two_games(table)

    answer, (document,) = await exported(alice, table.channel)
    assert answer.response.attachments[0].filename.endswith(".json")
    assert document["format"] == "sequence-bot/export" and document["version"] == 1
    assert document["member"] == str(alice.id)
    assert (document["part"], document["parts"]) == (1, 1)
    assert [g["id"] for g in document["games"]] == [r.id for r in records]
    for game, record in zip(document["games"], records, strict=True):
        log = await bot.db.games.log(record.id)
        assert game["moves"] == [e.move.notation() for e in log if e.undone_at is None]
        assert game["server"] == str(table.guild.id) and game["status"] == "finished"
        mine = next(i for i, s in enumerate(record.seats) if s.user_id == alice.id)
        assert game["your_seat"] == mine
        assert [s["name"] for s in game["seats"]] == [s.name for s in record.seats]
        result = await bot.db.results.get(record.id)
        assert game["result"]["winner_team"] == result.winner_team
        assert game["result"]["outcome"] == "won" and game["result"]["rated"] is True
        changes = await bot.db.standings.changes(table.guild.id, alice.id, [record.id])
        assert game["result"]["rating_change"] == changes[record.id]
        # no hand, and no shuffle that would deal them again: only what the table saw
        assert set(game) == {
            "id",
            "server",
            "status",
            "created_at",
            "finished_at",
            "rules",
            "seats",
            "your_seat",
            "your_team",
            "moves",
            "result",
        }
        assert "seed" not in game["rules"] and "hand" not in game["rules"]
    (rating,) = document["ratings"]
    stored, _ = await bot.db.standings.rating(table.guild.id, alice.id)
    assert (rating["mu"], rating["sigma"], rating["rated_games"]) == (stored.mu, stored.sigma, 2)
    trend = await bot.db.standings.trend(table.guild.id, alice.id)
    assert [step["rating"] for step in rating["history"]] == trend[1:]
    (totals,) = document["totals"]
    assert (totals["games"], totals["wins"], totals["losses"]) == (2, 2, 0)
    assert document["preferences"] == await bot.db.prefs.all(alice.id) != {}
    # other players' Discord ids are not in it (their names at the table are)
    assert str(bob.id) not in json.dumps(document)
    assert document["season_ratings"] == [] and document["away"] == []


async def test_the_export_holds_season_ratings_and_periods_away(simcord_env) -> None:
    """A server with monthly seasons: the member's season rating is in the export as the
    store holds it, and so is a period away (here, ended early with /sequence-me back)."""
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, _ = table.players
    bot = table.bot
    await bot.server_settings.set(table.guild.id, "season_plan", "monthly", alice.id)
    await two_games(table)
    await alice.slash(table.channel, "sequence-me away", until="2d")
    await alice.slash(table.channel, "sequence-me back")

    _, (document,) = await exported(alice, table.channel)
    (season,) = document["season_ratings"]
    (stored,) = await bot.db.seasons.of_member(alice.id)
    guild, name, rating, games = stored
    assert season == {
        "server": str(guild),
        "season": name,
        "mu": rating.mu,
        "sigma": rating.sigma,
        "rating": rating.ordinal,
        "rated_games": games,
    }
    assert guild == table.guild.id and games == 2
    (away,) = document["away"]
    (period,) = await bot.db.away.since(alice.id, 0.0)
    assert away["server"] == str(table.guild.id) and away["cover"] == "pause"
    assert away["until"] == round(period.until_at, 3) and away["ended_at"] is not None

    # in a DM too
    in_dm = await alice.user.slash("sequence-me export")
    assert in_dm.ephemeral
    assert json.loads(await in_dm.response.attachments[0].read())["games"] == document["games"]


async def store_games(bot: Any, guild_id: int, user_id: int, count: int) -> list[int]:
    """``count`` finished games of ``user_id`` against another person, through the store's
    own API (as the game service writes them)."""
    ids = []
    for number in range(count):
        game, rng = Game.new(GameSettings.create(2), number), random.Random(number)
        while not game.is_over():
            push_random(game, rng)
        seats = [Seat(user_id, "heavy"), Seat(7_000_000_000_000_000 + number, "other")]
        record = await bot.db.games.create(
            guild_id, 10 + number, game, seats, TableOptions(), None, 1000.0 + number
        )
        await bot.db.games.finish(record.id, "finished", 2000.0 + number)
        summary = {"termination": game.termination, "sequences": [0, 0]}
        teams = [[user_id], [seats[1].user_id]]
        await bot.db.results.record(
            record.id, guild_id, teams, game.winner, True, summary, now=2000.0 + number
        )
        ids.append(record.id)
    return ids


async def test_a_long_history_comes_in_parts_each_within_the_limit(
    simcord_env, monkeypatch
) -> None:
    table = await make_table(simcord_env, ["heavy"])
    (heavy,) = table.players
    ids = await store_games(table.bot, table.guild.id, heavy.id, 30)
    _, (whole,) = await exported(heavy, table.channel)
    assert [g["id"] for g in whole["games"]] == ids
    assert len(whole["ratings"][0]["history"]) == 30

    limit = 12_000  # a few games a part: the same games, shared out in order
    cog = table.bot.get_cog("Me")
    monkeypatch.setattr(cog, "part_limit", limit)
    monkeypatch.setattr(cog, "files_per_message", 2)
    answer = await heavy.slash(table.channel, "sequence-me export")
    messages = {m.id: m for m in [answer.response, *answer.followups]}.values()
    assert next(len(m.attachments) for m in messages) == 2  # two files a message (patched)
    attachments = [a for m in messages for a in m.attachments]
    assert all(a.size <= limit for a in attachments)
    parts = [json.loads(await a.read()) for a in attachments]
    count = len(parts)
    assert count > 2 and [(p["part"], p["parts"]) for p in parts] == [
        (n, count) for n in range(1, count + 1)
    ]
    assert [g for p in parts for g in p["games"]] == whole["games"]
    assert parts[0]["ratings"] == whole["ratings"] and "ratings" not in parts[1]
    assert [a.filename for a in attachments][-1].endswith(f"-part{count}-of-{count}.json")


async def cells_holding(conn: Any, text: str) -> list[str]:
    """``table.column`` of every stored value that holds ``text`` (each table of the schema)."""
    found = []
    for table in TABLES:
        for column in table.columns:
            row = await conn.fetchone(
                f"SELECT 1 FROM {table.name} WHERE CAST({column} AS TEXT) LIKE ?", (f"%{text}%",)
            )
            if row is not None:
                found.append(f"{table.name}.{column}")
    return found


async def test_forget_me_keeps_everyone_elses_history_consistent(simcord_env) -> None:
    env = simcord_env
    channel, (ann, ben) = await started_cup(env, ["ann", "ben"], sequences_to_win=1)
    guild = channel.guild
    bot = env.bot
    snap = await snapshot(bot, channel)
    (final,) = snap.round_matches(1)
    await check_in(channel, final, [ann, ben])
    record = game_in(bot, final)
    await resign(thread_of(channel, final), [ben])
    assert (await snapshot(bot, channel)).tournament.status == "finished"
    await ben.slash(channel, "sequence-me notify", setting="on")
    await ann.slash(channel, "sequence replay", game=record.id)  # a GIF kept with ben's name

    before_stats = (await ann.slash(channel, "sequence stats")).response.embeds[0].to_dict()
    before_board = (await ann.slash(channel, "sequence leaderboard")).response.embeds[0]
    assert f"<@{ben.id}>" in before_board.description
    rating_before = await bot.db.standings.rating(guild.id, ben.id)
    held = await bot.db.read(cells_holding, str(ben.id))
    assert {"games.seats", "result_players.user_id", "tournament_entrants.members"} <= set(held)

    asked = await ben.slash(channel, "sequence-me forget-me")
    assert asked.ephemeral and "Forget me?" in asked.response.content
    assert [b["label"] for b in components(asked.response)] == ["Forget me", "Keep my data"]
    kept = await ben.click(asked.response, label="Keep my data")
    assert "Nothing was changed" in kept.response.content
    assert await bot.db.prefs.all(ben.id) != {}

    asked = await ben.slash(channel, "sequence-me forget-me")
    done = await ben.click(asked.response, label="Forget me")
    text = done.response.content
    assert "you are now **Player " in text, text
    label = text.split("**")[1]
    pseudonym = int(label.split()[1], 16)
    assert pseudonyms.is_pseudonym(pseudonym) and pseudonyms.label(pseudonym) == label

    # nothing under ben's account any more; the same numbers under the pseudonym
    assert await bot.db.prefs.all(ben.id) == {}
    assert not await bot.db.members.holds_anything(ben.id)
    assert await bot.db.read(cells_holding, str(ben.id)) == []  # no column of any table
    assert await bot.db.standings.rating(guild.id, pseudonym) == rating_before
    assert await bot.db.standings.rating(guild.id, ben.id) is None
    assert await bot.db.read(stored_problems, guild.id) == []  # ratings, changes, totals
    assert (await bot.ratings.book(guild.id)).ratings.keys() == {ann.id, pseudonym}

    # what others see: the label, never ben's name or mention
    after_stats = (await ann.slash(channel, "sequence stats")).response.embeds[0].to_dict()
    assert after_stats == before_stats
    board = (await ann.slash(channel, "sequence leaderboard")).response.embeds[0]
    assert board.description == before_board.description.replace(f"<@{ben.id}>", label)
    history = (await ann.slash(channel, "sequence history")).response.embeds[0]
    assert label in history.description and str(ben.id) not in history.description
    standings = (await ann.slash(channel, "tournament standings")).response.embeds[0]
    assert any(label in row for row in standings_rows(standings))
    assert not any("ben" in row for row in standings_rows(standings))
    replay = await bot.get_cog("Stats").stats.replay(guild.id, record.id)
    assert label in replay.names and "ben" not in replay.names
    assert not list((bot.settings.database_path.parent / "replays").glob(f"game-{record.id}-*"))
    assert all(s.name != "ben" for s in (await bot.db.games.load(record.id)).seats)
    live = bot.games.live(record.id)
    assert live is None or all(s.name != "ben" for s in live.seats)

    # ben starts afresh; a second forget-me finds nothing
    fresh = (await ben.slash(channel, "sequence stats")).response.embeds[0]
    assert fresh.fields[0].value.startswith("**0**")
    again = await ben.slash(channel, "sequence-me forget-me")
    assert again.ephemeral and "nothing left to forget" in again.response.content
    assert not components(again.response)


async def test_forget_me_waits_for_the_game_and_the_lobby(simcord_env) -> None:
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    bot = table.bot
    await bob.slash(table.channel, "sequence-me notify", setting="on")
    await open_and_start(table)
    refused = await bob.slash(table.channel, "sequence-me forget-me")
    assert refused.ephemeral
    assert "You are still in an active game" in refused.response.content
    assert "Nothing was changed" in refused.response.content
    assert not components(refused.response)
    in_dm = await bob.user.slash("sequence-me forget-me")
    assert "still in an active game" in in_dm.response.content
    assert await bot.db.prefs.all(bob.id) != {}

    await bob.slash(table.channel, "sequence resign")
    room = table.guild.create_text_channel("lobby")
    await bob.slash(room, "sequence new")
    refused = await bob.slash(room, "sequence-me forget-me")
    assert "still in an open lobby" in refused.response.content
    await bob.slash(room, "sequence cancel")
    asked = await bob.slash(room, "sequence-me forget-me")
    done = await bob.click(asked.response, label="Forget me")
    assert "you are now **Player " in done.response.content
    history = (await alice.slash(table.channel, "sequence history")).response.embeds[0]
    assert "Player " in history.description and str(bob.id) not in history.description
