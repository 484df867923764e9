"""``/sequence clock``: what players can do about the turn clock of a slow game. ``give``: a
player of another team gives the player on turn one more day (also the "+1 day" button under a
reminder), once per turn per team; the table is told."""

from __future__ import annotations

import discord

from bot.app import SequenceBot
from bot.services.events import TimeGiven
from bot.services.give_time import DAY
from bot.services.timing import clock_stopped
from bot.store.games.records import GameRecord
from bot.table.bank import is_bank, is_timed
from bot.table.options import format_duration

from .base import SequenceCog, SequenceSubgroup, Subscription
from .common.answering import Answering
from .common.components import Components
from .common.custom_ids import Templated
from .common.describe import seat_label
from .common.lookup import cog_of
from .common.replies import reply

#: The button's label: the time one gift adds.
GIVE_LABEL = f"+{format_duration(DAY)}"


class GiveTimeButton(
    Answering,
    Templated,
    discord.ui.DynamicItem[discord.ui.Button],
    custom_id="seq:giveday:{game}:{revision}",
):
    """Under a reminder: give the player on turn one more day, if the game is still at
    ``revision`` (the turn the reminder was for; the clicker's seat and team are checked by
    the service)."""

    def __init__(self, game: int, revision: int) -> None:
        self.game, self.revision = game, revision
        super().__init__(
            discord.ui.Button(
                label=GIVE_LABEL,
                emoji="⏳",
                style=discord.ButtonStyle.secondary,
                custom_id=self.ids(game=game, revision=revision),
            )
        )

    async def clicked(self, interaction: discord.Interaction) -> None:
        await cog_of(interaction, Clock).give(interaction, self.game, self.revision)


def give_time_view(record: GameRecord) -> Components | None:
    """The "+1 day" button for the turn being played, on a table with a time limit per turn
    or a bank."""
    game = record.game
    if (
        not is_timed(record.options)
        or game.is_over()
        or clock_stopped(game, len(record.seats))
    ):
        return None
    view = Components()
    view.add_item(GiveTimeButton(record.id, record.revision))
    return view


def one_more_day(record: GameRecord) -> str:
    """What a gift gives: one more day (in the player's bank, at a bank table)."""
    return "one more day in their bank" if is_bank(record.options) else "one more day"


class Clock(SequenceCog):
    """Give time to the player on turn."""

    components = (GiveTimeButton,)

    clock = SequenceSubgroup(name="clock", description="The turn clock of a slow game")

    def subscriptions(self) -> list[Subscription]:
        return [(TimeGiven, self.time_given)]

    @clock.command(
        name="give",
        description="Give the player on turn one more day (a player of another team; once a turn)",
    )
    async def give_command(self, interaction: discord.Interaction[SequenceBot]) -> None:
        record = self.bot.games.for_channel(interaction.channel_id or 0)
        await self.give(interaction, record.id, record.revision)

    async def give(self, interaction: discord.Interaction, game_id: int, revision: int) -> None:
        """Give a day through the service; the giver is answered, the table told by the
        event."""
        gift = await self.bot.give_time.give_day(
            game_id, interaction.user.id, expected_revision=revision
        )
        who = seat_label(gift.record, gift.event.seat)
        await reply(
            interaction,
            f"⏳ You gave {who} {one_more_day(gift.record)}: the turn now ends "
            f"<t:{int(gift.event.due_at)}:R>.",
        )

    async def time_given(self, event: TimeGiven) -> None:
        """Tell the table who gave whom a day, and when the turn now ends."""
        record = event.record
        await self.bot.table.notice(
            record,
            f"⏳ {seat_label(record, event.giver)} gave {seat_label(record, event.seat)} "
            f"{one_more_day(record)}: the turn now ends <t:{int(event.due_at)}:R>.",
        )


async def setup(bot: SequenceBot) -> None:
    """Load the cog."""
    await bot.add_cog(Clock(bot))
