"""The lobby's message, as the Lobby cog and the tournament's match lobbies post it: its embed
(seats by team, the rules, how to start), its buttons, and the words that replace it when the
game begins.

The buttons are sent from here; a click is answered by the Lobby cog's subclasses of
:class:`LobbyButton` and :class:`AddComputerSelect`, registered under the same custom ids.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import discord

from bot.game import card_label
from bot.game.settings import ALLOWED_PLAYER_COUNTS
from bot.services.lobbies import lobby_options
from bot.services.lobby_seating import lobby_teams
from bot.services.pace import Estimate, estimate, is_slow, player_paces, time_per_turn
from bot.table.bank import is_bank
from bot.table.options import TableOptions, bank_words, describe_house_rules, format_duration
from render.theme import TEAM_COLOUR_VALUES

from .choices import LEVEL_CHOICES
from .components import Components
from .custom_ids import Templated
from .describe import counted, seat_label, shown_name, team_label
from .rematch_message import rematch_items, rematch_lines
from .seek_message import seek_items, seek_lines
from .server_options import server_option_words

if TYPE_CHECKING:
    from bot.store.base import Store
    from bot.store.games.records import GameRecord
    from bot.store.lobbies import LobbyRecord


async def lobby_message(db: Store, lobby: LobbyRecord) -> tuple[discord.Embed, Components]:
    """The lobby message's embed, with a timed table's estimated length, and its buttons."""
    return lobby_embed(lobby, await lobby_estimate(db, lobby)), lobby_view(lobby)


async def lobby_estimate(db: Store, lobby: LobbyRecord) -> Estimate | None:
    """How long the lobby's table may take (None: it has no time limit): from its clock, and in
    a slow game from the seated people's pace (:mod:`bot.services.pace`)."""
    limit = time_per_turn(lobby_options(lobby), len(lobby.seats))
    if not limit:
        return None
    people = [seat.user_id for seat in lobby.seats if not seat.is_computer]
    paces: list[float | None] = [None] * len(people)
    if is_slow(limit):
        paces = await player_paces(db, lobby.guild_id, people)
    return estimate(len(lobby.seats), limit, paces)


def estimate_text(found: Estimate, turn_time_limit: float, *, bank: bool = False) -> str:
    """A table's estimated length, in words (``bank``: its clock is a bank, spent in full).

    >>> estimate_text(estimate(2, 3600, [None, None]), 3600)
    '⏱️ Length: at most about 2 days 2 h (~50 turns of up to 1 h)'
    >>> estimate_text(estimate(2, 3600, [None, None]), 3600, bank=True)
    '⏱️ Length: at most about 2 days 2 h (~50 turns, every bank spent)'
    >>> estimate_text(estimate(2, 3600, [600, None]), 3600)
    "⏱️ Length: about 1 day 5 h at these players' pace (1 of 2 known); at most about 2 days 2 h"
    """
    longest = format_duration(found.longest)
    if found.likely is None:
        each = ", every bank spent" if bank else f" of up to {format_duration(turn_time_limit)}"
        return f"⏱️ Length: at most about {longest} (~{found.turns} turns{each})"
    likely = format_duration(max(60, round(found.likely / 60) * 60))
    return (
        f"⏱️ Length: about {likely} at these players' pace ({found.known} of {found.people} "
        f"known); at most about {longest}"
    )


def lobby_embed(lobby: LobbyRecord, length: Estimate | None = None) -> discord.Embed:
    """The lobby message: seats by team, the rules the game will have (and ``length``, a timed
    table's estimated length), and how to start."""
    options = lobby_options(lobby)
    shown = {seat.user_id: shown_name(seat.name) for seat in lobby.seats}
    host = f"**{shown[lobby.host_id]}**" if lobby.host_id in shown else f"<@{lobby.host_id}>"
    *most, last = ALLOWED_PLAYER_COUNTS[options.preset]
    if lobby.match is not None:
        how = (
            "A tournament match: the players drawn for it sit on their sides. Press **I'm "
            f"here** on the match message; the game begins when everyone has (or {host} "
            "presses **Start**)."
        )
    else:
        how = (
            f"Host: {host}. Join, pick a team, then the host presses **Start**.\n"
            f"{', '.join(map(str, most))} or {last} players; teams must be equal."
        )
    rematch = rematch_lines(lobby)
    if rematch is not None:
        how = f"{rematch}\n{how}"
    seekers = seek_lines(lobby)
    if seekers is not None:
        how = seekers
    embed = discord.Embed(
        title=f"Sequence lobby · {options.preset}", description=how, colour=TEAM_COLOUR_VALUES[0]
    )
    for team, members in enumerate(lobby_teams(lobby)):
        names = "\n".join(
            f"🤖 {shown[seat.user_id]}" if seat.is_computer else shown[seat.user_id]
            for seat in members
        )
        embed.add_field(name=team_label(team), value=names or "—", inline=True)
    teams = "automatic" if options.teams is None else str(options.teams)
    rules = describe_house_rules(options)
    if length is not None:
        rules.append(
            estimate_text(
                length,
                time_per_turn(options, len(lobby.seats)),
                bank=is_bank(options),
            )
        )
    own = server_option_words(options)
    if own:  # last: the line that says which of the above are this server's
        rules.append(f"⚙️ This server's defaults: {', '.join(own)}")
    embed.add_field(
        name="Rules",
        value=f"{counted(len(lobby.seats), 'player')}, teams: {teams}"
        + ("\n" + "\n".join(rules) if rules else ""),
        inline=False,
    )
    return embed


class LobbyButton(
    Templated,
    discord.ui.DynamicItem[discord.ui.Button],
    custom_id="seq:lobby:{lobby_id}:{action:join|leave|switch|start|cancel}",
):
    """The lobby message's buttons (as sent: the Lobby cog's subclass answers a click)."""

    STYLES: ClassVar[dict[str, tuple[str, discord.ButtonStyle]]] = {
        "join": ("Join", discord.ButtonStyle.success),
        "leave": ("Leave", discord.ButtonStyle.secondary),
        "switch": ("Switch team", discord.ButtonStyle.primary),
        "start": ("Start", discord.ButtonStyle.success),
        "cancel": ("Cancel", discord.ButtonStyle.danger),
    }

    def __init__(self, lobby_id: int, action: str) -> None:
        self.lobby_id, self.action = lobby_id, action
        label, style = self.STYLES[action]
        super().__init__(
            discord.ui.Button(
                label=label, style=style, custom_id=self.ids(lobby_id=lobby_id, action=action)
            )
        )


class AddComputerSelect(
    Templated, discord.ui.DynamicItem[discord.ui.Select], custom_id="seq:lobby:{lobby_id}:addbot"
):
    """The host seats a computer player of the chosen level (as sent: the Lobby cog's
    subclass answers a pick)."""

    def __init__(self, lobby_id: int) -> None:
        self.lobby_id = lobby_id
        super().__init__(
            discord.ui.Select(
                custom_id=self.ids(lobby_id=lobby_id),
                placeholder="Add a computer player…",
                options=[
                    discord.SelectOption(label=c.name, value=str(c.value)) for c in LEVEL_CHOICES
                ],
            )
        )


class LookingButton(
    Templated,
    discord.ui.DynamicItem[discord.ui.Button],
    custom_id="seq:lobby:{lobby_id}:looking",
):
    """The host pings the server's looking-for-game role, once per lobby (as sent: the Lobby
    cog's subclass answers a click; the call itself is :mod:`bot.services.looking`)."""

    def __init__(self, lobby_id: int) -> None:
        self.lobby_id = lobby_id
        super().__init__(
            discord.ui.Button(
                label="Ping for players",
                emoji="📣",
                style=discord.ButtonStyle.secondary,
                custom_id=self.ids(lobby_id=lobby_id),
            )
        )


def lobby_view(lobby: LobbyRecord) -> Components:
    """The buttons under the lobby message (the ping for players on a lobby that opened while
    the server had a looking-for-game role)."""
    view = Components()
    if lobby.match is not None:  # its seating is the draw's: sit down again, start
        for action in ("join", "leave", "start"):
            view.add_item(LobbyButton(lobby.id, action))
        return view
    if lobby.seek is not None:  # its players were found for it: Ready, not Start
        for item in seek_items(
            lobby, LobbyButton(lobby.id, "join"), LobbyButton(lobby.id, "leave")
        ):
            view.add_item(item)
        if lobby.looking is not None:
            view.add_item(LookingButton(lobby.id))
        return view
    for action in ("join", "leave", "switch", "start", "cancel"):
        view.add_item(LobbyButton(lobby.id, action))
    view.add_item(AddComputerSelect(lobby.id))
    if lobby.looking is not None:
        view.add_item(LookingButton(lobby.id))
    for item in rematch_items(lobby):
        view.add_item(item)
    return view


def game_begins_text(record: GameRecord) -> str:
    """What the lobby message says once its game has begun: the cut, who deals, the order of
    play and the time per turn."""
    game = record.game
    cut = ", ".join(
        f"{shown_name(seat.name)} {card_label(game.cut[index])}"
        for index, seat in enumerate(record.seats)
    )
    seats = len(record.seats)
    first = game.turn  # the player after the dealer starts: the order as played
    order = " → ".join(seat_label(record, (first + i) % seats) for i in range(seats))
    text = (
        f"🃏 **The game begins!** The cut: {cut}. {_dealer_cut(record)} and deals "
        f"{game.settings.hand_size} cards each.\nPlay order: {order}."
    )
    limit = record.options.turn_time_limit
    if is_bank(record.options):
        text += f"\n⏱️ {bank_words(record.options).capitalize()}."
    elif limit:
        text += f"\n⏱️ {format_duration(limit)} per turn."
    return text


def _dealer_cut(record: GameRecord) -> str:
    """How the dealer was found: the lowest card (convoy: highest), or a tie for it that the
    dealer won on a re-cut (the cut shown is the first round)."""
    game = record.game
    lowest = "highest" if game.settings.convoy else "lowest"
    dealer = shown_name(record.seats[game.dealer].name)
    rank = game.cut[game.dealer][0]
    if sum(card[0] == rank for card in game.cut) > 1:
        return f"{dealer} tied for the {lowest} card, won the re-cut"
    return f"{dealer} cut the {lowest} card"


#: Said to the host of a lobby in a thread whose game has no reminders.
NO_REMINDER_IN_THREAD = (
    "⚠️ No reminders at this table: a thread archives itself after a while without messages, "
    "and without reminders nobody's post brings it back (its buttons then stop working until "
    "someone writes in it). Consider a reminder shorter than the thread's auto-archive time, "
    "like `reminder:12h`."
)


def no_reminder_warning(channel: object, options: TableOptions) -> str | None:
    """The warning for a lobby opened in a thread without reminders, or None."""
    if isinstance(channel, discord.Thread) and not options.reminder_delay:
        return NO_REMINDER_IN_THREAD
    return None
