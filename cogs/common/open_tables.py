"""``/sequence find tables``: a server's open lobbies and seeks, within Discord's limits.

Each open table is one line (a jump link to its lobby message, the seats taken and free, its
options in short); each game sought is one line (how many wait for it). The lines fill embeds
of at most :data:`DESCRIPTION_LIMIT` characters, every embed of one message together within
:data:`EMBED_LIMIT` and :data:`EMBEDS_LIMIT`; what does not fit is counted ("… and 3 more").
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

import discord

from bot.services.lobbies import lobby_options
from bot.services.looking import players_wanted
from bot.table.options import format_duration
from render.theme import TEAM_COLOUR_VALUES

from .lengths import DESCRIPTION_LIMIT, EMBED_LIMIT, clipped, message_chunks

if TYPE_CHECKING:
    from bot.store.lobbies import LobbyRecord
    from bot.store.seeks import SeekRecord

#: The most embeds one message holds.
EMBEDS_LIMIT = 10
#: Characters kept aside in each embed for its title and the count of lines left out.
TITLE_ROOM = 80


def lobby_line(lobby: LobbyRecord) -> str:
    """One open table: where (a jump link once its message is posted), seats, options."""
    where = f"<#{lobby.channel_id}>"
    if lobby.message_id is not None:
        link = (
            f"https://discord.com/channels/{lobby.guild_id}/{lobby.channel_id}/{lobby.message_id}"
        )
        where = f"[{where}]({link})"
    options = lobby_options(lobby)
    seated = len(lobby.seats)
    free = lobby.seek.players - seated if lobby.seek is not None else players_wanted(lobby) or 0
    clock = format_duration(options.turn_time_limit) if options.turn_time_limit else "no clock"
    rated = "rated" if options.rated else "unrated"
    kind = "🔎 found" if lobby.seek is not None else "🎲"
    return f"{kind} {where} · {seated} seated, {free} free · {options.preset}, {clock}, {rated}"


def seek_line(key: tuple[int, str, bool], waiting: int) -> str:
    """One game sought: its players, speed and rating, and how many wait for it."""
    players, speed, rated = key
    return (
        f"⏳ {players} players · {speed} · {'rated' if rated else 'unrated'}: {waiting} waiting"
        f" (`/sequence find game players:{players} speed:{speed}`)"
    )


def seek_lines(seeks: list[SeekRecord]) -> list[str]:
    """The games sought, one line each, in the order first sought."""
    counts = Counter((seek.players, seek.speed, seek.rated) for seek in seeks)
    return [seek_line(key, waiting) for key, waiting in counts.items()]


def tables_embeds(lobbies: list[LobbyRecord], seeks: list[SeekRecord]) -> list[discord.Embed]:
    """The answer's embeds: the open tables, then the games sought (room kept for them), each
    list over as many embeds as it needs, all within one message's limits (what is left over:
    counted)."""
    sought = seek_lines(seeks)
    reserve = min(sum(len(line) + 1 for line in sought) + TITLE_ROOM, EMBED_LIMIT // 4)
    embeds = section(
        "Open tables",
        [lobby_line(lobby) for lobby in lobbies],
        EMBED_LIMIT - (reserve if sought else 0),
        EMBEDS_LIMIT - (1 if sought else 0),
    )
    used = sum(len(embed.title or "") + len(embed.description or "") for embed in embeds)
    embeds += section("Looking for a game", sought, EMBED_LIMIT - used, EMBEDS_LIMIT - len(embeds))
    if not embeds:
        embeds.append(
            discord.Embed(
                title="Open tables",
                description="No open table, and nobody is looking for a game: start with "
                "`/sequence find game` or `/sequence new`.",
                colour=TEAM_COLOUR_VALUES[0],
            )
        )
    return embeds


def section(title: str, lines: list[str], budget: int, most: int) -> list[discord.Embed]:
    """``lines`` over at most ``most`` embeds of at most ``budget`` characters in all, the
    last counting the lines left out.

    >>> embeds = section("T", ["x" * 100] * 100, 6000, 10)
    >>> [e.title for e in embeds], embeds[-1].description[-13:]
    (['T (100)', 'T (more)'], '… and 42 more')
    >>> sum(len(e.title) + len(e.description) for e in embeds) <= 6000
    True
    >>> section("T", ["x" * 100] * 100, 6000, 1)[0].description[-13:]
    '… and 61 more'
    """
    embeds: list[discord.Embed] = []
    left = list(lines)
    while left and len(embeds) < most and budget > TITLE_ROOM * 2:
        room = min(DESCRIPTION_LIMIT, budget) - TITLE_ROOM
        chunk = message_chunks(left, room)[0]
        taken = chunk.count("\n") + 1
        last = len(embeds) == most - 1 or budget - len(chunk) <= TITLE_ROOM * 2
        if taken < len(left) and last:  # the last that fits: count what is left out
            chunk = clipped(left, room)
            taken = len(left)
        heading = f"{title} ({len(lines)})" if not embeds else f"{title} (more)"
        embeds.append(discord.Embed(title=heading, description=chunk, colour=TEAM_COLOUR_VALUES[0]))
        budget -= len(heading) + len(chunk)
        left = left[taken:]
    return embeds
