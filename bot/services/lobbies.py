"""Lobbies: open, join, leave, switch team, kick, add computers, cancel and start a game."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.game.ai import LEVELS
from bot.game.settings import MAX_PLAYERS
from bot.store.errors import NotFoundError
from bot.store.lobbies import LookingCall, SeekCall
from bot.store.seats import Seat
from bot.table.options import TableOptions

from .errors import UserError
from .lobby_seating import (
    computer_name,
    find_computer,
    freeze_teams,
    lobby_team_count,
    seat_alternately,
    set_seat_team,
)
from .locks import KeyedLocks
from .looking import LookingCalls
from .rematch import RematchCalls
from .seek_tables import SeekTables, require_ready
from .series import require_accepted, series_deal
from .timing import turn_timers

if TYPE_CHECKING:
    from bot.services.caps import Caps
    from bot.store.base import Store
    from bot.store.games.records import GameRecord
    from bot.store.lobbies import LobbyRecord, MatchLink

    from .games import GameService


@dataclass(frozen=True)
class Person:
    """A Discord user as the services see them: an id and a display name."""

    user_id: int
    name: str


class LobbyService(LookingCalls, RematchCalls, SeekTables):
    """The lobby of each channel, kept in the store (its call for players: :mod:`.looking`;
    its rematches: :mod:`.rematch`; the tables ``/sequence find`` seats: :mod:`.seek_tables`)."""

    def __init__(
        self,
        db: Store,
        clock: Callable[[], float],
        new_seed: Callable[[], int] = lambda: secrets.randbits(62),
        *,
        games: GameService | None = None,
        caps: Caps | None = None,
    ) -> None:
        self.db = db
        self.clock = clock
        self.new_seed = new_seed
        self.games = games
        self.caps = caps
        self._locks = KeyedLocks()

    async def get(self, channel_id: int) -> LobbyRecord:
        """The open lobby of a channel, or a clear error."""
        lobby = await self.db.lobbies.get_for_channel(channel_id)
        if lobby is None:
            if await self.db.games.active_for_channel(channel_id) is not None:
                raise UserError(
                    "A game is being played here, and its seats are taken: open a lobby in a "
                    "thread for another game."
                )
            raise UserError("There is no open lobby here: open one with `/sequence new`.")
        return lobby

    async def for_button(self, channel_id: int, lobby_id: int) -> LobbyRecord:
        """The open lobby a message's button was made for, or "closed" (ids are never reused)."""
        lobby = await self.db.lobbies.get_for_channel(channel_id)
        if lobby is None or lobby.id != lobby_id:
            raise UserError("This lobby is closed.")
        return lobby

    async def expire(self, lobby_id: int, channel_id: int) -> LobbyRecord | None:
        """Close a lobby nobody started in time; None if it was already closed or started."""
        async with self._locks(channel_id):
            lobby = await self.db.lobbies.get(lobby_id)
            if lobby is None or not await self.db.lobbies.delete(lobby_id, self.clock()):
                return None
            return lobby

    async def may_open(self, guild_id: int, host_id: int) -> None:
        """Refuse, before anything is made for it (a thread of its own), a lobby that
        :meth:`open` would refuse for the caps; ``open`` checks them again as it writes."""
        if self.caps is not None:
            async with self.db.transaction():
                await self.caps.may_open_lobby(guild_id, host_id)

    async def open(
        self,
        guild_id: int,
        channel_id: int,
        host: Person,
        options: TableOptions,
        *,
        looking: bool = False,
    ) -> LobbyRecord:
        """Open a lobby with the host in the first seat (the caps' check and the write: one
        transaction); ``looking``: the server has a looking-for-game role it may ping."""
        async with self._locks(channel_id), self.db.transaction():
            if await self.db.lobbies.get_for_channel(channel_id) is not None:
                raise UserError("A lobby is already open here: join it, or cancel it first.")
            if await self.db.games.active_for_channel(channel_id) is not None:
                raise UserError(
                    "A game is being played here: one game per channel. Open a thread for another."
                )
            if self.caps is not None:
                await self.caps.may_open_lobby(guild_id, host.user_id)
            return await self.db.lobbies.create(
                guild_id,
                channel_id,
                host.user_id,
                options,
                now=self.clock(),
                seats=[_seat(host, None)],
                looking=LookingCall() if looking else None,
            )

    async def join(self, channel_id: int, person: Person) -> LobbyRecord:
        """Take a seat (the cap's check and the write: one transaction)."""
        async with self._locks(channel_id), self.db.transaction():
            lobby = await self.get(channel_id)
            if any(seat.user_id == person.user_id for seat in lobby.seats):
                raise UserError("You are already in this lobby.")
            if len(lobby.seats) >= MAX_PLAYERS:
                raise UserError(f"The lobby is full: {MAX_PLAYERS} players at most.")
            match = lobby.match
            team = None
            if match is not None:
                sides = await self._match_sides(match)
                if person.user_id not in sides:
                    raise UserError(
                        "This lobby is a tournament match: only the players drawn for it sit here."
                    )
                team = sides[person.user_id]  # back on their own side
            elif self.caps is not None:
                await self.caps.may_take_seat(person.user_id, lobby.guild_id)
            if lobby.seek is not None:  # a seekers' table: a free seat, then Ready
                if len(lobby.seats) >= lobby.seek.players:
                    raise UserError("This table is full: every seat was found for it.")
                waiting = (*lobby.seek.waiting, person.user_id)
                lobby.seek = SeekCall(waiting, lobby.seek.players)
            lobby.seats.append(_seat(person, team))
            await self.db.lobbies.save(lobby)
            return lobby

    async def leave(self, channel_id: int, user_id: int) -> tuple[LobbyRecord, bool]:
        """Leave the lobby; when the host leaves, the next person hosts (or the lobby closes,
        but for a tournament match's, which stays open for its players to sit down again).
        Returns the lobby and whether it is still open."""
        async with self._locks(channel_id):
            lobby = await self.get(channel_id)
            if not any(seat.user_id == user_id for seat in lobby.seats):
                raise UserError("You are not in this lobby.")
            lobby.seats = [seat for seat in lobby.seats if seat.user_id != user_id]
            humans = [seat for seat in lobby.seats if not seat.is_computer]
            if not humans and lobby.match is None:  # a match's stays for it
                await self.db.lobbies.delete(lobby.id, self.clock())
                return lobby, False
            if lobby.host_id == user_id and humans:
                lobby.host_id = humans[0].user_id
            await self.db.lobbies.save(lobby)
            return lobby, True

    async def switch_team(self, channel_id: int, user_id: int) -> LobbyRecord:
        """Move to the next team (Blue -> Green -> [Red ->] Blue)."""
        async with self._locks(channel_id):
            lobby = await self.get(channel_id)
            _require_open_seating(lobby)
            _find(lobby, user_id, "You are not in this lobby: join it first.")
            teams = freeze_teams(lobby)
            set_seat_team(lobby, user_id, (teams[user_id] + 1) % lobby_team_count(lobby))
            await self.db.lobbies.save(lobby)
            return lobby

    async def set_team(
        self, channel_id: int, actor_id: int, target_id: int, team: int
    ) -> LobbyRecord:
        """The host puts a player (or a computer) on a team."""
        async with self._locks(channel_id):
            lobby = await self.get(channel_id)
            _require_open_seating(lobby)
            _require_host(lobby, actor_id, "choose teams")
            _find(lobby, target_id, "That player is not in this lobby.")
            if not 0 <= team < lobby_team_count(lobby):
                raise UserError("There is no such team at this table.")
            freeze_teams(lobby)
            set_seat_team(lobby, target_id, team)
            await self.db.lobbies.save(lobby)
            return lobby

    async def set_computer_team(
        self, channel_id: int, actor_id: int, name: str, team: int
    ) -> tuple[LobbyRecord, str]:
        """The host puts a computer player on a team, by its name as the lobby shows it (or
        the start of it), or by the seat id the autocomplete offers; the lobby and the name."""
        lobby = await self.get(channel_id)
        _require_host(lobby, actor_id, "choose teams")
        seat = find_computer(lobby, name)
        return await self.set_team(channel_id, actor_id, seat.user_id, team), seat.name

    async def kick(self, channel_id: int, actor_id: int, target_id: int) -> LobbyRecord:
        """The host removes a player or a computer from the lobby."""
        async with self._locks(channel_id):
            lobby = await self.get(channel_id)
            _require_open_seating(lobby)
            _require_host(lobby, actor_id, "remove players")
            if target_id == actor_id:
                raise UserError("You cannot kick yourself: use Leave.")
            _find(lobby, target_id, "That player is not in this lobby.")
            lobby.seats = [seat for seat in lobby.seats if seat.user_id != target_id]
            await self.db.lobbies.save(lobby)
            return lobby

    async def kick_computer(
        self, channel_id: int, actor_id: int, name: str
    ) -> tuple[LobbyRecord, str]:
        """The host removes a computer player, by its name as the lobby shows it (or the start
        of it), or by the seat id the autocomplete offers; returns the lobby and the name."""
        lobby = await self.get(channel_id)
        _require_host(lobby, actor_id, "remove players")
        seat = find_computer(lobby, name)
        return await self.kick(channel_id, actor_id, seat.user_id), seat.name

    async def _require_not_match(self, lobby: LobbyRecord) -> None:
        """Refuse to close a tournament match's lobby: its players could then never start
        the match, and one who checks in alone would win it by forfeit."""
        match = lobby.match
        if match is None:
            return
        tournament = await self.db.tournaments.get(match.tournament_id)
        organiser = f" (<@{tournament.organiser_id}>)" if tournament is not None else ""
        raise UserError(
            "This lobby is a tournament match: it stays open until the match is played or "
            f"decided. The organiser{organiser} can decide it with `/tournament-admin report`."
        )

    async def _match_sides(self, match: MatchLink) -> dict[int, int]:
        """The people drawn for a tournament match, each with the team they play on (the
        first entrant's members Blue, the second's Green)."""
        record = await self.db.tournaments.match(match.match_id)
        if record is None:
            return {}
        entrants = {e.id: e for e in await self.db.tournaments.entrants(record.tournament_id)}
        return {
            user: team
            for team, side in enumerate((record.entrant_a, record.entrant_b))
            if side in entrants
            for user in entrants[side].user_ids
        }

    async def add_computer(
        self, channel_id: int, actor_id: int, level: str, team: int | None = None
    ) -> LobbyRecord:
        """Seat a computer player (host only)."""
        if level not in LEVELS:
            raise UserError(f"Unknown level {level!r}: choose easy, medium or hard.")
        async with self._locks(channel_id):
            lobby = await self.get(channel_id)
            _require_open_seating(lobby)
            _require_host(lobby, actor_id, "add computer players")
            if len(lobby.seats) >= MAX_PLAYERS:
                raise UserError(f"The lobby is full: {MAX_PLAYERS} players at most.")
            taken = {seat.user_id for seat in lobby.seats}
            number = next(n for n in range(1, 100) if -n not in taken)
            name = f"{computer_name(number)} ({level} bot)"
            lobby.seats.append(Seat(-number, name, team, level))
            if team is not None and not 0 <= team < lobby_team_count(lobby):
                raise UserError("There is no such team at this table.")
            await self.db.lobbies.save(lobby)
            return lobby

    async def set_message(self, lobby: LobbyRecord, message_id: int) -> LobbyRecord | None:
        """Remember the lobby message so that it can be edited. Returns the lobby as it now
        stands (someone may have joined or left since the message was posted: their change is
        kept), or None if it closed meanwhile."""
        return await self.db.lobbies.set_message(lobby.id, message_id)

    async def cancel(self, channel_id: int, actor_id: int, moderator: bool) -> LobbyRecord:
        """Close the lobby (the host, or a ``moderator`` of the server's tables); never a
        tournament match's, which only the match's result closes."""
        async with self._locks(channel_id):
            lobby = await self.get(channel_id)
            await self._require_not_match(lobby)
            if actor_id != lobby.host_id and not moderator:
                raise UserError("Only the host or a moderator can cancel a lobby.")
            await self.db.lobbies.delete(lobby.id, self.clock())
            return lobby

    async def start(self, channel_id: int, actor_id: int) -> GameRecord:
        """Seat the teams alternately, cut for the dealer, deal: the game begins."""
        async with self._locks(channel_id):
            lobby = await self.get(channel_id)
            _require_host(lobby, actor_id, "start the game")
            require_accepted(lobby)
            require_ready(lobby)
            options = lobby_options(lobby)
            players = len(lobby.seats)
            if players < 2:
                raise UserError(
                    "Sequence needs at least 2 players: invite a friend or add a computer."
                )
            settings = options.game_settings(players)
            seats = seat_alternately(lobby, settings.teams)
            game = series_deal(settings, options, self.new_seed)
            now = self.clock()
            try:
                async with self.db.transaction():  # the lobby closes, the game and timers begin
                    record = await self.db.games.create(
                        lobby.guild_id,
                        channel_id,
                        game,
                        seats,
                        options.but(host_id=lobby.host_id, banks=()),
                        lobby.message_id,
                        now=now,
                        lobby_id=lobby.id,
                    )
                    timers = turn_timers(record, game, record.options, now)
                    await self.db.timers.replace(record.id, timers)
                    events = [] if self.games is None else await self.games.begin(record, timers)
            except NotFoundError:  # closed meanwhile (a tournament decided its match)
                raise UserError("This lobby is closed.") from None
            if self.games is not None:
                self.games.started(record, events)
            return record


def lobby_options(lobby: LobbyRecord) -> TableOptions:
    """The options the lobby's game starts with: a game with a computer is never rated."""
    options = lobby.options
    if options.rated and any(seat.is_computer for seat in lobby.seats):
        return options.but(rated=False)
    return options


def _seat(person: Person, team: int | None) -> Seat:
    return Seat(person.user_id, person.name, team)


def _find(lobby: LobbyRecord, user_id: int, missing: str) -> Seat:
    for seat in lobby.seats:
        if seat.user_id == user_id:
            return seat
    raise UserError(missing)


def _require_open_seating(lobby: LobbyRecord) -> None:
    """Refuse to change a tournament match's seating: its teams are the entrants drawn for it
    (a game seated otherwise is stopped, and the match seated again)."""
    if lobby.match is not None:
        raise UserError(
            "This lobby is a tournament match: its players sit on the sides drawn for them, "
            "and nobody else joins."
        )


def _require_host(lobby: LobbyRecord, actor_id: int, action: str) -> None:
    if actor_id != lobby.host_id:
        raise UserError(f"Only the host (<@{lobby.host_id}>) can {action}.")
