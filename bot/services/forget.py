"""``/sequence-me forget-me``: a member's name and account taken out of everything the bot keeps.

Anonymise, do not delete (as Ballsdex, SAU and reputation-bot do): a finished game has other
players, whose results, ratings and tournament standings were computed with this member in
them. Deleting the member's rows would change everyone else's numbers (or leave results that
no replay gives again). So every row keeps its place, and the member's Discord id in it is
replaced by a **pseudonymous id**: random, stable from then on (the same in every game and
server, so that each table still adds up), and not derived from the Discord id, so that nothing
links it back to the account. Their name at every table becomes that id's label ("Player
4f2a91c0"), their preferences are deleted. Keeping the Discord id with the name removed was the
other choice; it was not taken, since the id itself identifies the member (anyone can mention
it), and their old games would stay linked to their account.

Refused while the member sits in an open lobby, an active game or an open tournament (those
rows are still in play, and their messages still mention them): the reason is given. One
transaction; afterwards, what the process keeps in memory that names the member is dropped
(the rating books, the games that ended lately).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot import pseudonyms
from bot.store.members import Blockers

from .errors import UserError

if TYPE_CHECKING:
    from bot.store.base import Store

    from .games.service import GameService
    from .ratings import RatingService

#: Pseudonyms drawn before giving up (each one already in use is drawn again).
DRAWS = 20


class NothingToForget(UserError):
    """The store holds nothing about the member (never played, or already forgotten)."""


NOTHING = (
    "There is nothing left to forget: the bot holds no game, result, rating, preference or "
    "tournament entry under your account (you may have been forgotten already)."
)


@dataclass(frozen=True)
class ForgetReport:
    """What a forget-me did."""

    label: str
    games: list[int]
    results: int
    ratings: int
    entries: int
    preferences: int


def refusal(blockers: Blockers) -> str:
    """Why a forget-me must wait, in the member's words."""
    where = []
    if blockers.games:
        where.append("an active game")
    if blockers.lobbies:
        where.append("an open lobby")
    if blockers.tournaments:
        where.append("an open tournament (entered or organised)")
    return (
        f"You are still in {' and '.join(where)}: forget-me waits until it is over (finish, "
        "resign or leave it, then ask again). Nothing was changed."
    )


class ForgetService:
    """Checks and carries out a member's forget-me."""

    def __init__(self, db: Store, games: GameService, ratings: RatingService) -> None:
        self.db = db
        self.games = games
        self.ratings = ratings

    async def check(self, user_id: int) -> None:
        """Raise the :class:`UserError` that a forget-me would meet now, if any."""
        blockers = await self.db.members.blockers(user_id)
        if blockers:
            raise UserError(refusal(blockers))
        if not await self.db.members.holds_anything(user_id):
            raise NothingToForget(NOTHING)

    async def forget(self, user_id: int) -> ForgetReport:
        """Anonymise the member everywhere, in one transaction (see the module)."""
        db = self.db
        async with db.transaction():
            await db.lock_keys(user_id)  # a seat being taken meanwhile waits (caps lock it too)
            blockers = await db.members.blockers(user_id)
            if blockers:
                raise UserError(refusal(blockers))
            if not await db.members.holds_anything(user_id):
                raise NothingToForget(NOTHING)
            games = [game.id for game in await db.members.seated_games(user_id)]
            pseudonym = await self._unused_pseudonym()
            label = pseudonyms.label(pseudonym)
            done = await db.members.forget(user_id, pseudonym, label)
        self.ratings.forget_all()
        self.games.drop_ended_of(user_id)
        return ForgetReport(
            label=label,
            games=games,
            results=done.count("result_players"),
            ratings=done.count("ratings"),
            entries=done.count("tournament_players"),
            preferences=done.preferences,
        )

    async def _unused_pseudonym(self) -> int:
        for _ in range(DRAWS):
            pseudonym = pseudonyms.draw()
            if not await self.db.members.holds_anything(pseudonym):
                return pseudonym
        raise RuntimeError("No unused pseudonym found")  # 4 billion ids: never in practice
