"""``create_bot(settings)``: the one place that wires the bot together (tests use it too)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.collector import StartupCollector
from bot.config import ConfigError, Settings
from bot.services.away import AwayService
from bot.services.caps import Caps, CapSettings
from bot.services.computers import ComputerPlayers
from bot.services.dispatch import Dispatcher
from bot.services.draws import DrawService
from bot.services.games import GAMES_CHANNEL, GameService
from bot.services.give_time import GiveTime
from bot.services.held_dms import HeldTurnDMs
from bot.services.lobbies import LobbyService
from bot.services.notify import TurnDMs
from bot.services.ratings import RatingService
from bot.services.scheduler import Scheduler
from bot.services.season_clock import SeasonClock
from bot.services.seeks import SeekService
from bot.services.server_settings import ServerSettings
from bot.services.tabletalk import TableTalkService
from bot.services.turns import TurnClock
from bot.services.undo import UndoService
from bot.store.base import Store
from bot.store.connection import INTERACTIVE, patience
from bot.store.errors import StoreError
from bot.store.location import open_database
from bot.store.revisions import stamp_rules
from bot.store.shards import Shards
from cogs.base import SequenceGroup
from cogs.common.cooldowns import RateLimits
from cogs.common.replies import SORRY
from cogs.common.table import Table

if TYPE_CHECKING:
    from bot.services.tournament import TournamentService

log = logging.getLogger(__name__)

#: The feature cogs, one feature each.
EXTENSIONS = (
    "cogs.lobby",
    "cogs.lobby_seats",
    "cogs.rematch",
    "cogs.find",
    "cogs.hand",
    "cogs.info",
    "cogs.tabletalk",
    "cogs.endings",
    "cogs.computers",
    "cogs.turns",
    "cogs.clock",
    "cogs.undo",
    "cogs.draws",
    "cogs.stats",
    "cogs.seasons",
    "cogs.tournament",
    "cogs.admin",
    "cogs.me",
)


def utc_timestamp() -> float:
    """Now, in Unix seconds, from discord.py's clock (SimCord's virtual clock in tests)."""
    return discord.utils.utcnow().timestamp()


class SequenceTree(app_commands.CommandTree):
    """Answers unexpected errors with an apology instead of silence (and logs them)."""

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        """Every command and autocomplete answers a player within Discord's deadline: its
        store calls (the rest of this interaction's task) wait as one can."""
        patience.set(INTERACTIVE)
        return True

    async def on_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        if isinstance(error, app_commands.NoPrivateMessage):
            # A server-only command in DMs (cogs.base.SequenceGroup): an answer, not a failure.
            with contextlib.suppress(discord.HTTPException):
                await interaction.response.send_message(str(error), ephemeral=True)
            return
        log.error(
            "Command %s failed",
            interaction.command and interaction.command.qualified_name,
            exc_info=error,
        )
        if interaction.response.is_done():
            return  # already answered (the apology of ``reporting``, or the command's own reply)
        with contextlib.suppress(discord.HTTPException):
            await interaction.response.send_message(SORRY, ephemeral=True)


class SequenceBotMixin:
    """What the bot adds to discord.py's ``Bot`` (or ``AutoShardedBot``)."""

    settings: Settings
    db: Store
    bus: Dispatcher
    games: GameService
    lobbies: LobbyService
    seeks: SeekService
    turn_clock: TurnClock
    computers: ComputerPlayers
    tabletalk: TableTalkService
    undo: UndoService
    draws: DrawService
    ratings: RatingService
    server_settings: ServerSettings
    #: Each server's season ends (the seasons cog posts their podiums).
    season_clock: SeasonClock
    turn_dms: TurnDMs
    give_time: GiveTime
    held_dms: HeldTurnDMs
    away: AwayService
    #: Set by the tournament extension when it loads.
    tournament_service: TournamentService
    caps: Caps
    limits: RateLimits
    #: Why the bot stopped by itself, if it did (its shards taken by another process).
    stopped_because: str | None = None

    def _setup_sequence(self, settings: Settings) -> None:
        self.settings = settings
        self.clock = utc_timestamp
        self.sequence_group = SequenceGroup()
        self.table = Table(self)  # type: ignore[arg-type]  # self is the bot: this is its mixin
        self.scheduler = Scheduler(self.clock)
        self.collector = StartupCollector()
        self.bus = Dispatcher(self.clock)
        self.limits = RateLimits(self.clock, settings)

    async def setup_hook(self) -> None:
        """Open the store, wire the services and their subscribers, resume every game, load
        the cogs and sync the slash commands. This is the one place where consequences are
        wired to the events changes write to the outbox.

        The order of the consumers of an event is the order they are registered here:
        in the ``quick`` lane, the turn clock (a new turn's timers), then the computer players
        (answers, time-outs), then the computers' draw offers, then the players away (each
        game of a period away that began or ended, and a game that starts while one is away,
        is covered or uncovered); in the ``discord`` lane, the
        table (the board), then the computer players (a computer moves once the board before
        its turn was posted or refused), then each cog's
        :meth:`~cogs.base.SequenceCog.subscriptions` in :data:`EXTENSIONS` order (turn pings
        and DMs, draw and undo messages, rulings, then the tournaments)."""
        bot: Any = self
        settings = self.settings
        self.db = await open_database(settings.database_location(), shards=settings.shards())
        # Before anything is loaded: refused if another process of a cluster runs our shards.
        count = settings.shard_count or 1
        shards = Shards(count, settings.shard_ids or tuple(range(count)))
        await self.db.claim(shards, lost=self._shards_lost)
        self.games = GameService(self.db, self.clock, self.bus)
        self.server_settings = ServerSettings(self.db, settings, self.clock)
        self.season_clock = SeasonClock(self.db, self.scheduler, self.clock)
        self.server_settings.watch(self.season_clock.changed)
        self.caps = Caps(
            self.db,
            self.games,
            CapSettings.from_settings(settings),
            server_caps=self.server_settings.caps,
        )
        self.lobbies = LobbyService(self.db, self.clock, games=self.games, caps=self.caps)
        self.seeks = SeekService(self.db, self.clock, self.lobbies, self.caps)
        self.turn_clock = TurnClock(self.db, self.games, self.scheduler, self.clock)
        self.computers = ComputerPlayers(
            self.games,
            self.scheduler,
            delay=lambda: settings.computer_move_delay,
            budget_ms=lambda: settings.computer_budget_ms,
            hold=lambda: settings.draw_offer_timeout,
        )
        self.turn_clock.stand_in = self.computers.play_turn_in  # a time-out's move, in its change
        self.tabletalk = TableTalkService(self.db, self.games, self.clock)
        self.undo = UndoService(self.games)
        self.draws = DrawService(self.games, timeout=lambda: settings.draw_offer_timeout)
        self.ratings = RatingService(self.db)
        self.turn_dms = TurnDMs(self.db, self.clock)
        self.give_time = GiveTime(self.db, self.games)
        self.held_dms = HeldTurnDMs(self.db, self.games, self.scheduler)
        self.away = AwayService(
            self.db, self.games, self.scheduler, allowance=self.server_settings.away_days
        )
        self.turn_clock.paused = self.computers.paused = self.table.paused
        for consumer in (self.turn_clock, self.computers, self.draws, self.away):
            self.bus.register(consumer, lane="quick")
        self.bus.register(self.table)
        for kind, handler in self.computers.after_the_board():
            self.bus.subscribe(kind, handler, lane="discord")
        self.collector.pause()
        # Once, for games stored before rules revisions: the active ones before they load.
        await self._stamp_rules(active=True)
        records = await self.games.load_active()
        log.info("Resumed %d active game(s)", len(records))
        # Changes other processes of a cluster make to our games (PostgreSQL's NOTIFY).
        await self.db.listen(GAMES_CHANNEL, self.games.heard)
        for extension in EXTENSIONS:
            await bot.load_extension(extension)
        # What a crash (or a process that was down) left undelivered, from the outbox: a game
        # whose board is among it waits for that board before its clock and computers act.
        await self.table.hold_unshown()
        await self.games.reconcile()
        await self.turn_clock.resume()
        await self.held_dms.resume()
        await self.away.resume()
        await self.season_clock.resume()
        self.computers.resume()
        self._catching_up = asyncio.create_task(self._freeze_when_caught_up())
        self._stamping = asyncio.create_task(self._stamp_rules(active=False))  # the finished
        bot.tree.add_command(self.sequence_group)
        await self._sync_commands()

    async def _sync_commands(self) -> None:
        """Sync the slash commands globally, or to ``DEV_GUILD_ID`` only (instantly). A server
        that refuses (the bot is not in it) is a bad setting: :class:`ConfigError`."""
        tree = self.tree  # type: ignore[attr-defined]  # the bot class after this mixin has it
        guild_id = self.settings.dev_guild_id
        if not guild_id:
            await tree.sync()
            return
        guild = discord.Object(guild_id)
        tree.copy_global_to(guild=guild)
        try:
            await tree.sync(guild=guild)
        except (discord.Forbidden, discord.NotFound) as error:
            raise ConfigError(
                f"DEV_GUILD_ID={guild_id}: Discord refused the slash commands there "
                f"({error.text or error.status}): invite the bot to that server with the "
                "applications.commands scope (see the README), or leave DEV_GUILD_ID empty."
            ) from None

    async def _freeze_when_caught_up(self) -> None:
        """Once the timers that fell due while the bot was down have run, start-up is over."""
        await self.scheduler.caught_up()
        self.collector.started()

    async def _stamp_rules(self, *, active: bool) -> None:
        """Record the rules revision of the games stored without one (see bot/store/revisions)."""
        try:
            stamped = await stamp_rules(self.db, active=active, remember=True)
        except StoreError as error:  # the finished games' turn comes at the next start
            log.warning("The rules revisions of the stored games wait: %s", error)
            return
        if stamped:
            log.info("Recorded the rules revision of %d game(s) stored without one", stamped)

    def _shards_lost(self, why: str) -> None:
        """Another process of the cluster took this one's shards while its connection to the
        database was down: both would serve the same games, so this one stops, and says why
        (``stopped_because``: ``sequence-bot run`` prints it and exits with a failure)."""
        self.stopped_because = why
        self._stopping = asyncio.create_task(self.close())

    async def close(self) -> None:
        """Close Discord, then the store (even if closing Discord failed: an open store's
        thread would keep the process from exiting)."""
        for task in (getattr(self, "_catching_up", None), getattr(self, "_stamping", None)):
            if task is not None:
                task.cancel()
        self.collector.close()
        self.scheduler.close()
        await self.bus.close()
        try:
            await super().close()  # type: ignore[misc]  # the bot class after this mixin has it
        finally:
            db: Store | None = getattr(self, "db", None)
            if db is not None:
                await db.close()


class SequenceBot(SequenceBotMixin, commands.Bot):
    """The bot on one gateway connection."""


class ShardedSequenceBot(SequenceBotMixin, commands.AutoShardedBot):
    """The bot on several shards (``SHARD_COUNT``)."""


def create_bot(settings: Settings) -> SequenceBot:
    """Build the bot. It needs no privileged intent: no message content, no member list."""
    intents = discord.Intents.default()
    intents.message_content = False
    kwargs: dict[str, Any] = {
        "command_prefix": commands.when_mentioned,
        "intents": intents,
        "tree_cls": SequenceTree,
        "help_command": None,
        "allowed_mentions": discord.AllowedMentions(users=True, roles=False, everyone=False),
    }
    if settings.shard_ids is not None:
        kwargs["shard_ids"] = list(settings.shard_ids)
    if settings.shard_count:
        bot: Any = ShardedSequenceBot(
            shard_count=settings.shard_count,
            **kwargs,
        )
    else:
        bot = SequenceBot(**kwargs)
    bot._setup_sequence(settings)
    return bot
