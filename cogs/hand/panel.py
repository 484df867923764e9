"""Building the private hand panel: a player's cards and the next step of choosing a move.

It builds the panel of :mod:`.components`; they answer clicks through the Hand cog
(:class:`~.components.PanelAnswers`), which builds panels here in turn.

:func:`build_hand_panel` is the one builder. It reads a game and a seat and returns a
:class:`Panel` (text, components, an optional hand image); it sends nothing and assumes no
channel, so a panel can be answered to an interaction or sent to a player's DMs alike.
"""

from __future__ import annotations

import asyncio
import io
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import discord

from bot.game import card_label, player_view, space_name
from bot.game.board import CARD_SPACES
from bot.game.cards import is_jack, is_one_eyed
from render.board import render_hand

from ..common.alt_text import hand_alt
from ..common.components import Components
from ..common.describe import seat_label, team_label
from ..common.table import seat_names
from . import components

if TYPE_CHECKING:
    from bot.services.games import ChoiceNeeded
    from bot.store.games.records import GameRecord

#: Ways to pick the five shown at once: four rows of buttons; the fifth row holds Back and More
#: (a message holds five rows of five buttons).
FIVES_PER_PAGE = 20


@dataclass
class Panel:
    """One state of the hand panel, ready to send or edit in."""

    content: str
    view: Components | None = None
    image: bytes | None = None
    embeds: list[discord.Embed] = field(default_factory=list)
    #: The hand image's alt text (the player's cards: only ever sent where the image goes).
    alt: str | None = None

    def files(self) -> list[discord.File]:
        """The hand image as an attachment, with its alt text, if any."""
        if self.image is None:
            return []
        return [discord.File(io.BytesIO(self.image), filename="hand.png", description=self.alt)]

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


def hand_line(hand: list[str]) -> str:
    """The cards of a hand, for the player's own eyes only."""
    return " · ".join(card_label(card) for card in hand) if hand else "(no cards)"


async def build_hand_panel(
    record: GameRecord,
    seat: int,
    *,
    card: str | None = None,
    row: int | None = None,
    space: int | None = None,
    choice: ChoiceNeeded | None = None,
    page: int = 0,
    notice: str | None = None,
    with_image: bool = False,
) -> Panel:
    """The panel for ``seat``: its hand, and the next step of choosing a move.

    The step so far is ``card`` (then ``row`` and ``space`` for a jack), or the ``choice`` of
    five chips the engine asked for (shown from ``page`` when there are more ways than fit);
    ``notice`` is a first line (what just happened); ``with_image`` draws the board as this
    player sees it (off the event loop).
    """
    game = record.game
    hand = game.hands[seat]
    revision = record.revision
    lines = []
    if notice:
        lines.append(notice)
    lines.append(
        f"**Your hand** (game #{record.id}, {team_label(game.team_of(seat))}): {hand_line(hand)}"
    )
    view = Components()
    image = alt = None
    if game.is_over():
        lines.append("The game is over.")
        return Panel("\n".join(lines))
    if game.out[seat]:  # resigned with a team, or removed for running out of time
        lines.append("You are no longer playing in this game: the others play on without you.")
        return Panel("\n".join(lines))
    if game.owed_forfeits[seat]:
        owed = game.owed_forfeits[seat]
        lines.append(
            f"Table talk: choose {owed} card{'s' if owed > 1 else ''} to forfeit (no replacement)."
        )
        view.add_item(components.ForfeitSelect.make(record, seat))
        return Panel("\n".join(lines), view)
    if seat in game.owed_draws:
        view.add_item(components.DrawButton(record.id))
    if seat != game.turn:
        waiting = seat_label(record, game.turn)
        lines.append(f"It is {waiting}'s turn; you will be pinged when it is yours.")
        return Panel("\n".join(lines), view if view.children else None)
    if with_image:
        mine, names = player_view(game, seat), seat_names(record)
        image = await asyncio.to_thread(render_hand, mine, names)
        alt = hand_alt(mine, names, record.id)
    if choice is not None:
        lines.append(str(choice))
        _add_five_choices(view, record, choice, page, lines)
        return Panel("\n".join(lines), view, image, alt=alt)
    playable = [c for c in dict.fromkeys(hand) if game.targets(seat, c)]
    dead = [c for c in dict.fromkeys(hand) if c in CARD_SPACES and game.is_dead(c)]
    if not playable:
        if dead and not game.dead_card_used:
            lines.append("No card can be played, but you can turn in a dead card first.")
        else:
            lines.append("No card in your hand can be played: you pass.")
            view.add_item(components.PassButton(record.id, revision))
    if hand:
        view.add_item(components.CardSelect.make(record, seat, card))
    if card is not None and card in hand:
        _add_card_step(view, record, seat, card, row, space, lines)
    elif playable:
        lines.append("**Your turn.** Choose a card.")
    return Panel("\n".join(lines), view, image, alt=alt)


def _add_five_choices(
    view: Components, record: GameRecord, choice: ChoiceNeeded, page: int, lines: list[str]
) -> None:
    """A button for each way to pick the five, a page at a time when there are more than fit
    (a chip where three long lines cross has dozens), then Back."""
    revision = record.revision
    options = choice.options
    pages = -(-len(options) // FIVES_PER_PAGE)
    first = page % pages * FIVES_PER_PAGE
    shown = options[first : first + FIVES_PER_PAGE]
    for index, option in enumerate(shown, start=first):
        view.add_item(components.FiveButton.make(record.id, revision, choice.move, index, option))
    if pages > 1:
        lines.append(
            f"Ways {first + 1}–{first + len(shown)} of {len(options)}: **More ways** shows the "
            "others."
        )
        view.add_item(components.MoreFivesButton.make(record.id, revision, choice.move, page + 1))
    view.add_item(components.BackButton(record.id, revision))


def _add_card_step(
    view: Components,
    record: GameRecord,
    seat: int,
    card: str,
    row: int | None,
    space: int | None,
    lines: list[str],
) -> None:
    """The components after a card is chosen: its spaces, or a jack's row, space and confirm."""
    game = record.game
    revision = record.revision
    targets = game.targets(seat, card)
    if not targets and is_jack(card):  # a jack is never dead: it waits for a target
        what = "no opponent chip it may remove" if is_one_eyed(card) else "no open space"
        lines.append(f"{card_label(card)} cannot be played now: there is {what}.")
        return
    if not targets:
        if game.dead_card_used:
            lines.append(
                f"{card_label(card)} is dead, and you already turned in a dead card this turn."
            )
        else:
            lines.append(f"{card_label(card)} is dead: both its spaces are covered.")
            view.add_item(components.DeadButton(record.id, revision, card))
        return
    if not is_jack(card):
        lines.append(f"Play {card_label(card)} on:")
        for target in targets:
            view.add_item(
                components.GoButton.make(record.id, revision, card, target, confirm=False)
            )
        return
    verb = "remove a chip from" if is_one_eyed(card) else "place a chip on"
    if space is not None and space in targets:
        lines.append(f"Confirm: play {card_label(card)} to {verb} **{space_name(space)}**?")
        view.add_item(components.GoButton.make(record.id, revision, card, space, confirm=True))
        view.add_item(components.BackButton(record.id, revision))
        return
    lines.append(f"{card_label(card)}: choose a row, then the space to {verb}.")
    view.add_item(components.RowSelect.make(record.id, revision, card, targets, row))
    if row is not None:
        in_row = [t for t in targets if t // 10 == row]
        if in_row:
            view.add_item(components.SpaceSelect.make(record.id, revision, card, in_row))
