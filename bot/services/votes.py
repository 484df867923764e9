"""What every change does to the teams' votes before it commits: a draw offer and the host's
undo request lapse once the game moves on (a move, an undo, a cancel), and a team's turn counts
down its cooldown.

Run by :meth:`GameService.change` on every draft, so no path that moves the game can leave an
offer open for a position that is gone.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from bot.store.votes import DRAW, DRAW_COOLDOWN, UNDO

from .events import DrawOfferClosed, UndoRequestLapsed

if TYPE_CHECKING:
    from .games import Draft

#: How a draw offer ended (the wording is the cog's).
LAPSED, EXPIRED, DECLINED, ACCEPTED = "lapsed", "expired", "declined", "accepted"


def settle_votes(draft: Draft) -> None:
    """Lapse a draw offer or an undo request the game has moved past; count down the cooldown
    of the team whose turn just ended. The closed offer or request is published with the
    change."""
    game, before = draft.game, draft.record.game
    for key, vote in list(draft.votes.items()):
        if vote.kind not in (DRAW, UNDO):
            continue
        if vote.move_count != len(game.moves) or draft.cancelled:
            del draft.votes[key]
            if vote.kind == DRAW:
                draft.events.append(DrawOfferClosed(draft.record, offer=vote, status=LAPSED))
            else:
                draft.events.append(UndoRequestLapsed(draft.record, message_id=vote.message_id))
    if not draft.undone and game.turn_number > before.turn_number:
        key = (DRAW_COOLDOWN, before.team_of(before.turn))
        cooldown = draft.votes.get(key)
        if cooldown is not None:
            if cooldown.turns_left > 1:
                draft.votes[key] = dataclasses.replace(cooldown, turns_left=cooldown.turns_left - 1)
            else:
                del draft.votes[key]
