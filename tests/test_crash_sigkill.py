"""The proof of the outbox: a bot killed with SIGKILL right after a change commits, before one
consequence of it, does every consequence exactly once when it is started again.

Each case runs the real bot in a child process (``tests/helpers/crash_child.py``) on SimCord's
in-memory Discord and on a store of each backend. The child plays a scenario up to a change and
dies by SIGKILL the moment the bot reaches the consumer (or the step of one) named by the case:
the change has committed, that consequence and whatever was to follow it have not happened.
A second child (the restarted bot) runs over the same store and over a Discord holding what the
first one's held; it writes what Discord and the store hold once it is idle, and again after a
further restart. The test compares: each consequence once, none twice, nothing left
undelivered, and a second restart repeats nothing.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: Seconds a child may take (each takes one or two here).
CHILD_TIMEOUT = 60


def child(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tests.helpers.crash_child", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )


def crash_and_restart(store: str | Path, folder: Path, scenario: str, target: str) -> Any:
    """Kill the bot at ``target`` during ``scenario``, restart it; what each process saw."""
    killed = child("crash", str(store), str(folder), scenario, target)
    assert killed.returncode == -signal.SIGKILL, (killed.stdout, killed.stderr[-3000:])
    restarted = child("restart", str(store), str(folder))
    assert restarted.returncode == 0, restarted.stderr[-3000:]

    def read(name: str) -> Any:
        return json.loads((folder / name).read_text())

    return read("facts.json"), read("killed.json"), read("after.json"), read("again.json")


def boards(seen: Any, channel: int) -> list[dict[str, Any]]:
    return [m for m in seen["messages"][str(channel)] if m["attachments"] and m["titles"]]


def dms(seen: Any, user: int) -> list[str]:
    channel = seen["dms"].get(str(user))
    return [] if channel is None else [m["content"] for m in seen["messages"][str(channel)]]


def check_once(facts: Any, after: Any, again: Any) -> None:
    """What holds after any crash: every board once, only the newest one with controls,
    nothing left undelivered, and a further restart changes nothing."""
    posted = boards(after, facts["channel"])
    titles = [b["titles"][0] for b in posted]
    assert len(titles) == len(set(titles)), titles  # no board twice
    assert not any(b["components"] for b in posted[:-1]), posted  # older boards retired
    assert all(b["content"].startswith("↪️") for b in posted[:-1]), posted
    assert after["undelivered"] == []
    assert again["messages"] == after["messages"]  # a second restart repeats nothing
    assert again["moves"] == after["moves"] and again["timers"] == after["timers"]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    path = tmp_path / "run"
    path.mkdir()
    return path


#: Where a move's consequences can be cut: before its board; after the board is sent and before
#: the store remembers it (the event comes again late: the board finds itself in the channel and
#: is not sent twice); after that, before the older board is retired (a stored BoardReplaced);
#: before the turn's timers; before the turn's DM.
MOVE_TARGETS = [
    pytest.param("Table._on_move", id="board"),
    pytest.param("TurnClock._on_turn", id="timers"),
    pytest.param("Turns.turn_started", id="turn DM"),
    pytest.param("Table._on_replaced", id="retirement"),
    pytest.param("games.remember_board", id="board remembered"),
]


@pytest.mark.slow
@pytest.mark.parametrize("target", MOVE_TARGETS)
def test_a_move(store_location: str | Path, folder: Path, target: str) -> None:
    """Alice moves; Bob, next, is told by DM; the turn has a time limit and a reminder."""
    facts, killed, after, again = crash_and_restart(store_location, folder, "move", target)
    before = [b["titles"][0] for b in boards(killed, facts["channel"])]
    if target == "Table._on_move":
        assert before == ["Sequence · game #1 · move 0"]  # died before the board
    if target in ("Table._on_move", "Turns.turn_started"):
        assert dms(killed, facts["told"]) == []  # died before the DM
    if target == "Table._on_replaced":  # died with the new board posted, the old one live
        assert len(before) == 2 and boards(killed, facts["channel"])[0]["components"]
    check_once(facts, after, again)
    assert after["moves"] == 1
    posted = boards(after, facts["channel"])
    assert [b["titles"][0].rsplit(" · ", 1)[1] for b in posted] == ["move 0", "move 1"]
    assert posted[-1]["components"] and not posted[-1]["edited"]
    # retired: after a restart it says what happened next only when it was its own move's
    # board that came late (read back from the outbox, the board says it comes late)
    assert posted[0]["content"].startswith(("↪️ Then: **alice** played", "↪️ An older board"))
    told = [text for text in dms(after, facts["told"]) if "Your turn" in text]
    assert len(told) == 1 and len(dms(after, facts["told"])) == 1  # the turn's DM, once
    turn = after["turn_number"]
    assert after["timers"] == [["limit", turn], ["reminder", turn]]  # the turn's timers...
    assert after["armed"] == ["limit", "reminder"]  # ...armed in the restarted process


@pytest.mark.slow
def test_a_move_against_a_computer(store_location: str | Path, folder: Path) -> None:
    """Alice moves against a computer: it replies once, after the restart."""
    facts, killed, after, again = crash_and_restart(
        store_location, folder, "computer", "ComputerPlayers._wake_on"
    )
    moves = facts["moves"]
    before = [b["titles"][0] for b in boards(killed, facts["channel"])]
    assert not any(title.endswith(f"move {moves + 2}") for title in before)  # no reply yet
    check_once(facts, after, again)
    assert after["moves"] == moves + 2  # Alice's move and one reply
    posted = boards(after, facts["channel"])
    assert posted[-1]["components"] and f"<@{facts['person']}>" in posted[-1]["content"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "target",
    [
        pytest.param("Table._on_move", id="end announced"),
        pytest.param("TurnClock._on_end", id="timers ended"),
    ],
)
def test_a_resignation(store_location: str | Path, folder: Path, target: str) -> None:
    """Alice resigns: the end is announced once, with its final board, recorded, and the
    turn's timers are gone."""
    facts, killed, after, again = crash_and_restart(store_location, folder, "resign", target)
    check_once(facts, after, again)
    assert after["status"] == "finished" and after["result"] is not None
    assert not any("wins" in m["content"] for m in killed["messages"][str(facts["channel"])])
    ends = [m for m in after["messages"][str(facts["channel"])] if "wins" in m["content"]]
    # No turn's buttons on the final board: only its Rematch.
    assert len(ends) == 1 and ends[0]["attachments"] and ends[0]["labels"] == ["Rematch"]
    assert after["timers"] == [] and after["armed"] == []


@pytest.mark.slow
def test_a_tournament_match_ending(store_location: str | Path, folder: Path) -> None:
    """The last semi-final ends: the final is drawn once, in one thread, pinged once."""
    facts, killed, after, again = crash_and_restart(
        store_location, folder, "tournament", "TournamentTables.game_ended"
    )
    check_once(facts, after, again)
    assert after["status"] == "finished" and after["result"] is not None
    cup = facts["tournament_channel"]
    assert list(killed["channels"].values()).count(cup) == 2  # died before the final was drawn
    assert not any("match #2" in m["content"] for m in killed["messages"][str(cup)])
    (final,) = after["rounds"]["2"]
    thread = final[3]
    assert thread is not None and after["threads"].count(thread) == 1
    assert len(after["threads"]) == 3  # two semi-finals, one final
    said = [m["content"] for m in after["messages"][str(cup)]]
    assert len(said) == len(set(said))  # the result, the standings, the round: once each
    assert sum("match #2: **" in text for text in said) == 1
    assert sum("round 2**" in text for text in said) == 1
    in_final = [m["content"] for m in after["messages"][str(thread)]]
    assert sum("match is ready" in text for text in in_final) == 1  # pinged once
    assert again["rounds"] == after["rounds"] and again["threads"] == after["threads"]


@pytest.mark.slow
def test_a_tournament_match_starting(store_location: str | Path, folder: Path) -> None:
    """The last I'm here starts the match's game, and the bot dies before the tournament hears
    of it. At the restart the match is on with that game (not pending, to be double-forfeited
    at its show-up time and its game cancelled), and the game goes on. Before, nothing at
    start-up linked a pending match to the active game in its thread."""
    facts, killed, after, again = crash_and_restart(
        store_location, folder, "match start", "TournamentTables.game_started"
    )
    assert after["matches"] == {"1": [["playing", after["game"]]]}
    assert after["status"] == "active" and after["result"] is None
    check_once(facts, after, again)
    assert again["matches"] == after["matches"]
    assert killed["target"] == "TournamentTables.game_started"
