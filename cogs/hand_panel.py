"""The private hand panel: what a player sees (ephemerally) and the components to play with.

Every component is a :class:`discord.ui.DynamicItem`: its custom id carries the game id, the turn it
was drawn for and the choice so far, so it survives restarts. Callbacks never trust the id alone:
the clicking user's seat and the current turn are checked again by the services.
"""

from __future__ import annotations

import asyncio
import io
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import discord

from bot.game import card_label, player_view, space_name
from bot.game.board import CARD_SPACES, SPACE_CARDS
from bot.game.cards import is_jack, is_one_eyed, is_two_eyed
from bot.game.moves import DEAD, DRAW, PASS, Move
from bot.game.sequences import Option
from bot.services.errors import UserError
from bot.services.games import ChoiceNeeded, seat_of
from render.board import render_hand

from .common.describe import team_label
from .common.replies import reporting
from .common.table import seat_names

if TYPE_CHECKING:
    from bot.app import SequenceBot
    from bot.store.games import GameRecord


@dataclass
class Panel:
    """One state of the hand panel, ready to send or edit in."""

    content: str
    view: discord.ui.View | None = None
    image: bytes | None = None
    embeds: list[discord.Embed] = field(default_factory=list)

    def files(self) -> list[discord.File]:
        """The hand image as an attachment, if any."""
        if self.image is None:
            return []
        return [discord.File(io.BytesIO(self.image), filename="hand.png")]

    async def send(self, interaction: discord.Interaction) -> None:
        """Answer with the panel (ephemeral)."""
        kwargs: dict[str, Any] = {"ephemeral": True, "files": self.files(), "embeds": self.embeds}
        if self.view is not None:
            kwargs["view"] = self.view
        if interaction.response.is_done():
            await interaction.followup.send(self.content, **kwargs)
        else:
            await interaction.response.send_message(self.content, **kwargs)

    async def edit(self, interaction: discord.Interaction, *, keep_image: bool = True) -> None:
        """Replace the panel the component was on."""
        kwargs: dict[str, Any] = {"view": self.view}
        if self.image is not None:
            kwargs["attachments"] = self.files()
        elif not keep_image:
            kwargs["attachments"] = []
        await interaction.response.edit_message(content=self.content, **kwargs)


def card_hint(record: GameRecord, seat: int, card: str) -> str:
    """What a card can do now, for a select option's description."""
    game = record.game
    if is_two_eyed(card):
        return "Two-eyed jack: a chip on any open space"
    if is_one_eyed(card):
        return "One-eyed jack: remove an opponent's chip"
    targets = game.targets(seat, card)
    if not targets:
        return "Dead card: both spaces are covered"
    spaces = " or ".join(space_name(s) for s in CARD_SPACES[card])
    return f"Goes on {spaces}" + (
        "" if len(targets) == 2 else f" (only {space_name(targets[0])} open)"
    )


def hand_line(hand: list[str]) -> str:
    """The cards of a hand, for the player's own eyes only."""
    return " · ".join(card_label(card) for card in hand) if hand else "(no cards)"


async def build_panel(
    bot: SequenceBot,
    record: GameRecord,
    seat: int,
    *,
    card: str | None = None,
    row: int | None = None,
    space: int | None = None,
    choice: ChoiceNeeded | None = None,
    notice: str | None = None,
    with_image: bool = False,
) -> Panel:
    """The panel for ``seat``: its hand, and the next step of choosing a move."""
    game = record.game
    hand = game.hands[seat]
    turn = game.turn_number
    lines = []
    if notice:
        lines.append(notice)
    lines.append(
        f"**Your hand** (game #{record.id}, {team_label(game.team_of(seat))}): {hand_line(hand)}"
    )
    view = discord.ui.View(timeout=None)
    image = None
    if game.is_over():
        lines.append("The game is over.")
        return Panel("\n".join(lines))
    if game.owed_forfeits[seat]:
        owed = game.owed_forfeits[seat]
        lines.append(
            f"Table talk: choose {owed} card{'s' if owed > 1 else ''} to forfeit (no replacement)."
        )
        view.add_item(ForfeitSelect.make(record, seat))
        return Panel("\n".join(lines), view)
    if seat in game.owed_draws:
        view.add_item(DrawButton(record.id))
    if seat != game.turn:
        waiting = record.seats[game.turn]["name"]
        lines.append(f"It is **{waiting}**'s turn; you will be pinged when it is yours.")
        return Panel("\n".join(lines), view if view.children else None)
    if with_image:
        image = await asyncio.to_thread(render_hand, player_view(game, seat), seat_names(record))
    if choice is not None:
        lines.append(str(choice))
        for index, option in enumerate(choice.options):
            view.add_item(FiveButton.make(record.id, turn, choice.move, index, option))
        view.add_item(BackButton(record.id, turn))
        return Panel("\n".join(lines), view, image)
    playable = [c for c in dict.fromkeys(hand) if game.targets(seat, c)]
    dead = [c for c in dict.fromkeys(hand) if c in CARD_SPACES and game.is_dead(c)]
    if not playable:
        if dead and not game.dead_card_used:
            lines.append("No card can be played, but you can turn in a dead card first.")
        else:
            lines.append("No card in your hand can be played: you pass.")
            view.add_item(PassButton(record.id, turn))
    if hand:
        view.add_item(CardSelect.make(record, seat, card))
    if card is not None and card in hand:
        _add_card_step(view, record, seat, card, row, space, lines)
    elif playable:
        lines.append("**Your turn.** Choose a card.")
    return Panel("\n".join(lines), view, image)


def _add_card_step(
    view: discord.ui.View,
    record: GameRecord,
    seat: int,
    card: str,
    row: int | None,
    space: int | None,
    lines: list[str],
) -> None:
    game = record.game
    turn = game.turn_number
    targets = game.targets(seat, card)
    if not targets:
        if game.dead_card_used:
            lines.append(
                f"{card_label(card)} is dead, and you already turned in a dead card this turn."
            )
        else:
            lines.append(f"{card_label(card)} is dead: both its spaces are covered.")
            view.add_item(DeadButton(record.id, turn, card))
        return
    if not is_jack(card):
        lines.append(f"Play {card_label(card)} on:")
        for target in targets:
            view.add_item(GoButton.make(record.id, turn, card, target, confirm=False))
        return
    verb = "remove a chip from" if is_one_eyed(card) else "place a chip on"
    if space is not None and space in targets:
        lines.append(f"Confirm: play {card_label(card)} to {verb} **{space_name(space)}**?")
        view.add_item(GoButton.make(record.id, turn, card, space, confirm=True))
        view.add_item(BackButton(record.id, turn))
        return
    lines.append(f"{card_label(card)}: choose a row, then the space to {verb}.")
    view.add_item(RowSelect.make(record.id, turn, card, targets, row))
    if row is not None:
        in_row = [t for t in targets if t // 10 == row]
        if in_row:
            view.add_item(SpaceSelect.make(record.id, turn, card, in_row))


# --------------------------------------------------------------------------- components
def _bot(interaction: discord.Interaction) -> SequenceBot:
    return interaction.client  # type: ignore[return-value]


async def _refresh_if_stale(
    interaction: discord.Interaction, record: GameRecord, seat: int, turn: int
) -> bool:
    """If the panel was drawn for an earlier turn, redraw it with a note; True when stale."""
    if turn == record.game.turn_number:
        return False
    panel = await build_panel(
        _bot(interaction),
        record,
        seat,
        notice="⚠️ That was for an earlier turn: the game has moved on. Here is your hand now.",
    )
    await panel.edit(interaction, keep_image=False)
    return True


async def play_and_announce(
    interaction: discord.Interaction,
    record: GameRecord,
    seat: int,
    move: Move,
    turn: int,
    *,
    edit: bool,
) -> None:
    """Apply a move for the clicking player and refresh their panel (the table posts the board)."""
    bot = _bot(interaction)
    try:
        outcome = await bot.games.apply(
            record.id, move, actor_id=interaction.user.id, expected_turn=turn
        )
    except ChoiceNeeded as choice:
        panel = await build_panel(bot, record, seat, choice=choice)
        await (panel.edit(interaction) if edit else panel.send(interaction))
        return
    done = "✅ Done." if outcome.turn_passed or outcome.finished else "✅ Done: carry on."
    panel = await build_panel(bot, outcome.record, seat, notice=done)
    if edit:
        await panel.edit(interaction, keep_image=not outcome.turn_passed)
    else:
        await panel.send(interaction)


CARD = r"(?P<card>[0-9TJQKA][SHDC])"


def _groups(match: re.Match[str]) -> dict[str, Any]:
    """The values in a custom id: numbers as ints, cards as codes."""
    return {
        key: int(value) if value.isdigit() else value for key, value in match.groupdict().items()
    }


def _selected(interaction: discord.Interaction) -> str:
    """The value picked in a select."""
    values = (interaction.data or {}).get("values") or [""]  # type: ignore[union-attr]
    return str(values[0])


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


class PanelItem:
    """What every component of the hand panel does on a click: find the clicking player's own
    seat (never trusting the custom id for it), check the panel's turn, then act."""

    game: int
    turn: int | None = None

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: Any, match: re.Match[str]
    ) -> Any:
        return cls(**_groups(match))

    async def callback(self, interaction: discord.Interaction) -> None:
        async with reporting(interaction):
            record = await _bot(interaction).games.fetch(self.game)
            seat = seat_of(record, interaction.user.id)
            if seat is None:
                raise UserError("These cards are not yours: you are not playing in this game.")
            if self.turn is not None and await _refresh_if_stale(
                interaction, record, seat, self.turn
            ):
                return
            await self.act(interaction, record, seat)

    async def act(self, interaction: discord.Interaction, record: GameRecord, seat: int) -> None:
        """The component's own work."""
        raise NotImplementedError


class PlayButton(
    PanelItem, discord.ui.DynamicItem[discord.ui.Button], template=r"seq:hand:(?P<game>\d+)"
):
    """The board message's "Your hand" button: opens the clicking player's own panel."""

    def __init__(self, game: int) -> None:
        self.game = game
        super().__init__(
            _button(f"seq:hand:{game}", "Your hand", discord.ButtonStyle.primary, "🃏")
        )

    async def act(self, interaction: discord.Interaction, record: GameRecord, seat: int) -> None:
        panel = await build_panel(_bot(interaction), record, seat, with_image=True)
        await panel.send(interaction)


class CardSelect(
    PanelItem,
    discord.ui.DynamicItem[discord.ui.Select],
    template=r"seq:card:(?P<game>\d+):(?P<turn>\d+)",
):
    """Choose a card from the hand."""

    def __init__(
        self, game: int, turn: int, options: list[discord.SelectOption] | None = None
    ) -> None:
        self.game, self.turn = game, turn
        super().__init__(_select(f"seq:card:{game}:{turn}", "Choose a card", options))

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
        return cls(record.id, record.game.turn_number, options)

    async def act(self, interaction: discord.Interaction, record: GameRecord, seat: int) -> None:
        card = _selected(interaction)
        if card not in record.game.hands[seat]:
            raise UserError("That card is not in your hand any more.")
        panel = await build_panel(_bot(interaction), record, seat, card=card)
        await panel.edit(interaction)


class RowSelect(
    PanelItem,
    discord.ui.DynamicItem[discord.ui.Select],
    template=rf"seq:row:(?P<game>\d+):(?P<turn>\d+):{CARD}",
):
    """For a jack: choose the row of the space."""

    def __init__(
        self, game: int, turn: int, card: str, options: list[discord.SelectOption] | None = None
    ) -> None:
        self.game, self.turn, self.card = game, turn, card
        super().__init__(_select(f"seq:row:{game}:{turn}:{card}", "Choose a row", options))

    @classmethod
    def make(
        cls, game: int, turn: int, card: str, targets: list[int], selected: int | None
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
        return cls(game, turn, card, options)

    async def act(self, interaction: discord.Interaction, record: GameRecord, seat: int) -> None:
        row = int(_selected(interaction) or 0)
        panel = await build_panel(_bot(interaction), record, seat, card=self.card, row=row)
        await panel.edit(interaction)


class SpaceSelect(
    PanelItem,
    discord.ui.DynamicItem[discord.ui.Select],
    template=rf"seq:space:(?P<game>\d+):(?P<turn>\d+):{CARD}",
):
    """For a jack: choose the space in the chosen row (only legal spaces are offered)."""

    def __init__(
        self, game: int, turn: int, card: str, options: list[discord.SelectOption] | None = None
    ) -> None:
        self.game, self.turn, self.card = game, turn, card
        super().__init__(_select(f"seq:space:{game}:{turn}:{card}", "Choose the space", options))

    @classmethod
    def make(cls, game: int, turn: int, card: str, spaces: list[int]) -> SpaceSelect:
        options = [
            discord.SelectOption(
                label=space_name(s),
                value=str(s),
                description=f"the {card_label(SPACE_CARDS[s])} space",
            )
            for s in spaces
        ]
        return cls(game, turn, card, options)

    async def act(self, interaction: discord.Interaction, record: GameRecord, seat: int) -> None:
        space = int(_selected(interaction) or 0)
        panel = await build_panel(_bot(interaction), record, seat, card=self.card, space=space)
        await panel.edit(interaction)


class GoButton(
    PanelItem,
    discord.ui.DynamicItem[discord.ui.Button],
    template=rf"seq:go:(?P<game>\d+):(?P<turn>\d+):{CARD}:(?P<space>\d+)",
):
    """Play the chosen card on the chosen space (for a jack, this is the confirm step)."""

    def __init__(self, game: int, turn: int, card: str, space: int, label: str = "") -> None:
        self.game, self.turn, self.card, self.space = game, turn, card, space
        custom_id = f"seq:go:{game}:{turn}:{card}:{space}"
        super().__init__(
            _button(custom_id, label or space_name(space), discord.ButtonStyle.success)
        )

    @classmethod
    def make(cls, game: int, turn: int, card: str, space: int, *, confirm: bool) -> GoButton:
        where = space_name(space)
        label = f"Confirm {card_label(card)} on {where}" if confirm else f"Play on {where}"
        return cls(game, turn, card, space, label)

    async def act(self, interaction: discord.Interaction, record: GameRecord, seat: int) -> None:
        move = Move.play(seat, self.card, self.space)
        await play_and_announce(interaction, record, seat, move, self.turn or 0, edit=True)


class FiveButton(
    PanelItem,
    discord.ui.DynamicItem[discord.ui.Button],
    template=rf"seq:five:(?P<game>\d+):(?P<turn>\d+):{CARD}:(?P<space>\d+):(?P<index>\d+)",
):
    """Choose which five chips of a long line form the sequence."""

    def __init__(
        self, game: int, turn: int, card: str, space: int, index: int, label: str = ""
    ) -> None:
        self.game, self.turn, self.card, self.space, self.index = game, turn, card, space, index
        custom_id = f"seq:five:{game}:{turn}:{card}:{space}:{index}"
        super().__init__(
            _button(custom_id, label or f"Option {index + 1}", discord.ButtonStyle.success)
        )

    @classmethod
    def make(cls, game: int, turn: int, move: Move, index: int, option: Option) -> FiveButton:
        label = " + ".join(f"{space_name(w[0])}–{space_name(w[-1])}" for w in option)
        return cls(game, turn, move.card or "", move.space or 0, index, label)

    async def act(self, interaction: discord.Interaction, record: GameRecord, seat: int) -> None:
        move = Move.play(seat, self.card, self.space)
        options = record.game.sequence_options(move)
        if not 0 <= self.index < len(options):
            raise UserError("That choice is no longer on offer.")
        move = move._replace(five=options[self.index])
        await play_and_announce(interaction, record, seat, move, self.turn or 0, edit=True)


class DeadButton(
    PanelItem,
    discord.ui.DynamicItem[discord.ui.Button],
    template=rf"seq:dead:(?P<game>\d+):(?P<turn>\d+):{CARD}",
):
    """Turn in a dead card and draw a replacement."""

    def __init__(self, game: int, turn: int, card: str) -> None:
        self.game, self.turn, self.card = game, turn, card
        label = f"Turn in dead {card_label(card)}"
        super().__init__(
            _button(f"seq:dead:{game}:{turn}:{card}", label, discord.ButtonStyle.secondary, "♻️")
        )

    async def act(self, interaction: discord.Interaction, record: GameRecord, seat: int) -> None:
        move = Move(DEAD, seat, self.card)
        await play_and_announce(interaction, record, seat, move, self.turn or 0, edit=True)


class PassButton(
    PanelItem,
    discord.ui.DynamicItem[discord.ui.Button],
    template=r"seq:pass:(?P<game>\d+):(?P<turn>\d+)",
):
    """Pass when no card can be played."""

    def __init__(self, game: int, turn: int) -> None:
        self.game, self.turn = game, turn
        super().__init__(_button(f"seq:pass:{game}:{turn}", "Pass", discord.ButtonStyle.secondary))

    async def act(self, interaction: discord.Interaction, record: GameRecord, seat: int) -> None:
        move = Move(PASS, seat)
        await play_and_announce(interaction, record, seat, move, self.turn or 0, edit=True)


class BackButton(
    PanelItem,
    discord.ui.DynamicItem[discord.ui.Button],
    template=r"seq:back:(?P<game>\d+):(?P<turn>\d+)",
):
    """Back to choosing a card."""

    def __init__(self, game: int, turn: int) -> None:
        self.game, self.turn = game, turn
        super().__init__(_button(f"seq:back:{game}:{turn}", "Back", discord.ButtonStyle.secondary))

    async def act(self, interaction: discord.Interaction, record: GameRecord, seat: int) -> None:
        panel = await build_panel(_bot(interaction), record, seat)
        await panel.edit(interaction)


class DrawButton(
    PanelItem, discord.ui.DynamicItem[discord.ui.Button], template=r"seq:draw:(?P<game>\d+)"
):
    """House rule manual draw: take the card you are owed before the next player draws."""

    def __init__(self, game: int) -> None:
        self.game = game
        super().__init__(
            _button(f"seq:draw:{game}", "Draw a card", discord.ButtonStyle.primary, "🂠")
        )

    async def act(self, interaction: discord.Interaction, record: GameRecord, seat: int) -> None:
        bot = _bot(interaction)
        outcome = await bot.games.apply(record.id, Move(DRAW, seat), actor_id=interaction.user.id)
        panel = await build_panel(bot, outcome.record, seat, notice="✅ You drew a card.")
        await panel.edit(interaction, keep_image=False)


class ForfeitSelect(
    PanelItem, discord.ui.DynamicItem[discord.ui.Select], template=r"seq:forfeit:(?P<game>\d+)"
):
    """Table talk: choose the card to forfeit (to your own discard pile, no replacement)."""

    def __init__(self, game: int, options: list[discord.SelectOption] | None = None) -> None:
        self.game = game
        super().__init__(_select(f"seq:forfeit:{game}", "Choose a card to forfeit", options))

    @classmethod
    def make(cls, record: GameRecord, seat: int) -> ForfeitSelect:
        options = [
            discord.SelectOption(label=card_label(card), value=card)
            for card in dict.fromkeys(record.game.hands[seat])
        ]
        return cls(record.id, options)

    async def act(self, interaction: discord.Interaction, record: GameRecord, seat: int) -> None:
        card = _selected(interaction)
        bot = _bot(interaction)
        outcome = await bot.games.forfeit(record.id, interaction.user.id, card)
        notice = f"✅ You forfeited {card_label(card)}."
        panel = await build_panel(bot, outcome.record, seat, notice=notice)
        await panel.edit(interaction, keep_image=False)


COMPONENTS = (
    PlayButton,
    CardSelect,
    RowSelect,
    SpaceSelect,
    GoButton,
    FiveButton,
    DeadButton,
    PassButton,
    BackButton,
    DrawButton,
    ForfeitSelect,
)
