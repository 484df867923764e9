"""Season leaderboards (``/sequence leaderboard season:``): which season a member means, and a
page of its ratings, read from the season ratings kept as results are recorded
(:mod:`bot.store.seasons`): an indexed query, whatever the history."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.game.echo import echo
from bot.seasons import NONE, Season, season_at, season_before, season_named, seasons_begun
from bot.skill import Rating

from .errors import UserError

if TYPE_CHECKING:
    from bot.store.base import Store

    from .server_settings import ServerSettings

#: What ``season:`` takes besides a season's name.
CURRENT, PREVIOUS, ALL = "current", "previous", "all"
PAGE = 10


@dataclass(frozen=True)
class SeasonPage:
    """One page of a season's leaderboard: [(place, user, rating, games)], page, pages."""

    season: Season
    rows: list[tuple[int, int, Rating, int]]
    page: int
    pages: int
    #: True: the season is still running.
    running: bool


class SeasonBoards:
    """Reads season leaderboards for the stats cog."""

    def __init__(
        self, db: Store, server_settings: ServerSettings, clock: Callable[[], float]
    ) -> None:
        self.db = db
        self.server_settings = server_settings
        self.clock = clock

    async def season(self, guild_id: int, which: str) -> Season:
        """The season ``which`` names: ``current``, ``previous`` or a season's name; a clear
        refusal when the server has no such season (or no seasons)."""
        plan = await self.server_settings.season_plan(guild_id)
        now = self.clock()
        if plan == NONE:
            raise UserError(
                "This server has no seasons: a server admin can start them with "
                "`/sequence-admin set setting:season_plan value:monthly` (or quarterly, or dates)."
            )
        wanted = which.strip().lower()
        current = season_at(plan, now)
        if wanted == CURRENT:
            if current is None:
                raise UserError("No season is running yet: the first one has not started.")
            return current
        if wanted == PREVIOUS:
            before = season_before(plan, current) if current else None
            if before is None:
                raise UserError("There is no previous season: this is the first one.")
            return before
        found = season_named(plan, which)
        if found is None or found.start > now:
            names = ", ".join(s.name for s in seasons_begun(plan, now, 5)) or "none yet"
            raise UserError(
                f"There is no season {echo(which)} here. Say current, previous, all, or a "
                f"season's name (the latest: {names})."
            )
        return found

    async def ranked(self, guild_id: int, season: Season, page: int) -> int:
        """How many players the season ranks; refused when it has no rated game or ``page`` is
        past the end (one indexed count: before a command defers)."""
        rated = await self.db.seasons.rated_players(guild_id, season.name)
        running = season.holds(self.clock())
        if not rated:
            still = " yet" if running else ""
            raise UserError(f"Season {season.name} has no rated game{still}: nobody is ranked.")
        pages = -(-rated // PAGE)
        if page > pages:
            raise UserError(
                f"Page {page} is past the end: season {season.name} has {pages} "
                f"page{'s' if pages > 1 else ''} ({rated} players)."
            )
        return rated

    async def page(
        self, guild_id: int, season: Season, page: int, rated: int | None = None
    ) -> SeasonPage:
        """One page of the season's leaderboard (``rated``: :meth:`ranked`'s count, when it was
        read already); refused as :meth:`ranked` refuses."""
        if rated is None:
            rated = await self.ranked(guild_id, season, page)
        seasons = self.db.seasons
        pages = -(-rated // PAGE)
        start = (page - 1) * PAGE
        rows = await seasons.board(guild_id, season.name, start, PAGE)
        shown: list[tuple[int, int, Rating, int]] = []
        place = 1
        for index, row in enumerate(rows):
            if index == 0:
                place = await seasons.place(guild_id, season.name, row.rating) if start else 1
            elif row.rating.ordinal != rows[index - 1].rating.ordinal:
                place = start + index + 1
            shown.append((place, row.user_id, row.rating, row.games))
        return SeasonPage(season, shown, page, pages, season.holds(self.clock()))

    async def choices(self, guild_id: int, typed: str) -> list[str]:
        """What ``season:`` offers: current, previous, all, then the seasons begun, newest
        first, that hold ``typed``."""
        plan = await self.server_settings.season_plan(guild_id)
        names = [CURRENT, PREVIOUS, ALL] if plan != NONE else [ALL]
        names += [s.name for s in seasons_begun(plan, self.clock(), 22)]
        wanted = typed.strip().lower()
        return [name for name in names if wanted in name.lower()][:25]
