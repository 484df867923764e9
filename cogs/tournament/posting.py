"""What the tournament tables' parts share: the bot, the service, posting to a channel or a
thread without raising, and the match message's text."""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING, Any

import discord

from bot.services.tournament import Progress, Snapshot, TournamentService
from bot.store.tournaments.records import MatchRecord

from ..common.describe import shown_name
from ..common.lengths import message_chunks
from ..common.threads import edit_message
from .messages import entrant_name, mentions

if TYPE_CHECKING:
    from bot.app import SequenceBot

log = logging.getLogger(__name__)

PINGS = discord.AllowedMentions(users=True, roles=False, everyone=False)
QUIET = discord.AllowedMentions.none()


def match_text(snapshot: Snapshot, match: MatchRecord) -> str:
    """The match message: who plays, how to start, the show-up deadline, who is here."""
    assert match.entrant_b is not None
    host = snapshot.entrants[match.entrant_a].user_ids[0]
    lines = [
        f"⚔️ {mentions(snapshot, match.entrant_a)} v {mentions(snapshot, match.entrant_b)}: your "
        f"**{shown_name(snapshot.tournament.name)}** match is ready.",
        f"Press **I'm here**: the game starts when everyone has (or <@{host}> presses **Start**).",
    ]
    if match.deadline is not None:
        stamp = int(match.deadline)
        lines.append(
            f"Show up by <t:{stamp}:t> (<t:{stamp}:R>): a side not checked in by then forfeits."
        )
    if match.checkins:
        lines.append("Here: " + ", ".join(f"<@{user}>" for user in match.checkins))
    return "\n".join(lines)


class TablesBase:
    """The state of the tournament tables and the posting their parts share."""

    def __init__(self, bot: SequenceBot, service: TournamentService) -> None:
        self.bot = bot
        self.service = service

    async def publish(self, progress: Progress) -> None:
        """Show what a step did (:mod:`.publish`)."""
        raise NotImplementedError

    def arm(self, match: MatchRecord) -> None:
        """Start a match's show-up clock (:mod:`.tables`)."""
        raise NotImplementedError

    def disarm(self, match_id: int) -> None:
        """Stop a match's show-up clock (:mod:`.tables`)."""
        raise NotImplementedError

    async def _ask_organiser(self, snapshot: Snapshot, match: MatchRecord, news: str) -> None:
        """Ping the organiser in the tournament's channel to report a match nobody can play
        (``news`` says why, ``{match}`` where it names the match)."""
        tournament = snapshot.tournament
        named = (
            f"{entrant_name(snapshot, match.entrant_a)} v "
            f"{entrant_name(snapshot, match.entrant_b)} (match #{match.id})"
        )
        channel = self._messageable(tournament.channel_id, tournament.guild_id)
        await self._send(
            channel,
            f"⚠️ {news.format(match=named)} <@{tournament.organiser_id}>, please report its "
            "result with `/tournament-admin report`.",
            allowed_mentions=PINGS,
        )

    async def _strip_check_in(self, match: MatchRecord) -> None:
        """Take the *I'm here* button off the match message."""
        if match.thread_id is None or match.message_id is None:
            return
        with contextlib.suppress(discord.HTTPException):
            await edit_message(self.bot, match.thread_id, match.message_id, view=None)

    def _messageable(self, channel_id: int, guild_id: int | None) -> Any:
        channel = self.bot.get_channel(channel_id)
        if channel is not None:
            return channel
        return self.bot.get_partial_messageable(channel_id, guild_id=guild_id)

    async def _send(
        self, channel: Any, content: str | None = None, **kwargs: Any
    ) -> discord.Message | None:
        """Send, logging (not raising) a refusal: the tournament itself is already saved.

        Content past Discord's limit goes out in several messages, whole lines each (the
        last one carries the rest of ``kwargs``, and is returned).
        """
        kwargs.setdefault("allowed_mentions", QUIET)
        *first, last = message_chunks(content.split("\n")) if content else [content]
        try:
            for part in first:
                await channel.send(part, allowed_mentions=kwargs["allowed_mentions"])
            return await channel.send(last, **kwargs)
        except discord.HTTPException as error:
            log.warning("Could not post to channel %s (HTTP %s)", channel.id, error.status)
            return None
