"""The table of a game: posts the board after every move, the result at the end, and notices.

It consumes the game service's events, so everything here runs after the change is committed:
a Discord failure loses nothing, and ``/sequence board`` can always post the board again. A post
or an edit Discord refused for now is tried again by the outbox (:class:`DeliverLater`), also
after a restart; a handler that runs late posts what is current, never a board twice: a board
another change already overtook is left to that change's event. Each handler draws the game as
its event left it, never a later one.

Its other jobs live beside it: the board message's text (:mod:`.table_text`) and the places that
are gone (:mod:`.table_places`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import io
import logging
from typing import TYPE_CHECKING, Any

import discord

from bot.game import Game, public_view
from bot.game.moves import DRAW, FORFEIT, TABLETALK
from bot.services.dispatch import DeliverLater, Subscriptions, delivered_late
from bot.services.events import (
    BoardReplaced,
    GameEnded,
    GameEvent,
    GameStarted,
    MoveCommitted,
    MoveUndone,
)
from bot.table.bank import is_bank
from bot.table.options import format_duration
from render.board import prepare_board, render_board

from .alt_text import board_alt
from .describe import bank_seats, describe_outcome, ended_line, taken_back
from .lookup import sent_before
from .table_places import UNKNOWN_CHANNEL, TablePlaces
from .table_text import BoardButton, BoardText
from .table_threads import TableThreads
from .threads import blocking_code, edit_message, unarchiving

if TYPE_CHECKING:
    from bot.app import SequenceBot
    from bot.store.games.records import GameRecord

__all__ = [
    "PINGS",
    "QUIET",
    "UNKNOWN_CHANNEL",
    "BoardButton",
    "Table",
    "overtaken",
    "public_board_file",
    "seat_names",
]

log = logging.getLogger(__name__)

PINGS = discord.AllowedMentions(users=True, roles=False, everyone=False)

#: Moves that change no chip and start no turn: the players concerned see them in their panel.
QUIET = frozenset({FORFEIT, TABLETALK, DRAW})

#: The headline of a board posted late (Discord refused it, or a restart came first).
#: How many of a channel's latest messages a late board looks through for itself.
LOOK_BACK = 25
LATE = "The board as it stands (the board of the last move could not be posted)."
LATE_FINAL = "The final board (it could not be posted when the game ended)."
#: Seconds before a post or an edit Discord refused is tried again: doubled after each try;
#: refused again after the longest wait (some two hours in all), it waits for the next start.
RETRY_FIRST, RETRY_MOST = 60.0, 3600.0


def seat_names(record: GameRecord) -> list[str]:
    """Display names by seat, for the images; at a bank table, each person's with their bank
    as the turn began (``alice (2d 4h)``)."""
    names = [seat.name for seat in record.seats]
    if is_bank(record.options) and not record.game.is_over():
        for seat, bank in bank_seats(record, None):
            names[seat] = f"{names[seat]} ({format_duration(bank, compact=True)})"
    return names


async def public_board_file(record: GameRecord) -> discord.File:
    """The public board image (no hand), rendered off the event loop, with its alt text."""
    loop = asyncio.get_running_loop()
    view, names = public_view(record.game), seat_names(record)
    png = await loop.run_in_executor(None, render_board, view, names)
    alt = board_alt(view, names, record.id)
    return discord.File(io.BytesIO(png), filename="board.png", description=alt)


def _prepare_next_board(game: Game) -> None:
    """Start encoding, off the event loop, what the next move's board will reuse; nothing
    waits for it (a player takes longer to move than it does)."""
    loop = asyncio.get_running_loop()
    loop.run_in_executor(None, prepare_board, public_view(game)).add_done_callback(_log_failure)


def _log_failure(future: asyncio.Future[None]) -> None:
    """Log a preparation's error (the next board is then drawn whole, as without it)."""
    if not future.cancelled() and future.exception() is not None:
        log.error("Preparing the next board failed", exc_info=future.exception())


def refused_for_now(error: discord.HTTPException) -> bool:
    """True for a refusal that passes: rate limited past discord.py's waits, or Discord down."""
    return error.status == 429 or error.status >= 500


def overtaken(live: GameRecord, committed: GameRecord, game: Game) -> bool:
    """True when a later change than the one that left ``game`` (``committed``: its table)
    shows the players a newer board: the event of that change, delivered after this one,
    posts it. A move taken back, a move a player sees, the end, or a cancel. Asked only of an
    event that comes late: in the normal flow every move's board is posted, in order, even
    when the next move (a computer's) was made while it was drawn."""
    count, moves = len(game.moves), live.game.moves
    if len(moves) < count or moves[:count] != game.moves:
        return True
    if live.status == "cancelled" and committed.status != "cancelled":
        return True
    return any(move.kind not in QUIET for move in moves[count:]) or (
        live.game.is_over() and not game.is_over()
    )


def retired_text(happened: str | None) -> str:
    """What an older board says once a newer one replaced it: what happened next (its first
    line), in the past tense."""
    line = (happened or "").split("\n")[0]
    return f"↪️ Then: {line}" if line else "↪️ An older board: the newest is below."


class Table(BoardText, TablePlaces, TableThreads):
    """Posts to the channel of each game."""

    def __init__(self, bot: SequenceBot) -> None:
        self.bot = bot
        self.board_buttons: list[BoardButton] = []
        self.final_buttons: list[BoardButton] = []
        self.announced = {}
        self._thread_state()

    def channel(self, record: GameRecord) -> discord.abc.Messageable:
        """The channel or thread of a game (cached, or a partial one that can still send)."""
        channel = self.bot.get_channel(record.channel_id)
        if isinstance(channel, discord.abc.Messageable):
            return channel
        return self.bot.get_partial_messageable(record.channel_id, guild_id=record.guild_id)

    def subscriptions(self) -> Subscriptions:
        """Post a board after each change that a player at the table should see, and retire
        the board it replaces."""
        return [
            (GameStarted, self._on_start),
            (MoveCommitted, self._on_move),
            (MoveUndone, self._on_undo),
            (GameEnded, self._on_end),
            (BoardReplaced, self._on_replaced),
        ]

    def live(self, record: GameRecord) -> GameRecord:
        """The game as served now (an event carries it as its change committed it): what its
        latest board shows is read and remembered there."""
        return self.bot.games.live(record.id) or record

    def shown(self, record: GameRecord, count: int) -> bool:
        """True when the game's latest board already shows ``count`` moves or more: an event
        delivered again (after a crash) posts no second board."""
        shown = self.live(record).board_move_count
        return shown is not None and shown >= count

    async def _on_start(self, event: GameStarted) -> None:
        live = self.live(event.record)
        late = delivered_late() and overtaken(live, event.record, event.record.game)
        if live.board_message_id is None and not late:
            await self.post_board(event.record, "The game is on.")
        self.board_delivered(event.game_id)

    async def _on_move(self, event: MoveCommitted) -> None:
        """Post the move's board; the move's answer waits for it (see :meth:`board_refusal`)."""
        count = len(event.outcome.game.moves)
        try:
            await self._post_move(event)
            self.board_delivered(event.game_id)
        finally:
            settled = self._boards_settled.get(event.game_id)
            if settled is None or settled[0] < count:
                self.board_settled(event.game_id, count, None)

    async def _post_move(self, event: MoveCommitted) -> None:
        outcome = event.outcome
        if self.shown(event.record, len(outcome.game.moves)):
            return  # delivered again: its board was posted
        if delivered_late() and overtaken(self.live(event.record), event.record, outcome.game):
            return  # late (refused for a while, or a crash): a later change posts its board
        if outcome.finished or any(move.kind not in QUIET for move in outcome.moves):
            if delivered_late():  # the board it replaces says nothing of what happened next
                late = LATE_FINAL if outcome.finished else LATE
                await self.post_board(event.record, late, game=outcome.game, then="")
            else:
                headline = describe_outcome(outcome)
                await self.post_board(event.record, headline, game=outcome.game)

    async def _on_end(self, event: GameEnded) -> None:
        """A cancelled game's last board no longer has a turn to play: it says so, unbuttoned
        (the board of the move that left no person playing says so itself)."""
        record = self.live(event.record)
        if event.unattended and record.board_move_count == len(record.game.moves):
            return
        if event.cancelled:
            await self.retire_board(record, ended_line(record))

    async def _on_undo(self, event: MoveUndone) -> None:
        if delivered_late() and overtaken(self.live(event.record), event.record, event.game):
            return
        headline = f"↩️ Undone: {taken_back(event.record, event.undone)}."
        await self.post_board(event.record, headline, game=event.game)
        self.board_delivered(event.game_id)

    async def post_board(
        self,
        record: GameRecord,
        headline: str | None = None,
        *,
        game: Game | None = None,
        then: str | None = None,
    ) -> discord.Message | None:
        """Post the board with whose turn it is (or the result); None if Discord refused it for
        good. Refused for now, it raises :class:`DeliverLater` (the outbox tries it again).

        ``game`` is the game as a change left it (default: the game now); ``then`` what the
        board this one replaces says happened next (default: the headline; empty: nothing).
        """
        live = self.live(record)
        # Bind the game now: a later change may swap the live record's game while this awaits.
        record = dataclasses.replace(live, game=game or record.game)
        file = await public_board_file(record)
        content = await self.board_line(record)
        kwargs: dict[str, Any] = {}
        view = self.board_view(record)
        # Cancelled while this board was drawn, or by its own move (no person is left): no
        # turn is left to play.
        if live.status == "cancelled":
            content, view = ended_line(live), None
        if view is not None:
            kwargs["view"] = view
        # A board that waited (Discord's rate limits) past its turn pings nobody for it.
        moved_on = live.game.turn_number != record.game.turn_number
        embed = self.board_embed(record, headline)
        happened = headline if then is None else then
        if delivered_late():  # sent before a crash, perhaps, and not yet remembered
            posted = await sent_before(
                self.channel(record),
                self.bot.user,
                lambda message: bool(message.embeds) and message.embeds[0].title == embed.title,
                LOOK_BACK,
            )
            if posted is not None:
                await self._remember(live, posted.id, len(record.game.moves), happened)
                return posted
        channel = self.channel(record)
        mentions = discord.AllowedMentions.none() if moved_on else PINGS
        png = file.fp.read()

        def fresh() -> discord.File:  # a send closes its file: a retry sends a new one
            return discord.File(io.BytesIO(png), filename="board.png", description=file.description)

        try:
            message = await unarchiving(
                self.bot,
                record.channel_id,
                lambda: channel.send(
                    content, embed=embed, file=fresh(), allowed_mentions=mentions, **kwargs
                ),
            )
        except discord.HTTPException as error:
            log.warning(
                "Could not post the board of game %d (HTTP %s); /sequence board posts it again",
                record.id,
                error.status,
            )
            await self._refused(record, error)
            code = blocking_code(error)
            if code is not None:  # a locked thread, or one the bot was removed from
                await self.thread_blocked(record.channel_id, code)
                self.board_settled(record.id, len(record.game.moves), code)
            # Forbidden too: an admin may give the permission back (see permissions_changed);
            # a moderator may unlock the thread (see thread_reopened).
            if refused_for_now(error) or error.status == 403 or code is not None:
                raise DeliverLater(
                    f"HTTP {error.status}", first=RETRY_FIRST, most=RETRY_MOST
                ) from None
            return None
        await self._remember(live, message.id, len(record.game.moves), happened)
        self.board_settled(record.id, len(record.game.moves), None)
        self.known_usable(record.id)  # before a catch-up's fresh clock, which it leaves be
        if record.channel_id in self.blocked:  # posted after all: the table can be used again
            await self.thread_reopened(record.channel_id)
        self.bot.computers.wake(record.id)  # shown: a computer on turn may move (a catch-up's)
        if not record.game.is_over():
            _prepare_next_board(record.game)
        return message

    async def _remember(
        self, live: GameRecord, message_id: int, count: int, happened: str | None
    ) -> None:
        """Remember the game's new latest board and, in the same transaction, that the board it
        replaces is to be retired (the outbox does it, again after a refusal or a restart)."""
        replaced = self._replaced(live, happened)
        async with self.bot.db.transaction():
            await self.bot.games.remember_board(live, message_id, count)
            ids = await self.bot.bus.record(replaced, self.bot.clock())
        self.bot.bus.deliver(zip(ids, replaced, strict=True))

    @staticmethod
    def _replaced(record: GameRecord, happened: str | None) -> list[GameEvent]:
        previous = record.board_message_id
        if previous is None:
            return []
        content = retired_text(happened)
        return [BoardReplaced(dataclasses.replace(record), message_id=previous, content=content)]

    async def retire_board(self, record: GameRecord, happened: str | None) -> None:
        """The board a newer one replaces: its text says what happened next, in the past
        tense, and it loses its buttons (only the newest board carries controls)."""
        replaced = self._replaced(record, happened)
        if not replaced:
            return
        async with self.bot.db.transaction():
            ids = await self.bot.bus.record(replaced, self.bot.clock())
        self.bot.bus.deliver(zip(ids, replaced, strict=True))

    async def _on_replaced(self, event: BoardReplaced) -> None:
        """Edit an older board to its retired text, without its buttons; refused for a while,
        tried again later (on its own: newer boards do not wait for it), so that no older board
        keeps its buttons and "your turn" for good."""
        try:
            await edit_message(
                self.bot,
                event.record.channel_id,
                event.message_id,
                content=event.content,
                view=None,
                allowed_mentions=discord.AllowedMentions.none(),
            )
        except discord.HTTPException as error:
            log.info(
                "Could not retire board %d of game %d (HTTP %s)",
                event.message_id,
                event.game_id,
                error.status,
            )
            if refused_for_now(error):
                raise DeliverLater(
                    f"HTTP {error.status}", first=RETRY_FIRST, most=RETRY_MOST, ordered=False
                ) from None

    def permissions_changed(self, guild_id: int) -> None:
        """An admin changed what the bot may do in a server (a channel's permissions, a
        role's): the boards of its games that Discord refused meanwhile are posted now, as the
        games stand, instead of at their next try."""
        games = self.bot.games.records.values()
        self.bot.bus.wake(record.id for record in games if record.guild_id == guild_id)

    async def notice(
        self, record: GameRecord, content: str, **kwargs: Any
    ) -> discord.Message | None:
        """A plain message at the table; None if Discord refused."""
        channel = self.channel(record)
        try:
            return await unarchiving(
                self.bot,
                record.channel_id,
                lambda: channel.send(content, allowed_mentions=PINGS, **kwargs),
            )
        except discord.HTTPException as error:
            log.warning("Could not post to game %d (HTTP %s)", record.id, error.status)
            await self._refused(record, error)
            code = blocking_code(error)
            if code is not None:
                await self.thread_blocked(record.channel_id, code)
            return None
