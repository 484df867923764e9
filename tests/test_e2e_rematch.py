"""Rematch, end to end on both backends: the final board's Rematch button opens a lobby with the
same seats, options and computers; each person accepts or declines; the series is on the lobby
and the boards; two clicks at once open one lobby; the button works after a restart."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import pytest

from bot.app import create_bot
from bot.config import Settings
from bot.services.errors import UserError
from tests.helpers.tournament import check_in, game_in, resign, snapshot, started_cup, thread_of

from .e2e_helpers import make_table, open_and_start, settle
from .test_e2e_tournament_draws import agree_draw

SERIES = "Game 2 of the series · Blue 1 – Green 0"


@pytest.fixture
def bot_settings(settings_on_each_backend: Settings) -> Settings:
    """Every test here runs on SQLite and on PostgreSQL."""
    return settings_on_each_backend


def seeds(bot: Any) -> None:
    """A fresh seed for every deal (a fixed one would cut the same dealer every time)."""
    bot.lobbies.new_seed = itertools.count(1).__next__


async def first_game(table: Any) -> Any:
    """Alice hosts Bob, Carol and an easy computer (Blue: Alice, Carol; Green: Bob, the
    computer), unrated with a reminder of 6 h; Green resigns (Bob, its only person): Blue wins."""
    alice, bob, carol = table.players[:3]
    seeds(table.bot)
    lobby = (await alice.slash(table.channel, "sequence new", reminder="6h", rated=False)).response
    for player in (bob, carol):
        await player.click(lobby, label="Join")
    await alice.slash(table.channel, "sequence addbot", level="easy")
    await alice.click(lobby, label="Start")
    record = table.game()
    await bob.slash(table.channel, "sequence resign")
    await settle(table.env)
    assert record.game.is_over() and record.game.winner == 0
    return record


def final_board(table: Any) -> Any:
    """The newest board message of the channel."""
    return next(m for m in reversed(list(table.channel.history())) if m.attachments)


def labels(message: Any) -> list[str]:
    return [c.label for row in message.components for c in row.children if hasattr(c, "label")]


async def test_a_rematch_with_a_declined_seat_filled_by_another_member(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob", "carol", "dave"])
    alice, bob, carol, dave = table.players
    record = await first_game(table)
    board = final_board(table)
    assert labels(board) == ["Rematch"]
    assert "Blue wins" in board.content

    told = await dave.click(board, label="Rematch")  # not a player of that game
    assert told.ephemeral and "Only the players of game" in told.response.content
    assert await table.bot.db.lobbies.get_for_channel(table.channel.id) is None

    asked = await bob.click(board, label="Rematch")
    assert not asked.ephemeral
    lobby_message = asked.response
    assert f"<@{alice.id}>" in lobby_message.content and f"<@{carol.id}>" in lobby_message.content
    assert SERIES in lobby_message.embeds[0].description
    lobby = await table.bot.db.lobbies.get_for_channel(table.channel.id)
    assert lobby.host_id == bob.id and lobby.options.reminder_delay == 6 * 3600
    assert [s.user_id for s in lobby.seats] == [s.user_id for s in record.seats]  # same seats
    assert any(s.is_computer and s.bot_level == "easy" for s in lobby.seats)

    not_yet = await bob.click(lobby_message, label="Start")
    assert not_yet.ephemeral and "Not everyone has accepted" in not_yet.response.content
    assert (await alice.click(lobby_message, label="Accept")).acknowledged
    again = await alice.click(lobby_message, label="Accept")
    assert again.ephemeral and "already" in again.response.content
    outsider = await dave.click(lobby_message, label="Decline")
    assert outsider.ephemeral and "no seat" in outsider.response.content
    await carol.click(lobby_message, label="Decline")  # her seat is free...
    lobby = await table.bot.db.lobbies.get_for_channel(table.channel.id)
    assert carol.id not in [s.user_id for s in lobby.seats]
    unequal = await bob.click(lobby_message, label="Start")
    assert unequal.ephemeral and "unequal" in unequal.response.content
    await dave.click(lobby_message, label="Join")  # ...and Dave takes it, on her team
    started = await bob.click(lobby_message, label="Start")
    assert started.acknowledged
    await settle(simcord_env)

    second = table.game()
    assert second.id != record.id and second.options.series_game == 2
    assert second.options.series_after == record.id and second.options.series_score == (1, 0)
    assert second.options.reminder_delay == 6 * 3600 and not second.options.rated
    people = {s.user_id for s in second.seats if not s.is_computer}
    assert people == {alice.id, bob.id, dave.id}
    teams = {s.user_id: i % 2 for i, s in enumerate(second.seats)}
    assert teams[alice.id] == teams[dave.id] == 0 and teams[bob.id] == 1  # Dave in Carol's
    # The first deal goes to the other team than the game before's.
    assert second.game.team_of(second.game.dealer) != record.game.team_of(record.game.dealer)
    boards = [m for m in table.channel.history() if m.attachments and m.id > lobby_message.id]
    assert boards and all(SERIES in m.embeds[0].footer.text for m in boards)

    # The second game ends: its final board counts it, and offers game 3.
    await alice.slash(table.channel, "sequence resign")
    await dave.slash(table.channel, "sequence resign")
    await settle(simcord_env)
    final = final_board(table)
    assert "Game 2 of the series · Blue 1 – Green 1" in final.embeds[0].footer.text
    assert labels(final) == ["Rematch"]
    third = await alice.click(final, label="Rematch")
    assert "Game 3 of the series · Blue 1 – Green 1" in third.response.embeds[0].description
    # The first game's board is spent: its series went on.
    old = await bob.click(board, label="Rematch")
    assert old.ephemeral and "has closed" in old.response.content


async def test_two_rematch_clicks_at_once_open_one_lobby(simcord_env, monkeypatch):
    """Alice's and Bob's clicks both read the finished game before either opens a lobby (the
    interleaving that hurts, forced): one lobby opens, the other click is told."""
    table = await make_table(simcord_env, ["alice", "bob", "carol"])
    alice, bob, carol = table.players
    record = await first_game(table)
    board = final_board(table)
    bot = table.bot
    games = bot.db.games
    load, both_read, readers = games.load, asyncio.Event(), []

    async def load_together(game_id: int, **kwargs: Any) -> Any:
        loaded = await load(game_id, **kwargs)
        readers.append(game_id)
        if len(readers) == 2:
            both_read.set()
        await asyncio.wait_for(both_read.wait(), 5)
        return loaded

    monkeypatch.setattr(games, "load", load_together)
    results = await asyncio.gather(
        bot.lobbies.open_rematch(record.id, alice.id),
        bot.lobbies.open_rematch(record.id, bob.id),
        return_exceptions=True,
    )
    monkeypatch.undo()
    opened = [r for r in results if not isinstance(r, Exception)]
    refused = [r for r in results if isinstance(r, Exception)]
    assert len(opened) == 1 and len(refused) == 1 and readers == [record.id, record.id]
    assert "already open" in str(refused[0])
    assert len(await bot.db.lobbies.rematches_of(table.channel.id, record.id)) == 1
    # What players then see: another click is told, and nothing more opens.
    told = await carol.click(board, label="Rematch")
    assert told.ephemeral and "already open" in told.response.content
    assert len(await bot.db.lobbies.rematches_of(table.channel.id, record.id)) == 1
    assert (await bot.db.lobbies.get_for_channel(table.channel.id)).id == opened[0].id


async def test_rematch_after_a_restart_over_a_cap_and_once_lapsed(simcord_env, bot_settings):
    table = await make_table(simcord_env, ["alice", "bob", "carol", "erin"])
    alice, bob, carol, erin = table.players
    record = await first_game(table)
    board = final_board(table)
    capped = bot_settings.with_overrides(max_games_per_user=1)
    await simcord_env.bot.close()
    await simcord_env.restart_bot(create_bot(capped))
    seeds(simcord_env.bot)
    # Bob sits in Erin's lobby elsewhere: one game or lobby is all he may be in.
    other = table.guild.create_text_channel("other")
    lobby_elsewhere = (await erin.slash(other, "sequence new")).response
    await bob.click(lobby_elsewhere, label="Join")
    refused = await alice.click(board, label="Rematch")
    assert refused.ephemeral and f"<@{bob.id}>" in refused.response.content
    assert await simcord_env.bot.db.lobbies.get_for_channel(table.channel.id) is None
    await bob.click(lobby_elsewhere, label="Leave")

    asked = await alice.click(board, label="Rematch")  # a board posted before the restart
    assert not asked.ephemeral and SERIES in asked.response.embeds[0].description
    await simcord_env.bot.close()
    await simcord_env.restart_bot(create_bot(capped))
    assert (await bob.click(asked.response, label="Accept")).acknowledged
    lobby = await simcord_env.bot.db.lobbies.get_for_channel(table.channel.id)
    assert lobby.rematch.waiting == (carol.id,)
    seating = f"seq:rematch:{lobby.id}:seating"
    not_host = await bob.select(asked.response, ["rotated"], custom_id=seating)
    assert not_host.ephemeral and "Only the host" in not_host.response.content
    await alice.select(asked.response, ["rotated"], custom_id=seating)  # each one seat on
    lobby = await simcord_env.bot.db.lobbies.get_for_channel(table.channel.id)
    before = [s.user_id for s in record.seats]
    assert [s.user_id for s in lobby.seats] == before[1:] + before[:1]
    assert [s.team for s in lobby.seats] == [0, 1, 0, 1]
    assert "rotated seats" in table.channel.last_message.embeds[0].description

    await simcord_env.advance_time(24 * 3600 + 60)  # nobody starts: it lapses like any lobby
    await settle(simcord_env)
    assert await simcord_env.bot.db.lobbies.get_for_channel(table.channel.id) is None
    late = await carol.click(board, label="Rematch")
    assert late.ephemeral and "has closed" in late.response.content
    assert await simcord_env.bot.db.lobbies.get_for_channel(table.channel.id) is None
    assert record.id not in {g.id for g in await simcord_env.bot.db.games.active()}


async def test_a_tournament_match_is_not_played_again_by_rematch(simcord_env):
    """A knockout's match game ends: its final board has no Rematch, a rematch asked of the
    service is refused (the tournament pairs the next games), and no lobby opens in the match's
    thread."""
    channel, (ann, ben) = await started_cup(simcord_env, ["ann", "ben"])
    snap = await snapshot(simcord_env.bot, channel)
    match = snap.round_matches(1)[0]
    await check_in(channel, match, [ann, ben])
    played = game_in(simcord_env.bot, match)
    thread = thread_of(channel, match)
    await resign(thread, [ben])
    await settle(simcord_env)
    board = next(m for m in reversed(list(thread.history())) if m.attachments)
    assert "Rematch" not in labels(board)
    with pytest.raises(UserError, match="tournament match"):
        await simcord_env.bot.lobbies.open_rematch(played.id, ann.id)
    assert await simcord_env.bot.db.lobbies.get_for_channel(thread.id) is None


async def test_a_drawn_game_counts_half_for_each_side_in_the_series(simcord_env):
    """Alice and Bob agree a draw: the final board offers the rematch, whose lobby and boards
    count the drawn game half for each ("Blue ½ – Green ½"); a win then makes it 1½ – ½."""
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    record = await open_and_start(table)
    seeds(table.bot)
    await agree_draw(table.channel, alice, bob)
    await settle(simcord_env)
    assert record.game.is_over() and record.game.winner is None
    asked = await bob.click(final_board(table), label="Rematch")
    assert "Game 2 of the series · Blue ½ – Green ½" in asked.response.embeds[0].description
    await alice.click(asked.response, label="Accept")
    await bob.click(asked.response, label="Start")
    await settle(simcord_env)
    second = table.game()
    assert second.options.series_score == (0.5, 0.5)
    assert "Game 2 of the series · Blue ½ – Green ½" in final_board(table).embeds[0].footer.text
    loser = second.seats[0].user_id  # Blue's only player resigns: Green wins game 2
    await (alice if loser == alice.id else bob).slash(table.channel, "sequence resign")
    await settle(simcord_env)
    final = final_board(table)
    assert "Game 2 of the series · Blue ½ – Green 1½" in final.embeds[0].footer.text


def game_over_dms(actor: Any) -> list[str]:
    channel = actor.user.dm_channel
    return [m.content for m in channel.history() if m.content.startswith("🏁")] if channel else []


async def test_the_game_over_dm_links_the_final_board_and_its_rematch(simcord_env):
    """A player with turn DMs gets one DM when the game ends: the result, and a link to the
    final board that carries the Rematch button; one in quiet hours gets none; a tournament
    game's DM offers no rematch."""
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    await alice.slash(table.channel, "sequence-me notify", setting="on")
    await bob.slash(  # bob's quiet hours take the whole day but a minute: the DM waits
        table.channel, "sequence-me notify", setting="on", quiet_from="00:00", quiet_to="23:59"
    )
    record = await open_and_start(table)
    loser = alice if record.seats[0].user_id == alice.id else bob
    await loser.slash(table.channel, "sequence resign")
    await settle(simcord_env)
    board = final_board(table)
    (dm,) = game_over_dms(alice)
    link = f"https://discord.com/channels/{table.guild.id}/{table.channel.id}/{board.id}"
    assert dm.startswith(f"🏁 Sequence game #{record.id} is over: {link} Press Rematch under it")
    assert "wins!" in dm and labels(board) == ["Rematch"]
    assert game_over_dms(bob) == []

    channel, (ann, ben) = await started_cup(simcord_env, ["ann", "ben"])
    await ann.slash(channel, "sequence-me notify", setting="on")
    match = (await snapshot(simcord_env.bot, channel)).round_matches(1)[0]
    await check_in(channel, match, [ann, ben])
    await resign(thread_of(channel, match), [ben])
    await settle(simcord_env)
    (dm,) = game_over_dms(ann)
    assert "is over: https://discord.com/channels/" in dm and "Rematch" not in dm
