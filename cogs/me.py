"""``/sequence-me``: a member's own matters, in servers and in DMs (no default permissions).

``notify`` sets their turn DMs and quiet hours, ``away`` and ``back`` take them away from their
games for a while and back (:mod:`bot.services.away`), ``privacy`` says what the bot keeps
about them, ``export`` sends it to them as JSON files, and ``forget-me`` (after a confirmation)
takes their name and account out of it (:mod:`bot.services.forget` says how). Every answer is
ephemeral: only the member sees it. A top-level command of its own, with room to grow:
``/sequence`` is the table's (24 of its 25 places taken).
"""

from __future__ import annotations

import contextlib
import io
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.services.away import COMPUTER, PAUSE, Back, GoneAway
from bot.services.errors import UserError
from bot.services.export import PART_LIMIT, ExportService
from bot.services.forget import ForgetReport, ForgetService
from bot.services.quiet_hours import matching_zones

from .common.answering import Answering, answer_errors
from .common.components import Components
from .common.custom_ids import Templated
from .common.describe import counted
from .common.lookup import cog_of
from .common.quiet_input import NOTIFY_HOW, quiet_change
from .common.replays import forget_replays
from .common.replies import reply

if TYPE_CHECKING:
    from bot.app import SequenceBot

#: Files Discord takes in one message.
FILES_PER_MESSAGE = 10

PRIVACY = """\
🔒 **What this bot keeps about you**
• **Who you are:** your Discord user id, and the display name you had when you sat at a table \
or signed up for a tournament. Not your messages (the bot does not read them), roles or email.
• **Your games:** every table you sat at (its rules, seats and every move, with when it was \
made) and the game's shuffle, from which hands are dealt: **a hand is only ever shown to its \
owner**, never in a channel, an image or a log.
• **Results and ratings:** who played on which team, who won and how, the sequences you made \
and jacks you played, your rating in each server (and in each of its seasons, if it has \
seasons) and its change after each rated game, your totals, a season's podium.
• **Preferences:** your turn-DM setting (`/sequence-me notify`), and when Discord last refused \
a turn DM to you. **Time away:** each period you were away (`/sequence-me away`), for the \
yearly allowance.
• **Tournaments:** your entries (with your team) and their matches, check-ins, and the \
tournaments you organised.
• **Table talk:** the calls you made or ruled on. **Server settings:** who changed one last.

**For how long:** until you use `/sequence-me forget-me`. When a server removes the bot, its \
games in progress end and its settings are deleted; finished games and results stay. A replay \
GIF is kept for the 200 most recent replays.
**Who can see it:** in each server, its members see the boards, results, `/sequence stats`, \
`history` and `leaderboard` (yours included) and tournament standings. Your hand: only you. \
Whoever runs the bot can read its database and logs.
**Your choices:** `/sequence-me export` sends you your games as JSON files; \
`/sequence-me forget-me` replaces your name and id everywhere with an anonymous label (results \
stay, so everyone else's ratings stay right) and deletes your preferences."""


def forgotten_text(report: ForgetReport) -> str:
    """What a forget-me did, for the member."""
    entries = "entry" if report.entries == 1 else "entries"
    return (
        f"🧹 Done: you are now **{report.label}** in {counted(len(report.games), 'game')}, "
        f"{counted(report.results, 'result')} and {report.entries} tournament {entries} "
        f"(ratings in {counted(report.ratings, 'server')}); "
        f"{counted(report.preferences, 'preference')} deleted. Nothing links them to your "
        "account any more. Messages already posted in channels stay as they are (they belong to "
        "their servers)."
    )


def gone_text(gone: GoneAway, *, here: bool) -> str:
    """What going away did, for the member."""
    until = int(gone.period.until_at)
    where = "in this server" if here else "everywhere"
    how = (
        "your turn clock stops and the table waits for you"
        if gone.period.cover == PAUSE
        else "a computer plays your turns"
    )
    lines = [f"🏖️ You are away {where} until <t:{until}:f> (<t:{until}:R>): {how}."]
    if gone.games:
        listed = ", ".join(f"#{game}" for game in gone.games)
        lines.append(f"Your tables were told: {counted(len(gone.games), 'game')} ({listed}).")
    else:
        lines.append("You have no game going on now.")
    if gone.unrated:
        listed = ", ".join(f"#{game}" for game in gone.unrated)
        lines.append(f"A computer playing for you makes these games unrated: {listed}.")
    lines.append("No reminders or turn DMs meanwhile; `/sequence-me back` ends it early.")
    return "\n".join(lines)


def back_text(back: Back) -> str:
    """What coming back did, for the member."""
    if not back.games:
        return "👋 Welcome back: your time away is over."
    listed = ", ".join(f"#{game}" for game in back.games)
    return f"👋 Welcome back: your clock runs again in {listed}, and your tables were told."


class ForgetButton(
    Answering,
    Templated,
    discord.ui.DynamicItem[discord.ui.Button],
    custom_id="seq:forget:{user}:{answer:forget|keep}",
):
    """The confirmation of a forget-me (only for the member who asked: it is ephemeral, and
    checked again)."""

    def __init__(self, user: int, answer: str) -> None:
        self.user, self.answer = user, answer
        forget = answer == "forget"
        super().__init__(
            discord.ui.Button(
                label="Forget me" if forget else "Keep my data",
                style=discord.ButtonStyle.danger if forget else discord.ButtonStyle.secondary,
                custom_id=self.ids(user=user, answer=answer),
            )
        )

    async def clicked(self, interaction: discord.Interaction) -> None:
        if interaction.user.id != self.user:
            await reply(interaction, "This confirmation is not yours.")
            return
        if self.answer == "keep":
            await interaction.response.edit_message(content="Nothing was changed.", view=None)
            return
        cog = cog_of(interaction, Me)
        await interaction.response.defer()  # the rewrite grows with the games played
        try:
            report = await cog.forget.forget(self.user)
        except Exception:
            with contextlib.suppress(discord.HTTPException):
                await interaction.edit_original_response(view=None)
            raise
        await forget_replays(cog.bot.settings.database_path.parent / "replays", report.games)
        await interaction.edit_original_response(content=forgotten_text(report), view=None)


class Me(
    commands.GroupCog,
    group_name="sequence-me",
    group_description="Your own settings and data: turn DMs, what the bot keeps, a copy",
):
    """``/sequence-me`` (its failures answered by :mod:`cogs.common.answering`)."""

    def __init__(self, bot: SequenceBot) -> None:
        self.bot = bot
        self.export_service = ExportService(bot.db)
        self.forget = ForgetService(bot.db, bot.games, bot.ratings)
        #: The largest file sent, and the files a message holds.
        self.part_limit, self.files_per_message = PART_LIMIT, FILES_PER_MESSAGE
        super().__init__()
        answer_errors(*self.walk_app_commands())

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(ForgetButton)

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(ForgetButton)

    @app_commands.command(name="notify", description="Get a direct message when it is your turn")
    @app_commands.describe(
        setting="Turn DMs on or off",
        quiet_from="Quiet hours begin, like 22:00: a turn DM then waits for their end (off: none)",
        quiet_to="Quiet hours end, like 07:30",
        timezone="Your time zone for the quiet hours, like Europe/Berlin (default: UTC)",
    )
    @app_commands.choices(
        setting=[
            app_commands.Choice(name="on", value="on"),
            app_commands.Choice(name="off", value="off"),
        ]
    )
    async def notify(
        self,
        interaction: discord.Interaction[SequenceBot],
        setting: str | None = None,
        quiet_from: str | None = None,
        quiet_to: str | None = None,
        timezone: str | None = None,
    ) -> None:
        user_id = interaction.user.id
        quiet = await quiet_change(self.bot, user_id, quiet_from, quiet_to, timezone)
        lines = []
        if setting is not None:
            on = setting == "on"
            refused_before = await self.bot.turn_dms.choose(user_id, on)
            lines.append(
                "🔔 You will get a DM when it is your turn." if on else "🔕 No more turn DMs."
            )
            if refused_before:
                lines[-1] += (
                    " (A DM to you failed before: allow DMs from server members so they arrive.)"
                )
        if quiet is not None:
            hours = quiet or None
            await self.bot.turn_dms.set_quiet_hours(user_id, hours)
            lines.append(
                f"🌙 Quiet hours {hours.describe()}: a turn DM that falls in them comes when "
                "they end (the game's clock runs as ever)."
                if hours
                else "🌙 No quiet hours: turn DMs come at any time."
            )
        if not lines:
            raise UserError(NOTIFY_HOW)
        await reply(interaction, "\n".join(lines))

    @notify.autocomplete("timezone")
    async def timezone_choices(
        self, interaction: discord.Interaction[SequenceBot], current: str
    ) -> list[app_commands.Choice[str]]:
        """IANA time zone names containing what is typed."""
        return [app_commands.Choice(name=n, value=n) for n in matching_zones(current)]

    @app_commands.command(
        name="away", description="Away for a while: your turn clock stops, or a computer plays"
    )
    @app_commands.describe(
        until="For how long (like 3d or 1d12h), or until when (2026-12-24, or 2026-12-24 18:00)",
        cover="pause: your clock stops and the table waits; computer: a computer plays for you",
    )
    @app_commands.choices(
        cover=[
            app_commands.Choice(name="pause (your clock stops)", value=PAUSE),
            app_commands.Choice(
                name="computer (plays your turns; the game is unrated)", value=COMPUTER
            ),
        ]
    )
    async def away(
        self,
        interaction: discord.Interaction[SequenceBot],
        until: app_commands.Range[str, 1, 40],
        cover: str = PAUSE,
    ) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)  # one change a game
        gone = await self.bot.away.go(interaction.user.id, interaction.guild_id, until, cover)
        await reply(interaction, gone_text(gone, here=interaction.guild_id is not None))

    @app_commands.command(name="back", description="Back before your time away ends")
    async def back(self, interaction: discord.Interaction[SequenceBot]) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)  # one change a game
        back = await self.bot.away.back(interaction.user.id, interaction.guild_id)
        await reply(interaction, back_text(back))

    @app_commands.command(
        name="privacy", description="What the bot keeps about you, and for how long"
    )
    async def privacy(self, interaction: discord.Interaction[SequenceBot]) -> None:
        await reply(interaction, PRIVACY)

    @app_commands.command(
        name="export", description="Your games, results and ratings as JSON files"
    )
    async def export(self, interaction: discord.Interaction[SequenceBot]) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)  # grows with the games
        limit = min(self.part_limit, interaction.filesize_limit)
        parts = await self.export_service.export(interaction.user.id, self.bot.clock(), limit)
        day = datetime.fromtimestamp(self.bot.clock(), tz=UTC).strftime("%Y-%m-%d")
        files = [
            discord.File(
                io.BytesIO(part),
                filename=f"sequence-export-{day}"
                + (f"-part{n}-of-{len(parts)}" if len(parts) > 1 else "")
                + ".json",
            )
            for n, part in enumerate(parts, start=1)
        ]
        text = "📦 Your data, as JSON (the README's *Your data* section describes the format)" + (
            f", in {len(parts)} files." if len(parts) > 1 else "."
        )
        step = self.files_per_message
        for start in range(0, len(files), step):
            await interaction.followup.send(
                text if start == 0 else "",
                files=files[start : start + step],
                ephemeral=True,
            )

    @app_commands.command(
        name="forget-me", description="Replace your name everywhere with an anonymous label"
    )
    async def forget_me(self, interaction: discord.Interaction[SequenceBot]) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        await self.forget.check(interaction.user.id)
        view = Components()
        view.add_item(ForgetButton(interaction.user.id, "forget"))
        view.add_item(ForgetButton(interaction.user.id, "keep"))
        await reply(
            interaction,
            "⚠️ **Forget me?** Your name at every table, result and tournament becomes an "
            "anonymous label, your account is unlinked from them, and your preferences are "
            "deleted. The games and results stay (other players' ratings depend on them). "
            "This cannot be undone.",
            view=view,
        )


async def setup(bot: SequenceBot) -> None:
    """Load the cog."""
    await bot.add_cog(Me(bot))


__all__ = ["ForgetButton", "Me", "back_text", "forgotten_text", "gone_text"]
