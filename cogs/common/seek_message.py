"""A table ``/sequence find`` seated, as its messages show it: the **Ready** button, the
**Play a computer** offer when a live seek's wait runs out, and the lobby's lines (who is still
awaited). The components are sent from here; a click is answered by the Find cog's subclasses,
registered under the same custom ids.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord

from bot.services.seek_tables import not_ready

from .custom_ids import Templated

if TYPE_CHECKING:
    from bot.store.lobbies import LobbyRecord
    from bot.store.seeks import SeekRecord


class ReadyButton(
    Templated, discord.ui.DynamicItem[discord.ui.Button], custom_id="seq:ready:{lobby_id}"
):
    """A seekers' table's **Ready** (as sent: the Find cog's subclass answers a click)."""

    def __init__(self, lobby_id: int) -> None:
        self.lobby_id = lobby_id
        super().__init__(
            discord.ui.Button(
                label="Ready",
                emoji="✅",
                style=discord.ButtonStyle.success,
                custom_id=self.ids(lobby_id=lobby_id),
            )
        )


class ComputerOfferButton(
    Templated, discord.ui.DynamicItem[discord.ui.Button], custom_id="seq:seekai:{seek_id}"
):
    """Under a live seek that found nobody: play a computer instead (as sent: the Find cog's
    subclass answers a click)."""

    def __init__(self, seek_id: int) -> None:
        self.seek_id = seek_id
        super().__init__(
            discord.ui.Button(
                label="Play a computer",
                emoji="🤖",
                style=discord.ButtonStyle.primary,
                custom_id=self.ids(seek_id=seek_id),
            )
        )


def seek_words(seek: SeekRecord) -> str:
    """A seek's game in words: ``a live rated game of 2 players``."""
    rated = "rated" if seek.rated else "unrated"
    return f"a {seek.speed} {rated} game of {seek.players} players"


def seek_lines(lobby: LobbyRecord) -> str | None:
    """A seekers' table's lines: how it starts, and who is still awaited (None: not one)."""
    if lobby.seek is None:
        return None
    waiting = not_ready(lobby)
    lines = ["🔎 Seated by `/sequence find`: the game starts when everyone has pressed **Ready**."]
    if waiting:
        lines.append("Waiting for " + ", ".join(f"<@{user}>" for user in waiting) + ".")
    free = lobby.seek.players - len(lobby.seats)
    if free > 0:
        lines.append(f"{free} seat(s) free: press **Join** to take one.")
    return "\n".join(lines)


def seek_items(
    lobby: LobbyRecord, join: discord.ui.Item[Any], leave: discord.ui.Item[Any]
) -> list[discord.ui.Item[Any]]:
    """A seekers' table's components: Ready, Join while a seat is free, and Leave."""
    assert lobby.seek is not None
    items: list[discord.ui.Item[Any]] = [ReadyButton(lobby.id)]
    if len(lobby.seats) < lobby.seek.players:
        items.append(join)
    items.append(leave)
    return items
