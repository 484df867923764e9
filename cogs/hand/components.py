"""The hand panel's components: the card, row and space selects and the play buttons.

Every component is a :class:`discord.ui.DynamicItem`: its custom id carries the game id, the
revision of the game it was drawn for (:attr:`~bot.store.games.records.GameRecord.revision`, which
an undo never brings back, as it does a turn number) and the choice so far, so it survives
restarts. Callbacks never trust the id alone: the clicking user's seat and the game's revision
are checked again by the services.

A click is answered through the Hand cog (:class:`PanelAnswers`): drawing the next panel and
playing a move build panels of these components in turn, so this module imports neither.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import discord

from bot.game import card_label, space_name
from bot.game.board import SPACE_CARDS
from bot.game.cards import is_one_eyed
from bot.game.moves import DEAD, DRAW, PASS, Move
from bot.game.sequences import Option
from bot.services.errors import UserError
from bot.services.games import ChoiceNeeded, seat_of

from ..common.answering import Answering
from ..common.custom_ids import Templated
from ..common.lookup import bot_of, selected
from .hints import card_hint

if TYPE_CHECKING:
    from bot.store.games.records import GameRecord


STALE = "⚠️ That was for an earlier turn: the game has moved on. Here is your hand now."

#: The name of the cog that answers the panel's components.
HAND_COG = "Hand"


@runtime_checkable
class PanelAnswers(Protocol):
    """What the panel's components need of the cog that answers them (:data:`HAND_COG`)."""

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
        ...

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
        ...


def _answers(interaction: discord.Interaction) -> PanelAnswers:
    cog = bot_of(interaction).get_cog(HAND_COG)
    if not isinstance(cog, PanelAnswers):
        raise RuntimeError(f"The {HAND_COG} cog is not loaded")
    return cog


async def _show(
    interaction: discord.Interaction,
    record: GameRecord,
    seat: int,
    *,
    keep_image: bool = True,
    **step: Any,
) -> None:
    """Redraw the panel the component was on, at ``step``."""
    await _answers(interaction).show_panel(
        interaction, record, seat, edit=True, keep_image=keep_image, **step
    )


async def _play(
    interaction: discord.Interaction,
    record: GameRecord,
    seat: int,
    move: Move,
    revision: int | None,
) -> None:
    await _answers(interaction).play_from_panel(interaction, record, seat, move, revision or 0)


def _select(
    custom_id: str, placeholder: str, options: list[discord.SelectOption] | None
) -> discord.ui.Select:
    # A select rebuilt from its custom id needs some option; the real ones come with the panel.
    return discord.ui.Select(
        custom_id=custom_id,
        placeholder=placeholder,
        options=options or [discord.SelectOption(label="-", value="-")],
    )


def _button(
    custom_id: str, label: str, style: discord.ButtonStyle, emoji: str | None = None
) -> discord.ui.Button:
    return discord.ui.Button(custom_id=custom_id, label=label, style=style, emoji=emoji)


class PanelItem(Answering, Templated):
    """What every component of the hand panel does on a click: find the clicking player's own
    seat (never trusting the custom id for it), check the panel's revision, then act.

    A panel drawn for an earlier position (a move since, or an undo) is redrawn with a note
    instead of acting."""

    game: int
    revision: int | None = None

    async def clicked(self, interaction: discord.Interaction) -> None:
        record = await bot_of(interaction).games.fetch(self.game)
        seat = seat_of(record, interaction.user.id)
        if seat is None:
            raise UserError("These cards are not yours: you are not playing in this game.")
        if self.revision is not None and self.revision != record.revision:
            await _show(interaction, record, seat, notice=STALE, keep_image=False)
            return
        await self.act(interaction, record, seat)

    async def act(self, interaction: discord.Interaction, record: GameRecord, seat: int) -> None:
        """The component's own work."""
        raise NotImplementedError


class PlayButton(PanelItem, discord.ui.DynamicItem[discord.ui.Button], custom_id="seq:hand:{game}"):
    """The board message's "Your hand" button: opens the clicking player's own panel."""

    def __init__(self, game: int) -> None:
        self.game = game
        super().__init__(
            _button(self.ids(game=game), "Your hand", discord.ButtonStyle.primary, "🃏")
        )

    async def act(self, interaction: discord.Interaction, record: GameRecord, seat: int) -> None:
        await _answers(interaction).show_panel(
            interaction, record, seat, edit=False, with_image=True
        )


class CardSelect(
    PanelItem, discord.ui.DynamicItem[discord.ui.Select], custom_id="seq:card:{game}:{revision}"
):
    """Choose a card from the hand."""

    def __init__(
        self, game: int, revision: int, options: list[discord.SelectOption] | None = None
    ) -> None:
        self.game, self.revision = game, revision
        super().__init__(_select(self.ids(game=game, revision=revision), "Choose a card", options))

    @classmethod
    def make(cls, record: GameRecord, seat: int, selected: str | None) -> CardSelect:
        options = [
            discord.SelectOption(
                label=card_label(card),
                value=card,
                description=card_hint(record, seat, card),
                default=card == selected,
            )
            for card in dict.fromkeys(record.game.hands[seat])
        ]
        return cls(record.id, record.revision, options)

    async def act(self, interaction: discord.Interaction, record: GameRecord, seat: int) -> None:
        card = selected(interaction)
        if card not in record.game.hands[seat]:
            raise UserError("That card is not in your hand any more.")
        await _show(interaction, record, seat, card=card)


class RowSelect(
    PanelItem,
    discord.ui.DynamicItem[discord.ui.Select],
    custom_id="seq:row:{game}:{revision}:{card:card}",
):
    """For a jack: choose the row of the space."""

    def __init__(
        self, game: int, revision: int, card: str, options: list[discord.SelectOption] | None = None
    ) -> None:
        self.game, self.revision, self.card = game, revision, card
        custom_id = self.ids(game=game, revision=revision, card=card)
        super().__init__(_select(custom_id, "Choose a row", options))

    @classmethod
    def make(
        cls, game: int, revision: int, card: str, targets: list[int], selected: int | None
    ) -> RowSelect:
        rows: dict[int, int] = {}
        for target in targets:
            rows[target // 10] = rows.get(target // 10, 0) + 1
        noun = "chip" if is_one_eyed(card) else "open space"
        options = [
            discord.SelectOption(
                label=f"Row {row + 1}",
                value=str(row),
                description=f"{count} {noun}{'s' if count > 1 else ''}",
                default=row == selected,
            )
            for row, count in sorted(rows.items())
        ]
        return cls(game, revision, card, options)

    async def act(self, interaction: discord.Interaction, record: GameRecord, seat: int) -> None:
        row = int(selected(interaction) or 0)
        await _show(interaction, record, seat, card=self.card, row=row)


class SpaceSelect(
    PanelItem,
    discord.ui.DynamicItem[discord.ui.Select],
    custom_id="seq:space:{game}:{revision}:{card:card}",
):
    """For a jack: choose the space in the chosen row (only legal spaces are offered)."""

    def __init__(
        self, game: int, revision: int, card: str, options: list[discord.SelectOption] | None = None
    ) -> None:
        self.game, self.revision, self.card = game, revision, card
        custom_id = self.ids(game=game, revision=revision, card=card)
        super().__init__(_select(custom_id, "Choose the space", options))

    @classmethod
    def make(cls, game: int, revision: int, card: str, spaces: list[int]) -> SpaceSelect:
        options = [
            discord.SelectOption(
                label=space_name(s),
                value=str(s),
                description=f"the {card_label(SPACE_CARDS[s])} space",
            )
            for s in spaces
        ]
        return cls(game, revision, card, options)

    async def act(self, interaction: discord.Interaction, record: GameRecord, seat: int) -> None:
        space = int(selected(interaction) or 0)
        await _show(interaction, record, seat, card=self.card, space=space)


class GoButton(
    PanelItem,
    discord.ui.DynamicItem[discord.ui.Button],
    custom_id="seq:go:{game}:{revision}:{card:card}:{space}",
):
    """Play the chosen card on the chosen space (for a jack, this is the confirm step)."""

    def __init__(self, game: int, revision: int, card: str, space: int, label: str = "") -> None:
        self.game, self.revision, self.card, self.space = game, revision, card, space
        custom_id = self.ids(game=game, revision=revision, card=card, space=space)
        super().__init__(
            _button(custom_id, label or space_name(space), discord.ButtonStyle.success)
        )

    @classmethod
    def make(cls, game: int, revision: int, card: str, space: int, *, confirm: bool) -> GoButton:
        where = space_name(space)
        label = f"Confirm {card_label(card)} on {where}" if confirm else f"Play on {where}"
        return cls(game, revision, card, space, label)

    async def act(self, interaction: discord.Interaction, record: GameRecord, seat: int) -> None:
        move = Move.play(seat, self.card, self.space)
        await _play(interaction, record, seat, move, self.revision)


class FiveButton(
    PanelItem,
    discord.ui.DynamicItem[discord.ui.Button],
    custom_id="seq:five:{game}:{revision}:{card:card}:{space}:{index}",
):
    """Choose which five chips of a long line form the sequence."""

    def __init__(
        self, game: int, revision: int, card: str, space: int, index: int, label: str = ""
    ) -> None:
        self.game, self.revision = game, revision
        self.card, self.space, self.index = card, space, index
        custom_id = self.ids(game=game, revision=revision, card=card, space=space, index=index)
        super().__init__(
            _button(custom_id, label or f"Option {index + 1}", discord.ButtonStyle.success)
        )

    @classmethod
    def make(cls, game: int, revision: int, move: Move, index: int, option: Option) -> FiveButton:
        label = " + ".join(f"{space_name(w[0])}–{space_name(w[-1])}" for w in option)
        return cls(game, revision, move.card or "", move.space or 0, index, label)

    async def act(self, interaction: discord.Interaction, record: GameRecord, seat: int) -> None:
        move = Move.play(seat, self.card, self.space)
        options = record.game.sequence_options(move)
        if not 0 <= self.index < len(options):
            raise UserError("That choice is no longer on offer.")
        move = move._replace(five=options[self.index])
        await _play(interaction, record, seat, move, self.revision)


class MoreFivesButton(
    PanelItem,
    discord.ui.DynamicItem[discord.ui.Button],
    custom_id="seq:morefives:{game}:{revision}:{card:card}:{space}:{page}",
):
    """The next page of ways to pick the five, when there are more than one panel holds."""

    def __init__(self, game: int, revision: int, card: str, space: int, page: int) -> None:
        self.game, self.revision = game, revision
        self.card, self.space, self.page = card, space, page
        custom_id = self.ids(game=game, revision=revision, card=card, space=space, page=page)
        super().__init__(_button(custom_id, "More ways", discord.ButtonStyle.primary))

    @classmethod
    def make(cls, game: int, revision: int, move: Move, page: int) -> MoreFivesButton:
        return cls(game, revision, move.card or "", move.space or 0, page)

    async def act(self, interaction: discord.Interaction, record: GameRecord, seat: int) -> None:
        move = Move.play(seat, self.card, self.space)
        options = record.game.sequence_options(move)
        if len(options) < 2:
            raise UserError("That choice is no longer on offer.")
        choice = ChoiceNeeded(move, options)
        await _show(interaction, record, seat, choice=choice, page=self.page)


class DeadButton(
    PanelItem,
    discord.ui.DynamicItem[discord.ui.Button],
    custom_id="seq:dead:{game}:{revision}:{card:card}",
):
    """Turn in a dead card and draw a replacement."""

    def __init__(self, game: int, revision: int, card: str) -> None:
        self.game, self.revision, self.card = game, revision, card
        custom_id = self.ids(game=game, revision=revision, card=card)
        label = f"Turn in dead {card_label(card)}"
        super().__init__(_button(custom_id, label, discord.ButtonStyle.secondary, "♻️"))

    async def act(self, interaction: discord.Interaction, record: GameRecord, seat: int) -> None:
        move = Move(DEAD, seat, self.card)
        await _play(interaction, record, seat, move, self.revision)


class PassButton(
    PanelItem, discord.ui.DynamicItem[discord.ui.Button], custom_id="seq:pass:{game}:{revision}"
):
    """Pass when no card can be played."""

    def __init__(self, game: int, revision: int) -> None:
        self.game, self.revision = game, revision
        super().__init__(
            _button(self.ids(game=game, revision=revision), "Pass", discord.ButtonStyle.secondary)
        )

    async def act(self, interaction: discord.Interaction, record: GameRecord, seat: int) -> None:
        move = Move(PASS, seat)
        await _play(interaction, record, seat, move, self.revision)


class BackButton(
    PanelItem, discord.ui.DynamicItem[discord.ui.Button], custom_id="seq:back:{game}:{revision}"
):
    """Back to choosing a card."""

    def __init__(self, game: int, revision: int) -> None:
        self.game, self.revision = game, revision
        super().__init__(
            _button(self.ids(game=game, revision=revision), "Back", discord.ButtonStyle.secondary)
        )

    async def act(self, interaction: discord.Interaction, record: GameRecord, seat: int) -> None:
        await _show(interaction, record, seat)


class DrawButton(PanelItem, discord.ui.DynamicItem[discord.ui.Button], custom_id="seq:draw:{game}"):
    """House rule manual draw: take the card you are owed before the next player draws."""

    def __init__(self, game: int) -> None:
        self.game = game
        super().__init__(
            _button(self.ids(game=game), "Draw a card", discord.ButtonStyle.primary, "🂠")
        )

    async def act(self, interaction: discord.Interaction, record: GameRecord, seat: int) -> None:
        bot = bot_of(interaction)
        outcome = await bot.games.apply(record.id, Move(DRAW, seat), actor_id=interaction.user.id)
        notice = "✅ You drew a card."
        await _show(interaction, outcome.record, seat, notice=notice, keep_image=False)


class ForfeitSelect(
    PanelItem, discord.ui.DynamicItem[discord.ui.Select], custom_id="seq:forfeit:{game}"
):
    """Table talk: choose the card to forfeit (to your own discard pile, no replacement)."""

    def __init__(self, game: int, options: list[discord.SelectOption] | None = None) -> None:
        self.game = game
        super().__init__(_select(self.ids(game=game), "Choose a card to forfeit", options))

    @classmethod
    def make(cls, record: GameRecord, seat: int) -> ForfeitSelect:
        options = [
            discord.SelectOption(label=card_label(card), value=card)
            for card in dict.fromkeys(record.game.hands[seat])
        ]
        return cls(record.id, options)

    async def act(self, interaction: discord.Interaction, record: GameRecord, seat: int) -> None:
        card = selected(interaction)
        outcome = await bot_of(interaction).games.forfeit(record.id, interaction.user.id, card)
        notice = f"✅ You forfeited {card_label(card)}."
        await _show(interaction, outcome.record, seat, notice=notice, keep_image=False)


#: Every component of the panel, for ``bot.add_dynamic_items``.
COMPONENTS = (
    PlayButton,
    CardSelect,
    RowSelect,
    SpaceSelect,
    GoButton,
    FiveButton,
    MoreFivesButton,
    DeadButton,
    PassButton,
    BackButton,
    DrawButton,
    ForfeitSelect,
)
