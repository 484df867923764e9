"""Tables in threads that cannot be used for a while: a thread a moderator locked, a private
thread the bot was removed from. Discord refuses the bot every post there (160005, 50001), so
the board and whose turn it is could not be shown: moves are refused (from the channel and from
the turn DM's panel alike) with why and what a moderator can do, the turn clock waits, and what
was saved meanwhile stays in the outbox. When the thread is unlocked or the bot added back, the
table catches up: the board as it stands (with its pings), and a fresh clock for the turn.

The bot learns it from Discord's thread events or, first, from a refused post (a thread locked
while the bot was down): the move whose board was refused is saved, and its player is told that
it cannot be shown, never "✅ Done."

What is learnt is stored on the game (``games.paused``, see :mod:`bot.services.pauses`): every
process of a cluster refuses the changes asked for at that table (a move from a turn DM reaches
another process), and a restart finds it paused still. The outbox stays the truth of what is
left to show: after a restart, a game whose board the outbox still holds for the table counts
as paused until that board is delivered, so that a time limit that fell due meanwhile waits for
the re-delivered board to find the thread usable again (or locked: paused as above, until it is
unlocked).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

import discord

from bot.services.deliver_later import DeliverLater
from bot.services.dispatch import Subscriptions
from bot.services.events import GameStarted, MoveCommitted, MoveUndone
from bot.store.errors import StoreError

from .threads import BLOCKED_WHY, LOCKED, MISSING_ACCESS

if TYPE_CHECKING:
    from bot.app import SequenceBot
    from bot.store.games.records import GameRecord

log = logging.getLogger(__name__)

#: The events whose delivery posts a board.
POSTS_A_BOARD = (GameStarted, MoveCommitted, MoveUndone)
#: Seconds a move's answer waits for its board to be posted (or refused) before it says "done":
#: longer, the board was held up by Discord's rate limits and is posted later all the same.
BOARD_WAIT = 2.0


class TableThreads:
    """The table's part that knows which of its threads cannot be used, and catches up."""

    bot: SequenceBot

    def _thread_state(self) -> None:
        #: Channel id -> the error code that makes it unusable (see :data:`.threads.BLOCKED_WHY`),
        #: as this process learnt it; stored on the channel's game for the other processes.
        self.blocked: dict[int, int] = {}
        #: Game id -> the move count of its latest board posted or refused, and the code of the
        #: refusal that blocked it (None: posted, or refused only for a while).
        self._boards_settled: dict[int, tuple[int, int | None]] = {}
        self._board_waiters: dict[int, list[tuple[int, asyncio.Future[int | None]]]] = {}
        #: Game id -> how many of its boards a restart found still to post (see
        #: :meth:`hold_unshown`): the game counts as paused until none is left.
        self._unshown: dict[int, int] = {}

    # ------------------------------------------------------------------ what players are told
    def blocked_code(self, record: GameRecord) -> int | None:
        """The code that makes the table of ``record`` unusable, or None."""
        return self.blocked.get(record.channel_id)

    def paused(self, game_id: int) -> bool:
        """True while a game's table cannot be used, or is not yet known usable after a
        restart (its board is still to post): its turn clock and computer players wait."""
        return game_id in self._unshown or self.blocked_code_of(game_id) is not None

    # ------------------------------------------------------------------ after a restart
    async def hold_unshown(self) -> None:
        """At start-up, before the outbox delivers what the restart left: a game stored as
        paused is paused still (its held board, delivered again, or ``/sequence board`` finds
        out whether it still is); and each game whose board is still pending for the table
        (refused before the restart, by a locked thread perhaps, or never sent) counts as
        paused until that board is delivered."""
        for record in self.bot.games.records.values():
            if record.paused is not None:
                self.blocked[record.channel_id] = record.paused
        handlers = {
            (kind.__name__, getattr(handler, "__qualname__", ""))
            for kind, handler in self.subscriptions()
            if issubclass(kind, POSTS_A_BOARD)
        }
        for row in await self.bot.db.outbox.undelivered():
            if any(kind == row.kind and name in row.pending for kind, name in handlers):
                self._unshown[row.game_id] = self._unshown.get(row.game_id, 0) + 1
        if self._unshown:
            log.info("%d game(s) wait for their boards to be posted again", len(self._unshown))

    def board_delivered(self, game_id: int) -> None:
        """A board event of the game reached the table (posted, or not needed): once the last
        one a restart found is delivered, the game's timers and computer players resume
        (those that fell due meanwhile act now, the table being usable)."""
        left = self._unshown.get(game_id)
        if left is None:
            return
        if left > 1:
            self._unshown[game_id] = left - 1
            return
        self.known_usable(game_id)

    def known_usable(self, game_id: int) -> None:
        """The table of a game a restart held is known usable again (a board of it was posted,
        or the last one held was delivered): its timers and computer players resume."""
        if self._unshown.pop(game_id, None) is None:
            return
        if self.blocked_code_of(game_id) is not None:
            return  # paused still: the unlock catches up, with a fresh clock (thread_reopened)
        task = asyncio.get_running_loop().create_task(self._resume(game_id))
        task.add_done_callback(_log_failure)

    def blocked_code_of(self, game_id: int) -> int | None:
        """The code that makes the table of the game ``game_id`` unusable, or None."""
        record = self.bot.games.live(game_id)
        return None if record is None else self.blocked_code(record)

    async def _resume(self, game_id: int) -> None:
        """A game whose held board was delivered after a restart: its stored timers again."""
        await self.bot.turn_clock.rearm(game_id)
        self.bot.computers.wake(game_id)

    def subscriptions(self) -> Subscriptions:
        """The table's (see ``cogs.common.table.Table.subscriptions``)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ learning it
    async def thread_blocked(self, channel_id: int, code: int) -> None:
        """Discord refused the bot the thread ``channel_id`` with ``code``: its table pauses,
        for every process (stored). A channel known here that is not a thread is left to its
        permissions (a 50001 there: see ``permissions_changed``); an archived thread is not
        kept by discord.py, so one not known here counts as a thread."""
        channel = self.bot.get_channel(channel_id)
        if code not in BLOCKED_WHY or (
            channel is not None and not isinstance(channel, discord.Thread)
        ):
            return
        if self.blocked.get(channel_id) == code:
            return
        log.info("Thread %d cannot be used (code %d): its table pauses", channel_id, code)
        self.blocked[channel_id] = code
        await self._store_pause(channel_id)

    async def _store_pause(self, channel_id: int) -> None:
        """Set the pause of the channel's game as this process knows it now, through the game
        service (in memory and in the store). A store that fails leaves this process's own
        refusals as they are (logged)."""
        try:
            await self.bot.games.set_pause(channel_id, self.blocked.get(channel_id))
        except StoreError as error:
            log.warning("The pause of thread %d could not be stored: %s", channel_id, error)

    async def threads_announced(self, guild: discord.Guild) -> None:
        """A server as Discord announced it on a shard's new session, with its active threads:
        a table paused for a lock (stored, perhaps before a restart) whose thread is not
        locked now was unlocked while no event could tell the bot: it catches up."""
        for channel_id, code in list(self.blocked.items()):
            thread = guild.get_thread(channel_id)
            if code == LOCKED and thread is not None and not thread.locked:
                await self.thread_reopened(channel_id)

    async def thread_changed(self, channel_id: int, *, locked: bool, may_manage: bool) -> None:
        """Discord says the thread ``channel_id`` was locked or unlocked (``may_manage``: the
        bot may post in a locked thread all the same)."""
        if locked and not may_manage:
            await self.thread_blocked(channel_id, LOCKED)
        elif self.blocked.get(channel_id) == LOCKED:
            await self.thread_reopened(channel_id)

    async def bot_in_thread(self, channel_id: int, *, member: bool) -> None:
        """The bot was added to (``member``) or removed from a private thread."""
        if not member:
            await self.thread_blocked(channel_id, MISSING_ACCESS)
        elif self.blocked.get(channel_id) == MISSING_ACCESS:
            await self.thread_reopened(channel_id)

    async def thread_reopened(self, channel_id: int) -> None:
        """The thread can be used again (a moderator unlocked it, or added the bot back, or
        gave back access; or ``/sequence board`` asks to try again): its games catch up."""
        if self.blocked.pop(channel_id, None) is None:
            return
        log.info("Thread %d can be used again: its tables catch up", channel_id)
        await self._store_pause(channel_id)
        records = [r for r in self.bot.games.records.values() if r.channel_id == channel_id]
        for record in records:
            # A board the outbox holds, refused, is posted now it is woken: not a second one.
            held = self._board_held(record.id)
            task = asyncio.get_running_loop().create_task(self._catch_up(record.id, held))
            task.add_done_callback(_log_failure)
        self.bot.bus.wake(record.id for record in records)

    def _board_held(self, game_id: int) -> bool:
        """True when the outbox holds a board of the game that Discord refused for now."""
        return any(isinstance(e, POSTS_A_BOARD) for e in self.bot.bus.holding(game_id))

    async def _catch_up(self, game_id: int, held: bool) -> None:
        """A game whose table can be used again: a fresh clock for the turn being played, and
        the board as it stands with whose turn it is (unless the outbox posts a refused one
        now, woken), so that the players learn that they can play again. Its computers wake
        once that board is posted (see ``post_board``), never before: refused again, the table
        is paused again and they wait."""
        self._unshown.pop(game_id, None)  # known usable: the fresh clock below replaces it
        if self.bot.games.live(game_id) is None:
            return
        for timer in await self.bot.turn_clock.rebuild(game_id):
            self.bot.turn_clock.schedule(timer)
        record = self.bot.games.live(game_id)
        if record is None or held:
            return  # ended meanwhile, or its refused board is posted by the outbox
        try:
            await self.post_board(record, CAUGHT_UP)  # whose turn it is: the table is back
        except DeliverLater:  # refused again (still locked): paused again, and said so
            log.info("Game %d could not catch up: its table is still paused", game_id)

    async def post_board(
        self, record: GameRecord, headline: str | None = None
    ) -> discord.Message | None:
        """The table's (see ``cogs.common.table.Table.post_board``)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ a move's answer
    def board_settled(self, game_id: int, count: int, code: int | None) -> None:
        """The board of the game's move ``count`` was posted (``code`` None) or refused."""
        previous = self._boards_settled.get(game_id)
        if previous is None or previous[0] <= count:
            self._boards_settled[game_id] = (count, code)
        waiting = self._board_waiters.get(game_id, [])
        for wanted, future in list(waiting):
            if wanted <= count and not future.done():
                future.set_result(code)
        self._board_waiters[game_id] = [(w, f) for w, f in waiting if not f.done()]
        if not self._board_waiters[game_id]:
            del self._board_waiters[game_id]

    async def board_refusal(self, game_id: int, count: int) -> int | None:
        """After a move that left ``count`` moves: wait (a little) for its board, and say the
        code that refused it for good (the table cannot be used), or None."""
        settled = self._boards_settled.get(game_id)
        if settled is not None and settled[0] >= count:
            return settled[1]
        if self._board_held(game_id) or not self.bot.bus.delivering(game_id):
            return None  # behind a refusal for a while (posted later), or not on its way
        future: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()
        self._board_waiters.setdefault(game_id, []).append((count, future))
        try:
            return await asyncio.wait_for(future, BOARD_WAIT)
        except TimeoutError:
            return None


#: ``/sequence board`` at a table that could not be used: it is tried again.
TRYING_AGAIN = (
    "🔄 This table could not be used (its thread was locked, or I was removed from it): I try "
    "again now. If I can post here, the board follows, with whose turn it is."
)
#: The headline of the board a table that could not be used posts when it can again.
CAUGHT_UP = "▶️ The table can be used again: the board as it stands."


def _log_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("A table could not catch up", exc_info=task.exception())
