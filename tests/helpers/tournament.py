"""Tournaments driven through Discord: start one, find its matches, threads and games, check
in, play and resign (shared by the end-to-end tests of tournaments)."""

from __future__ import annotations

import random
from typing import Any

from bot.game import player_view
from bot.game.ai import choose_move

from ..e2e_driver import make_move, seat_to_act
from ..e2e_helpers import Table

#: The show-up deadline of a match, in seconds.
SHOW_UP = 15 * 60


def announced(channel: Any, result: Any) -> bool:
    """An organiser's step (start, report, drop, end) answered as it is: privately to the
    organiser, and the same text posted in ``channel`` as a message of its own."""
    text = result.response.content
    return bool(result.ephemeral) and any(m.content == text for m in channel.history())


def anyone_may_organise(env: Any, guild: Any) -> None:
    """The server hands ``/tournament-admin`` to every member in its Integrations page
    (Discord's default: Manage Server only), as a server whose members all organise; the bot's
    own rule still holds (a tournament is run by its creator, or by Manage Server)."""
    command = env.backend.find_command("tournament-admin", None)
    guild.set_command_permissions(int(command["id"]), {guild.default_role: True})


async def snapshot(bot: Any, channel: Any) -> Any:
    """The latest tournament of a channel, read from the store."""
    tournament = (await bot.db.tournaments.in_channel(channel.id))[-1]
    return await bot.tournament_service.snapshot(tournament.id)


def names(snap: Any, match: Any) -> tuple[str, str | None]:
    """The match's entrants by name (None: a bye)."""
    b = None if match.entrant_b is None else snap.name(match.entrant_b)
    return snap.name(match.entrant_a), b


def pairings(snap: Any, number: int) -> list[tuple[str, str | None]]:
    """A round's pairings by name."""
    return [names(snap, m) for m in snap.round_matches(number)]


def match_of(snap: Any, number: int, entrant: str) -> Any:
    """The match of round ``number`` that ``entrant`` plays."""
    return next(m for m in snap.round_matches(number) if entrant in names(snap, m))


def thread_of(channel: Any, match: Any) -> Any:
    """The match's thread."""
    return next(t for t in channel.threads if t.id == match.thread_id)


def match_message(channel: Any, match: Any) -> Any:
    """The match message (pings and *I'm here*) in its thread."""
    return next(m for m in thread_of(channel, match).history() if m.id == match.message_id)


async def check_in(channel: Any, match: Any, actors: list[Any]) -> None:
    """The actors press *I'm here* (the last one starts the game when everyone has)."""
    for actor in actors:
        result = await actor.click(match_message(channel, match), label="I'm here")
        assert result.acknowledged and not result.ephemeral, result.response.content


async def started_cup(
    env: Any,
    names: list[str],
    fmt: str = "elimination",
    *,
    organiser_plays: bool = True,
    guild: Any = None,
    **options: Any,
) -> tuple[Any, list[Any]]:
    """A server's #cup channel and its members by ``names``: the first opens a tournament, they
    join with its button (all, or all but the organiser) and the organiser starts it. The
    server is ``guild``, else a new one; it lets any member organise."""
    guild = guild or env.create_guild("Club")
    anyone_may_organise(env, guild)
    channel = guild.create_text_channel("cup")
    members = [guild.add_member(env.create_user(name)) for name in names]
    organiser = members[0]
    created = await organiser.slash(
        channel, "tournament-admin create", name="Cup", format=fmt, **options
    )
    for member in members if organiser_plays else members[1:]:
        await member.click(created.response, label="Join")
    await organiser.slash(channel, "tournament-admin start")
    return channel, members


def game_in(bot: Any, match: Any) -> Any:
    """The game being played in the match's thread."""
    record = bot.games.find_in_channel(match.thread_id)
    assert record is not None, "the game did not start"
    return record


async def play_moves(table: Table, record: Any, count: int) -> None:
    """A few moves through the real commands (the medium computer decides for each seat)."""
    rng = random.Random(len(record.game.moves))
    for _ in range(count):
        seat = seat_to_act(record)
        await make_move(
            table, record, seat, choose_move(player_view(record.game, seat), "medium", rng)
        )


async def resign(thread: Any, actors: list[Any]) -> None:
    """A side resigns: every member votes."""
    for actor in actors:
        result = await actor.slash(thread, "sequence resign")
        assert not result.ephemeral, result.response.content


async def scripted_win(env: Any, guild: Any, channel: Any, match: Any, winners: list, losers: list):
    """Check in, play a few real moves, then the losing side resigns."""
    await check_in(channel, match, [*losers, *winners])
    record = game_in(env.bot, match)
    thread = thread_of(channel, match)
    await play_moves(Table(env, guild, thread, [*winners, *losers]), record, 4)
    assert len(record.game.moves) >= 4
    await resign(thread, losers)
    assert record.game.is_over()
    return record


def standings_rows(embed: Any) -> list[str]:
    """The standings' lines, without the bold markers."""
    return [line.replace("**", "") for line in embed.description.splitlines()]
