"""The table of a game: posts the board after every move, the result at the end, and notices.

It subscribes to the game service's events, so everything here runs after the change is
committed: a Discord failure loses nothing, and ``/sequence board`` can always post the board
again. Each handler draws the game as the event left it, never a later one.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import io
import logging
from collections import defaultdict
from collections.abc import Callable, Iterable
from functools import partial
from math import inf
from typing import TYPE_CHECKING, Any

import discord

from bot.game import Game, public_view
from bot.game.moves import DRAW, FORFEIT, TABLETALK
from bot.services.dispatch import Subscriptions
from bot.services.errors import UserError
from bot.services.events import (
    BoardBehind,
    GameEnded,
    GameStarted,
    MoveCommitted,
    MoveUndone,
)
from bot.services.games import FINAL_BOARD
from bot.services.lobbies import tournament_match
from bot.services.options import TableOptions
from bot.services.timing import LIMIT, clock_stopped, turn_began
from bot.store.errors import NotFoundError
from bot.store.snapshots import move_count
from bot.store.timers import TimerRecord
from render.board import prepare_board, render_board
from render.theme import TEAM_COLOUR_VALUES

from .alt_text import board_alt
from .components import Components
from .describe import (
    deadline_note,
    describe_outcome,
    ended_line,
    result_line,
    scoreline,
    taken_back,
    turn_line,
)

if TYPE_CHECKING:
    from bot.app import SequenceBot
    from bot.store.games.records import GameRecord

log = logging.getLogger(__name__)

#: Makes a button for the board message of a game, or None (cogs register these).
BoardButton = Callable[["GameRecord"], discord.ui.Item | None]

PINGS = discord.AllowedMentions(users=True, roles=False, everyone=False)

#: Moves that change no chip and start no turn: the players concerned see them in their panel.
QUIET = frozenset({FORFEIT, TABLETALK, DRAW})

#: Discord's error code for a channel (or thread) it does not know: it was deleted.
UNKNOWN_CHANNEL = 10003
#: Seconds before a refused board (or retirement of an older one) is tried again: doubled after
#: each try; after the try that waited the longest (some two hours in all), it is given up.
RETRY_FIRST, RETRY_MOST = 60.0, 3600.0
#: The key of the scheduler's next try of what Discord refused of a game's table for a while.
BOARD_RETRY = "board-retry"


def seat_names(record: GameRecord) -> list[str]:
    """Display names by seat, for the images."""
    return [seat.name for seat in record.seats]


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


@dataclasses.dataclass
class Retry:
    """What Discord refused of a game's table for a while (rate limited past discord.py's waits,
    or down), tried again together: its ``board`` (as the game then stands) and the older boards
    to ``retire`` (message id: their new text). ``wait``: seconds before the next try."""

    channel_id: int
    wait: float = RETRY_FIRST
    board: bool = False
    retire: dict[int, str] = dataclasses.field(default_factory=dict)
    due: float = 0.0
    #: What the store holds of it: (due, payload), or None.
    stored: tuple[float, dict[str, Any]] | None = None


def retryable(error: discord.HTTPException) -> bool:
    """True for a refusal that passes: rate limited past discord.py's waits, or Discord down."""
    return error.status == 429 or error.status >= 500


class Table:
    """Posts to the channel of each game."""

    def __init__(self, bot: SequenceBot) -> None:
        self.bot = bot
        self.board_buttons: list[BoardButton] = []
        #: What Discord refused of each game's table, until it is done or given up.
        self._retries: dict[int, Retry] = {}

    def channel(self, record: GameRecord) -> discord.abc.Messageable:
        """The channel or thread of a game (cached, or a partial one that can still send)."""
        channel = self.bot.get_channel(record.channel_id)
        if isinstance(channel, discord.abc.Messageable):
            return channel
        return self.bot.get_partial_messageable(record.channel_id, guild_id=record.guild_id)

    def board_view(self, record: GameRecord) -> Components | None:
        """The buttons under a board message (none once the game is over)."""
        if record.game.is_over():
            return None
        view = Components()
        for make in self.board_buttons:
            item = make(record)
            if item is not None:
                view.add_item(item)
        return view

    def board_embed(self, record: GameRecord, headline: str | None) -> discord.Embed:
        """The embed around the board image."""
        game = record.game
        colour_team = game.winner if game.is_over() and game.winner is not None else None
        if colour_team is None:
            colour_team = game.team_of(game.turn)
        moves = len(game.moves)
        embed = discord.Embed(
            title=f"Sequence · game #{record.id} · move {moves}",
            description=headline or None,
            colour=TEAM_COLOUR_VALUES[colour_team],
        )
        # The board is the message's attachment, shown full width under the text; inside the
        # embed, Discord (and SimCord's preview) would shrink the tall image to a thumbnail.
        embed.set_footer(text=scoreline(record))
        return embed

    def subscriptions(self) -> Subscriptions:
        """Post a board after each change that a player at the table should see."""
        return [
            (GameStarted, self._on_start),
            (MoveCommitted, self._on_move),
            (MoveUndone, self._on_undo),
            (BoardBehind, self._on_board_behind),
            (GameEnded, self._on_end),
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
        if self.live(event.record).board_message_id is None:
            await self.post_board(event.record, "The game is on.")

    async def _on_move(self, event: MoveCommitted) -> None:
        outcome = event.outcome
        if self.shown(event.record, len(outcome.game.moves)):
            return  # delivered again: its board was posted
        if outcome.finished or any(move.kind not in QUIET for move in outcome.moves):
            headline = describe_outcome(outcome)
            posted = await self.post_board(event.record, headline, game=outcome.game)
            if outcome.finished and posted is None:  # the game is no longer served: try later
                await self.post_final_later(event.game_id, RETRY_FIRST)

    async def resume(self) -> None:
        """At start-up: the final boards, and the older boards to retire, that Discord refused
        before a restart are tried again (a game's latest board, by the games' reconciling)."""
        for timer in await self.bot.games.kept_final_boards():
            self._schedule_final(timer)
        for timer in await self.bot.games.kept_retires():
            payload = timer.payload
            entry = self._retries.setdefault(timer.game_id, Retry(int(payload["channel"])))
            entry.retire.update({int(k): v for k, v in payload["retire"].items()})
            entry.stored = (timer.due_at, payload)
            self._arm(timer.game_id, entry, timer.due_at)

    async def post_final_later(self, game_id: int, delay: float) -> None:
        """Keep (a restart keeps it) and arm a new try of a finished game's final board."""
        self._schedule_final(await self.bot.games.keep_final_board(game_id, delay))

    def _schedule_final(self, timer: TimerRecord) -> None:
        key = (FINAL_BOARD, timer.game_id)
        self.bot.scheduler.at(key, timer.due_at, partial(self._post_final, timer))

    async def _post_final(self, timer: TimerRecord) -> None:
        """Post the final board of a finished game again; if Discord still refuses, later."""
        try:
            record = await self.bot.db.games.load(timer.game_id)
        except NotFoundError:
            return
        shown = record.board_move_count
        if record.status == "finished" and (shown is None or shown < move_count(record.game)):
            headline = "The final board (it could not be posted when the game ended)."
            waited = float(timer.payload.get("delay", RETRY_FIRST))
            if await self.post_board(record, headline, then="") is None and waited < RETRY_MOST:
                await self.post_final_later(record.id, min(2 * waited, RETRY_MOST))
                return
        await self.bot.games.final_board_done(record.id)

    async def _on_end(self, event: GameEnded) -> None:
        """A cancelled game's last board no longer has a turn to play: it says so, unbuttoned
        (the board of the move that left no person playing says so itself)."""
        record = self.live(event.record)
        if event.unattended and record.board_move_count == len(record.game.moves):
            return
        if event.cancelled:
            await self.retire_board(record, ended_line(record))

    async def _on_undo(self, event: MoveUndone) -> None:
        headline = f"↩️ Undone: {taken_back(event.record, event.undone)}."
        await self.post_board(event.record, headline, game=event.game)

    async def _on_board_behind(self, event: BoardBehind) -> None:
        record = self.live(event.record)
        shown = record.board_move_count  # now: a board queued before this event may be posted
        if shown is None:
            await self.post_board(record, "The game is on.")
        elif any(move.kind not in QUIET for move in record.game.moves[shown:]):
            headline = "The board as it stands (the board of the last move could not be posted)."
            await self.post_board(record, headline, then="")
        else:  # nothing a player should see since the latest board
            await self._board_done(record.id)

    async def post_board(
        self,
        record: GameRecord,
        headline: str | None = None,
        *,
        game: Game | None = None,
        then: str | None = None,
    ) -> discord.Message | None:
        """Post the board with whose turn it is (or the result); None if Discord refused.

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
        try:
            message = await self.channel(record).send(
                content,
                embed=self.board_embed(record, headline),
                file=file,
                allowed_mentions=discord.AllowedMentions.none() if moved_on else PINGS,
                **kwargs,
            )
        except discord.HTTPException as error:
            log.warning(
                "Could not post the board of game %d (HTTP %s); /sequence board posts it again",
                record.id,
                error.status,
            )
            await self._refused(record, error)
            if retryable(error) and not live.game.is_over():  # a final board is kept apart
                await self._later(live.id, live.channel_id, board=True)
            else:
                await self._board_done(live.id)
            return None
        await self._board_done(record.id)
        await self.retire_board(live, headline if then is None else then)
        await self.bot.games.remember_board(live, message.id, len(record.game.moves))
        if not record.game.is_over():
            _prepare_next_board(record.game)
        return message

    async def retire_board(self, record: GameRecord, happened: str | None) -> None:
        """The board a newer one replaces: its text says what happened next, in the past
        tense, and it loses its buttons (only the newest board carries controls)."""
        previous = record.board_message_id
        if previous is None:
            return
        line = (happened or "").split("\n")[0]
        content = f"↪️ Then: {line}" if line else "↪️ An older board: the newest is below."
        await self._retire(record.id, record.channel_id, previous, content)

    async def _retire(self, game_id: int, channel_id: int, message_id: int, content: str) -> None:
        """Edit an older board to ``content``, without its buttons; refused for a while, tried
        again later: no older board keeps its buttons and "your turn" for good."""
        channel = self.bot.get_partial_messageable(channel_id)
        try:
            await channel.get_partial_message(message_id).edit(
                content=content, view=None, allowed_mentions=discord.AllowedMentions.none()
            )
        except discord.HTTPException as error:
            log.info(
                "Could not retire board %d of game %d (HTTP %s)", message_id, game_id, error.status
            )
            if retryable(error):
                await self._later(game_id, channel_id, retire=(message_id, content))
                return
        entry = self._retries.get(game_id)
        if entry is not None and entry.retire.pop(message_id, None) is not None:
            await self._keep(game_id)

    async def _later(
        self,
        game_id: int,
        channel_id: int,
        *,
        board: bool = False,
        retire: tuple[int, str] | None = None,
    ) -> None:
        """Discord refused the game's ``board``, or the edit that ``retire``s an older one (its
        id and text), for a while: tried again later, with the rest of the game's refusals.
        What the try that waited the longest could not do is given up (a restart tries the
        board again). Older boards to retire are kept in the store: a restart tries them."""
        entry = self._retries.setdefault(game_id, Retry(channel_id))
        if entry.wait > RETRY_MOST:  # refused again after the longest wait: given up
            entry.board = entry.board and not board
            if retire is not None:
                entry.retire.pop(retire[0], None)
        else:
            entry.board = entry.board or board
            if retire is not None:
                entry.retire[retire[0]] = retire[1]
            if (BOARD_RETRY, game_id) not in self.bot.scheduler:
                self._arm(game_id, entry, self.bot.clock() + entry.wait)
        await self._keep(game_id)

    def _arm(self, game_id: int, entry: Retry, due: float) -> None:
        entry.due = due
        self.bot.scheduler.at((BOARD_RETRY, game_id), due, partial(self._retry, game_id))

    async def _retry(self, game_id: int) -> None:
        """Try again what Discord refused of a game's table: the older boards are retired, and
        its board is posted if the game moved on since its latest board (in the game's order,
        after any newer board: never an old one)."""
        entry = self._retries.get(game_id)
        if entry is None:
            return
        entry.wait = min(2 * entry.wait, RETRY_MOST) if entry.wait < RETRY_MOST else inf
        for message_id, content in list(entry.retire.items()):
            await self._retire(game_id, entry.channel_id, message_id, content)
        record = self.bot.games.records.get(game_id)  # None: the game ended meanwhile
        if entry.board and record is not None:
            self.bot.bus.publish(BoardBehind(record, shown=record.board_move_count))
        else:
            entry.board = False
        await self._keep(game_id)

    async def _board_done(self, game_id: int) -> None:
        """The game's board was posted, or is no longer to be tried again."""
        entry = self._retries.get(game_id)
        if entry is not None and entry.board:
            entry.board = False
            await self._keep(game_id)

    async def _keep(self, game_id: int) -> None:
        """Forget a game's refusals once nothing is left to try; keep in the store the older
        boards it is still to retire."""
        entry = self._retries.get(game_id)
        if entry is None:
            return
        if not entry.board and not entry.retire:
            self.bot.scheduler.cancel((BOARD_RETRY, game_id))
            del self._retries[game_id]
        stored = None
        if entry.retire and game_id in self._retries:
            retire = {str(message_id): text for message_id, text in entry.retire.items()}
            stored = (entry.due, {"channel": entry.channel_id, "retire": retire})
        if stored == entry.stored:
            return
        entry.stored = stored
        if stored is None:
            await self.bot.games.retires_done(game_id)
        else:
            await self.bot.games.keep_retires(game_id, *stored)

    async def table_gone(self, channel_id: int) -> None:
        """The channel or thread of a game was deleted: nobody can play it any more, so it is
        cancelled (no result), rather than reminding its players and counting against their
        games for ever. An open lobby there is closed: nobody could join, start or cancel it,
        and it counted against its host's, its players' and the server's caps."""
        lobby = await self.bot.db.lobbies.get_for_channel(channel_id)
        if lobby is not None and tournament_match(lobby) is None:  # a match: the organiser's
            await self.bot.lobbies.expire(lobby.id, channel_id)
            log.info("Lobby %d was closed: its channel was deleted", lobby.id)
        record = self.bot.games.find_in_channel(channel_id)
        if record is None:
            return
        if await self.bot.db.tournaments.match_for_game(record.id) is not None:
            # A cancelled match is replayed in its thread, which is gone: the organiser
            # decides the match (/tournament report) instead.
            log.info("Game %d's match thread was deleted: left to the organiser", record.id)
            return
        with contextlib.suppress(UserError):  # it ended meanwhile
            await self.bot.games.cancel(record.id)
            log.info("Game %d was cancelled: its channel was deleted", record.id)

    async def threads_gone(self, channel: discord.abc.GuildChannel) -> None:
        """A channel that holds threads was deleted, and its threads with it. Discord announces
        only the channel, and discord.py only the threads it keeps (not an archived one), so
        each other table of the server whose channel is not known here is looked up: one that
        Discord no longer knows went with the channel, and is gone as on a deletion."""
        if not isinstance(channel, (discord.TextChannel, discord.ForumChannel)):
            return
        await self.places_gone(channel.guild.id)

    async def server_gone(self, guild_id: int) -> None:
        """The bot left a server (it was removed, or the server deleted): nobody can play its
        tables there any more, so each is gone as on a deletion, rather than its games
        reminding and timing out for ever and counting against their players' caps."""
        for channel_id in sorted(await self._places(guild_id)):
            await self.table_gone(channel_id)
        self.bot.ratings.forget(guild_id)

    async def servers_left(self) -> None:
        """At READY (a new session): a server whose tables this process serves but which is
        not among the bot's guilds removed the bot while it was down (Discord then sends no
        removal), and is gone as on a removal. A server in an outage is among the guilds,
        unavailable, and keeps its tables."""
        present = self.present_guilds()
        if present is None:
            return
        places = await self._places_by_server()
        for guild_id in sorted(places.keys() - present):
            log.info("Server %d removed the bot while it was down: its tables end", guild_id)
            await self.server_gone(guild_id)
        for guild_id in sorted(places.keys() & present):
            await self.places_gone(guild_id, places[guild_id])

    async def places_gone(self, guild_id: int, places: set[int] | None = None) -> None:
        """The tables of a server whose channel or thread is not known here and that Discord
        no longer knows either were deleted (while the bot was down, say): each is gone as on
        a deletion, even a game that would never post again to find out. ``places``: the
        server's tables, if already read (:meth:`_places`)."""
        if places is None:
            places = await self._places(guild_id)
        for channel_id in await self.unknown_places(guild_id, places):
            await self.table_gone(channel_id)

    async def unknown_places(self, guild_id: int, places: Iterable[int]) -> list[int]:
        """Those of a server's channels and threads ``places`` not known here that Discord no
        longer knows either: deleted (while the bot was down, say); none while the server is
        unavailable."""
        guild = self.bot.get_guild(guild_id)
        if guild is None or guild.unavailable:
            return []
        return [
            channel_id
            for channel_id in sorted(places)
            if guild.get_channel_or_thread(channel_id) is None and await self._unknown(channel_id)
        ]

    def present_guilds(self) -> set[int] | None:
        """The ids of the bot's guilds on this process's shards (None if unknown: without the
        guilds intent, discord.py keeps none)."""
        if not self.bot.intents.guilds:
            return None
        return {guild.id for guild in self.bot.guilds}

    async def _places(self, guild_id: int) -> set[int]:
        """The channels and threads of a server's active games (of this process) and open
        lobbies."""
        return (await self._places_by_server()).get(guild_id, set())

    async def _places_by_server(self) -> dict[int, set[int]]:
        """:meth:`_places` of every server this process has tables in, read once."""
        places: dict[int, set[int]] = defaultdict(set)
        for record in self.bot.games.records.values():
            places[record.guild_id].add(record.channel_id)
        for lobby in await self.bot.db.lobbies.list_all():
            places[lobby.guild_id].add(lobby.channel_id)
        return places

    async def _unknown(self, channel_id: int) -> bool:
        """True when Discord says it does not know the channel or thread (it was deleted)."""
        try:
            await self.bot.fetch_channel(channel_id)
        except discord.NotFound as error:
            return error.code == UNKNOWN_CHANNEL
        except discord.HTTPException:
            return False
        return False

    def permissions_changed(self, guild_id: int) -> None:
        """An admin changed what the bot may do in a server (a channel's permissions, a
        role's): the boards of its games that Discord refused meanwhile are posted now, as the
        games stand, instead of at their next move."""
        games = self.bot.games
        games.boards_behind(r for r in games.records.values() if r.guild_id == guild_id)

    async def _refused(self, record: GameRecord, error: discord.HTTPException) -> None:
        """After a post Discord refused: a channel it no longer knows was deleted (while the
        bot was down, say, so that no deletion was heard), and the game is cancelled as on a
        deletion."""
        if isinstance(error, discord.NotFound) and error.code == UNKNOWN_CHANNEL:
            await self.table_gone(record.channel_id)

    async def board_line(self, record: GameRecord) -> str:
        """The text above a board: the result, or whose turn it is (and when a time limit
        runs out)."""
        if record.game.is_over():
            return result_line(record)
        return turn_line(record) + await self.deadline_text(record)

    async def deadline_text(self, record: GameRecord) -> str:
        """`` ⏳ Time runs out <t:…:R>.`` for a turn with a time limit (else empty): the
        turn's stored limit, so that every process shows the same moment."""
        if record.game.is_over() or not TableOptions.from_dict(record.options).turn_time_limit:
            return ""
        if clock_stopped(record.game, len(record.seats)):
            return " ⏸️ Nobody played a whole round: the clock waits for this move."
        timer = await self.bot.db.timers.get(record.id, LIMIT)
        if timer is None or timer.payload.get("turn") != record.game.turn_number:
            return ""
        return f" {deadline_note(timer.due_at)}"

    async def waiting_for(self, record: GameRecord) -> float:
        """Seconds since the turn being played began: how long its move is awaited."""
        entries = await self.bot.db.games.log(record.id)
        return self.bot.clock() - turn_began(record, entries)

    async def notice(
        self, record: GameRecord, content: str, **kwargs: Any
    ) -> discord.Message | None:
        """A plain message at the table; None if Discord refused."""
        try:
            return await self.channel(record).send(content, allowed_mentions=PINGS, **kwargs)
        except discord.HTTPException as error:
            log.warning("Could not post to game %d (HTTP %s)", record.id, error.status)
            await self._refused(record, error)
            return None
