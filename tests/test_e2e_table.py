"""More of the table: resigning as a team, the host's lobby tools, status, rules, and
several games at once in different channels."""

from __future__ import annotations

from typing import Any

import discord
import pytest
import simcord.gateway
from simcord.backend.serializers import guild_create_payload
from simcord.builders import ChannelHandle

from bot.app import create_bot
from bot.game import card_label
from bot.game.cards import is_jack
from bot.game.moves import FORFEIT, PLAY, Move

from .e2e_driver import make_move
from .e2e_helpers import Table, make_table, open_and_start, play_one, seat_actor
from .helpers.tournament import anyone_may_organise


async def test_a_team_resigns_when_all_its_members_have(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob", "carol", "dave"])
    record = await open_and_start(table)
    game = record.game
    first, second = (seat_actor(table, record, s) for s in game.settings.seats_of(0))
    vote = await first.slash(table.channel, "sequence resign")
    assert not vote.ephemeral and f"<@{second.id}>" in vote.response.content
    assert not record.game.is_over()
    await second.slash(table.channel, "sequence resign")
    assert record.game.is_over() and record.game.winner == 1
    assert "Green wins" in table.channel.last_message.content
    result = await table.bot.db.results.get(record.id)
    assert result is not None and result.winner_team == 1


@pytest.mark.parametrize("players", [4, 6])
async def test_a_resign_vote_names_who_must_still_resign_in_good_grammar(simcord_env, players):
    """The vote said "The team resigns when <@carol> also use /sequence resign": one teammate
    uses it; two (three a team) are listed with "and" and use it."""
    table = await make_table(simcord_env, [f"p{n}" for n in range(players)])
    record = await open_and_start(table, teams=2)
    first, *others = (seat_actor(table, record, s) for s in record.game.settings.seats_of(0))
    vote = (await first.slash(table.channel, "sequence resign")).response.content
    if len(others) == 1:
        assert f"when <@{others[0].id}> also uses `/sequence resign`" in vote, vote
    else:
        both = f"<@{others[0].id}> and <@{others[1].id}>"
        assert f"when {both} also use `/sequence resign`" in vote, vote


async def test_the_host_kicks_and_places_players(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob", "carol", "dave"])
    host, bob, carol, dave = table.players
    lobby = (await host.slash(table.channel, "sequence new")).response
    for player in (bob, carol, dave):
        await player.click(lobby, label="Join")
    refused = await bob.slash(table.channel, "sequence kick", player=carol)
    assert refused.ephemeral and "Only the host" in refused.response.content
    kicked = await host.slash(table.channel, "sequence kick", player=dave)
    assert kicked.ephemeral and "removed" in kicked.response.content
    assert f"<@{dave.id}>" not in str(lobby.embeds[0].to_dict())
    placed = await host.slash(table.channel, "sequence team", player=bob, team=0)
    assert placed.ephemeral and "Blue" in placed.response.content
    await host.slash(table.channel, "sequence team", player=carol, team=1)
    await dave.click(lobby, label="Join")
    table.bot.lobbies.new_seed = lambda: 1
    await host.click(lobby, label="Start")
    record = table.game()
    teams = {seat.user_id: record.game.team_of(i) for i, seat in enumerate(record.seats)}
    assert teams[host.id] == teams[bob.id] == 0 and teams[carol.id] == teams[dave.id] == 1


async def test_status_and_rules(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table, manual_draw=True)
    status = await table.players[1].slash(table.channel, "sequence status")
    assert status.ephemeral
    for name in ("alice", "bob", "in the deck", "7 cards", "manual draw"):
        assert name in status.response.content
    rules = await table.players[0].slash(table.channel, "sequence rules")
    assert "Two-eyed jacks" in rules.response.content and "manual draw" in rules.response.content
    assert record is not None


async def test_status_counts_a_last_card_and_forfeits_in_words(simcord_env):
    """With 2 cards each (12 players, small hands), one table-talk forfeit leaves a player one
    card: /sequence status said "1 cards", and "owes 2 forfeit" after two upheld calls."""
    table = await make_table(simcord_env, [f"player{n}" for n in range(12)])
    record = await open_and_start(table, small_hands=True, tabletalk_stands=True)
    caller = table.players[0]
    for _ in range(2):
        called = await caller.slash(table.channel, "sequence tabletalk", team=1)
        assert not called.ephemeral, called.response.content
    green = record.game.settings.seats_of(1)
    assert all(record.game.owed_forfeits[s] == 2 for s in green)
    seat = green[0]
    card = record.game.hands[seat][0]
    await make_move(table, record, seat, Move(FORFEIT, seat, card=card))
    status = (await caller.slash(table.channel, "sequence status")).response.content
    name = record.seats[seat].name
    assert f"**{name}**: 1 card, last discard {card_label(card)} (owes 1 forfeit)" in status, status
    other = record.seats[green[1]].name
    assert f"**{other}**: 2 cards, last discard — (owes 2 forfeits)" in status, status


async def test_the_rules_say_a_convoy_dead_card_is_the_whole_turn(simcord_env):
    """In convoy, turning in a dead card ends the turn (no chip until the next one): the rules
    must not promise the player can play on after it, as in the classic game."""
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table, preset="convoy")
    rules = (await table.players[0].slash(table.channel, "sequence rules")).response.content
    assert "convoy: that is your whole turn" in rules and len(rules) <= 2000
    assert record.game.settings.convoy


async def test_several_games_at_once_in_different_channels(simcord_env):
    first = await make_table(simcord_env, ["alice", "bob"])
    second_channel = first.guild.create_text_channel("sequence-2")
    carol = first.guild.add_member(simcord_env.create_user("carol"))
    dave = first.guild.add_member(simcord_env.create_user("dave"))
    second = Table(simcord_env, first.guild, second_channel, [carol, dave])
    one = await open_and_start(first, seed=1)
    two = await open_and_start(second, seed=2)
    assert one.id != two.id
    for table, record in ((first, one), (second, two), (first, one)):
        result = await play_one(table, record)
        assert "Done" in result.response.content
    assert len(one.game.moves) == 2 and len(two.game.moves) == 1
    # a player of one game is a stranger at the other table
    stranger = await carol.slash(first.channel, "sequence hand")
    assert stranger.ephemeral and "not playing" in stranger.response.content


@pytest.mark.parametrize("place", ["channel", "thread"])
async def test_a_game_whose_channel_is_deleted_is_cancelled(simcord_env, place):
    """An admin deletes the game's channel or thread: nobody can play or cancel it there any
    more, so it ends, instead of reminding its players by DM and counting as theirs for ever."""
    table = await make_table(simcord_env, ["alice", "bob"])
    alice = table.players[0]
    if place == "thread":
        thread = simcord_env.backend.create_thread(table.channel.id, "match", alice.id)
        table = Table(
            simcord_env, table.guild, ChannelHandle(simcord_env, table.guild, thread), table.players
        )
    for player in table.players:
        await player.slash(table.channel, "sequence-me notify", setting="on")
    record = await open_and_start(table, reminder="1h", time_limit="2h")
    mover = seat_actor(table, record, record.game.turn)
    dms = len(mover.user.dm_channel.history())
    simcord_env.backend.delete_channel(table.channel.id)
    await simcord_env.settle()
    await simcord_env.advance_time(5 * 3600)
    assert len(mover.user.dm_channel.history()) == dms  # no reminder to a game nobody can reach
    assert table.bot.games.records == {}
    stored = await table.bot.db.games.load(record.id)
    assert stored.status == "cancelled" and await table.bot.db.results.get(record.id) is None
    elsewhere = table.guild.create_text_channel("lounge")
    mine = await alice.slash(elsewhere, "sequence mygames")
    assert "not in any active game" in mine.response.content


def delete_with_its_threads(env, channel_id: int) -> None:
    """Delete a channel as Discord does: its threads go with it, but only the channel's deletion
    is announced (no THREAD_DELETE for them)."""
    backend = env.backend
    for thread in [c for c in backend.channels.values() if c.parent_id == channel_id]:
        del backend.channels[thread.id]
        backend.messages.pop(thread.id, None)
        backend.get_guild(thread.guild_id).thread_ids.remove(thread.id)
    backend.delete_channel(channel_id)


async def test_archived_threads_go_with_their_deleted_channel(simcord_env):
    """A game and a lobby wait in threads that archived (a day without a message), so the bot
    no longer keeps them; an admin deletes their channel, and the threads go with it. Discord
    announces only the channel: the game (no reminders, no time limit) stayed active for ever,
    listed by /sequence mygames, and the lobby stayed open. Now both go with their channel; a
    game in another channel plays on."""
    table = await make_table(simcord_env, ["alice", "bob", "carol", "dave", "erin"])
    alice, bob, carol, dave, erin = table.players
    threads = [
        simcord_env.backend.create_thread(table.channel.id, name, alice.id)
        for name in ("side", "waiting")
    ]
    side, waiting = (ChannelHandle(simcord_env, table.guild, t) for t in threads)
    record = await open_and_start(Table(simcord_env, table.guild, side, [alice, bob]), reminder="0")
    await carol.slash(waiting, "sequence new")
    other = Table(simcord_env, table.guild, table.guild.create_text_channel("other"), [dave, erin])
    elsewhere = await open_and_start(other)
    for thread in threads:
        simcord_env.backend.edit_channel(thread.id, {}, thread_metadata={"archived": True})
    await simcord_env.settle()
    assert table.bot.get_channel(side.id) is None  # an archived thread is not kept
    delete_with_its_threads(simcord_env, table.channel.id)
    await simcord_env.settle()
    stored = await table.bot.db.games.load(record.id)
    assert stored.status == "cancelled" and await table.bot.db.results.get(record.id) is None
    assert await table.bot.db.lobbies.get_for_channel(waiting.id) is None
    mine = await alice.slash(other.channel, "sequence mygames")
    assert "not in any active game" in mine.response.content
    assert table.bot.games.records == {elsewhere.id: elsewhere}


async def a_server_with_tables(env) -> tuple[Table, Any, Any, Any]:
    """A server where alice and bob play (20 minutes a turn), carol waits in a lobby and ann's
    tournament takes sign-ups: the table, the game's record, the lobby's and the
    tournament's channels."""
    table = await make_table(env, ["alice", "bob", "carol", "ann"])
    alice, bob, carol, ann = table.players
    played = Table(env, table.guild, table.channel, [alice, bob])
    record = await open_and_start(played, time_limit="20m")
    lobby_room = table.guild.create_text_channel("lobby")
    await carol.slash(lobby_room, "sequence new")
    hall = table.guild.create_text_channel("hall")
    anyone_may_organise(env, table.guild)
    assert not (
        await ann.slash(hall, "tournament-admin create", name="A", format="swiss")
    ).ephemeral
    return table, record, lobby_room, hall


def the_server_removes_the_bot(env, guild_id: int, channels: tuple[int, ...]) -> None:
    """The bot is no longer in the server: Discord refuses it the server and its channels."""
    env.backend.remove_guild(guild_id)
    for path in [f"/channels/{c}*" for c in channels] + [f"/guilds/{guild_id}*"]:
        env.inject_error("*", path, status=403, code=50001, message="Missing Access", times=None)


async def test_a_server_that_removes_the_bot_takes_its_tables_with_it(simcord_env):
    """A server kicks the bot while alice and bob play there (20 minutes a turn), carol waits
    in a lobby and ann's tournament takes sign-ups. Nobody there can reach the bot any more,
    but the game stayed active for ever: it skipped a turn every 20 minutes (216 moves in three
    days, each written to the store and posted in vain), its record and timers stayed in the
    bot's memory, and it counted against alice's and bob's game caps in every other server.
    Now the server's games are cancelled, its lobby closed and its tournament ended when the
    bot is removed; a game in another server plays on."""
    env = simcord_env
    other = await make_table(env, ["dave", "erin"])
    elsewhere = await open_and_start(other)
    await env.advance_time(86400 + 60)  # its lobby's expiry, no longer needed, has passed
    served, timers = len(env.bot.games.records), len(env.bot.scheduler)
    table, record, lobby_room, hall = await a_server_with_tables(env)
    alice, _, _, ann = table.players
    # The leaderboard reads the stored ratings (issue #37): no replayed book is built in
    # memory for it any more (this asserted ``in`` while the leaderboard replayed the results).
    await ann.slash(hall, "sequence leaderboard")
    assert table.guild.id not in env.bot.ratings._books
    moves = len(record.game.moves)
    channels = (table.channel.id, lobby_room.id, hall.id)
    the_server_removes_the_bot(env, table.guild.id, channels)
    await env.settle()
    await env.advance_time(3 * 86400)
    assert len(record.game.moves) == moves
    stored = await env.bot.db.games.load(record.id)
    assert stored.status == "cancelled" and await env.bot.db.results.get(record.id) is None
    assert env.bot.games.records == {elsewhere.id: elsewhere}
    assert (len(env.bot.games.records), len(env.bot.scheduler)) == (served, timers)
    assert await env.bot.db.lobbies.get_for_channel(lobby_room.id) is None
    assert await env.bot.db.tournaments.open_in_channel(hall.id) is None
    assert await env.bot.db.games.playing(alice.id) == 0  # what her game cap counts
    assert table.guild.id not in env.bot.ratings._books  # nor its ratings


async def test_a_server_that_removed_the_bot_while_it_was_down_takes_its_tables_with_it(
    simcord_env, bot_settings
):
    """A server removes the bot while the bot is down: Discord sends no removal when the bot
    comes back, the server is simply not among its guilds. Its game (20 minutes a turn) went on
    skipping turns for ever, its lobby and its tournament stayed open, all counting against
    their people's caps. Now, once the bot is ready, the tables of every server it is no longer
    in end as on a removal it heard; a game in another server plays on."""
    env = simcord_env
    other = await make_table(env, ["dave", "erin"])
    elsewhere = await open_and_start(other)
    table, record, lobby_room, hall = await a_server_with_tables(env)
    alice = table.players[0]
    moves = len(record.game.moves)
    channels = (table.channel.id, lobby_room.id, hall.id)
    await env.bot.close()
    the_server_removes_the_bot(env, table.guild.id, channels)
    await env.restart_bot(create_bot(bot_settings))
    await env.settle()
    await env.advance_time(86400)
    stored = await env.bot.db.games.load(record.id)
    assert stored.status == "cancelled" and len(stored.game.moves) == moves
    assert await env.bot.db.results.get(record.id) is None
    assert list(env.bot.games.records) == [elsewhere.id]
    assert await env.bot.db.lobbies.get_for_channel(lobby_room.id) is None
    assert await env.bot.db.tournaments.open_in_channel(hall.id) is None
    assert await env.bot.db.games.playing(alice.id) == 0  # what her game cap counts


async def test_a_server_unavailable_when_the_bot_comes_back_keeps_its_game(
    simcord_env, bot_settings, monkeypatch
):
    """A server in an outage is in the bot's guilds, marked unavailable, when the bot comes
    back (Discord lists it in READY and sends it later): its game is not ended, and plays on
    once the server is back."""
    env = simcord_env
    table = await make_table(env, ["alice", "bob"])
    record = await open_and_start(table, reminder="1h")
    hidden = str(table.guild.id)
    feed = simcord.gateway.FakeGateway.feed

    def outage(gateway: Any, event: str, payload: Any) -> None:
        if event == "READY":
            payload = {**payload, "guilds": [{"id": hidden, "unavailable": True}]}
        elif event == "GUILD_CREATE" and payload["id"] == hidden:
            return
        feed(gateway, event, payload)

    await env.bot.close()
    monkeypatch.setattr(simcord.gateway.FakeGateway, "feed", outage)
    await env.restart_bot(create_bot(bot_settings))
    await env.settle()
    assert env.bot.get_guild(table.guild.id).unavailable
    assert env.bot.games.find_in_channel(table.channel.id) is not None
    monkeypatch.setattr(simcord.gateway.FakeGateway, "feed", feed)
    back = guild_create_payload(env.backend, env.backend.get_guild(table.guild.id))
    env.backend.emit("GUILD_CREATE", back)  # the outage is over
    await env.settle()
    assert not env.bot.get_guild(table.guild.id).unavailable
    record = env.bot.games.find_in_channel(table.channel.id)
    seat = record.game.turn
    card = next(c for c in record.game.hands[seat] if not is_jack(c))
    await make_move(table, record, seat, Move(PLAY, seat, card, record.game.targets(seat, card)[0]))
    assert len(record.game.moves) == 1


async def test_a_channel_deleted_while_the_bot_was_down_cancels_its_game(simcord_env, bot_settings):
    """The game's channel is deleted while the bot is down, so no deletion is heard: once the
    bot is ready, it finds that Discord no longer knows the channel and cancels the game, as
    the deletion would have, instead of the game reminding and counting as theirs for ever."""
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table, reminder="1h")
    await simcord_env.bot.close()
    simcord_env.backend.delete_channel(table.channel.id)
    await simcord_env.restart_bot(create_bot(bot_settings))
    await simcord_env.settle()
    assert simcord_env.bot.games.records == {}
    stored = await simcord_env.bot.db.games.load(record.id)
    assert stored.status == "cancelled" and await simcord_env.bot.db.results.get(record.id) is None


async def test_a_lobby_whose_channel_was_deleted_while_the_bot_was_down_closes(
    simcord_env, bot_settings
):
    """A lobby waits in a server where nobody plays yet; its channel is deleted while the bot
    is down. Only servers with games were looked at once the bot was ready, so the lobby stayed
    open until it expired a day later, counting against its host's lobbies. Now it closes."""
    table = await make_table(simcord_env, ["alice", "bob"])
    await table.players[0].slash(table.channel, "sequence new")
    await simcord_env.bot.close()
    simcord_env.backend.delete_channel(table.channel.id)
    await simcord_env.restart_bot(create_bot(bot_settings))
    await simcord_env.settle()
    assert await simcord_env.bot.db.lobbies.get_for_channel(table.channel.id) is None


async def test_a_deletion_the_bot_did_not_hear_cancels_the_game_at_its_next_post(
    simcord_env, monkeypatch
):
    """The game's channel is deleted and the bot misses the deletion: the first post Discord
    refuses as an unknown channel (the turn's reminder) cancels the game, as the deletion
    would have."""
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table, reminder="1h")
    with monkeypatch.context() as unheard:
        unheard.setattr(simcord_env.backend, "emit", lambda *args, **kwargs: None)
        simcord_env.backend.delete_channel(table.channel.id)
    await simcord_env.settle()
    assert simcord_env.bot.games.find_in_channel(table.channel.id) is not None
    await simcord_env.advance_time(3600 + 5)
    assert simcord_env.bot.games.records == {}
    stored = await simcord_env.bot.db.games.load(record.id)
    assert stored.status == "cancelled" and await simcord_env.bot.db.results.get(record.id) is None


async def test_a_channel_deleted_while_the_bot_was_down_ends_a_game_that_posts_nothing(
    simcord_env, bot_settings
):
    """A game without reminders or a time limit posts nothing until someone moves, and nobody
    can move in a deleted channel: when its channel (or a thread) was deleted while the bot
    was down, the game stayed active for ever, listed in /sequence mygames and counted against
    its players' caps. Now, once the bot is ready, a table whose channel Discord no longer
    knows is gone as on a deletion; a game in an archived thread, not kept by discord.py but
    still known to Discord, plays on."""
    env = simcord_env
    table = await make_table(env, ["alice", "bob"])
    record = await open_and_start(table)
    alice = table.players[0]
    hall = table.guild.create_text_channel("hall")
    side = env.backend.create_thread(hall.id, "side", alice.id)
    aside = Table(env, table.guild, ChannelHandle(env, table.guild, side), table.players)
    kept = await open_and_start(aside)
    env.backend.edit_channel(side.id, {}, thread_metadata={"archived": True})
    await env.bot.close()
    env.backend.delete_channel(table.channel.id)
    await env.restart_bot(create_bot(bot_settings))
    await env.settle()
    stored = await env.bot.db.games.load(record.id)
    assert stored.status == "cancelled" and await env.bot.db.results.get(record.id) is None
    assert list(env.bot.games.records) == [kept.id]


async def test_a_thread_deleted_while_the_bot_was_down_sends_no_turn_dm(simcord_env, bot_settings):
    """The game's thread is deleted while the bot is down; its players asked for turn DMs. The
    turn's reminder finds the thread gone and cancels the game, but then still sent the player
    on turn a DM: 'Reminder: it is your turn in Sequence game #1' with a link to the thread,
    for a game that no longer existed. Now the cancelled game's reminder DMs nobody."""
    table = await make_table(simcord_env, ["alice", "bob"])
    alice = table.players[0]
    thread = simcord_env.backend.create_thread(table.channel.id, "side", alice.id)
    table = Table(
        simcord_env, table.guild, ChannelHandle(simcord_env, table.guild, thread), table.players
    )
    for player in table.players:
        await player.slash(table.channel, "sequence-me notify", setting="on")
    record = await open_and_start(table, reminder="1h")
    mover = seat_actor(table, record, record.game.turn)
    dms = len(mover.user.dm_channel.history())
    await simcord_env.bot.close()
    simcord_env.backend.delete_channel(thread.id)
    await simcord_env.restart_bot(create_bot(bot_settings))
    await simcord_env.settle()
    await simcord_env.advance_time(3600 + 5)
    stored = await simcord_env.bot.db.games.load(record.id)
    assert stored.status == "cancelled"
    assert len(mover.user.dm_channel.history()) == dms, mover.user.dm_channel.last_message.content


async def test_a_player_banned_from_the_server_leaves_their_games(simcord_env):
    """A moderator bans a seated player: with no time limit, the game waited for their turn for
    ever. Now they leave it as a player removed for time does: the last of a team gone, the
    other team wins; with a teammate still there, the team plays on without them."""
    table = await make_table(simcord_env, ["alice", "bob", "carol", "dave", "erin", "frank"])
    alice, bob, carol, dave, erin, frank = table.players
    two = Table(simcord_env, table.guild, table.guild.create_text_channel("duel"), [alice, bob])
    four = Table(simcord_env, table.guild, table.channel, [carol, dave, erin, frank])
    duel = await open_and_start(two)
    team_game = await open_and_start(four)
    gone = seat_actor(four, team_game, team_game.game.turn)
    simcord_env.backend.apply_ban(table.guild.id, bob.id, "spam")
    simcord_env.backend.apply_ban(table.guild.id, gone.id, "spam")
    await simcord_env.settle()
    bob_team = duel.game.team_of(next(i for i, s in enumerate(duel.seats) if s.user_id == bob.id))
    assert duel.game.is_over() and duel.game.winner == 1 - bob_team
    assert "wins" in two.channel.last_message.content
    seat = next(i for i, s in enumerate(team_game.seats) if s.user_id == gone.id)
    assert team_game.game.out[seat] and not team_game.game.is_over()
    assert team_game.game.turn != seat
    next_player = seat_actor(four, team_game, team_game.game.turn)
    assert f"<@{next_player.id}>, your turn" in four.channel.last_message.content


async def test_a_player_who_left_the_server_leaves_the_game_at_their_reminder(simcord_env):
    """A player on turn leaves the server (the bot, without the members intent, is not told):
    with no time limit the game waited for them for ever. When their turn's reminder falls due,
    Discord says they are no longer a member: they leave the game instead of being pinged, and
    the last of a team gone, the other team wins. A player still there is reminded as before."""
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table, reminder="1h")
    gone = seat_actor(table, record, record.game.turn)
    table.guild.remove_member(gone)
    await simcord_env.settle()
    assert not record.game.is_over()
    await simcord_env.advance_time(3600 + 5)
    texts = channel_texts(table)
    assert any("is no longer in this server" in t for t in texts), texts[-3:]
    assert not any("it is still your turn" in t for t in texts)
    assert record.game.is_over() and "wins" in table.channel.last_message.content
    stayed = next(p for p in table.players if p is not gone)
    assert record.game.winner == record.game.team_of(
        next(i for i, s in enumerate(record.seats) if s.user_id == stayed.id)
    )


@pytest.mark.parametrize("policy", ["skip", "computer"])
async def test_a_player_who_left_the_server_leaves_the_game_when_their_time_runs_out(
    simcord_env, policy
):
    """A game with an hour a turn and no reminder (or one later than the time limit, as the
    default 12 h is): a player who left the server was never found gone, since only the
    reminder looked. Each of their turns waited out the hour, then was skipped (or played by
    a computer), for the rest of the game. Now the time-out finds them gone: they leave the
    game, and the last of a team gone, the other team wins."""
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table, time_limit="1h", on_timeout=policy, reminder="none")
    gone = seat_actor(table, record, record.game.turn)
    table.guild.remove_member(gone)
    await simcord_env.settle()
    await simcord_env.advance_time(3600 + 5)
    texts = channel_texts(table)
    assert any("is no longer in this server" in t for t in texts), texts[-3:]
    assert record.game.is_over() and "wins" in table.channel.last_message.content
    stayed = next(p for p in table.players if p is not gone)
    assert record.game.winner == record.game.team_of(
        next(i for i, s in enumerate(record.seats) if s.user_id == stayed.id)
    )


def channel_texts(table: Table) -> list[str]:
    """What the channel shows: each message's text and its embeds' descriptions."""
    return [
        "\n".join([m.content, *(e.description or "" for e in m.embeds)])
        for m in table.channel.history()
    ]


async def test_a_name_with_a_mention_and_markdown_is_shown_as_typed(simcord_env):
    """A display name holding another member's mention and markdown: the start announcement,
    the boards and a time-out notice name the player as typed; they ping and show no one else."""
    table = await make_table(simcord_env, ["carol"])
    (carol,) = table.players
    hostile = f"<@{carol.id}> **x"
    alice = table.guild.add_member(simcord_env.create_user("alice", global_name=hostile))
    bob = table.guild.add_member(simcord_env.create_user("bob"))
    table.players = [alice, bob]
    table.bot.lobbies.new_seed = lambda: 1
    await alice.slash(table.channel, "sequence new", time_limit="10m", on_timeout="skip")
    await bob.slash(table.channel, "sequence join")
    started = await alice.slash(table.channel, "sequence start")
    assert not started.ephemeral
    await simcord_env.advance_time(10 * 60 + 1)
    await simcord_env.advance_time(10 * 60 + 1)  # both players ran out of time once
    texts = channel_texts(table)
    assert any("ran out of time" in text for text in texts)
    assert not [text for text in texts if f"<@{carol.id}>" in text]
    shown = discord.utils.escape_markdown(discord.utils.escape_mentions(hostile))
    assert f"**{shown}**" in started.response.content
    assert all(hostile not in text for text in texts)


async def test_a_cancelled_games_last_board_no_longer_offers_a_turn(simcord_env) -> None:
    """The host cancels: the newest board stops pinging the player to move and loses its
    buttons (it used to keep 'your turn' and a live 'Your hand' button for a game that is gone).
    """
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table)
    board = record.board_message_id
    assert any(m.id == board and m.components for m in table.channel.history())
    await table.players[0].slash(table.channel, "sequence cancel")
    shown = next(m for m in table.channel.history() if m.id == board)
    assert shown.content == "↪️ Then: 🛑 Game #1 was cancelled."
    assert not shown.components
