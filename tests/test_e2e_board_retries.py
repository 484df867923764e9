"""A board post that Discord answers with a 5xx after it posted the board (a gateway timeout:
the request reached Discord, the answer did not come back). discord.py then sends the same
request again (``HTTPClient.request`` retries 500, 502, 504 and 524), and when its tries run
out the bot tries again later: each layer could post the board a second time.

Neither does: discord.py 2.7 sends every message with a random ``nonce`` and ``enforce_nonce``
(``Messageable.send``), so Discord answers its second try with the board it posted at the
first; the bot's own later try comes late and first looks for the board among the channel's
latest messages (``Table.post_board``, ``cogs.common.lookup.sent_before``). These tests keep
it so (the second fails, two boards, without that look-up).

SimCord answers an injected 500 without posting, does not retry as discord.py does, and ignores
``nonce``; :class:`PostedThen500` adds what Discord and discord.py do there, as documented:
the post is made and answered with a 500, discord.py sends it again (its files rewound), and
Discord answers a request whose ``nonce`` it has seen (with ``enforce_nonce``) with the
message it posted then."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import discord

from .e2e_helpers import make_table, open_and_start, play_one

#: discord.py's tries of one request (``HTTPClient.request``).
TRIES = 5


class PostedThen500:
    """The next ``failures`` board posts to ``channel_id`` are made, then answered with a 500."""

    def __init__(self, env: Any, channel_id: int, failures: int) -> None:
        self.http = env.bot.http
        self.original = self.http.request
        self.path = f"/channels/{channel_id}/messages"
        self.failures = failures
        self.by_nonce: dict[str, Any] = {}

    async def request(self, route: Any, **kwargs: Any) -> Any:
        files = kwargs.get("files") or []
        if route.method != "POST" or not route.url.endswith(self.path) or not files:
            return await self.original(route, **kwargs)
        payload = _payload(kwargs)
        nonce = payload.get("nonce") if payload.get("enforce_nonce") else None
        for tries in range(TRIES):  # discord.py's loop (its sleeps left out)
            if tries:
                for file in files:
                    file.reset(seek=tries)
            if nonce is not None and nonce in self.by_nonce:
                data = self.by_nonce[nonce]  # Discord: that nonce's message, not a new one
            else:
                data = await self.original(route, **kwargs)
                if nonce is not None:
                    self.by_nonce[nonce] = data
            if not self.failures:
                return data
            self.failures -= 1
        response = SimpleNamespace(status=500, reason="Internal Server Error")
        raise discord.DiscordServerError(response, {"message": "500", "code": 0})  # type: ignore[arg-type]


def _payload(kwargs: dict[str, Any]) -> dict[str, Any]:
    """The JSON of a message post (multipart's ``payload_json``, or ``json``)."""
    for part in kwargs.get("form") or []:
        if part.get("name") == "payload_json":
            return dict(json.loads(part["value"]))
    return dict(kwargs.get("json") or {})


def boards_of_move(channel: Any, number: int) -> list[Any]:
    """The channel's boards of move ``number`` (by their title)."""
    return [
        m
        for m in channel.history()
        if m.attachments and m.embeds and f"move {number}" in (m.embeds[0].title or "")
    ]


async def test_a_board_discord_posted_before_a_500_is_not_posted_again_by_discordpy(
    simcord_env, monkeypatch
):
    """The first try is posted and answered with a 500; discord.py's second try succeeds, and
    is the same board (its nonce)."""
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table)
    failing = PostedThen500(simcord_env, table.channel.id, failures=1)
    monkeypatch.setattr(simcord_env.bot.http, "request", failing.request)
    played = await play_one(table, record)
    assert played.ephemeral and len(record.game.moves) == 1
    (board,) = boards_of_move(table.channel, 1)
    assert board.id == table.bot.games.records[record.id].board_message_id


async def test_a_board_posted_before_every_500_is_not_posted_again_by_the_bots_retry(
    simcord_env, monkeypatch
):
    """Every one of discord.py's tries is answered with a 500 (the first was posted): the bot
    tries again later, finds the board posted, and remembers it instead of posting another."""
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table)
    failing = PostedThen500(simcord_env, table.channel.id, failures=TRIES)
    monkeypatch.setattr(simcord_env.bot.http, "request", failing.request)
    await play_one(table, record)
    await simcord_env.advance_time(3600)
    (board,) = boards_of_move(table.channel, 1)
    assert board.id == table.bot.games.records[record.id].board_message_id
    assert board.components  # the newest board keeps its buttons
