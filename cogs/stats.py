"""Results and ratings: ``/sequence stats``, ``leaderboard``, ``history`` and ``replay``."""

from __future__ import annotations

import io
from datetime import UTC, datetime

import discord
from discord import app_commands

from bot.app import SequenceBot
from bot.pseudonyms import person
from bot.services.errors import UserError
from bot.services.pace import SLOW_TURN
from bot.services.ratings import Rating
from bot.services.season_boards import ALL
from bot.services.stats import (
    PROVISIONAL_GAMES,
    HistoryEntry,
    PlayerStats,
    StatsService,
    provisional,
    sparkline,
)
from bot.table.options import format_duration

from .base import SequenceCog, server_id
from .common.alt_text import replay_alt
from .common.answering import Answering
from .common.components import Components
from .common.custom_ids import Templated
from .common.describe import counted, shown_name, shown_rating, team_label
from .common.lookup import cog_of
from .common.replays import ReplayCache
from .common.replies import reply, user_name
from .common.season_board import SeasonBoardButton, season_boards, season_page

#: Discord's upload limit for a bot without boosts.
UPLOAD_LIMIT = 10 * 1024 * 1024
NO_PINGS = discord.AllowedMentions.none()
DAY = 86400
#: What the mark after a provisional rating means.
PROVISIONAL = f"? provisional: fewer than {PROVISIONAL_GAMES} rated games"


def rating_text(rating: Rating) -> str:
    """``"12.4 (μ 27.1 ± 4.9)"``: the shown rating, then the model's estimate."""
    return f"{shown_rating(rating)} (μ {rating.mu:.1f} ± {rating.sigma:.1f})"


def pace_text(stats: PlayerStats) -> str:
    """A player's median time to move in slow games, in words.

    >>> from bot.services.stats import PlayerStats
    >>> pace_text(PlayerStats(1, 0, 0, 0, 0, 0, 0, 0, None, None, [], 5400.0, 12))
    '**1 h 30 min** a turn (median of 12 turns)'
    """
    if stats.turn_median is None:
        return "No turn in a slow game yet"
    shown = format_duration(max(1, round(stats.turn_median)))
    return f"**{shown}** a turn (median of {counted(stats.turns_timed, 'turn')})"


def stats_embed(name: str, stats: PlayerStats, active_days: int = 0) -> discord.Embed:
    """A player's card (``active_days``: the leaderboard's activity window, 0 for none)."""
    embed = discord.Embed(title=f"📊 {name}", colour=0x2F6FE0)
    record = f"{stats.wins} won · {stats.losses} lost"
    if stats.draws:
        record += f" · {stats.draws} drawn"
    embed.add_field(name="Games", value=f"**{stats.games}** ({record})", inline=False)
    embed.add_field(name="Sequences made", value=str(stats.sequences))
    embed.add_field(name="Jacks played", value=str(stats.jacks))
    if stats.rating is None:
        embed.add_field(name="Rating", value="Unrated: no rated game yet", inline=False)
    else:
        place = f" · #{stats.place} here" if stats.place else ""
        if not stats.active:
            place = f" · not ranked: no rated game in {active_days} days"
        mark = " (provisional)" if provisional(stats.rated_games) else ""
        embed.add_field(
            name="Rating",
            value=f"**{rating_text(stats.rating)}**{mark}{place} · "
            + counted(stats.rated_games, "rated game"),
            inline=False,
        )
        if len(stats.trend) > 1:
            change = stats.trend[-1] - stats.trend[0]
            arrow = "▲" if change > 0 else "▼" if change < 0 else "▶"
            embed.add_field(
                name="Trend",
                value=f"{sparkline(stats.trend)} {arrow} {change:+.1f} over the last "
                + counted(len(stats.trend) - 1, "rated game"),
                inline=False,
            )
    embed.add_field(
        name=f"Speed in slow games ({format_duration(SLOW_TURN)}+ a turn)",
        value=pace_text(stats),
        inline=False,
    )
    return embed


def history_line(entry: HistoryEntry) -> str:
    """One game of a player's history."""
    result = entry.result
    icon = {"won": "🏆 Won", "lost": "❌ Lost", "draw": "🤝 Draw"}[entry.outcome]

    def _who(user_id: int) -> str:
        """A person's mention (a forgotten member's label); a computer player by name (as the
        lobby shows it)."""
        if user_id > 0:
            return person(user_id)
        name = entry.computers.get(user_id)
        return f"🤖 {shown_name(name)}" if name else "🤖"

    day = discord.utils.format_dt(datetime.fromtimestamp(result.finished_at, tz=UTC), "d")
    partners = f" with {', '.join(_who(u) for u in entry.partners)}" if entry.partners else ""
    against = " and ".join(", ".join(_who(u) for u in team) for team in entry.opponents)
    if len(entry.opponents) > 1:  # three teams: say who played on which
        others = [t for t in range(len(result.teams)) if t != entry.team]
        against = " and ".join(
            f"{team_label(t)} ({', '.join(_who(u) for u in team)})"
            for t, team in zip(others, entry.opponents, strict=True)
        )
    rated = "unrated"
    if entry.rating_change is not None:
        rated = f"rated {entry.rating_change:+.1f}"
    return (
        f"`#{result.game_id}` {day} · {icon} as {team_label(entry.team)}{partners} vs {against}"
        f" · {rated}"
    )


class LeaderboardButton(
    Answering,
    Templated,
    discord.ui.DynamicItem[discord.ui.Button],
    # ":all" ends the id of a board of everyone (one without it: the active players only)
    custom_id="seq:lb:{page}:{direction:prev|next}{scope:|:all}",
):
    """Pages through the leaderboard (anyone may; it only edits the board message)."""

    def __init__(
        self, page: int, direction: str, scope: str = "", *, disabled: bool = False
    ) -> None:
        self.page, self.direction, self.everyone = page, direction, scope == ":all"
        super().__init__(
            discord.ui.Button(
                label="◀ Previous" if direction == "prev" else "Next ▶",
                style=discord.ButtonStyle.secondary,
                custom_id=self.ids(page=page, direction=direction, scope=scope),
                disabled=disabled,
            )
        )

    async def clicked(self, interaction: discord.Interaction) -> None:
        cog = cog_of(interaction, Stats)
        target = self.page + (1 if self.direction == "next" else -1)
        await interaction.response.defer()  # the read grows with the players
        embed, view = await cog.leaderboard_page(
            interaction.guild_id or 0, target, everyone=self.everyone
        )
        await interaction.edit_original_response(embed=embed, view=view)


class Stats(SequenceCog):
    """Players' records, ratings and replays of finished games (each server keeps its own)."""

    components = (LeaderboardButton, SeasonBoardButton)

    def __init__(self, bot: SequenceBot) -> None:
        super().__init__(bot)
        self.stats = StatsService(bot.db, bot.ratings)
        self.replays = ReplayCache(bot.settings.database_path.parent / "replays")

    @app_commands.command(name="stats", description="A player's games, wins, sequences and rating")
    @app_commands.describe(player="Whose statistics (default: yours)")
    async def stats_command(
        self, interaction: discord.Interaction[SequenceBot], player: discord.User | None = None
    ) -> None:
        guild_id = server_id(interaction)
        self.bot.limits.check(interaction, "stats")
        who = player or interaction.user
        await interaction.response.defer(thinking=True)  # the read grows with the games played
        days, since = await self.active_window(guild_id)
        stats = await self.stats.player(guild_id, who.id, since)
        await interaction.followup.send(
            embed=stats_embed(user_name(who), stats, days), allowed_mentions=NO_PINGS
        )

    @app_commands.command(name="leaderboard", description="This server's ratings, best first")
    @app_commands.describe(
        page="Which page (10 players a page)",
        everyone="Rank everyone rated, also those with no rated game lately (default: no)",
        season="A season's ratings: current, previous, a season's name, or all (all-time)",
    )
    async def leaderboard(
        self,
        interaction: discord.Interaction[SequenceBot],
        page: app_commands.Range[int, 1] = 1,
        everyone: bool = False,
        season: str | None = None,
    ) -> None:
        guild_id = server_id(interaction)
        if season is not None and season.strip().lower() not in ("", ALL):
            with self.bot.limits.counting(interaction, "leaderboard"):  # refusals: free
                embed, view = await season_page(self.bot, guild_id, season, page, interaction)
            await interaction.followup.send(embed=embed, view=view, allowed_mentions=NO_PINGS)
            return
        self.bot.limits.check(interaction, "leaderboard")
        await interaction.response.defer(thinking=True)  # the read grows with the players
        embed, view = await self.leaderboard_page(guild_id, page, everyone=everyone)
        await interaction.followup.send(embed=embed, view=view, allowed_mentions=NO_PINGS)

    @leaderboard.autocomplete("season")
    async def season_choices(
        self, interaction: discord.Interaction[SequenceBot], current: str
    ) -> list[app_commands.Choice[str]]:
        names = await season_boards(self.bot).choices(server_id(interaction), current)
        return [app_commands.Choice(name=name, value=name) for name in names]

    async def active_window(self, guild_id: int) -> tuple[int, float | None]:
        """The server's leaderboard window: its days (0: none) and the time it starts."""
        days = await self.bot.server_settings.leaderboard_days(guild_id)
        return days, (self.bot.clock() - days * DAY) if days else None

    async def leaderboard_page(
        self, guild_id: int, page: int, *, everyone: bool = False
    ) -> tuple[discord.Embed, Components]:
        """The embed and buttons of one leaderboard page (``everyone``: also the players with
        no rated game in the server's activity window)."""
        days, since = await self.active_window(guild_id)
        if everyone:
            since = None
        rows, page, pages = await self.stats.leaderboard(guild_id, page, since)
        embed = discord.Embed(title="🏅 Leaderboard", colour=0xE2B454)
        if rows:
            embed.description = "\n".join(
                f"**{place}.** {person(user)} · {shown_rating(rating)}"
                f"{'?' if provisional(games) else ''} · {counted(games, 'game')}"
                for place, user, rating, games in rows
            )
        elif since is not None:
            embed.description = (
                f"Nobody has played a rated game in the last {days} days: "
                "`/sequence leaderboard everyone:true` ranks everyone."
            )
        else:
            embed.description = "Nobody is rated yet: finish a rated game to appear here."
        footer = [f"Page {page} of {pages} · rating = μ − 3σ (openskill)"]
        if since is not None:
            footer.append(f"rated in the last {days} days (everyone:true ranks all)")
        if any(provisional(games) for *_, games in rows):
            footer.append(PROVISIONAL)
        embed.set_footer(text=" · ".join(footer))
        scope = ":all" if everyone and days else ""
        view = Components()
        view.add_item(LeaderboardButton(page, "prev", scope, disabled=page <= 1))
        view.add_item(LeaderboardButton(page, "next", scope, disabled=page >= pages))
        return embed, view

    @app_commands.command(name="history", description="A player's last finished games")
    @app_commands.describe(player="Whose games (default: yours)")
    async def history(
        self, interaction: discord.Interaction[SequenceBot], player: discord.User | None = None
    ) -> None:
        guild_id = server_id(interaction)
        who = player or interaction.user
        # the read grows with the games played; the answer is the player's alone
        await interaction.response.defer(ephemeral=True, thinking=True)
        entries, total = await self.stats.history(guild_id, who.id)
        if not entries:
            await reply(interaction, f"{user_name(who)} has no finished game here yet.")
            return
        embed = discord.Embed(
            title=f"📜 {user_name(who)}: last {len(entries)} of {counted(total, 'game')}",
            description="\n".join(history_line(entry) for entry in entries),
            colour=0x1F9E54,
        )
        embed.set_footer(text="/sequence replay game:<id> shows a game again")
        await reply(interaction, "", embed=embed, allowed_mentions=NO_PINGS)

    @app_commands.command(name="replay", description="An animated replay of a finished game")
    @app_commands.describe(game="The game's number (see /sequence history)")
    async def replay(
        self, interaction: discord.Interaction[SequenceBot], game: app_commands.Range[int, 1]
    ) -> None:
        guild_id = server_id(interaction)
        with self.bot.limits.counting(interaction, "replay"):  # refusals: free
            found = await self.stats.replay(guild_id, game)
        await interaction.response.defer(thinking=True)
        gif = await self.replays.gif(found)
        if len(gif) > UPLOAD_LIMIT:
            raise UserError(f"The replay of game #{game} is too large to upload.")
        await interaction.followup.send(
            f"🎞️ Replay of game #{game} ({counted(len(found.moves), 'move')})",
            file=discord.File(
                io.BytesIO(gif), filename=f"sequence-{game}.gif", description=replay_alt(found)
            ),
            allowed_mentions=NO_PINGS,
        )


async def setup(bot: SequenceBot) -> None:
    """Load the cog."""
    await bot.add_cog(Stats(bot))
