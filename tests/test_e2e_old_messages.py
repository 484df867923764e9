"""Discord limits the edits of a message older than an hour (error 30046, "try again later"):
the lobby message and a tournament's sign-up message, refreshed after a command, then kept the
old list. Now such a message is posted anew (and the old one deleted), so the list shown is
right; when that post fails too, the next change tries again."""

from __future__ import annotations

from typing import Any

from .e2e_helpers import make_table
from .helpers.tournament import anyone_may_organise

TOO_MANY_EDITS = {
    "status": 429,
    "code": 30046,
    "message": "Maximum number of edits to messages older than 1 hour reached. Try again later",
}


def no_more_edits(env: Any, channel: Any, message: Any) -> None:
    """Discord refuses every further edit of ``message``."""
    path = f"/channels/{channel.id}/messages/{message.id}"
    env.inject_error("PATCH", path, times=None, **TOO_MANY_EDITS)


def shown(channel: Any, title: str) -> tuple[Any, ...]:
    """The channel's messages whose embed has ``title`` (a lobby's or a sign-up's)."""
    return tuple(
        m for m in channel.history() if m.embeds and (m.embeds[0].title or "").startswith(title)
    )


def listed(message: Any) -> str:
    """Everything an embed lists (its description and fields)."""
    embed = message.embeds[0]
    return "\n".join([embed.description or "", *(f.value for f in embed.fields)])


async def test_a_lobby_message_discord_will_not_edit_is_posted_anew(simcord_env):
    env = simcord_env
    table = await make_table(env, ["alice", "bob", "carol"])
    alice, bob, carol = table.players
    first = (await alice.slash(table.channel, "sequence new")).response
    title = first.embeds[0].title
    await env.advance_time(3600)
    no_more_edits(env, table.channel, first)
    await bob.slash(table.channel, "sequence join")
    (lobby,) = shown(table.channel, title)  # before: the first message, without bob
    assert lobby.id != first.id and "bob" in listed(lobby)
    assert lobby.content == first.content and lobby.components
    joined = await carol.click(lobby, label="Join")  # the new message's buttons work
    assert joined.acknowledged
    stored = await env.bot.db.lobbies.get_for_channel(table.channel.id)
    assert stored.message_id == lobby.id
    assert [seat.user_id for seat in stored.seats] == [alice.id, bob.id, carol.id]


async def test_a_lobby_message_posted_anew_on_a_later_change_when_the_post_fails(simcord_env):
    env = simcord_env
    table = await make_table(env, ["alice", "bob", "carol"])
    alice, bob, carol = table.players
    first = (await alice.slash(table.channel, "sequence new")).response
    title = first.embeds[0].title
    no_more_edits(env, table.channel, first)
    env.inject_error("POST", f"/channels/{table.channel.id}/messages", status=500)
    await bob.slash(table.channel, "sequence join")  # the new copy is refused too
    assert [m.id for m in shown(table.channel, title)] == [first.id]
    await carol.slash(table.channel, "sequence join")
    (lobby,) = shown(table.channel, title)
    assert lobby.id != first.id and "bob" in listed(lobby) and "carol" in listed(lobby)
    assert (await env.bot.db.lobbies.get_for_channel(table.channel.id)).message_id == lobby.id


async def test_a_signup_message_discord_will_not_edit_is_posted_anew(simcord_env):
    env = simcord_env
    table = await make_table(env, ["ann", "ben", "cat"])
    ann, ben, cat = table.players
    anyone_may_organise(env, table.guild)
    created = await ann.slash(table.channel, "tournament-admin create", name="Cup", format="swiss")
    first = created.response
    no_more_edits(env, table.channel, first)
    env.inject_error("POST", f"/channels/{table.channel.id}/messages", status=500)
    await ben.slash(table.channel, "tournament join")  # the new copy is refused: tried again
    assert [m.id for m in shown(table.channel, "🏆 Cup")] == [first.id]
    await cat.slash(table.channel, "tournament join")
    (signup,) = shown(table.channel, "🏆 Cup")
    assert signup.id != first.id and "ben" in listed(signup) and "cat" in listed(signup)
    assert signup.content == first.content
    stored = await env.bot.db.tournaments.open_in_channel(table.channel.id)
    assert stored.message_id == signup.id
    joined = await ann.click(signup, label="Join")
    assert joined.acknowledged
