"""Rematch: a finished game's players ask for another, with the same seats, options and
computers, in the same channel or thread; the next game of a series.

The Rematch button on a final board opens a lobby (:class:`~bot.store.lobbies.RematchCall` kept
with its stored options) under the channel's lock, in one transaction with the caps' checks: two
clicks at once open one lobby, and the other is told. Each person of the game before presses
Accept (a seat not accepted is not ready: :mod:`.series`); one who declines frees their seat for
anyone to join. The host (who pressed Rematch) seats the teams as they were, shuffled, or each
player one seat on. The series (its game number, the game it follows, the score, who dealt) is
kept in the table's options, which the game keeps.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from bot.store.errors import NotFoundError
from bot.store.games.records import CANCELLED, FINISHED
from bot.store.lobbies import RematchCall
from bot.store.seats import Seat
from bot.table.series import series_score_after

from .caps import CapReached
from .errors import UserError

if TYPE_CHECKING:
    from bot.store.base import Store
    from bot.store.games.records import GameRecord
    from bot.store.lobbies import LobbyRecord

    from .caps import Caps
    from .locks import KeyedLocks

#: How the host seats a rematch: as the game before, teams drawn at random, each player one
#: seat on (two players swap colours), with the words the lobby shows.
ARRANGEMENTS = {
    "same": "same teams",
    "shuffled": "shuffled teams",
    "rotated": "rotated seats",
}


def arranged_seats(
    previous: GameRecord, seats: list[Seat], arrangement: str, rng: random.Random
) -> list[Seat]:
    """The lobby's ``seats`` seated by ``arrangement``, in play order with their teams. The
    people of the game before keep (or rotate) their places; anyone who took a freed seat keeps
    the team they have (None: the smallest team, as every lobby places them).

    >>> from bot.game import Game, GameSettings
    >>> from bot.store.games.records import GameRecord
    >>> from bot.table.options import TableOptions
    >>> people = [Seat(1, "ann"), Seat(2, "bob")]
    >>> game = GameRecord(9, 1, 1, people, TableOptions(), FINISHED, None, None, 0.0, 1.0,
    ...                   Game.new(GameSettings.create(2), 1))
    >>> [(s.user_id, s.team) for s in arranged_seats(game, people, "rotated", random.Random(1))]
    [(2, 0), (1, 1)]
    """
    if arrangement not in ARRANGEMENTS:
        raise UserError("Choose same teams, shuffled teams or rotated seats.")
    teams = previous.game.settings.teams
    if arrangement == "shuffled":
        order = list(seats)
        rng.shuffle(order)
        return [replace(seat, team=index % teams) for index, seat in enumerate(order)]
    count = len(previous.seats)
    step = 1 if arrangement == "rotated" else 0
    place = {seat.user_id: (index - step) % count for index, seat in enumerate(previous.seats)}
    returning = sorted(
        (seat for seat in seats if seat.user_id in place), key=lambda s: place[s.user_id]
    )
    newcomers = [seat for seat in seats if seat.user_id not in place]
    return [replace(seat, team=place[seat.user_id] % teams) for seat in returning] + newcomers


class RematchCalls:
    """The lobby service's rematches (a base of :class:`~bot.services.lobbies.LobbyService`:
    its store, clock, seeds, caps and per-channel locks)."""

    db: Store
    clock: Callable[[], float]
    new_seed: Callable[[], int]
    caps: Caps | None
    _locks: KeyedLocks

    async def open_rematch(self, game_id: int, user_id: int) -> LobbyRecord:
        """A player of the finished game ``game_id`` opens its rematch's lobby, hosting it; the
        others of the game before wait to accept. Refused, changing nothing, for anyone else,
        for a game not finished or a tournament's, when a lobby or game is open in its channel,
        when its rematch was opened already, or when a person would pass a cap."""
        try:
            previous = await self.db.games.load(game_id)
        except NotFoundError:
            raise UserError(
                "This game is no longer stored: open a table with `/sequence new`."
            ) from None
        people = [seat for seat in previous.seats if not seat.is_computer]
        if all(seat.user_id != user_id for seat in people):
            raise UserError(f"Only the players of game #{game_id} can ask for its rematch.")
        if previous.status == CANCELLED:
            raise UserError("This game was cancelled: open a table with `/sequence new`.")
        if previous.status != FINISHED:
            raise UserError("This game is still being played.")
        if await self.db.tournaments.match_for_game(game_id) is not None:
            raise UserError(
                "This game was a tournament match: the tournament pairs its next games, "
                "not a rematch."
            )
        channel_id = previous.channel_id
        async with self._locks(channel_id), self.db.transaction():
            current = await self.db.lobbies.get_for_channel(channel_id)
            if current is not None and current.options.series_after == game_id:
                raise UserError(
                    "The rematch of this game is already open: press **Accept** on its lobby."
                )
            if await self.db.lobbies.rematches_of(channel_id, game_id):
                raise UserError(
                    "This game's rematch lobby has closed (it lapsed, was cancelled or its game "
                    "began): open a table with `/sequence new`."
                )
            if current is not None:
                raise UserError("A lobby is already open here: join it, or cancel it first.")
            if await self.db.games.active_for_channel(channel_id) is not None:
                raise UserError("A game is being played here: one game per channel.")
            await self._check_caps(previous.guild_id, user_id, people)
            game = previous.game
            teams = game.settings.teams
            options = previous.options.but(
                host_id=None,
                banks=(),  # a bank clock starts afresh
                series_game=previous.options.series_game + 1,
                series_after=game_id,
                series_score=series_score_after(previous.options, teams, game.winner),
                series_dealer_team=game.team_of(game.dealer),
            )
            seats = arranged_seats(previous, list(previous.seats), "same", random.Random())
            waiting = tuple(seat.user_id for seat in people if seat.user_id != user_id)
            return await self.db.lobbies.create(
                previous.guild_id,
                channel_id,
                user_id,
                options,
                now=self.clock(),
                seats=seats,
                rematch=RematchCall(waiting),
            )

    async def _check_caps(self, guild_id: int, host_id: int, people: list[Seat]) -> None:
        """The host may open a lobby, and each other person may take a seat (the caps)."""
        if self.caps is None:
            return
        await self.caps.may_open_lobby(guild_id, host_id)
        for seat in people:
            if seat.user_id == host_id:
                continue
            try:
                await self.caps.may_take_seat(seat.user_id, guild_id)
            except CapReached:
                raise UserError(
                    f"<@{seat.user_id}> is already in as many games or lobbies as allowed: "
                    "the rematch cannot seat them. Try again once they have finished or left one."
                ) from None

    async def _rematch_lobby(self, channel_id: int, lobby_id: int) -> LobbyRecord:
        lobby = await self.db.lobbies.get_for_channel(channel_id)
        if lobby is None or lobby.id != lobby_id:
            raise UserError("This lobby is closed.")
        if lobby.rematch is None:
            raise UserError("This lobby is not a rematch.")
        return lobby

    async def accept_rematch(self, channel_id: int, lobby_id: int, user_id: int) -> LobbyRecord:
        """A person of the game before accepts their seat at its rematch."""
        async with self._locks(channel_id), self.db.transaction():
            lobby = await self._rematch_lobby(channel_id, lobby_id)
            _answered(
                lobby,
                user_id,
                seated="You are in, already: the host starts when everyone is.",
                unseated="No seat waits for you here: press **Join** to take a free one.",
            )
            await self.db.lobbies.save(lobby)
            return lobby

    async def decline_rematch(self, channel_id: int, lobby_id: int, user_id: int) -> LobbyRecord:
        """A person of the game before declines: their seat is free for anyone to join."""
        async with self._locks(channel_id), self.db.transaction():
            lobby = await self._rematch_lobby(channel_id, lobby_id)
            _answered(
                lobby,
                user_id,
                seated="You accepted already: press **Leave** to give up your seat.",
                unseated="You have no seat at this rematch to decline.",
            )
            lobby.seats = [seat for seat in lobby.seats if seat.user_id != user_id]
            await self.db.lobbies.save(lobby)
            return lobby

    async def arrange_rematch(
        self, channel_id: int, lobby_id: int, actor_id: int, arrangement: str
    ) -> LobbyRecord:
        """The host seats the rematch: same teams, shuffled teams or rotated seats."""
        async with self._locks(channel_id), self.db.transaction():
            lobby = await self._rematch_lobby(channel_id, lobby_id)
            assert lobby.rematch is not None
            if actor_id != lobby.host_id:
                raise UserError(f"Only the host (<@{lobby.host_id}>) can choose the seating.")
            previous = await self.db.games.load(lobby.options.series_after or 0)
            rng = random.Random(self.new_seed())
            lobby.seats = arranged_seats(previous, lobby.seats, arrangement, rng)
            lobby.rematch = replace(lobby.rematch, arrangement=arrangement)
            await self.db.lobbies.save(lobby)
            return lobby


def _answered(lobby: LobbyRecord, user_id: int, *, seated: str, unseated: str) -> None:
    """The rematch no longer waits for ``user_id``, who answered; refused (``seated``: they
    answered before and sit there, ``unseated``: no seat of theirs) when it did not."""
    assert lobby.rematch is not None
    if user_id not in lobby.rematch.waiting:
        raise UserError(seated if any(s.user_id == user_id for s in lobby.seats) else unseated)
    waiting = tuple(user for user in lobby.rematch.waiting if user != user_id)
    lobby.rematch = replace(lobby.rematch, waiting=waiting)
