"""Tables that cannot be used for a while: a thread a moderator locked, a private thread the bot
was removed from. Discord refuses the bot every post there, so nobody could see the board or
whose turn it is: the game is *paused*.

The table (``cogs.common.table_threads``) learns it from Discord and stores it on the game
(``games.paused``, the code Discord refused the bot with), so that every process of a cluster
sees it; it clears it when the table catches up. While it lasts, every change a player or a
moderator asks for (a move, a forfeit, a draw offer or its answer, an undo request or its
answer, a resignation, a table-talk call or ruling) is refused here, with why and what a
moderator can do, and nothing is saved. Not refused: a cancel (what a moderator may well want
to do with a table nobody can use), and the changes the bot makes itself (an offer lapsing, a
message remembered, a banned player leaving); the turn clock and the computer players wait on
their own until the table can be used again. ``/sequence hint`` changes nothing: it is answered.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import UserError

if TYPE_CHECKING:
    from bot.store.games.records import GameRecord

#: Discord's error codes that make a table unusable until a moderator acts: a locked thread,
#: and no access (a private thread the bot was removed from, or a channel it may no longer see).
LOCKED, MISSING_ACCESS = 160005, 50001

#: Why a table cannot be used, by the error code Discord answered its post with.
BLOCKED_WHY = {
    LOCKED: (
        "its thread {where} is locked, so I cannot post the board there. "
        "A moderator can unlock the thread: the game then carries on where it stopped "
        "(`/sequence board` there tries again at once)"
    ),
    MISSING_ACCESS: (
        "I was removed from its thread {where} (or lost access to it), so I cannot post the "
        "board there. A moderator can add me back to the thread (mention me in it): the game "
        "then carries on where it stopped (`/sequence board` there tries again at once)"
    ),
}

#: The end of a refusal: of a move (or a forfeit, a card drawn), and of any other change.
NOTHING_PLAYED = "Nothing was played; your cards are kept."
NOTHING_CHANGED = "Nothing was changed."


def blocked_sentence(code: int, channel_id: int) -> str:
    """Why a table cannot be used and what a moderator can do, as a sentence's end."""
    return BLOCKED_WHY[code].format(where=f"<#{channel_id}>")


class TablePaused(UserError):
    """A change asked for at a table that cannot be used: refused, nothing saved."""

    def __init__(self, record: GameRecord, code: int, *, played: bool) -> None:
        self.game_id, self.channel_id, self.code = record.id, record.channel_id, code
        why = blocked_sentence(code, record.channel_id)
        end = NOTHING_PLAYED if played else NOTHING_CHANGED
        super().__init__(f"Game #{record.id} is paused: {why}. {end}")


def refuse_if_paused(record: GameRecord, *, played: bool = False) -> None:
    """Refuse (:class:`TablePaused`) a change asked for at a table that cannot be used now,
    as this process knows it (``played``: a move, whose refusal says the cards are kept)."""
    if record.paused is not None:
        raise TablePaused(record, record.paused, played=played)
