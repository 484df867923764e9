"""Who may rule on a table-talk call: nobody on the accused team, ever.

The rule, in order (each step needs nobody with a stake against the accused team):

1. A **moderator** (Manage Messages, Manage Channels or Manage Server, or the server's moderator
   role: the cog decides) who does not play on the accused team may always rule.
2. Otherwise the **host** may rule, unless the host plays on the accused team.
3. When the host plays on the accused team, a **player of a team that neither made nor faces
   the call** may rule (three-team games).
4. When nobody of steps 2 and 3 exists (two teams, the host accused), the call **stands** once
   ``TABLE_TALK_RULING_TIMEOUT`` seconds pass without the caller withdrawing it, unless a
   moderator rules first.

The caller may always withdraw their own call. Pure functions: no Discord, no store, no clock.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.game.settings import TEAM_NAMES

#: The rule in a few lines, for ``/sequence rules`` (which fits one message with a table's house
#: rules: the moderators are named short, Manage Channels and Manage Server left out).
RULING_RULE = (
    "**Who rules on a table-talk call**: never anyone on the accused team. A moderator (Manage "
    "Messages, or the moderator role) may rule; otherwise the host, unless the host's team is "
    "accused; then a person playing on a team that neither made nor faces the call (a "
    "computer never rules). If there is nobody like that, the call {fallback} unless the "
    "caller withdraws it. The caller may always withdraw a call. A team faces one call at a "
    "time."
)


@dataclass(frozen=True)
class Call:
    """A table-talk call as the rule sees it."""

    #: The team accused of coaching.
    accused: int
    #: The caller's team.
    caller: int
    #: The host's team; None when the host does not play (a neutral host).
    host_team: int | None
    #: The teams still in the game with a person playing (a computer never rules).
    teams: tuple[int, ...]

    @property
    def neutral_teams(self) -> tuple[int, ...]:
        """The teams that neither made nor face the call."""
        return tuple(t for t in self.teams if t not in (self.accused, self.caller))

    @property
    def host_may_rule(self) -> bool:
        """Whether the host's team is not the accused one."""
        return self.host_team != self.accused


@dataclass(frozen=True)
class Verdict:
    """Whether an actor may rule, and if not, why (a sentence for them)."""

    allowed: bool
    reason: str = ""


@dataclass(frozen=True)
class Eligible:
    """Who may rule on a call."""

    #: Moderators who do not play on the accused team (always).
    moderators: bool
    #: The host (their team is not accused).
    host: bool
    #: Players of these teams (only when the host cannot rule).
    teams: tuple[int, ...]
    #: Nobody but a moderator can rule: the call stands after the timeout unless withdrawn.
    stands_after_timeout: bool


def eligible(call: Call) -> Eligible:
    """Who may rule on ``call``."""
    if call.host_may_rule:
        return Eligible(moderators=True, host=True, teams=(), stands_after_timeout=False)
    neutral = call.neutral_teams
    return Eligible(moderators=True, host=False, teams=neutral, stands_after_timeout=not neutral)


def may_rule(
    call: Call, actor_team: int | None, *, actor_moderates: bool, actor_is_host: bool
) -> Verdict:
    """Whether an actor may uphold or dismiss ``call``.

    ``actor_team`` is the actor's team in the game (None: not playing); ``actor_moderates``
    whether they moderate the server's tables; ``actor_is_host`` whether they host the game.
    """
    if actor_team == call.accused:
        return Verdict(False, "Nobody may rule on a call against their own team.")
    if actor_moderates:
        return Verdict(True)
    who = eligible(call)
    if (actor_is_host and who.host) or (actor_team is not None and actor_team in who.teams):
        return Verdict(True)
    return Verdict(False, f"Only {describe_eligible(who)} may rule on this call.")


def may_withdraw(caller_id: int, actor_id: int) -> Verdict:
    """Only the person who made a call may withdraw it."""
    if caller_id == actor_id:
        return Verdict(True)
    return Verdict(False, "Only the player who made the call may withdraw it.")


def stands_at(call: Call, called_at: float, timeout: int) -> float | None:
    """When an unruled call stands by itself (None: it never does; it waits for a ruling)."""
    if timeout <= 0 or not eligible(call).stands_after_timeout:
        return None
    return called_at + timeout


def call_stands(call: Call, called_at: float, now: float, timeout: int, *, withdrawn: bool) -> bool:
    """Whether a call that nobody ruled on stands now: nobody but a moderator could rule, the
    caller did not withdraw it, and ``timeout`` seconds have passed since ``called_at``."""
    due = stands_at(call, called_at, timeout)
    return not withdrawn and due is not None and now >= due


def describe_eligible(
    who: Eligible, team_name: Callable[[int], str] = TEAM_NAMES.__getitem__
) -> str:
    """``"the host or a moderator who is not accused"``: who may rule, in
    words (the moderator last, so that "who is not accused" takes in nobody else)."""
    parts = []
    if who.host:
        parts.append("the host")
    if who.teams:
        parts.append(f"a player of {_either(who.teams, team_name)}")
    return _or([*parts, "a moderator who is not accused"])


def _either(teams: Sequence[int], team_name: Callable[[int], str]) -> str:
    return _or([team_name(t) for t in teams])


def _or(parts: Sequence[str]) -> str:
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts[:-1]) + " or " + parts[-1]
