"""What a rematch's lobby changes at the start: seats not accepted yet are not ready, and the
first dealer goes to another team than the game before's."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from bot.game import Game, GameSettings
from bot.table.options import TableOptions

from .errors import UserError

if TYPE_CHECKING:
    from bot.store.lobbies import LobbyRecord

#: Seeds tried for a cut that gives the deal to another team (each team's chance is even, so
#: a handful always does; past this many, the cut stands as it fell).
DEAL_TRIES = 64


def not_accepted(lobby: LobbyRecord) -> list[int]:
    """The people still seated in a rematch's lobby who have not pressed Accept."""
    if lobby.rematch is None:
        return []
    seated = {seat.user_id for seat in lobby.seats}
    return [user for user in lobby.rematch.waiting if user in seated]


def require_accepted(lobby: LobbyRecord) -> None:
    """Refuse to start a rematch while a seat of it is not accepted."""
    waiting = not_accepted(lobby)
    if waiting:
        names = ", ".join(f"<@{user}>" for user in waiting)
        raise UserError(
            f"Not everyone has accepted the rematch yet: waiting for {names} (press **Accept**, "
            "or **Decline** to free the seat)."
        )


def series_deal(settings: GameSettings, options: TableOptions, new_seed: Callable[[], int]) -> Game:
    """A new game; in a series, one whose cut gives the first deal to another team than the
    game before (the rules cut for the dealer from the seed: the seed is chosen, so the game
    replays from its seed as every game does)."""
    game = Game.new(settings, new_seed())
    dealt_before = options.series_dealer_team
    if dealt_before is None or settings.teams < 2:
        return game
    for _ in range(DEAL_TRIES):
        if game.team_of(game.dealer) != dealt_before % settings.teams:
            return game
        game = Game.new(settings, new_seed())
    return game
