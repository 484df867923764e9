"""Races of ``/sequence find``, forced in the service on both backends: two seekers who
complete the same third seeker's table at once seat exactly one table; a cancel racing the
match that would seat it either cancels or finds the seek matched, never both. Each pair runs
through two services (as two processes of a cluster would: no shared in-process lock), the
first paused inside its transaction after it read the queue."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.config import Settings
from bot.services.errors import UserError
from bot.services.seeks import SeekRequest, SeekService

from .e2e_helpers import make_table


@pytest.fixture
def bot_settings(settings_on_each_backend: Settings) -> Settings:
    return settings_on_each_backend


def request(table: Any, member: Any) -> SeekRequest:
    return SeekRequest(
        table.guild.id, member.id, member.name, 2, "live", True, False, table.channel.id
    )


def two_services(bot: Any) -> tuple[SeekService, SeekService]:
    return tuple(SeekService(bot.db, bot.clock, bot.lobbies, bot.caps) for _ in range(2))  # type: ignore[return-value]


def pause_first_queue_read(monkeypatch: Any, bot: Any, inside: asyncio.Event) -> list[str]:
    """The first read of a queue (made holding the queue) sets ``inside``, for the other change
    to start then, and waits long enough for that change to read and write, were it not held
    back; the reads, in order."""
    seeks = bot.db.seeks
    open_in, reads = seeks.open_in, []

    async def paused(guild_id: int) -> Any:
        found = await open_in(guild_id)
        reads.append("read")
        if len(reads) == 1:
            inside.set()
            for _ in range(20):  # room for the other to read and write, were it not held back
                await asyncio.sleep(0.01)
            reads.append(f"resumed after {len(reads) - 1} other read(s)")
        return found

    monkeypatch.setattr(seeks, "open_in", paused)
    return reads


async def test_two_seekers_completing_the_same_table_at_once_seat_one(simcord_env, monkeypatch):
    table = await make_table(simcord_env, ["alice", "bob", "carol"])
    alice, bob, carol = table.players
    bot = table.bot
    await bot.seeks.seek(request(table, alice))
    one, other = two_services(bot)
    started = asyncio.Event()
    reads = pause_first_queue_read(monkeypatch, bot, started)

    async def second() -> Any:
        await asyncio.wait_for(started.wait(), 5)  # the first holds the queue
        return await other.seek(request(table, carol))

    answers = await asyncio.gather(one.seek(request(table, bob)), second())
    monkeypatch.undo()
    matched = [a for a in answers if a.match is not None]
    assert len(matched) == 1 and matched[0].seek.user_id == bob.id
    assert {s.user_id for s in matched[0].match.seeks} == {alice.id, bob.id}
    waiting = [a for a in answers if a.match is None]
    assert waiting[0].seek.user_id == carol.id and waiting[0].place == 1
    assert reads == ["read", "resumed after 0 other read(s)", "read"]  # held back, then read
    queue = await bot.seeks.queue(table.guild.id)
    assert [s.user_id for s in queue] == [carol.id]
    stored = {
        s.user_id: s.status for s in [await bot.db.seeks.get(s.id) for s in matched[0].match.seeks]
    }
    assert stored == {alice.id: "matched", bob.id: "matched"}
    # What players then see: Carol alone waits; asking again stops her seek, not a table's.
    listed = await carol.slash(table.channel, "sequence find tables")
    assert "2 players · live · rated: 1 waiting" in listed.response.embeds[0].description
    stopped = await carol.slash(table.channel, "sequence find game", players=2, speed="live")
    assert "stopped your seek" in stopped.response.content
    nothing = await alice.slash(table.channel, "sequence find cancel")
    assert "not looking" in nothing.response.content


async def test_a_cancel_racing_the_match_of_its_seek(simcord_env, monkeypatch):
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    bot = table.bot
    await bot.seeks.seek(request(table, alice))
    one, other = two_services(bot)
    started = asyncio.Event()
    reads = pause_first_queue_read(monkeypatch, bot, started)

    async def cancel() -> Any:
        await asyncio.wait_for(started.wait(), 5)  # the match holds the queue
        return await other.cancel(table.guild.id, alice.id)

    matched, cancelled = await asyncio.gather(
        one.seek(request(table, bob)), cancel(), return_exceptions=True
    )
    monkeypatch.undo()
    # The match read the queue first and holds it: Alice is seated, her cancel is refused.
    assert reads == ["read", "resumed after 0 other read(s)"]
    assert matched.match is not None
    assert {s.user_id for s in matched.match.seeks} == {alice.id, bob.id}
    assert isinstance(cancelled, UserError) and "not looking" in str(cancelled)
    assert await bot.seeks.queue(table.guild.id) == []

    # The other order: the cancel goes first, and Bob's seek waits alone.
    await bot.seeks.seek(request(table, alice))  # a new seek (the matched one is over)
    started = asyncio.Event()
    seeks = bot.db.seeks
    open_of, calls = seeks.open_of, []

    async def slow_open_of(guild_id: int, user_id: int) -> Any:
        found = await open_of(guild_id, user_id)
        calls.append(user_id)
        if user_id == alice.id and len(calls) == 1:  # the cancel, holding the queue
            started.set()
            for _ in range(20):
                await asyncio.sleep(0.01)
        return found

    monkeypatch.setattr(seeks, "open_of", slow_open_of)

    async def seek_after() -> Any:
        await asyncio.wait_for(started.wait(), 5)
        return await one.seek(request(table, bob))

    # Bob has a matched seek already (a table waits for him): he may seek again.
    cancelled_first, waited = await asyncio.gather(
        other.cancel(table.guild.id, alice.id), seek_after()
    )
    monkeypatch.undo()
    assert cancelled_first.user_id == alice.id
    assert waited.match is None and waited.place == 1
    assert [s.user_id for s in await bot.seeks.queue(table.guild.id)] == [bob.id]
