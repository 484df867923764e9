"""Who may do what, through Discord: replays of other servers' games, strangers in a
tournament match's lobby, the host removing a computer player, who rules on table talk, and
where the bot itself lacks the permissions a game or a tournament needs."""

from __future__ import annotations

from typing import Any

import discord
from simcord.backend.models import Overwrite
from simcord.builders import ChannelHandle
from simcord.enums import ChannelType, OverwriteType

from bot.game import space_name
from tests.helpers.tournament import (
    anyone_may_organise,
    check_in,
    game_in,
    match_message,
    match_of,
    snapshot,
    started_cup,
    thread_of,
)
from tests.helpers.turn_dms import play_from_dm

from .e2e_helpers import make_table, open_and_start, seat_actor
from .engine_helpers import normal_play


async def finished_game(table: Any) -> Any:
    """A two-player game that the second player ended by resigning."""
    record = await open_and_start(table, seed=3)
    resigned = await table.players[1].slash(table.channel, "sequence resign")
    assert not resigned.ephemeral and record.game.is_over()
    return record


# ---------------------------------------------------------------------- replays
async def test_replay_gives_one_answer_for_a_missing_game_and_another_servers(
    simcord_env,
) -> None:
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await finished_game(table)
    other = simcord_env.create_guild("Elsewhere")
    room = other.create_text_channel("general")
    stranger = other.add_member(simcord_env.create_user("stranger"))

    foreign = await stranger.slash(room, "sequence replay", game=record.id)
    missing = await stranger.slash(room, "sequence replay", game=record.id + 1000)
    assert foreign.ephemeral and missing.ephemeral
    assert not foreign.response.attachments
    assert foreign.response.content == f"⚠️ There is no game #{record.id} in this server."
    assert missing.response.content == f"⚠️ There is no game #{record.id + 1000} in this server."

    # at home, the same game replays
    shown = await table.players[0].slash(table.channel, "sequence replay", game=record.id)
    assert not shown.ephemeral and shown.response.attachments


# ---------------------------------------------------------------------- tournament lobbies
async def test_a_match_lobby_seats_only_the_players_drawn_for_it(simcord_env) -> None:
    env = simcord_env
    guild = env.create_guild("Club")
    anyone_may_organise(env, guild)
    channel = guild.create_text_channel("cup")
    ann, ben, cat = (guild.add_member(env.create_user(n)) for n in ("ann", "ben", "cat"))
    env.bot.lobbies.new_seed = lambda: 2
    created = await ann.slash(channel, "tournament-admin create", name="Duel", format="elimination")
    for player in (ann, ben):
        assert (await player.click(created.response, label="Join")).acknowledged
    await ann.slash(channel, "tournament-admin start")
    snap = await snapshot(env.bot, channel)
    match = match_of(snap, 1, "ann")
    thread = thread_of(channel, match)
    lobby = await env.bot.db.lobbies.get_for_channel(thread.id)
    lobby_message = next(m for m in thread.history() if m.id == lobby.message_id)

    # a stranger can join neither by the button nor by the command
    by_button = await cat.click(lobby_message, label="Join")
    by_command = await cat.slash(thread, "sequence join")
    for refused in (by_button, by_command):
        assert refused.ephemeral
        assert "only the players drawn for it" in refused.response.content
    lobby = await env.bot.db.lobbies.get_for_channel(thread.id)
    assert sorted(seat.user_id for seat in lobby.seats) == sorted([ann.id, ben.id])

    # a player drawn for it who left may sit down again
    assert "left" in (await ben.slash(thread, "sequence leave")).response.content
    assert (await ben.slash(thread, "sequence join")).response.content == "ben joined."

    # so the check-in starts the game as drawn
    match = match_of(await snapshot(env.bot, channel), 1, "ann")
    await check_in(channel, match, [ann, ben])
    record = game_in(env.bot, match)
    assert sorted(seat.user_id for seat in record.seats) == sorted([ann.id, ben.id])


async def test_nobody_closes_a_match_lobby_which_only_a_result_ends(simcord_env) -> None:
    env = simcord_env
    guild = env.create_guild("Club")
    anyone_may_organise(env, guild)
    channel = guild.create_text_channel("cup")
    mods = guild.create_role("Mods", permissions=discord.Permissions(manage_channels=True))
    ann, ben = (guild.add_member(env.create_user(n)) for n in ("ann", "ben"))
    mod = guild.add_member(env.create_user("mod"), roles=[mods])
    created = await ann.slash(channel, "tournament-admin create", name="Duel", format="elimination")
    for player in (ann, ben):
        await player.click(created.response, label="Join")
    await ann.slash(channel, "tournament-admin start")
    match = match_of(await snapshot(env.bot, channel), 1, "ann")
    thread = thread_of(channel, match)
    lobby = await env.bot.db.lobbies.get_for_channel(thread.id)
    host = ann if lobby.host_id == ann.id else ben
    lobby_message = next(m for m in thread.history() if m.id == lobby.message_id)

    # the host (a player of the match) and a moderator are refused; no Cancel button is shown
    refusal = (
        "⚠️ This lobby is a tournament match: it stays open until the match is played or "
        f"decided. The organiser (<@{ann.id}>) can decide it with `/tournament-admin report`."
    )
    by_host = await host.slash(thread, "sequence cancel")
    assert by_host.ephemeral and by_host.response.content == refusal
    assert "Cancel" not in [c.label for row in lobby_message.components for c in row.children]
    by_moderator = await mod.slash(thread, "sequence cancel")
    assert by_moderator.ephemeral and by_moderator.response.content == refusal
    # the last player to leave does not close it either: they can sit down again
    assert (await ann.slash(thread, "sequence leave")).response.content == "ann left."
    assert (await ben.slash(thread, "sequence leave")).response.content == "ben left."
    for player in (ann, ben):
        assert (await player.slash(thread, "sequence join")).response.content.endswith("joined.")

    # so the match is played when both are here
    await check_in(channel, match, [ann, ben])
    assert game_in(env.bot, match) is not None


# ---------------------------------------------------------------------- computer seats
async def test_the_host_removes_a_computer_player_by_name_or_from_the_list(simcord_env) -> None:
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    channel = table.channel
    await alice.slash(channel, "sequence new")
    await bob.slash(channel, "sequence join")
    for level in ("easy", "medium", "hard"):
        await alice.slash(channel, "sequence addbot", level=level)
    lobby = await table.bot.db.lobbies.get_for_channel(channel.id)
    names = [seat.name for seat in lobby.seats if seat.is_computer]
    assert names == ["Ada (easy bot)", "Babbage (medium bot)", "Turing (hard bot)"]

    # the list offers the computers only
    offered = await alice.autocomplete(channel, "sequence kick", "computer", "")
    assert [choice["name"] for choice in offered] == names
    babbage = await alice.autocomplete(channel, "sequence kick", "computer", "bab")
    assert [choice["name"] for choice in babbage] == ["Babbage (medium bot)"]

    # only the host may remove one
    refused = await bob.slash(channel, "sequence kick", computer=babbage[0]["value"])
    assert refused.ephemeral and "Only the host" in refused.response.content

    removed = await alice.slash(channel, "sequence kick", computer=babbage[0]["value"])
    assert removed.response.content == "Babbage (medium bot) was removed from the lobby."
    by_name = await alice.slash(channel, "sequence kick", computer="turing")
    assert by_name.response.content == "Turing (hard bot) was removed from the lobby."
    unknown = await alice.slash(channel, "sequence kick", computer="Deep Blue")
    assert unknown.ephemeral and "no computer player 'Deep Blue'" in unknown.response.content
    both = await alice.slash(channel, "sequence kick", player=bob, computer="ada")
    assert "Name one player, or one computer player" in both.response.content

    lobby = await table.bot.db.lobbies.get_for_channel(channel.id)
    assert [seat.name for seat in lobby.seats] == ["alice", "bob", "Ada (easy bot)"]
    embed = channel.history()[0].embeds[0]  # the lobby message shows it
    assert "Babbage" not in str([f.value for f in embed.fields])
    assert "Ada (easy bot)" in str([f.value for f in embed.fields])

    # people are still removed by the member option
    kicked = await alice.slash(channel, "sequence kick", player=bob)
    assert kicked.response.content == "bob was removed from the lobby."


# ---------------------------------------------------------------------- table-talk rulings
async def test_the_rules_say_who_may_rule_on_table_talk(simcord_env) -> None:
    table = await make_table(simcord_env, ["alice"])
    shown = await table.players[0].slash(table.channel, "sequence rules")
    text = shown.response.content
    assert "**Who rules on a table-talk call**: never anyone on the accused team." in text
    assert "otherwise the host, unless the host's team is accused" in text
    assert "a person playing on a team that neither made nor faces the call" in text
    assert "(a computer never rules)" in text and "A team faces one call at a time." in text
    assert "the call stands after 10 min unless the caller withdraws it" in text
    assert len(text) <= 2000


# ---------------------------------------------------------------------- the bot's own permissions
def deny_bot(env: Any, channel: Any, **permissions: bool) -> None:
    """A server admin takes ``permissions`` (each given as False) from the bot in ``channel``
    (a thread inherits its channel's)."""
    deny = discord.PermissionOverwrite(**permissions).pair()[1].value
    env.backend.set_overwrite(
        channel.id, Overwrite(env.bot.user.id, OverwriteType.MEMBER, allow=0, deny=deny)
    )


async def test_no_lobby_opens_or_starts_where_the_bot_cannot_post_the_board(simcord_env) -> None:
    env = simcord_env
    table = await make_table(env, ["alice", "bob"])
    alice, bob = table.players
    quiet = table.guild.create_text_channel("quiet")
    deny_bot(env, quiet, send_messages=False, attach_files=False)
    refused = await alice.slash(quiet, "sequence new")
    assert refused.ephemeral
    assert refused.response.content == (
        "⚠️ I cannot post the board here: I need the **Send Messages** and **Attach Files** "
        "permissions in this channel. Ask a server admin for them, or play in another channel."
    )
    assert await env.bot.db.lobbies.get_for_channel(quiet.id) is None

    # in a thread, what counts is Send Messages in Threads
    threads = table.guild.create_text_channel("threads")
    thread = ChannelHandle(
        env, table.guild, env.backend.create_thread(threads.id, "game", alice.id)
    )
    deny_bot(env, threads, send_messages_in_threads=False)
    refused = await alice.slash(thread, "sequence new")
    assert refused.ephemeral
    assert "I need the **Send Messages in Threads** permission" in refused.response.content

    # a lobby opened before the bot lost a permission does not start a game it cannot show
    lobby = (await alice.slash(table.channel, "sequence new")).response
    await bob.click(lobby, label="Join")
    deny_bot(env, table.channel, embed_links=False)
    refused = await alice.click(lobby, label="Start")
    assert refused.ephemeral and "I need the **Embed Links** permission" in refused.response.content
    assert table.game() is None

    # given back, the game begins and its board is posted
    env.backend.delete_overwrite(table.channel.id, env.bot.user.id)
    assert (await alice.click(lobby, label="Start")).acknowledged
    assert table.channel.last_message.attachments[0].filename == "board.png"


async def test_no_lobby_opens_or_starts_in_a_private_thread_the_bot_is_not_in(simcord_env) -> None:
    """A private thread shows its posts only to its members: the bot, not added to it (and
    without Manage Threads), answered /sequence new and Start there, but every board and turn
    ping it posted was refused (Discord's 403, Missing Access; SimCord does not refuse them, so
    the test does while the bot is not a member), and the game went on unseen."""
    env = simcord_env
    table = await make_table(env, ["alice", "bob"])
    alice, bob = table.players
    deny_bot(env, table.channel, manage_threads=False)  # which would let it see every thread
    made = env.backend.create_thread(
        table.channel.id, "just us", alice.id, type=ChannelType.PRIVATE_THREAD
    )
    env.backend.add_thread_member(made.id, bob.id)
    thread = ChannelHandle(env, table.guild, made)

    def bot_member(member: bool) -> None:
        env.backend.faults.clear()
        if member:
            env.backend.add_thread_member(made.id, env.bot.user.id)
        else:
            env.backend.remove_thread_member(made.id, env.bot.user.id)
            env.inject_error(
                "POST", f"/channels/{made.id}/messages", status=403, code=50001, times=None
            )

    bot_member(False)
    refused = await alice.slash(thread, "sequence new")
    assert refused.ephemeral and "I am not in it" in refused.response.content
    assert await env.bot.db.lobbies.get_for_channel(made.id) is None

    bot_member(True)  # alice mentions the bot in the thread
    lobby = (await alice.slash(thread, "sequence new")).response
    await bob.click(lobby, label="Join")
    bot_member(False)  # a moderator removes the bot from the thread
    refused = await alice.click(lobby, label="Start")
    assert refused.ephemeral and "I am not in it" in refused.response.content
    assert env.bot.games.find_in_channel(made.id) is None

    bot_member(True)
    assert (await alice.click(lobby, label="Start")).acknowledged
    assert thread.last_message.attachments[0].filename == "board.png"


async def test_no_tournament_opens_where_its_match_threads_would_stay_empty(simcord_env) -> None:
    env = simcord_env
    guild = env.create_guild("Club")
    anyone_may_organise(env, guild)
    channel = guild.create_text_channel("cup")
    ann, ben = (guild.add_member(env.create_user(n)) for n in ("ann", "ben"))
    deny_bot(env, channel, send_messages_in_threads=False)
    refused = await ann.slash(channel, "tournament-admin create", name="Duel", format="elimination")
    assert refused.ephemeral
    assert refused.response.content == (
        "⚠️ I cannot run a tournament here: I need the **Send Messages in Threads** permission "
        "in this channel. Ask a server admin for it, or play in another channel."
    )
    assert await env.bot.db.tournaments.in_channel(channel.id) == []

    # a permission lost after the sign-up stops the start, before any match is drawn
    env.backend.delete_overwrite(channel.id, env.bot.user.id)
    created = await ann.slash(channel, "tournament-admin create", name="Duel", format="elimination")
    for player in (ann, ben):
        await player.click(created.response, label="Join")
    deny_bot(env, channel, create_public_threads=False)
    refused = await ann.slash(channel, "tournament-admin start")
    assert refused.ephemeral
    assert "I need the **Create Public Threads** permission" in refused.response.content
    assert (await snapshot(env.bot, channel)).tournament.status == "signup"


async def test_no_move_is_played_unseen_where_the_bot_lost_a_permission(simcord_env) -> None:
    """An admin takes Send Messages from the bot during a game: a move would be saved with no
    board posted, so nobody would learn whose turn it is. It is refused with the reason, from
    the channel and from a turn DM, and played once the permission is given back."""
    env = simcord_env
    table = await make_table(env, ["alice", "bob"])
    for player in table.players:
        await player.slash(table.channel, "sequence-me notify", setting="on")
    record = await open_and_start(table)
    board = table.channel.last_message
    seat = record.game.turn
    mover = seat_actor(table, record, seat)
    card, space = normal_play(record.game, seat)
    deny_bot(env, table.channel, send_messages=False)

    refused = await mover.slash(table.channel, "sequence play", card=card, space=space_name(space))
    assert refused.ephemeral
    assert refused.response.content == (
        "⚠️ I cannot post the board of your move here: I need the **Send Messages** permission "
        "in this channel. Ask a server admin for it, then play your move again."
    )
    from_dm = await play_from_dm(mover.user, record.id, card, space)
    assert from_dm.ephemeral
    assert from_dm.response.content == (
        f"⚠️ I cannot post the board of your move in {table.channel.mention}: I need the "
        "**Send Messages**, **Embed Links** and **Attach Files** permissions in that channel. "
        "Ask a server admin for them, then play your move again."
    )  # the cached channel: without Send Messages, Discord also withholds the other two
    assert record.game.moves == []
    assert table.channel.last_message.id == board.id

    env.backend.delete_overwrite(table.channel.id, env.bot.user.id)
    played = await mover.slash(table.channel, "sequence play", card=card, space=space_name(space))
    assert "Done" in played.response.content and len(record.game.moves) == 1
    new_board = table.channel.last_message
    assert new_board.id != board.id and new_board.attachments


async def test_the_board_catches_up_when_the_bot_gets_its_permission_back(simcord_env) -> None:
    """A turn timed out while the bot could not post in the channel: the board of the skip was
    refused, and the newest board still said it was alice's turn. When an admin gives the
    permission back, the board as it stands is posted at once (not at the next move)."""
    env = simcord_env
    table = await make_table(env, ["alice", "bob"])
    alice, bob = table.players
    record = await open_and_start(table, time_limit="1h", on_timeout="skip")
    board = table.channel.last_message
    assert alice.mention in board.content
    deny_bot(env, table.channel, send_messages=False)
    await env.advance_time(3600 + 1)  # alice's time runs out: she is skipped, unseen
    assert [move.kind for move in record.game.moves] == ["skip"]
    assert table.channel.last_message.id == board.id

    env.backend.delete_overwrite(table.channel.id, env.bot.user.id)
    await env.settle()
    await env.bot.bus.idle()
    await env.settle()
    caught_up = table.channel.last_message
    assert caught_up.id != board.id and caught_up.attachments
    assert "move 1" in caught_up.embeds[0].title and bob.mention in caught_up.content
    assert not next(m for m in table.channel.history() if m.id == board.id).components

    # the same when the permission comes back through a role
    guild = env.backend.guilds[table.guild.id]
    roles = {role.id: role.permissions for role in guild.roles.values()}
    send = discord.Permissions(send_messages=True).value
    for role_id, value in roles.items():
        env.backend.edit_role(table.guild.id, role_id, {"permissions": value & ~send})
    await env.advance_time(3600 + 1)  # bob's time runs out: skipped, unseen
    assert table.channel.last_message.id == caught_up.id
    for role_id, value in roles.items():
        env.backend.edit_role(table.guild.id, role_id, {"permissions": value})
    await env.settle()
    await env.bot.bus.idle()
    await env.settle()
    again = table.channel.last_message
    assert "move 2" in again.embeds[0].title and alice.mention in again.content


async def test_no_match_game_starts_by_check_in_where_the_bot_cannot_post(simcord_env) -> None:
    """The bot lost Send Messages in Threads after a match was drawn: the last *I'm here*
    would start a game whose board nobody sees (the host's **Start** is refused there). The
    check-in is kept and the reason given; pressed again once the permission is back, the
    game begins and its board is posted."""
    env = simcord_env
    channel, (ann, ben) = await started_cup(env, ["ann", "ben"])
    match = match_of(await snapshot(env.bot, channel), 1, "ann")
    deny_bot(env, channel, send_messages_in_threads=False)
    await check_in(channel, match, [ann])
    last = await ben.click(match_message(channel, match), label="I'm here")
    assert last.acknowledged and "Here: <@" in last.response.content
    (refusal,) = last.followups
    assert refusal.ephemeral and refusal.content == (
        "⚠️ I cannot post the board here: I need the **Send Messages in Threads** permission in "
        "this channel. Ask a server admin for it, then press **I'm here** again."
    )
    assert env.bot.games.find_in_channel(match.thread_id) is None

    env.backend.delete_overwrite(channel.id, env.bot.user.id)
    await check_in(channel, match, [ben])
    game_in(env.bot, match)
    assert thread_of(channel, match).last_message.attachments[0].filename == "board.png"
