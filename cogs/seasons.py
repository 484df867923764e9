"""The podium of each season that ends, in the server's season channel, and its champion role.

The season clock (:mod:`bot.services.season_clock`) hands each season end's podium step here
from the outbox; this posts the podium (an image of the top three, with alt text) and gives the
champion role. It is idempotent: a podium the bot already posted in the channel is found again
(the step was done, but the process stopped before it could mark it), never posted twice.
Discord refusing for now raises :class:`DeliverLater` (tried again later). A season with no
rated game, or a server with no season channel, gets no podium.
"""

from __future__ import annotations

import asyncio
import io
import logging

import discord

from bot.app import SequenceBot
from bot.pseudonyms import is_pseudonym, label
from bot.seasons import NONE, season_before, season_named, stored_plan
from bot.services.deliver_later import DeliverLater
from bot.skill import Rating
from bot.store.outbox import SeasonStepRow
from render.podium import Placed, render_podium

from .base import SequenceCog
from .common.alt_text import podium_alt
from .common.champion import role_problem
from .common.describe import counted, shown_rating

log = logging.getLogger(__name__)

NO_PINGS = discord.AllowedMentions.none()
#: The recent messages of the season channel searched for a podium already posted.
LOOK_BACK = 50


def podium_heading(season: str) -> str:
    """The first line of a season's podium message (how a podium already posted is found)."""
    return f"🏆 **Season {season} is over!**"


def placed(top: list[dict], names: dict[int, str]) -> list[Placed]:
    """The podium's players, equal ratings sharing a place."""
    shown: list[Placed] = []
    for index, row in enumerate(top):
        rating = Rating(row["mu"], row["sigma"])
        tied = (
            index > 0
            and rating.ordinal == Rating(top[index - 1]["mu"], top[index - 1]["sigma"]).ordinal
        )
        place = shown[-1].place if tied else index + 1
        shown.append(Placed(place, names.get(row["user_id"], "?"), shown_rating(rating)))
    return shown


class Seasons(SequenceCog):
    """Posts each ended season's podium (no commands of its own)."""

    async def cog_load(self) -> None:
        await super().cog_load()
        self.bot.season_clock.poster = self.post_podium

    async def cog_unload(self) -> None:
        self.bot.season_clock.poster = None
        await super().cog_unload()

    async def post_podium(self, end: SeasonStepRow) -> None:
        """Post the season's podium and give its champion role (once: a podium posted is found
        again). Discord refusing raises :class:`DeliverLater`, to be tried again."""
        try:
            await self._post(end)
        except discord.HTTPException as error:
            raise DeliverLater(f"HTTP {error.status}: {error.text}") from error

    async def _post(self, end: SeasonStepRow) -> None:
        guild = self.bot.get_guild(end.guild_id)
        top = list(end.payload.get("top", []))
        if guild is None or not top:
            return
        values = await self.bot.server_settings.values(end.guild_id)
        channel = guild.get_channel(values["season_channel"] or 0)
        heading = podium_heading(end.season)
        if isinstance(channel, discord.TextChannel | discord.Thread):
            async for message in channel.history(limit=LOOK_BACK):
                if message.author.id == guild.me.id and message.content.startswith(heading):
                    return  # posted before the process could mark it done
        champions = [
            row["user_id"]
            for row in top
            if row["mu"] == top[0]["mu"] and row["sigma"] == top[0]["sigma"]
        ]
        before = await self._champions_before(end.guild_id, values["season_plan"], end.season)
        role_line = await self._give_role(guild, values["champion_role"], champions, before)
        if not isinstance(channel, discord.TextChannel | discord.Thread):
            return
        names = {row["user_id"]: await self._name(guild, row["user_id"]) for row in top}
        shown = placed(top, names)
        png = await asyncio.to_thread(render_podium, f"Season {end.season}", shown)
        players = int(end.payload.get("players", len(top)))
        lines = [heading, f"The podium of {counted(players, 'rated player')}:"]
        lines += [
            f"**{p.place}.** {self._mention(u)} · {p.rating}"
            for p, u in zip(shown, names, strict=True)
        ]
        if role_line:
            lines.append(role_line)
        await channel.send(
            "\n".join(lines),
            file=discord.File(
                io.BytesIO(png),
                filename=f"season-{end.season}.png",
                description=podium_alt(end.season, shown, players),
            ),
            allowed_mentions=NO_PINGS,
        )

    async def _champions_before(self, guild_id: int, plan: object, name: str) -> list[int]:
        """The champions of the season before ``name`` (from its stored ratings): the role
        passes from them."""
        plans = stored_plan(plan)
        season = season_named(plans, name) if plans != NONE else None
        before = season_before(plans, season) if season is not None else None
        if before is None:
            return []
        rows = await self.bot.db.seasons.board(guild_id, before.name, 0, 3)
        return [row.user_id for row in rows if rows and row.rating == rows[0].rating]

    async def _give_role(
        self, guild: discord.Guild, role_id: int | None, users: list[int], before: list[int]
    ) -> str:
        """Give the champion role to ``users``, taking it from the champions ``before`` who
        are not; the podium's line about it ("" when no role is set)."""
        if role_id is None:
            return ""
        why = role_problem(guild, role_id)
        role = guild.get_role(role_id)
        changes = [(user, True) for user in users]
        changes += [(user, False) for user in before if user not in users]
        if why is None and role is not None:
            for user, given in changes:
                if is_pseudonym(user):
                    continue
                try:
                    member = guild.get_member(user) or await guild.fetch_member(user)
                    if given:
                        await member.add_roles(role, reason="Season champion")
                    else:
                        await member.remove_roles(role, reason="A new season's champion")
                except discord.NotFound:
                    continue  # left the server
                except discord.Forbidden as error:
                    why = f"Discord refused it ({error.text or error.status})"
                    break
        if why is not None:
            return f"⚠️ The champion role could not be given: {why}."
        return f"👑 {role.mention if role else 'The champion role'} goes to the champion."

    async def _name(self, guild: discord.Guild, user_id: int) -> str:
        if is_pseudonym(user_id):
            return label(user_id)
        member = guild.get_member(user_id)
        if member is None:
            try:
                member = await guild.fetch_member(user_id)
            except discord.NotFound:
                return f"Player {user_id}"
        return member.display_name

    @staticmethod
    def _mention(user_id: int) -> str:
        return label(user_id) if is_pseudonym(user_id) else f"<@{user_id}>"


async def setup(bot: SequenceBot) -> None:
    """Load the cog."""
    await bot.add_cog(Seasons(bot))
