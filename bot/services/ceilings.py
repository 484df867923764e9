"""The owner's ceilings: the most a server (or a table's host) may choose.

The owner's environment (:class:`~bot.config.Settings`) gives the bot's defaults and, for some
settings, the most a server may ask for: the longest turn time limit and reminder
(``MAX_TURN_TIME_LIMIT``, ``MAX_REMINDER_DELAY``) and the caps on lobbies, games and tournaments
(``MAX_*``; the owner's 0: no cap). A value past a ceiling is refused with a sentence naming it.
A server's value stored before the owner lowered a ceiling is held to the ceiling
(:meth:`Ceiling.clamp`), so that it never locks the server's new tables.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .errors import UserError

if TYPE_CHECKING:
    from bot.config import Settings


@dataclass(frozen=True)
class Ceiling:
    """The owner's most for one setting."""

    #: The owner's most (0: no ceiling).
    most: Callable[[Settings], int]
    #: The refusal of a value past it, with ``{most}`` for the ceiling in words.
    refusal: str
    #: The ceiling in words (a duration, a number).
    show: Callable[[int], str]
    #: True for a cap, where a value of 0 means "no cap": more than any ceiling. False for a
    #: timer, where 0 turns it off.
    zero_is_unlimited: bool = False

    def words(self, settings: Settings) -> str | None:
        """``at most 14 days``, for the settings view; None when the owner sets no ceiling."""
        most = self.most(settings)
        return f"at most {self.show(most)}" if most else None

    def exceeded(self, value: int, settings: Settings) -> bool:
        """Whether ``value`` asks for more than the owner allows.

        >>> lobbies = Ceiling(lambda s: 25, "", str, zero_is_unlimited=True)
        >>> [lobbies.exceeded(v, None) for v in (25, 26, 0)]  # type: ignore[arg-type]
        [False, True, True]
        """
        most = self.most(settings)
        if not most:
            return False
        if value == 0:
            return self.zero_is_unlimited
        return value > most

    def check(self, value: int, settings: Settings) -> None:
        """Refuse a value past the ceiling, naming it."""
        if self.exceeded(value, settings):
            raise UserError(self.refusal.format(most=self.show(self.most(settings))))

    def clamp(self, value: int, settings: Settings) -> int:
        """``value``, or the ceiling if it asks for more."""
        return self.most(settings) if self.exceeded(value, settings) else value
