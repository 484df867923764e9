"""``/sequence draw``: a team offers a draw; a public message with Accept and Decline buttons,
one player answering for each other team. The message is edited when the offer is accepted,
declined, lapses (the game moved on) or expires."""

from __future__ import annotations

import contextlib
from functools import partial

import discord
from discord import app_commands

from bot.app import SequenceBot
from bot.services.draws import COOLDOWN_TURNS, DrawService, DrawState, open_offer
from bot.services.errors import UserError
from bot.services.events import DrawOfferClosed, DrawOffered
from bot.services.votes import ACCEPTED, DECLINED, EXPIRED
from bot.store.games.records import GameRecord
from bot.store.votes import TeamVote

from .base import SequenceCog, Subscription
from .common.answers import AnswerButton
from .common.components import Components
from .common.describe import seat_label, team_label
from .common.lookup import cog_of
from .common.replies import show_answer
from .common.threads import edit_message


class DrawButton(
    AnswerButton, custom_id="seq:drawoffer:{game_id}:{count}:{answer:accept|decline}"
):
    """Accept or decline a draw offer (for the clicker's team; re-checked by the service)."""

    YES = "accept"
    LABELS = ("Accept the draw", "Decline")

    async def clicked(self, interaction: discord.Interaction) -> None:
        cog = cog_of(interaction, Draws)
        state = await cog.service.answer(
            self.game_id, interaction.user.id, self.count, accept=self.agrees
        )
        text, view = offer_message(state.record, state)
        await show_answer(interaction, text, view)


def offer_message(record: GameRecord, state: DrawState) -> tuple[str, Components | None]:
    """The public offer: who offered, who must still answer, or how it ended."""
    offer = state.offer
    team = team_label(offer.team)
    offerer = next((s for s in offer.seats if record.game.team_of(s) == offer.team), None)
    who = seat_label(record, offerer, mention=True) if offerer is not None else team
    if state.status == ACCEPTED:
        return "🤝 **Draw agreed.** Every team accepted: the game is drawn.", None
    if state.status == DECLINED:
        by = team_label(state.declined_by or 0)
        return (
            f"🤝 The draw offer of {team} was **declined** by {by}. {team} may offer again "
            f"after {COOLDOWN_TURNS} of its own turns.",
            None,
        )
    agreed = sorted({record.game.team_of(s) for s in offer.seats} - {offer.team})
    accepted = f" Accepted by {', '.join(team_label(t) for t in agreed)}." if agreed else ""
    waiting = ", ".join(team_label(t) for t in state.waiting_teams)
    expires = f" or <t:{int(offer.expires_at)}:R>" if offer.expires_at else ""
    text = (
        f"🤝 {who} offers a **draw** for {team}.{accepted}\n"
        f"Waiting for: {waiting} (one player answers for each team). The offer lapses when "
        f"the game moves on{expires}."
    )
    view = Components()
    view.add_item(DrawButton(record.id, offer.move_count, "accept"))
    view.add_item(DrawButton(record.id, offer.move_count, "decline"))
    return text, view


def closed_text(offer: TeamVote, status: str) -> str:
    """The offer's message once it lapsed by itself."""
    why = "nobody answered in time" if status == EXPIRED else "the game moved on"
    return f"🤝 The draw offer of {team_label(offer.team)} **lapsed**: {why}."


class Draws(SequenceCog):
    """Draw by agreement."""

    components = (DrawButton,)

    def __init__(self, bot: SequenceBot) -> None:
        super().__init__(bot)
        self.service: DrawService = bot.draws

    def subscriptions(self) -> list[Subscription]:
        return [(DrawOffered, self.offered), (DrawOfferClosed, self.closed)]

    async def cog_load(self) -> None:
        await super().cog_load()
        for record in self.bot.games.records.values():
            offer = open_offer(record.votes)
            if offer is not None:
                self.schedule(record.id, offer)

    @app_commands.command(name="draw", description="Offer a draw; every other team must accept")
    async def draw(self, interaction: discord.Interaction[SequenceBot]) -> None:
        with self.bot.limits.counting(interaction, "draw"):  # refusals: free
            record = self.bot.games.for_channel(interaction.channel_id or 0)
            state = await self.service.offer(record.id, interaction.user.id)
        text, view = offer_message(state.record, state)
        if view is None:
            await interaction.response.send_message(text)
            return
        try:
            await interaction.response.send_message(text, view=view)
        except discord.HTTPException:  # nobody saw the offer: nobody could answer it
            await self._expire(record.id, state.offer)
            raise
        message = await interaction.original_response()
        await self.remember(state.record, state.offer, message)

    async def remember(
        self, record: GameRecord, offer: TeamVote, message: discord.Message
    ) -> None:
        """Keep the offer's message; one that lapsed meanwhile is edited to say so."""
        if not await self.service.set_message(record.id, offer, message.id):
            with contextlib.suppress(discord.HTTPException):
                await edit_message(
                    self.bot,
                    record.channel_id,
                    message.id,
                    content=closed_text(offer, "lapsed"),
                    view=None,
                )

    def schedule(self, game_id: int, offer: TeamVote) -> None:
        """The offer lapses by itself at its time (resumed at start-up)."""
        if offer.expires_at is not None:
            self.bot.scheduler.at(
                ("draw-offer", game_id), offer.expires_at, partial(self._expire, game_id, offer)
            )

    async def _expire(self, game_id: int, offer: TeamVote) -> None:
        with contextlib.suppress(UserError):  # answered, lapsed, or the game is over
            await self.service.expire(game_id, offer)

    async def offered(self, event: DrawOffered) -> None:
        """Arm the offer's expiry; a computer team's offer gets its public message here."""
        self.schedule(event.game_id, event.offer)
        if event.actor_id is not None:
            return  # a player's offer is the answer to their command
        state = DrawState(
            event.record,
            event.offer,
            "open",
            tuple(
                t
                for t in event.record.game.active_teams()
                if t not in {event.record.game.team_of(s) for s in event.offer.seats}
            ),
        )
        text, view = offer_message(event.record, state)
        message = await self.bot.table.notice(event.record, text, view=view)
        if message is not None:
            await self.remember(event.record, event.offer, message)

    async def closed(self, event: DrawOfferClosed) -> None:
        """An offer ended: drop its timer; one that lapsed or expired says so on its message."""
        self.bot.scheduler.cancel(("draw-offer", event.game_id))
        offer = event.offer
        if event.status in (ACCEPTED, DECLINED) or offer.message_id is None:
            return  # the answer's click edits the message itself
        with contextlib.suppress(discord.HTTPException):
            await edit_message(
                self.bot,
                event.record.channel_id,
                offer.message_id,
                content=closed_text(offer, event.status),
                view=None,
            )


async def setup(bot: SequenceBot) -> None:
    """Load the cog."""
    await bot.add_cog(Draws(bot))
