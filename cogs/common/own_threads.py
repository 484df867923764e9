"""Tables in threads of their own (``/sequence new thread:yes``, or the server's
``thread_tables``): the lobby opens in a new public thread of the channel, named for the table,
so that any number of tables share one channel; the game plays there, and the thread is closed
(archived) :data:`CLOSE_AFTER` seconds after the game ends.

Opening. Discord limits thread creation per channel for minutes at a time (a 429 whose
retry_after discord.py waits out, then gives up), may be down (5xx), or refuse a permission
taken away since the command was checked (50013): each is answered clearly, and no lobby is
opened. A thread made whose lobby could not be stored after (the store down, a cap reached
meanwhile) stays empty, and the host's next try in that channel opens its lobby there rather
than in a second thread (:func:`~cogs.common.threads.empty_thread`: the bot's, named for the
same table, never posted in).

Closing. :class:`ThreadCloser` answers :class:`~bot.services.events.GameEnded` from the outbox,
which delivers it at least once, and again after a restart until it is done: before the delay
has passed it asks to be tried again when it has (:class:`DeliverLater`), then archives the
thread. A thread deleted, archived or locked already, refused to the bot, or holding a newer
table is left as it is.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord

from bot.services.deliver_later import DeliverLater
from bot.services.errors import UserError
from bot.services.events import GameEnded

from .replies import THREAD_TABLE_PERMISSIONS, refuse_without
from .threads import ARCHIVE_AFTER, ARCHIVED, LOCKED, empty_thread

if TYPE_CHECKING:
    from bot.app import SequenceBot
    from bot.services.dispatch import Subscriptions
    from bot.services.lobbies import Person
    from bot.store.lobbies import LobbyRecord
    from bot.table.options import TableOptions

log = logging.getLogger(__name__)

#: Seconds after a game ends before its own thread is closed (the players read the result).
CLOSE_AFTER = 3600.0
#: The longest wait between tries to close a thread Discord refused for now.
MOST_WAIT = 6 * 3600.0
#: Discord's codes for a thread that is gone.
UNKNOWN_CHANNEL = 10003

#: What the host is told when Discord refuses the thread, by HTTP status.
RATE_LIMITED = (
    "Discord limits how many threads may be opened in this channel, and that limit is reached "
    "for now (it lifts after a few minutes). Nothing was opened: try again in a few minutes, "
    "or open the table right here with `thread:no`."
)
DISCORD_DOWN = (
    "Discord did not answer as it should when I opened the thread (it may be down for a "
    "moment). Nothing was opened: try again in a minute."
)
NOT_ALLOWED = (
    "Discord did not let me open a thread in this channel: I need the **Create Public "
    "Threads** and **Send Messages in Threads** permissions here. Nothing was opened: ask a "
    "server admin for them, or open the table right here with `thread:no`."
)


def wants_own_thread(channel: Any, asked: bool | None, default: bool) -> bool:
    """Whether a new table opens in a thread of its own: as the host asked, else as the server
    set, from a text channel. Asked in a thread, the table simply opens in that thread; asked
    where no public thread can be opened (a voice channel's chat, an announcement channel), a
    clear refusal (the server's default opens the table right there instead)."""
    wanted = default if asked is None else asked
    if not wanted or isinstance(channel, discord.Thread):
        return False
    if isinstance(channel, discord.TextChannel) and not channel.is_news():
        return True
    if asked:
        raise UserError(
            "A table opens in a thread of its own only from a text channel (not an announcement "
            "or voice channel): open it here with `thread:no`, or from a text channel."
        )
    return False


def thread_name(host_name: str) -> str:
    """The name of a table's thread (Discord allows 100 characters)."""
    return f"Sequence — {host_name}'s table"[:100]


async def open_own_thread(
    bot: SequenceBot, channel: discord.TextChannel, host_name: str
) -> discord.Thread:
    """The table's thread: an empty one a failed try left, or a new public thread archiving
    after the longest silence Discord allows. Discord's refusals: a clear :class:`UserError`."""
    name = thread_name(host_name)
    assert bot.user is not None
    found = empty_thread(channel, name, bot.user.id)
    if found is not None:
        log.info("Thread %d, left empty by a failed try, holds the new table", found.id)
        return found
    try:
        return await channel.create_thread(
            name=name,
            type=discord.ChannelType.public_thread,
            auto_archive_duration=ARCHIVE_AFTER,
            reason="A table of Sequence in a thread of its own",
        )
    except discord.HTTPException as error:
        if error.status == 429:
            raise UserError(RATE_LIMITED) from None
        if error.status >= 500:
            raise UserError(DISCORD_DOWN) from None
        if error.status == 403:
            raise UserError(NOT_ALLOWED) from None
        raise


async def open_lobby_in_own_thread(
    bot: SequenceBot,
    interaction: discord.Interaction,
    host: Person,
    options: TableOptions,
    *,
    looking: bool = False,
) -> tuple[LobbyRecord, discord.Thread]:
    """Open the host's lobby in a thread of its own of the interaction's text channel; the
    lobby and its thread. The answer is deferred first (Discord may keep the thread waiting)
    once nothing but Discord can refuse it (the caps are checked before the thread is made)."""
    channel, guild_id = interaction.channel, interaction.guild_id or 0
    assert isinstance(channel, discord.TextChannel)  # as wants_own_thread said
    await bot.lobbies.may_open(guild_id, host.user_id)
    await interaction.response.defer(ephemeral=True, thinking=True)
    thread = await open_own_thread(bot, channel, host.name)
    lobby = await bot.lobbies.open(
        guild_id, thread.id, host, options.but(own_thread=True), looking=looking
    )
    return lobby, thread


async def announce_table(
    interaction: discord.Interaction, thread: discord.Thread, host: discord.abc.User
) -> None:
    """Tell the host where the table opened, add them to its thread, and say in the channel
    that it is open (what Discord refuses here is not needed: the lobby is posted)."""
    await interaction.followup.send(
        f"✅ Your table is open in {thread.mention}: the lobby is there.", ephemeral=True
    )
    try:
        await thread.add_user(host)
    except discord.HTTPException as error:
        log.info("The host was not added to thread %d: %s", thread.id, error)
    channel = interaction.channel
    if not isinstance(channel, discord.TextChannel):
        return
    try:
        await channel.send(
            f"🎲 {host.mention} opened a table of **Sequence** in {thread.mention}: join it there!",
            allowed_mentions=discord.AllowedMentions.none(),
        )
    except discord.HTTPException as error:
        log.info("The table of thread %d was not announced: %s", thread.id, error)


def require_thread_permissions(interaction: discord.Interaction) -> None:
    """Refuse, before anything changes, a table in a thread of its own where the bot could not
    open the thread or play in it."""
    refuse_without(
        interaction.app_permissions,
        THREAD_TABLE_PERMISSIONS,
        "open a table in a thread of its own here",
        "this channel",
        "or open the table right here with `thread:no`",
    )


class ThreadCloser:
    """Closes a table's own thread a while after its game ends (an outbox consumer)."""

    def __init__(self, bot: SequenceBot) -> None:
        self.bot = bot

    def subscriptions(self) -> Subscriptions:
        """The game's end."""
        return [(GameEnded, self.close_when_due)]

    async def close_when_due(self, event: GameEnded) -> None:
        """Archive the game's own thread once :data:`CLOSE_AFTER` has passed since its end."""
        record = event.record
        if not record.options.own_thread:
            return
        ended = record.finished_at or self.bot.clock()
        wait = ended + CLOSE_AFTER - self.bot.clock()
        if wait > 0:
            later = max(wait, MOST_WAIT)
            raise DeliverLater("its thread closes later", first=wait, most=later, ordered=False)
        thread_id = record.channel_id
        if await self._holds_a_newer_table(thread_id):
            return
        try:
            await self.bot.http.edit_channel(
                thread_id, archived=True, reason="The game ended: its table's thread closes"
            )
        except discord.HTTPException as error:
            if error.status == 429 or error.status >= 500:
                raise DeliverLater(f"HTTP {error.status}", ordered=False) from error
            gone = error.status in (403, 404) or error.code in (UNKNOWN_CHANNEL, ARCHIVED, LOCKED)
            if not gone:
                raise
            log.info("Thread %d was not closed: %s", thread_id, error)
            return
        log.info("Thread %d of game %d closed", thread_id, record.id)

    async def _holds_a_newer_table(self, thread_id: int) -> bool:
        """True when a lobby or another game was opened in the thread since."""
        db = self.bot.db
        if await db.lobbies.get_for_channel(thread_id) is not None:
            return True
        return await db.games.active_for_channel(thread_id) is not None
