"""Caps on what one person or one server may have open at once: lobbies, tournaments, games.

Each cap is a setting (``MAX_*``; 0 means no cap). A person's caps count everywhere the bot is;
a server's count only that server. A server's admins may set limits of their own
(``/sequence-admin set``, :meth:`~bot.services.server_settings.ServerSettings.caps`), within the
owner's: its per-server ones apply with the owner's (the tighter wins), and its per-person ones
count what a person has in that server only, besides the owner's that count everywhere. A check
runs in the transaction that writes what it allows, with the person and the server locked
(:meth:`~bot.store.base.Store.lock_keys`) until it commits: commands that arrive at once, in
several channels or on several processes of a cluster, are counted one after the other.
Tournament matches are seated by the tournament and never refused here, and their lobbies count
against no lobby cap (their seats count as games).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .errors import UserError

if TYPE_CHECKING:
    from bot.config import Settings
    from bot.store.base import Store

    from .games import GameService


class CapReached(UserError):
    """Opening or joining one more would pass a cap; the message names it."""


@dataclass(frozen=True)
class CapSettings:
    """The caps in force (0: none)."""

    lobbies_per_user: int = 0
    lobbies_per_server: int = 0
    games_per_user: int = 0
    tournaments_per_user: int = 0
    tournaments_per_server: int = 0
    tournament_entrants: int = 0

    @classmethod
    def from_settings(cls, settings: Settings) -> CapSettings:
        """The caps of the bot's settings."""
        return cls(
            settings.max_lobbies_per_user,
            settings.max_lobbies_per_server,
            settings.max_games_per_user,
            settings.max_tournaments_per_user,
            settings.max_tournaments_per_server,
            settings.max_tournament_entrants,
        )


def reached(count: int, cap: int) -> bool:
    """True when ``count`` things are open and the cap allows no more (0: no cap)."""
    return cap > 0 and count >= cap


def tighter(owner: int, server: int) -> int:
    """The cap in force of the owner's and a server's (0: none).

    >>> tighter(25, 0), tighter(25, 5), tighter(0, 5), tighter(0, 0)
    (25, 5, 5, 0)
    """
    caps = [cap for cap in (owner, server) if cap > 0]
    return min(caps) if caps else 0


def amount(count: int, one: str, many: str | None = None) -> str:
    """``count`` things in words (``many`` defaults to ``one`` with an s).

    >>> amount(1, "open lobby", "open lobbies"), amount(2, "open tournament")
    ('1 open lobby', '2 open tournaments')
    """
    return f"{count} {one if count == 1 else many or one + 's'}"


class Caps:
    """Checks a cap before a lobby, a seat or a tournament is taken."""

    def __init__(
        self,
        db: Store,
        games: GameService,
        caps: CapSettings,
        server_caps: Callable[[int], Awaitable[CapSettings]] | None = None,
    ) -> None:
        self.db = db
        self.games = games
        self.caps = caps
        #: A server's own limits (none: only the owner's caps).
        self.server_caps = server_caps

    async def _server(self, guild_id: int) -> CapSettings:
        return CapSettings() if self.server_caps is None else await self.server_caps(guild_id)

    async def may_open_lobby(self, guild_id: int, user_id: int) -> None:
        """Refuse a new lobby past the host's or the server's cap (and the host's seat cap).
        In the transaction that opens it (as every check here)."""
        caps, server = self.caps, await self._server(guild_id)
        per_server = tighter(caps.lobbies_per_server, server.lobbies_per_server)
        if caps.lobbies_per_user or server.lobbies_per_user or per_server or caps.games_per_user:
            await self.db.lock_keys(user_id, guild_id)
        if reached(await self.db.lobbies.hosted_by(user_id), caps.lobbies_per_user):
            raise CapReached(
                f"You already host {amount(caps.lobbies_per_user, 'open lobby', 'open lobbies')}: "
                "start or cancel one first."
            )
        here = server.lobbies_per_user
        if here and reached(await self.db.lobbies.hosted_by(user_id, guild_id), here):
            raise CapReached(
                f"You already host {amount(here, 'open lobby', 'open lobbies')} in this server, "
                "the most it allows one person: start or cancel one first."
            )
        if reached(await self.db.lobbies.in_guild(guild_id), per_server):
            raise CapReached(
                f"This server has {amount(per_server, 'open lobby', 'open lobbies')}"
                ", the most it may have: join one, or wait for one to start."
            )
        await self.may_take_seat(user_id, guild_id)

    async def may_take_seat(self, user_id: int, guild_id: int | None = None) -> None:
        """Refuse a seat to someone already playing (or seated for) as many games as allowed:
        anywhere (the owner's cap), or in the server ``guild_id`` (the server's own)."""
        cap = self.caps.games_per_user
        here = 0 if guild_id is None else (await self._server(guild_id)).games_per_user
        if cap <= 0 and here <= 0:
            return
        await self.db.lock_keys(user_id)
        # From the store: the player's games on every process of a cluster count.
        if cap > 0:
            playing = await self.db.games.playing(user_id) + await self.db.lobbies.seating(user_id)
            if reached(playing, cap):
                raise CapReached(
                    f"You are already in {amount(playing, 'game or lobby', 'games or lobbies')}, "
                    "the most one person may be in at once: finish or leave one first."
                )
        if here > 0:
            playing = await self.db.games.playing(user_id, guild_id)
            playing += await self.db.lobbies.seating(user_id, guild_id)
            if reached(playing, here):
                raise CapReached(
                    f"You are already in {amount(playing, 'game or lobby', 'games or lobbies')} "
                    "in this server, the most it allows one person at once: finish or leave one "
                    "first."
                )

    def entrants(self, asked: int | None) -> int | None:
        """A new tournament's cap on entrants: the organiser's, within the bot's (None: none).

        >>> caps = Caps(None, None, CapSettings(tournament_entrants=128))  # type: ignore[arg-type]
        >>> caps.entrants(None), caps.entrants(16)
        (128, 16)
        """
        most = self.caps.tournament_entrants
        if asked is not None and most and asked > most:
            raise CapReached(f"A tournament on this bot has at most {most} entrants.")
        return asked or most or None

    async def may_open_tournament(self, guild_id: int, user_id: int) -> None:
        """Refuse a new tournament past the organiser's or the server's cap."""
        caps, server = self.caps, await self._server(guild_id)
        per_server = tighter(caps.tournaments_per_server, server.tournaments_per_server)
        here = server.tournaments_per_user
        if caps.tournaments_per_user or here or per_server:
            await self.db.lock_keys(user_id, guild_id)
        tournaments = self.db.tournaments
        if reached(await tournaments.open_by(user_id), caps.tournaments_per_user):
            raise CapReached(
                f"You already run {amount(caps.tournaments_per_user, 'open tournament')}: "
                "end one first."
            )
        if here and reached(await tournaments.open_by(user_id, guild_id), here):
            raise CapReached(
                f"You already run {amount(here, 'open tournament')} in this server, the most "
                "it allows one person: end one first."
            )
        if reached(await tournaments.open_in_guild(guild_id), per_server):
            raise CapReached(
                f"This server has {amount(per_server, 'open tournament')}, the most it may "
                "have: wait for one to end."
            )
