"""One row of a leaderboard: all-time (:mod:`.standings`) or a season's (:mod:`.seasons`)."""

from __future__ import annotations

from dataclasses import dataclass

from bot.skill import Rating


@dataclass(frozen=True)
class BoardRow:
    """One row of a leaderboard: a player, their rating and their rated games."""

    user_id: int
    rating: Rating
    games: int
