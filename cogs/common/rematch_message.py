"""A rematch as its messages show it: the final board's Rematch button, and the rematch lobby's
Accept and Decline buttons, its seating menu and its lines (the series, who is still awaited).

The components are sent from here; a click is answered by the Rematch cog's subclasses,
registered under the same custom ids.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import discord

from bot.services.rematch import ARRANGEMENTS
from bot.services.series import not_accepted
from bot.table.series import series_line

from .custom_ids import Templated

if TYPE_CHECKING:
    from bot.store.games.records import GameRecord
    from bot.store.lobbies import LobbyRecord


class RematchButton(
    Templated, discord.ui.DynamicItem[discord.ui.Button], custom_id="seq:rematch:game:{game}"
):
    """The final board's **Rematch** (as sent: the Rematch cog's subclass answers a click)."""

    def __init__(self, game: int) -> None:
        self.game = game
        super().__init__(
            discord.ui.Button(
                label="Rematch",
                emoji="🔁",
                style=discord.ButtonStyle.primary,
                custom_id=self.ids(game=game),
            )
        )


class RematchAnswerButton(
    Templated,
    discord.ui.DynamicItem[discord.ui.Button],
    custom_id="seq:rematch:{lobby_id}:{answer:accept|decline}",
):
    """A rematch lobby's **Accept** and **Decline** (as sent: the Rematch cog's subclass
    answers a click)."""

    STYLES: ClassVar[dict[str, tuple[str, discord.ButtonStyle]]] = {
        "accept": ("Accept", discord.ButtonStyle.success),
        "decline": ("Decline", discord.ButtonStyle.danger),
    }

    def __init__(self, lobby_id: int, answer: str) -> None:
        self.lobby_id, self.answer = lobby_id, answer
        label, style = self.STYLES[answer]
        super().__init__(
            discord.ui.Button(
                label=label, style=style, custom_id=self.ids(lobby_id=lobby_id, answer=answer)
            )
        )


class SeatingSelect(
    Templated,
    discord.ui.DynamicItem[discord.ui.Select],
    custom_id="seq:rematch:{lobby_id}:seating",
):
    """The host seats the rematch: same teams, shuffled teams or rotated seats (as sent: the
    Rematch cog's subclass answers a pick)."""

    def __init__(self, lobby_id: int, chosen: str = "same") -> None:
        self.lobby_id = lobby_id
        super().__init__(
            discord.ui.Select(
                custom_id=self.ids(lobby_id=lobby_id),
                placeholder="Seating…",
                options=[
                    discord.SelectOption(
                        label=words.capitalize(), value=name, default=name == chosen
                    )
                    for name, words in ARRANGEMENTS.items()
                ],
            )
        )


def rematch_button(record: GameRecord) -> discord.ui.Item[Any] | None:
    """The Rematch button under a finished game's final board (none under a cancelled one's,
    nor a tournament match's: the tournament pairs its next games)."""
    if record.status == "cancelled" or not record.game.is_over():
        return None
    if record.options.tournament_match is not None:
        return None
    return RematchButton(record.id)


def rematch_items(lobby: LobbyRecord) -> list[discord.ui.Item[Any]]:
    """A rematch lobby's own components: Accept, Decline and the seating menu."""
    if lobby.rematch is None:
        return []
    return [
        RematchAnswerButton(lobby.id, "accept"),
        RematchAnswerButton(lobby.id, "decline"),
        SeatingSelect(lobby.id, lobby.rematch.arrangement),
    ]


def rematch_lines(lobby: LobbyRecord) -> str | None:
    """The lobby's lines about its series and who is still awaited (None: not a rematch)."""
    if lobby.rematch is None:
        return None
    teams = max(len(lobby.options.series_score), 2)
    lines = [f"🔁 {series_line(lobby.options, teams)}"]
    waiting = not_accepted(lobby)
    lines.append(f"Seating: {ARRANGEMENTS.get(lobby.rematch.arrangement, 'same teams')}.")
    if waiting:
        names = ", ".join(f"<@{user}>" for user in waiting)
        lines.append(f"Waiting for {names} to press **Accept** (or **Decline** to free the seat).")
    else:
        lines.append("Everyone has accepted: the host may start.")
    return "\n".join(lines)
