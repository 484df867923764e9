"""The real-time deadline of every interaction: how long the bot took to answer first.

Discord drops an interaction not acknowledged within 3 seconds of real time ("The application
did not respond"). SimCord's clock is virtual and cannot see that, so this measures the wall
clock (``time.perf_counter``) from the moment SimCord hands an interaction to the bot's gateway
to the moment the bot's first response to it (a message, a defer, an update, a modal or
autocomplete choices) reaches SimCord's API.

:class:`FirstResponseClock` patches SimCord's environment and interaction record (through a
``pytest.MonkeyPatch``, undone at the end of the test); ``tests/conftest.py`` turns it on for
every test and fails a test in which any first response took longer than :data:`DEADLINE`.
With ``FIRST_RESPONSE_LOG=path`` every measurement is also appended to ``path`` (one line
each: seconds, test id, the command or component), for the distribution over the suite.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any

import pytest
from simcord.backend.models import Interaction
from simcord.env import Env

#: Longest first response allowed in a test (Discord's own limit is 3 s; a third of it leaves
#: room for a loaded machine and for the network between Discord and a real bot).
DEADLINE = 1.0

#: The interaction record's methods that mark its first response.
_RESPONSE_MARKERS = (
    "respond_with_message",
    "defer",
    "defer_update",
    "update_source",
    "show_modal",
    "complete_autocomplete",
    "pong",
)


@dataclass(frozen=True)
class FirstResponse:
    """One interaction's wait: what it was, and the seconds to its first response."""

    what: str
    seconds: float


class FirstResponseClock:
    """Measures each interaction's first response on real time (see the module's docstring)."""

    def __init__(self) -> None:
        self._arrivals: dict[int, tuple[Interaction, float]] = {}
        self.responses: list[FirstResponse] = []

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Start measuring every SimCord environment's interactions."""
        notify = Env._notify_dispatch_observers
        clock = self

        def notify_and_start(env: Env, interaction: Any) -> None:
            clock._arrivals[id(interaction)] = (interaction, time.perf_counter())
            notify(env, interaction)

        monkeypatch.setattr(Env, "_notify_dispatch_observers", notify_and_start)
        for name in _RESPONSE_MARKERS:
            monkeypatch.setattr(Interaction, name, self._stopping(getattr(Interaction, name)))

    def _stopping(self, marker: Any) -> Any:
        clock = self

        def mark_and_stop(record: Interaction, *args: Any, **kwargs: Any) -> Any:
            arrival = clock._arrivals.pop(id(record), None)
            if arrival is not None:
                clock.responses.append(
                    FirstResponse(_describe(record), time.perf_counter() - arrival[1])
                )
            return marker(record, *args, **kwargs)

        return mark_and_stop

    def late(self, deadline: float = DEADLINE) -> list[FirstResponse]:
        """The first responses that took longer than ``deadline`` seconds."""
        return [response for response in self.responses if response.seconds > deadline]

    def forget(self) -> None:
        """Drop what was measured so far (a test that is slow on purpose)."""
        self.responses.clear()
        self._arrivals.clear()

    def write_log(self, test_id: str) -> None:
        """Append the measurements to ``$FIRST_RESPONSE_LOG`` when it is set."""
        path = os.environ.get("FIRST_RESPONSE_LOG")
        if not path or not self.responses:
            return
        with open(path, "a", encoding="utf-8") as log:
            for response in self.responses:
                log.write(f"{response.seconds:.4f}\t{test_id}\t{response.what}\n")


def _describe(record: Interaction) -> str:
    """A short name for an interaction: its command, or its kind."""
    if record.command_name:
        return f"/{record.command_name}"
    return {3: "component", 5: "modal submit", 4: "autocomplete"}.get(record.type, "interaction")


def late_message(late: list[FirstResponse]) -> str:
    """The failure text for first responses over the deadline."""
    worst = ", ".join(f"{response.what} after {response.seconds:.2f} s" for response in late)
    return (
        f"{len(late)} interaction(s) answered first later than {DEADLINE:.1f} s of real time "
        f"(defer before slow work): {worst}"
    )
