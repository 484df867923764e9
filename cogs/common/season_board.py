"""A season's leaderboard (``/sequence leaderboard season:``): its embed and its page buttons."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

import discord

from bot.pseudonyms import person
from bot.services.season_boards import SeasonBoards, SeasonPage
from bot.services.stats import PROVISIONAL_GAMES, provisional

from .answering import Answering
from .components import Components
from .custom_ids import Templated
from .describe import counted, shown_rating
from .lookup import bot_of

if TYPE_CHECKING:
    from bot.app import SequenceBot


def season_boards(bot: SequenceBot) -> SeasonBoards:
    """The reader of the bot's season leaderboards."""
    return SeasonBoards(bot.db, bot.server_settings, bot.clock)


def season_embed(found: SeasonPage) -> discord.Embed:
    """The embed of one page of a season's leaderboard."""
    season = found.season
    embed = discord.Embed(title=f"🏅 Season {season.name}", colour=0xE2B454)
    embed.description = "\n".join(
        f"**{place}.** {person(user)} · {shown_rating(rating)}"
        f"{'?' if provisional(games) else ''} · {counted(games, 'game')}"
        for place, user, rating, games in found.rows
    )
    start = datetime.fromtimestamp(season.start, tz=UTC)
    window = f"from {discord.utils.format_dt(start, 'D')}"
    if season.end is not None:
        end = datetime.fromtimestamp(season.end, tz=UTC)
        verb = "ends" if found.running else "ended"
        window += f", {verb} {discord.utils.format_dt(end, 'R')}"
    embed.add_field(name="Season", value=window, inline=False)
    footer = [
        f"Page {found.page} of {found.pages} · a season starts everyone fresh "
        "(season:all: the all-time ratings)"
    ]
    if any(provisional(games) for *_, games in found.rows):
        footer.append(f"? provisional: fewer than {PROVISIONAL_GAMES} rated games")
    embed.set_footer(text=" · ".join(footer))
    return embed


def season_view(found: SeasonPage) -> Components:
    """The page buttons of a season's leaderboard."""
    view = Components()
    name = found.season.name
    view.add_item(SeasonBoardButton(found.page, "prev", name, disabled=found.page <= 1))
    view.add_item(SeasonBoardButton(found.page, "next", name, disabled=found.page >= found.pages))
    return view


async def season_page(
    bot: SequenceBot,
    guild_id: int,
    which: str,
    page: int,
    interaction: discord.Interaction | None = None,
) -> tuple[discord.Embed, Components]:
    """The embed and buttons of a page of the season ``which`` names (a clear refusal when
    there is no such season, it has no rated game, or the page is past the end). Given a
    slash command's ``interaction``, it defers once those checks passed (the page's read)."""
    boards = season_boards(bot)
    season = await boards.season(guild_id, which)
    rated = await boards.ranked(guild_id, season, page)
    if interaction is not None:
        await interaction.response.defer(thinking=True)
    found = await boards.page(guild_id, season, page, rated)
    return season_embed(found), season_view(found)


class SeasonBoardButton(
    Answering,
    Templated,
    discord.ui.DynamicItem[discord.ui.Button],
    custom_id="seq:slb:{page}:{direction:prev|next}:{season:season}",
):
    """Pages through a season's leaderboard (anyone may; it only edits the board message)."""

    def __init__(self, page: int, direction: str, season: str, *, disabled: bool = False) -> None:
        self.page, self.direction, self.season = page, direction, season
        super().__init__(
            discord.ui.Button(
                label="◀ Previous" if direction == "prev" else "Next ▶",
                style=discord.ButtonStyle.secondary,
                custom_id=self.ids(page=page, direction=direction, season=season),
                disabled=disabled,
            )
        )

    async def clicked(self, interaction: discord.Interaction) -> None:
        target = max(1, self.page + (1 if self.direction == "next" else -1))
        await interaction.response.defer()
        embed, view = await season_page(
            bot_of(interaction), interaction.guild_id or 0, self.season, target
        )
        await interaction.edit_original_response(embed=embed, view=view)
