"""``/sequence hand`` and ``/sequence play`` (with autocomplete), and the panel's components."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.app import SequenceBot
from bot.game import CardError, SpaceError, card_label, parse_card, parse_space, space_name
from bot.game.cards import is_one_eyed, is_two_eyed
from bot.game.moves import Move
from bot.services.errors import UserError
from bot.services.games import seat_of
from bot.store.games.records import GameRecord

from ..base import SequenceCog
from .components import COMPONENTS, HAND_COG, PlayButton
from .panel import build_hand_panel
from .play import play_and_announce


class Hand(SequenceCog, name=HAND_COG):
    """Your cards, privately, and the commands to play them; it answers the panel's components
    (:class:`~.components.PanelAnswers`)."""

    components = COMPONENTS

    async def show_panel(
        self,
        interaction: discord.Interaction,
        record: GameRecord,
        seat: int,
        *,
        edit: bool,
        keep_image: bool = True,
        **step: Any,
    ) -> None:
        """Draw ``seat``'s panel at ``step`` (see :func:`.panel.build_hand_panel`): in place of
        the one clicked (``edit``, keeping its image unless ``keep_image`` is false), or sent."""
        shown = await build_hand_panel(record, seat, **step)
        await (shown.edit(interaction, keep_image=keep_image) if edit else shown.send(interaction))

    async def play_from_panel(
        self,
        interaction: discord.Interaction,
        record: GameRecord,
        seat: int,
        move: Move,
        revision: int,
    ) -> None:
        """Play ``move`` for the clicking player, drawn for the game's ``revision``, and show
        the panel after it in place of the one clicked."""
        await play_and_announce(interaction, record, seat, move, revision, edit=True)

    def board_button(self, record: GameRecord) -> discord.ui.Item | None:
        """The "Your hand" button under every board."""
        return PlayButton(record.id)

    @app_commands.command(
        name="hand", description="See your cards (only you can see them) and play"
    )
    async def hand(self, interaction: discord.Interaction[SequenceBot]) -> None:
        record = self.bot.games.for_channel(interaction.channel_id or 0)
        seat = self.bot.games.require_seat(record, interaction.user.id)
        panel = await build_hand_panel(record, seat, with_image=True)
        await panel.send(interaction)

    @app_commands.command(name="play", description="Play a card on a space, e.g. card 7S space C4")
    @app_commands.describe(
        card="A card in your hand, like 7S, TD or JC",
        space="Column A-J then row 1-10, like C4 (a one-eyed jack: the chip to remove)",
    )
    async def play(
        self, interaction: discord.Interaction[SequenceBot], card: str, space: str
    ) -> None:
        record = self.bot.games.for_channel(interaction.channel_id or 0)
        seat = self.bot.games.require_seat(record, interaction.user.id)
        try:
            move = Move.play(seat, parse_card(card), parse_space(space))
        except (CardError, SpaceError) as error:
            raise UserError(str(error)) from None
        await play_and_announce(
            interaction, record, seat, move, record.revision, edit=False
        )

    def _own_seat(
        self, interaction: discord.Interaction[SequenceBot]
    ) -> tuple[GameRecord, int] | None:
        """The channel's game and the user's seat in it, for autocomplete (no errors there)."""
        record = self.bot.games.find_in_channel(interaction.channel_id or 0)
        seat = seat_of(record, interaction.user.id) if record else None
        return None if record is None or seat is None else (record, seat)

    @play.autocomplete("card")
    async def card_autocomplete(
        self, interaction: discord.Interaction[SequenceBot], current: str
    ) -> list[app_commands.Choice[str]]:
        found = self._own_seat(interaction)
        if found is None:
            return []
        record, seat = found
        game = record.game
        text = current.strip().upper().replace("10", "T")
        choices = []
        for card in dict.fromkeys(game.hands[seat]):
            if text and not (card.startswith(text) or card_label(card).upper().startswith(text)):
                continue
            if is_two_eyed(card):
                what = "wild"
            elif is_one_eyed(card):
                what = "remove a chip"
            else:
                open_spaces = game.targets(seat, card)
                what = " / ".join(space_name(s) for s in open_spaces) if open_spaces else "dead"
            choices.append(app_commands.Choice(name=f"{card_label(card)} · {what}", value=card))
        return choices[:25]

    @play.autocomplete("space")
    async def space_autocomplete(
        self, interaction: discord.Interaction[SequenceBot], current: str
    ) -> list[app_commands.Choice[str]]:
        found = self._own_seat(interaction)
        if found is None:
            return []
        record, seat = found
        game = record.game
        try:
            card = parse_card(str(getattr(interaction.namespace, "card", "") or ""))
        except CardError:
            card = None
        cards = [card] if card in game.hands[seat] else list(dict.fromkeys(game.hands[seat]))
        spaces: dict[int, None] = {}
        for each in cards:
            for target in game.targets(seat, each):
                spaces[target] = None
        text = current.strip().upper()
        names = [space_name(s) for s in sorted(spaces, key=lambda s: (s % 10, s // 10))]
        names = [name for name in names if name.startswith(text)]
        return [app_commands.Choice(name=name, value=name) for name in names[:25]]
