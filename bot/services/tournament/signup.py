"""Sign-up: opening a tournament, entrants joining (alone or as a fixed team) and leaving
before the start, and the sign-up message."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from bot.services.caps import amount
from bot.services.errors import UserError
from bot.store.errors import ChannelBusyError
from bot.store.tournaments.records import AlreadyEnteredError, EntrantRecord, TournamentRecord
from bot.table.tournament import TournamentSettings, check_best_of

from .core import TournamentCore
from .standings import FORMATS

if TYPE_CHECKING:
    from bot.services.caps import Caps
    from bot.services.lobbies import Person

MAX_NAME = 60
#: A user, role or channel mention, or @everyone / @here, as Discord reads them in a message.
MENTION = re.compile(r"<(?:@[!&]?|#)\d+>|@(?:everyone|here)")


class SignUp(TournamentCore):
    """Before the start: who plays."""

    async def create(
        self,
        guild_id: int,
        channel_id: int,
        organiser: Person,
        name: str,
        fmt: str,
        team_size: int,
        settings: TournamentSettings,
        *,
        caps: Caps | None = None,
    ) -> TournamentRecord:
        """Open a tournament for sign-ups in a channel (within the organiser's and the
        server's ``caps``)."""
        name = " ".join(name.split())
        if not 1 <= len(name) <= MAX_NAME:
            raise UserError(f"Give the tournament a name of 1 to {MAX_NAME} characters.")
        if MENTION.search(name):  # its messages ping the players of each match
            raise UserError("A tournament's name cannot mention anyone: leave out the @.")
        if fmt not in FORMATS:
            raise UserError("The format must be round robin, Swiss or single elimination.")
        if team_size not in (1, 2, 3):
            raise UserError("Teams have 1, 2 or 3 players.")
        if settings.table.hints:
            raise UserError("Hints are not allowed in tournament games.")
        settings.table.but(teams=2).game_settings(2 * team_size)  # a clear error if unplayable
        if not 60 <= settings.show_up <= 86400:
            raise UserError("The show-up time must be between 1 minute and 1 day.")
        if settings.rounds is not None and fmt != "swiss":
            raise UserError(
                "rounds is for Swiss tournaments: a round robin or an elimination plays the "
                "rounds its entrants need. Leave it out."
            )
        if settings.rounds is not None and not 1 <= settings.rounds <= 20:
            raise UserError("A Swiss tournament has 1 to 20 rounds.")
        if settings.max_entrants is not None and settings.max_entrants < 2:
            raise UserError("A tournament takes at least 2 entrants.")
        check_best_of(settings)
        try:
            async with self.db.transaction():  # the caps' check and the write: one step
                if caps is not None:
                    await caps.may_open_tournament(guild_id, organiser.user_id)
                return await self.db.tournaments.create(
                    guild_id,
                    channel_id,
                    organiser.user_id,
                    name,
                    fmt,
                    team_size,
                    settings,
                    now=self.clock(),
                )
        except ChannelBusyError:
            raise UserError(
                "A tournament is already open in this channel: end it first, or use another "
                "channel."
            ) from None

    async def join(
        self, tournament_id: int, person: Person, partners: list[Person]
    ) -> EntrantRecord:
        """Sign up a player, or a team: the person and their partners."""
        async with self._locks(tournament_id):
            tournament = await self._get(tournament_id)
            if tournament.status != "signup":
                raise UserError("Sign-up is closed: this tournament has started.")
            size = tournament.team_size
            members = [person, *partners]
            if len({m.user_id for m in members}) != len(members):
                raise UserError("Each member of a team must be a different person.")
            if len(members) != size:
                if size == 1:
                    raise UserError("This tournament is for single players: join without partners.")
                partners_needed = "partner" if size == 2 else f"{size - 1} partners"
                raise UserError(
                    f"This tournament is for teams of {size}: sign up with "
                    f"`/tournament join` and name your {partners_needed}."
                )
            most = tournament.settings.max_entrants
            if most is not None and len(await self.db.tournaments.entrants(tournament_id)) >= most:
                raise UserError(f"This tournament is full: it takes {amount(most, 'entrant')}.")
            name = " & ".join(m.name for m in members)
            try:
                return await self.db.tournaments.add_entrant(
                    tournament_id,
                    name,
                    [{"user_id": m.user_id, "name": m.name} for m in members],
                    now=self.clock(),
                )
            except AlreadyEnteredError as error:
                who = "You are" if error.user_id == person.user_id else f"<@{error.user_id}> is"
                raise UserError(f"{who} already signed up for this tournament.") from None

    async def leave(self, tournament_id: int, user_id: int) -> EntrantRecord:
        """Withdraw (a whole team) before the start."""
        async with self._locks(tournament_id):
            tournament = await self._get(tournament_id)
            if tournament.status != "signup":
                raise UserError(
                    "The tournament has started: ask the organiser to drop you instead."
                )
            entrant = await self.db.tournaments.entrant_of(tournament_id, user_id)
            if entrant is None:
                raise UserError("You are not signed up for this tournament.")
            await self.db.tournaments.remove_entrant(entrant.id)
            return entrant

    async def set_message(
        self, tournament: TournamentRecord, message_id: int
    ) -> TournamentRecord | None:
        """Remember the sign-up message. Returns the tournament as it now stands (it may have
        started or ended while the message was posted: that is kept), or None if it is gone."""
        return await self.db.tournaments.set_message(tournament.id, message_id)
