"""Helpers for end-to-end tests: a table of players in a channel, and reading its messages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import simcord

from bot.game import space_name

from .engine_helpers import playable


@dataclass
class Table:
    """A guild, a channel and its members, plus the bot under test."""

    env: Any
    guild: Any
    channel: Any
    players: list[Any]

    @property
    def bot(self) -> Any:
        return self.env.bot

    def game(self) -> Any:
        """The active game record of the channel (read for assertions and scripted moves)."""
        return self.bot.games.find_in_channel(self.channel.id)


async def make_table(env: Any, names: list[str]) -> Table:
    """A server with a #sequence channel and one member per name."""
    guild = env.create_guild("Sequence Club")
    channel = guild.create_text_channel("sequence")
    players = [guild.add_member(env.create_user(name)) for name in names]
    return Table(env, guild, channel, players)


async def open_and_start(table: Table, *, seed: int = 1, **options: Any) -> Any:
    """The first player opens a lobby, the others join with the button, the host starts.

    ``seed`` fixes the shuffle (the bot draws a random one in real use) so tests repeat exactly.
    """
    table.bot.lobbies.new_seed = lambda: seed
    host, *others = table.players
    result = await host.slash(table.channel, "sequence new", **options)
    assert not result.ephemeral
    lobby_message = result.response
    for player in others:
        joined = await player.click(lobby_message, label="Join")
        assert joined.acknowledged
    started = await host.click(lobby_message, label="Start")
    assert started.acknowledged
    return table.game()


async def against_a_computer(
    env: Any, level: str, *, seed: int, **options: Any
) -> tuple[Table, Any]:
    """Alice alone opens a lobby (with ``options``), seats a computer player of ``level`` and
    starts; ``seed`` fixes the shuffle (seed 1: Alice, in the first seat, starts; seed 3: the
    computer does). The table and the game's record."""
    table = await make_table(env, ["alice"])
    (alice,) = table.players
    lobby = (await alice.slash(table.channel, "sequence new", **options)).response
    await alice.slash(table.channel, "sequence addbot", level=level)
    table.bot.lobbies.new_seed = lambda: seed
    await alice.click(lobby, label="Start")
    return table, table.game()


def seat_actor(table: Table, record: Any, seat: int) -> Any:
    """The actor sitting in ``seat``."""
    user_id = record.seats[seat].user_id
    return next(p for p in table.players if p.id == user_id)


async def play_one(table: Table, record: Any) -> Any:
    """The player on turn plays a normal card with ``/sequence play``; the answer."""
    seat, card, space = playable(record.game)
    actor = seat_actor(table, record, seat)
    return await actor.slash(table.channel, "sequence play", card=card, space=space_name(space))


async def four_player_game(env: Any) -> tuple[Table, Any]:
    """Alice, Bob, Carol and Dave at a table, their game started (two teams of two)."""
    table = await make_table(env, ["alice", "bob", "carol", "dave"])
    record = await open_and_start(table)
    return table, record


async def settle(env: Any) -> None:
    """SimCord settles, then the bot's event subscribers finish what they were given."""
    await env.settle()
    await env.bot.bus.idle()


def timeouts(table: Table) -> list[Any]:
    """The messages that tell a time-out: a notice, or the board of a skipped turn."""
    return [
        m
        for m in table.channel.history()
        if m.content.startswith("⌛")
        or any("ran out of time" in (e.description or "") for e in m.embeds)
    ]


__all__ = [
    "Table",
    "against_a_computer",
    "four_player_game",
    "make_table",
    "open_and_start",
    "play_one",
    "seat_actor",
    "settle",
    "simcord",
    "timeouts",
]
