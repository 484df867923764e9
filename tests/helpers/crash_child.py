"""One bot process of the SIGKILL crash test (``tests/test_crash_sigkill.py``).

``python -m tests.helpers.crash_child crash STORE DIR SCENARIO TARGET``: the real bot
(``create_bot``) on SimCord's in-memory Discord and on STORE (a SQLite file or a PostgreSQL URL)
plays SCENARIO up to one change (a move, a resignation, a tournament match's last move...). Just
before that change, TARGET is set as a trap: the first time the bot reaches it afterwards (the
change has committed, its events are being delivered), the process writes what its Discord
holds to DIR and kills itself with SIGKILL. Nothing of the bot runs after that: the consumers
that had not run yet never run, the delivery marks not yet written are lost.

TARGET is the name of a consumer of the outbox, as the dispatcher knows it
(``Table._on_move``: the process dies before that consumer sees the change's event), or a
method of one of the bot's services (``table.retire_board``: it dies when the bot gets there,
half way through a consumer). The trap is test code in this process: the bot's own code is
unchanged (a wrapped handler keeps its name, so what the outbox stored still names it).

``python -m tests.helpers.crash_child restart STORE DIR``: a new process (a restarted bot)
over the same store and over a Discord that holds what the killed one's held (its servers,
channels, threads, messages and DMs, with their ids, and its clock), as Discord outlives a bot.
It starts, lets the bot do what it does at start-up until it is idle, writes ``after.json``
(every message of every channel, and what the store says of the game), restarts the bot once
more (a third process) and writes ``again.json``.

Files in DIR: ``facts.json`` (the scenario's ids, written when the trap is set),
``discord.pickle`` and ``killed.json`` (Discord's state and messages at the kill), and the two
files of the restart.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import pickle
import signal
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import simcord

from bot.app import create_bot
from bot.config import Settings
from bot.services.dispatch import Dispatcher
from bot.services.timing import LIMIT, REMINDER

from ..e2e_helpers import Table, against_a_computer, make_table, open_and_start, play_one, settle
from .tournament import check_in, game_in, play_moves, resign, snapshot, started_cup, thread_of

#: What of SimCord's backend is Discord's state (kept across the kill, as Discord keeps it).
DISCORD_STATE = (
    "users",
    "guilds",
    "channels",
    "messages",
    "webhooks",
    "webhook_tokens",
    "dm_channels",
    "_reserved_ids",
    "_sequences",
    "cdn",
)

Action = Callable[[], Awaitable[Any]]


def settings_for(store: str, folder: Path) -> Settings:
    """The bot's settings on ``store`` (a PostgreSQL URL, or a SQLite file's path)."""
    location: dict[str, Any] = (
        {"database_url": store} if "://" in store else {"database_path": Path(store)}
    )
    return Settings(
        database_path=folder / "unused.db",  # the URL's store is the one used
        computer_move_delay=0.0,
        computer_budget_ms=20,
    ).with_overrides(**location)


def write_json(path: Path, data: Any) -> None:
    """Write ``data`` and make sure it is on disk before anything else happens."""
    with open(path, "w", encoding="utf-8") as file:
        json.dump(data, file, indent=1, sort_keys=True)
        file.flush()
        os.fsync(file.fileno())


def messages(env: Any) -> dict[str, list[dict[str, Any]]]:
    """Every message of every channel (guild channels, threads, DMs), oldest first."""
    out: dict[str, list[dict[str, Any]]] = {}
    for channel_id, by_id in env.backend.messages.items():
        out[str(channel_id)] = [
            {
                "id": m.id,
                "author": m.author_id,
                "content": m.content,
                "titles": [e.get("title") for e in m.embeds],
                "attachments": len(m.attachments),
                "components": bool(m.components),
                "labels": [
                    c.get("label") for row in m.components for c in row.get("components", [])
                ],
                "edited": m.edited_timestamp is not None,
            }
            for m in sorted(by_id.values(), key=lambda m: m.id)
            if not m.is_ephemeral
        ]
    return out


def dm_channels(env: Any) -> dict[str, int]:
    """Each user's DM channel with the bot (user id -> channel id)."""
    return {str(user): channel for user, channel in env.backend.dm_channels.items()}


# ---------------------------------------------------------------- the trap


def die(env: Any, folder: Path, target: str) -> None:
    """Save what Discord holds now, then SIGKILL this process (nothing runs after it)."""
    state = {name: getattr(env.backend, name) for name in DISCORD_STATE}
    state["elapsed"] = env.backend.clock.elapsed
    with open(folder / "discord.pickle", "wb") as file:
        pickle.dump(state, file)
        file.flush()
        os.fsync(file.fileno())
    write_json(
        folder / "killed.json",
        {
            "target": target,
            "messages": messages(env),
            "dms": dm_channels(env),
            "channels": {str(c.id): c.parent_id for c in env.backend.channels.values()},
        },
    )
    os.kill(os.getpid(), signal.SIGKILL)


class Trap:
    """Kills the process the first time the bot reaches ``target`` once it is armed."""

    def __init__(self, env: Any, folder: Path, target: str) -> None:
        self.env, self.folder, self.target = env, folder, target
        self.armed = False

    def wrap(self, function: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        @functools.wraps(function)  # the same __qualname__: the outbox's name for it
        async def trapped(*args: Any, **kwargs: Any) -> Any:
            if self.armed:
                die(self.env, self.folder, self.target)
            return await function(*args, **kwargs)

        return trapped

    def install(self, bot: Any) -> None:
        if "." in self.target and self.target[0].islower():  # a service's method
            owner_name, method = self.target.split(".")
            owner = getattr(bot, owner_name)
            setattr(owner, method, self.wrap(getattr(owner, method)))
            return
        self._wrap_consumer(bot.bus)

    def _wrap_consumer(self, bus: Dispatcher) -> None:
        """Wrap the consumer named ``target``, in place: the same order, lane and name."""
        subscriptions = bus.subscribed()
        assert any(s.name == self.target for s in subscriptions), self.target
        for s in subscriptions:
            bus.unsubscribe(s.kind, s.handler)
        for s in subscriptions:
            handler = self.wrap(s.handler) if s.name == self.target else s.handler
            bus.subscribe(s.kind, handler, lane=s.lane)
        assert [s.name for s in bus.subscribed()] == [s.name for s in subscriptions]


# ---------------------------------------------------------------- the scenarios


async def a_move(env: Any) -> tuple[dict[str, Any], Action]:
    """Alice and Bob, a time limit, Bob told of his turns by DM: Alice's move."""
    table = await make_table(env, ["alice", "bob"])
    _, bob = table.players
    await bob.slash(table.channel, "sequence-me notify", setting="on")
    record = await open_and_start(table, time_limit="1d", on_timeout="skip")
    if record.seats[record.game.turn].user_id == bob.id:
        await play_one(table, record)
    facts = {"game": record.id, "channel": table.channel.id, "told": bob.id}
    return facts, lambda: play_one(table, record)


async def a_move_against_a_computer(env: Any) -> tuple[dict[str, Any], Action]:
    """Alice against an easy computer: Alice's move (the computer replies)."""
    table, record = await against_a_computer(env, "easy", seed=1)
    await settle(env)
    facts = {
        "game": record.id,
        "channel": table.channel.id,
        "person": table.players[0].id,
        "moves": len(record.game.moves),
    }
    return facts, lambda: play_one(table, record)


async def a_resignation(env: Any) -> tuple[dict[str, Any], Action]:
    """Alice and Bob, with a time limit: Alice resigns (the game ends, Bob's side wins)."""
    table = await make_table(env, ["alice", "bob"])
    alice, _ = table.players
    record = await open_and_start(table, time_limit="1d", on_timeout="skip")
    facts = {"game": record.id, "channel": table.channel.id}
    return facts, lambda: alice.slash(table.channel, "sequence resign")


async def a_tournament_match_ending(env: Any) -> tuple[dict[str, Any], Action]:
    """A four-entrant knockout whose first semi-final the organiser reported: the second
    semi-final's game ends (a resignation), which completes the round."""
    channel, (ann, ben, cat, _dan) = await started_cup(env, ["ann", "ben", "cat", "dan"])
    snap = await snapshot(env.bot, channel)
    first, second = snap.round_matches(1)
    await ann.slash(channel, "tournament-admin report", match=first.id, winner=ann)
    await check_in(channel, second, [ben, cat])
    record = game_in(env.bot, second)
    thread = thread_of(channel, second)
    table_players = [ben, cat]
    await play_moves(Table(env, channel.guild, thread, table_players), record, 2)
    loser = next(p for p in table_players if p.id == record.seats[0].user_id)
    facts = {
        "game": record.id,
        "channel": thread.id,
        "tournament_channel": channel.id,
        "tournament": snap.tournament.id,
    }
    return facts, lambda: resign(thread, [loser])


async def a_tournament_match_starting(env: Any) -> tuple[dict[str, Any], Action]:
    """ann and ben's cup: ann has checked in; ben's I'm here starts the match's game (its id
    is the store's to give: ``game`` is found in the thread afterwards)."""
    channel, (ann, ben) = await started_cup(env, ["ann", "ben"], show_up="10m")
    snap = await snapshot(env.bot, channel)
    (match,) = snap.round_matches(1)
    await check_in(channel, match, [ann])
    facts = {
        "game": None,
        "channel": match.thread_id,
        "tournament_channel": channel.id,
        "tournament": snap.tournament.id,
    }
    return facts, lambda: check_in(channel, match, [ben])


SCENARIOS: dict[str, Callable[[Any], Awaitable[tuple[dict[str, Any], Action]]]] = {
    "move": a_move,
    "computer": a_move_against_a_computer,
    "resign": a_resignation,
    "tournament": a_tournament_match_ending,
    "match start": a_tournament_match_starting,
}


async def crash(store: str, folder: Path, scenario: str, target: str) -> None:
    env = simcord.Env(create_bot(settings_for(store, folder)))
    await env.start()
    with env.time_context():
        facts, action = await SCENARIOS[scenario](env)
        await settle(env)
        trap = Trap(env, folder, target)
        trap.install(env.bot)
        write_json(folder / "facts.json", facts)
        trap.armed = True
        await action()
        await settle(env)
    # Still alive: the change never reached the trap.
    sys.stdout.write(f"the trap {target} was never reached\n")
    await env.shutdown()
    await env.bot.close()
    sys.exit(3)


# ---------------------------------------------------------------- the restart


def restore(env: Any, folder: Path) -> None:
    """Give ``env``'s Discord what the killed process's held, ids and clock included."""
    with open(folder / "discord.pickle", "rb") as file:
        state = pickle.load(file)
    env.backend.clock.elapsed = state.pop("elapsed") + 1.0  # restarted a second later
    for name, value in state.items():
        setattr(env.backend, name, value)


async def observe(env: Any, facts: dict[str, Any]) -> dict[str, Any]:
    """What Discord holds and what the store says of the game, once the bot is idle."""
    for _ in range(3):  # what one consumer does may wake another (a computer's reply)
        await settle(env)
    bot = env.bot
    game_id = facts["game"] or await bot.db.read(_latest_game, facts["channel"])
    record = await bot.db.games.load(game_id)
    result = await bot.db.results.get(game_id)
    timers = await bot.db.timers.of_game(game_id)
    seen: dict[str, Any] = {
        "messages": messages(env),
        "dms": dm_channels(env),
        "moves": len(record.game.moves),
        "status": record.status,
        "turn_number": record.game.turn_number,
        "board_message_id": record.board_message_id,
        "result": None if result is None else {"winner_team": result.winner_team},
        "timers": sorted([t.kind, t.payload.get("turn")] for t in timers),
        "undelivered": [row.kind for row in await bot.db.outbox.undelivered(None)],
        "armed": [kind for kind in (LIMIT, REMINDER) if ("turn", game_id, kind) in bot.scheduler],
    }
    if "tournament" in facts:
        tournaments = await bot.db.tournaments.in_channel(facts["tournament_channel"])
        snap = await bot.tournament_service.snapshot(tournaments[-1].id)
        seen["rounds"] = {
            str(n): [[m.entrant_a, m.entrant_b, m.outcome, m.thread_id] for m in matches]
            for n in range(1, 4)
            if (matches := snap.round_matches(n))
        }
        seen["matches"] = {
            str(n): [[m.status, m.game_id] for m in matches]
            for n in range(1, 4)
            if (matches := snap.round_matches(n))
        }
        seen["game"] = game_id
        seen["tournament_status"] = snap.tournament.status
        seen["threads"] = [
            channel.id
            for channel in env.backend.channels.values()
            if channel.parent_id == facts["tournament_channel"]
        ]
    return seen


async def _latest_game(conn: Any, channel_id: int) -> int:
    """The id of the newest game of a channel (one the scenario's action created)."""
    row = await conn.fetchone("SELECT max(id) FROM games WHERE channel_id = ?", (channel_id,))
    return int(row[0])


async def restart(store: str, folder: Path) -> None:
    facts = json.loads((folder / "facts.json").read_text())
    settings = settings_for(store, folder)
    env = simcord.Env(create_bot(settings))
    restore(env, folder)
    await env.start()
    with env.time_context():
        write_json(folder / "after.json", await observe(env, facts))
        await env.bot.close()
        await env.restart_bot(create_bot(settings))
        write_json(folder / "again.json", await observe(env, facts))
    await env.shutdown()
    await env.bot.close()


def main(argv: list[str]) -> None:
    mode, store, folder = argv[0], argv[1], Path(argv[2])
    if mode == "crash":
        asyncio.run(crash(store, folder, argv[3], argv[4]))
    else:
        asyncio.run(restart(store, folder))


if __name__ == "__main__":
    main(sys.argv[1:])
