"""What a stored tournament is: the event, its entrants and its matches, as records; and the
two errors its writes raise."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bot.table.tournament import TournamentSettings

from ..errors import StoreError


class AlreadyEnteredError(StoreError):
    """A user is already an entrant (or a team member) in the tournament."""

    def __init__(self, user_id: int) -> None:
        self.user_id = user_id
        super().__init__(f"User {user_id} is already entered in this tournament.")


class StaleRoundError(StoreError):
    """The round was already paired (the tournament is not at the round before it)."""


@dataclass(slots=True)
class TournamentRecord:
    """A tournament. ``settings``: the table options of its matches and its own settings."""

    id: int
    guild_id: int
    channel_id: int
    organiser_id: int
    name: str
    format: str
    team_size: int
    settings: TournamentSettings
    status: str = "signup"
    round: int = 0
    message_id: int | None = None
    created_at: float = 0.0
    finished_at: float | None = None


@dataclass(slots=True)
class EntrantRecord:
    """An entrant: members are ``{user_id, name}`` dicts, the one who signed up first."""

    id: int
    tournament_id: int
    name: str
    members: list[dict[str, Any]]
    seed: int | None = None
    joined_at: float = 0.0
    dropped_at: float | None = None

    @property
    def user_ids(self) -> list[int]:
        """The members' user ids, in order."""
        return [int(member["user_id"]) for member in self.members]

    @property
    def dropped(self) -> bool:
        """True once the organiser dropped the entrant."""
        return self.dropped_at is not None


@dataclass(slots=True)
class MatchRecord:
    """A match of a round: ``entrant_b`` None is a bye; ``winner`` None with an outcome is a
    draw or a double forfeit."""

    id: int
    tournament_id: int
    round: int
    number: int
    entrant_a: int
    entrant_b: int | None
    status: str = "pending"
    outcome: str | None = None
    winner: int | None = None
    thread_id: int | None = None
    game_id: int | None = None
    message_id: int | None = None
    checkins: list[int] = field(default_factory=list)
    deadline: float | None = None
    finished_at: float | None = None
    #: When its thread was found deleted (the organiser was asked for its result then, once).
    thread_gone_at: float | None = None

    @property
    def is_open(self) -> bool:
        """Waiting to be played or being played."""
        return self.status in ("pending", "playing")

    @property
    def sides(self) -> list[int]:
        """The entrant ids of the match (one for a bye)."""
        return [self.entrant_a] if self.entrant_b is None else [self.entrant_a, self.entrant_b]
