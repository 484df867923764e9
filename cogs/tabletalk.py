"""Table talk: ``/sequence tabletalk``, the "Report table talk" message command, the decision
by the host or a moderator, and the Forfeit button for every member of a penalised team."""

from __future__ import annotations

import contextlib
import dataclasses
from functools import partial
from typing import ClassVar

import discord
from discord import app_commands

from bot.app import SequenceBot
from bot.services.errors import UserError
from bot.services.events import GameEnded, RulingMade
from bot.services.games import seat_of
from bot.services.rulings import describe_eligible, eligible
from bot.services.tabletalk import TableTalkService
from bot.store.games.records import GameRecord
from bot.store.tabletalk import ReportRecord
from bot.table.options import own_or_bot

from .base import SequenceCog, Subscription
from .common.answering import Answering, answer_errors
from .common.choices import TEAM_CHOICES
from .common.components import Components
from .common.custom_ids import Templated
from .common.describe import counted, seat_label, team_label
from .common.lookup import bot_of, cog_of
from .common.permissions import moderates
from .common.replies import reply, show_answer
from .common.threads import edit_message
from .hand.panel import build_hand_panel


class DecisionButton(
    Answering,
    Templated,
    discord.ui.DynamicItem[discord.ui.Button],
    custom_id="seq:tt:{report_id}:{verdict:uphold|dismiss|withdraw}",
):
    """Uphold or dismiss a table-talk call (who may: :mod:`bot.services.rulings`), or the
    caller withdraws it."""

    LOOKS: ClassVar[dict[str, tuple[str, discord.ButtonStyle]]] = {
        "uphold": ("Uphold", discord.ButtonStyle.danger),
        "dismiss": ("Dismiss", discord.ButtonStyle.secondary),
        "withdraw": ("Withdraw (caller)", discord.ButtonStyle.secondary),
    }

    def __init__(self, report_id: int, verdict: str) -> None:
        self.report_id, self.verdict = report_id, verdict
        label, style = self.LOOKS[verdict]
        custom_id = self.ids(report_id=report_id, verdict=verdict)
        super().__init__(discord.ui.Button(label=label, style=style, custom_id=custom_id))

    async def clicked(self, interaction: discord.Interaction) -> None:
        cog = cog_of(interaction, TableTalk)
        await cog.decide(interaction, self.report_id, self.verdict)


class ForfeitButton(
    Answering,
    Templated,
    discord.ui.DynamicItem[discord.ui.Button],
    custom_id="seq:ffopen:{game_id}",
):
    """Opens the clicking player's private forfeit chooser."""

    def __init__(self, game_id: int) -> None:
        self.game_id = game_id
        super().__init__(
            discord.ui.Button(
                label="Forfeit a card",
                emoji="🤐",
                style=discord.ButtonStyle.danger,
                custom_id=self.ids(game_id=game_id),
            )
        )

    async def clicked(self, interaction: discord.Interaction) -> None:
        bot = bot_of(interaction)
        record = bot.games.get(self.game_id)
        seat = seat_of(record, interaction.user.id)
        if seat is None:
            raise UserError("You are not playing in this game.")
        if not record.game.owed_forfeits[seat]:
            raise UserError("You owe no card for table talk.")
        panel = await build_hand_panel(record, seat)
        await panel.send(interaction)


class TableTalk(SequenceCog):
    """No coaching: call it, decide it, and the offending team forfeits."""

    components = (DecisionButton, ForfeitButton)

    def __init__(self, bot: SequenceBot) -> None:
        super().__init__(bot)
        self.service: TableTalkService = bot.tabletalk
        self.report_menu = app_commands.ContextMenu(
            name="Report table talk", callback=self.report_message
        )
        answer_errors(self.report_menu)

    def board_button(self, record: GameRecord) -> discord.ui.Item | None:
        """The board shows a Forfeit button while anyone still owes a card."""
        return ForfeitButton(record.id) if any(record.game.owed_forfeits) else None

    def subscriptions(self) -> list[Subscription]:
        return [(RulingMade, self.penalty_posted), (GameEnded, self.game_ended)]

    async def cog_load(self) -> None:
        await super().cog_load()
        self.bot.tree.add_command(self.report_menu)
        over: dict[int, int] = {}  # game id -> channel: a game that ended before a restart
        for report in await self.bot.db.tabletalk.pending():
            record = self.bot.games.records.get(report.game_id)
            if record is not None:
                self.schedule_stand(record, report)
            else:
                game = await self.bot.db.games.load(report.game_id)
                over[game.id] = game.channel_id
        for game_id, channel_id in over.items():
            await self.close_unruled(game_id, channel_id, "the game is over")

    async def cog_unload(self) -> None:
        await super().cog_unload()
        self.bot.tree.remove_command(self.report_menu.name, type=self.report_menu.type)

    @app_commands.command(
        name="tabletalk", description="Call table talk (coaching) on an opponent team"
    )
    @app_commands.choices(team=TEAM_CHOICES)
    async def tabletalk(self, interaction: discord.Interaction[SequenceBot], team: int) -> None:
        with self.bot.limits.counting(interaction, "tabletalk"):  # refusals: free
            report = await self.service.report(
                interaction.channel_id or 0, interaction.user.id, team
            )
        await self.announce(interaction, report)

    async def report_message(
        self, interaction: discord.Interaction[SequenceBot], message: discord.Message
    ) -> None:
        """The message command: the author of the message is the one who coached."""
        with self.bot.limits.counting(interaction, "tabletalk"):  # refusals: free
            record = self.bot.games.for_channel(interaction.channel_id or 0)
            seat = seat_of(record, message.author.id)
            if seat is None:
                raise UserError("The author of that message is not playing in this game.")
            team = record.game.team_of(seat)
            report = await self.service.report(
                interaction.channel_id or 0, interaction.user.id, team
            )
        await self.announce(interaction, report, quote=message.jump_url)

    async def announce(
        self,
        interaction: discord.Interaction[SequenceBot],
        report: ReportRecord,
        quote: str | None = None,
    ) -> None:
        """Post the call; with the house rule "calls stand", uphold it at once."""
        record = self.bot.games.get(report.game_id)
        where = f" ({quote})" if quote else ""
        text = (
            f"🗣️ <@{report.reporter_id}> calls **table talk** on {team_label(report.team)}{where}."
        )
        if record.options.tabletalk_stands:
            try:
                await reply(interaction, text, ephemeral=False)
            except discord.HTTPException:  # nobody saw the call: it is not upheld unseen
                await self._withdraw_unseen(report)
                raise
            await self.service.resolve(
                report.id, interaction.user.id, uphold=True, can_moderate=True
            )
            return
        view = Components()
        for verdict in DecisionButton.LOOKS:
            view.add_item(DecisionButton(report.id, verdict))
        call = self.service.call_of(record, report)
        who = describe_eligible(eligible(call), lambda team: team_label(team))
        text += f"\nWho rules: {who}."
        stands = self.service.stands_at(record, report, self.timeout(record))
        if stands is not None:
            text += f" If nobody rules, the call stands <t:{int(stands)}:R> unless withdrawn."
        try:
            await interaction.response.send_message(text, view=view)
            message = await interaction.original_response()
        except discord.HTTPException:  # nobody saw the call: it must not block the next one
            await self._withdraw_unseen(report)
            raise
        await self.service.set_message(report, message.id)
        self.schedule_stand(record, dataclasses.replace(report, message_id=message.id))

    async def _withdraw_unseen(self, report: ReportRecord) -> None:
        """Withdraw a call Discord refused to show: nobody could see or rule on it, and a
        pending call would refuse the next call on the same team."""
        await self.service.resolve(
            report.id,
            report.reporter_id,
            uphold=False,
            can_moderate=False,
            withdraw=True,
            asked=False,  # the bot's own: at a table paused meanwhile too
        )

    def timeout(self, record: GameRecord) -> int:
        """How long a call nobody may rule on waits before it stands: the game's own (fixed
        when its lobby opened), or the bot's for a game stored before games had one."""
        return own_or_bot(
            record.options.table_talk_ruling_timeout, self.bot.settings.table_talk_ruling_timeout
        )

    def schedule_stand(self, record: GameRecord, report: ReportRecord) -> None:
        """If nobody but a moderator may rule, the call stands by itself after the timeout."""
        timeout = self.timeout(record)
        due = self.service.stands_at(record, report, timeout)
        if due is not None:
            key = ("call-stands", report.id)
            stand = partial(self._stand, report, record.channel_id, timeout)
            self.bot.scheduler.at(key, due, stand)

    async def _stand(self, report: ReportRecord, channel_id: int, timeout: int) -> None:
        try:
            resolved, _ = await self.service.resolve(
                report.id, None, uphold=True, can_moderate=False, timeout=timeout
            )
        except UserError:
            return  # ruled on or withdrawn meanwhile, or the game is over
        if report.message_id is not None:
            with contextlib.suppress(discord.HTTPException):
                await edit_message(
                    self.bot,
                    channel_id,
                    report.message_id,
                    content=f"🗣️ Table talk on {team_label(resolved.team)}: nobody ruled in "
                    "time and the call was not withdrawn, so it **stands** ⚖️.",
                    view=None,
                )

    async def decide(self, interaction: discord.Interaction, report_id: int, verdict: str) -> None:
        """A button on the call: uphold, dismiss, or (the caller) withdraw."""
        report, _ = await self.service.resolve(
            report_id,
            interaction.user.id,
            uphold=verdict == "uphold",
            can_moderate=await moderates(interaction),
            withdraw=verdict == "withdraw",
        )
        if verdict == "withdraw":
            verdict = "withdrawn"
        else:
            verdict = "upheld ⚖️" if report.status == "upheld" else "dismissed"
        text = f"🗣️ Table talk on {team_label(report.team)} was **{verdict}** by <@{interaction.user.id}>."  # noqa: E501
        await show_answer(interaction, text, None)

    async def game_ended(self, event: GameEnded) -> None:
        """The calls nobody ruled on before the game ended are closed."""
        why = "the game was cancelled" if event.cancelled else "the game ended"
        await self.close_unruled(event.game_id, event.record.channel_id, why)

    async def close_unruled(self, game_id: int, channel_id: int, why: str) -> None:
        """Close the calls of a game that is over: each message says so, without its buttons."""
        for report in await self.service.close_unruled(game_id):
            self.bot.scheduler.cancel(("call-stands", report.id))
            if report.message_id is None:
                continue
            with contextlib.suppress(discord.HTTPException):
                await edit_message(
                    self.bot,
                    channel_id,
                    report.message_id,
                    content=f"🗣️ The table-talk call on {team_label(report.team)} was not "
                    f"ruled on: {why}.",
                    view=None,
                )

    async def penalty_posted(self, event: RulingMade) -> None:
        """After an upheld call: tell the offending team's people to forfeit, with the Forfeit
        button (its computers forfeit by themselves)."""
        outcome = event.outcome
        if outcome is None:
            return
        record = dataclasses.replace(event.record, game=outcome.game)
        owed = record.game.owed_forfeits
        # The penalised team only: another team's members who still owe were told already.
        owing = [s for s in record.game.settings.seats_of(event.report.team) if owed[s]]
        if not owing:
            await self.bot.table.notice(record, "The penalised team has no cards left to forfeit.")
            return
        owing = [s for s in owing if not record.seats[s].is_computer]
        if not owing:
            return
        if all(owed[seat] == 1 for seat in owing):
            names = ", ".join(seat_label(record, seat, mention=True) for seat in owing)
            what = "each of you forfeits one card"
        else:  # called again before forfeiting: some owe more than one
            names = ", ".join(
                f"{seat_label(record, seat, mention=True)} ({counted(owed[seat], 'card')})"
                for seat in owing
            )
            what = "each of you forfeits as many cards"
        view = Components()
        view.add_item(ForfeitButton(record.id))
        await self.bot.table.notice(
            record,
            f"🤐 {names}: {what} of your choice (no replacement) before playing again. "
            "Press **Forfeit a card**.",
            view=view,
        )


async def setup(bot: SequenceBot) -> None:
    """Load the cog."""
    await bot.add_cog(TableTalk(bot))
