"""Make tests/data/a68c04c_games.sql.gz: games stored by an old release, for the replay tests.

The engine of git revision ``--rev`` (a68c04c by default: the last before rules revision 2,
c7a4acf 25c12d2 33e8da8 629d8ff) plays random games in a temporary worktree, with turns lost to
the time limit (skips), late manual draws and, with three teams, a player removed after a pass.
This tree's engine replays each under revision 2; the first games of each kind that revision 2
would play on differently (a stalemate after a time-out, after a departure, a convoy ending, a
late manual draw; an active game after a pass holding a dead card) are kept, with a few that it
plays alike. The old revision's own store writes them into a SQLite file as its bot would (the
table options, with a 10-minute turn limit whose time-out skips, and the kind of game under
"kind"; finished games with a result; the first "skip" game still active one move before its
stalemate, the "dead" ones just after the pass; one ordinary game with an undone move), dumped
as compressed SQL. Run again, it writes the same rows but the schema's ``applied_at`` times.

Run: ``python bench/old_games.py [--rev a68c04c] [--out tests/data/a68c04c_games.sql.gz]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gzip
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from worktree import ROOT, checkout

#: (players, preset, sequences to win, manual_draw, endless_play_guard) by seed, in turn:
#: long classic games (four sequences to win, no guard) fill the board, so that players pass.
CONFIGS = [
    (2, "classic", 4, False, False),
    (3, "classic", 4, False, False),
    (2, "convoy", None, False, True),
    (3, "classic", None, True, False),
    (6, "classic", None, True, True),
    (2, "classic", 2, True, False),
    (6, "classic", 4, False, False),
    (4, "convoy", None, True, True),
    (4, "classic", 4, False, False),
]
#: Games kept of each kind.
KEEP = {
    "skip": 2,
    "dead": 2,
    "departure": 2,
    "convoy": 2,
    "late draw": 2,
    "draw": 1,
    "ordinary": 3,
}


def play(count: int) -> None:
    """Play ``count`` games with the engine this process imports; one JSON line each."""
    from bot.game import Game, GameSettings, Move
    from bot.game.moves import DEAD, DRAW, REMOVE, SKIP
    from bot.game.randomplay import push_random

    for seed in range(count):
        players, preset, needed, manual, guard = CONFIGS[seed % len(CONFIGS)]
        settings = GameSettings.create(
            players,
            preset=preset,
            sequences_to_win=needed,
            manual_draw=manual,
            endless_play_guard=guard,
        )
        game, rng = Game.new(settings, seed), random.Random(seed)
        removed = False
        while not game.is_over() and len(game.moves) < 600:
            roll = rng.random()
            late = [s for s in game.owed_draws if s != game.turn]
            move = None
            if roll < 0.04:  # the turn's time ran out
                move = Move(SKIP, game.turn)
            elif late and roll < 0.3:  # a draw taken after the next player moved
                move = Move(DRAW, rng.choice(late))
            elif settings.teams == 3 and not removed and game.passes_in_row and roll > 0.8:
                removed = True
                move = Move(REMOVE, rng.choice([s for s in range(players) if not game.out[s]]))
            if move is None and manual and players == 2:  # a table that turns in dead cards
                move = next((m for m in game.legal_moves if m.kind == DEAD), None)
            if move is None or game.validate(move):
                push_random(game, rng)
            else:
                game.push(move)
        print(json.dumps(game.to_dict()))


def kind_of(data: dict[str, Any]) -> tuple[str, int | None] | None:
    """What revision 2 changes in the game's replay, and where to stop the stored log.

    "ordinary": nothing. Else the first move it plays otherwise: "skip", "departure", "late
    draw" (a draw that keeps the previous player's), "draw" (one that starts the count of passes
    again), or "convoy" for any move of a convoy game. "dead", a pass holding a dead card, is
    kept as the game still active just after it, where the count of passes differs (later, a
    card played starts the count again). None for a game not worth keeping.
    """
    from bot.game import ACTIVE, Game, GameSettings, Move

    if data["state"]["status"] == ACTIVE:
        return None
    settings = GameSettings.from_dict(data["settings"])
    changed = not _same_state(data)
    old = Game.new(settings, data["seed"])
    today = Game.new(replace(settings, rules=2), data["seed"])
    for number, move in enumerate(map(Move.from_dict, data["moves"])):
        old.push(move)
        try:
            today.push(move)
        except ValueError:
            return ("convoy" if settings.convoy else move.kind), None
        if old.state_dict() == today.state_dict():
            continue
        if not changed:
            return ("dead", number + 1) if move.kind == "pass" else None
        if settings.convoy:
            return "convoy", None
        if move.kind == "draw":
            return ("late draw" if old.owed_draws != today.owed_draws else "draw"), None
        return {"remove": "departure"}.get(move.kind, move.kind), None
    return "ordinary", None


def pick(games: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The first games of each kind (``KEEP``), the shortest among the first candidates."""
    found: dict[str, list[dict[str, Any]]] = {kind: [] for kind in KEEP}
    for data in games:
        kind = kind_of(data)
        if kind is not None and len(found[kind[0]]) < 4 * KEEP[kind[0]]:
            found[kind[0]].append(data | {"kind": kind[0], "stop": kind[1]})
    chosen = []
    for kind, candidates in found.items():
        if len(candidates) < KEEP[kind]:
            raise SystemExit(f"only {len(candidates)} game(s) of kind {kind!r}: play more")
        candidates.sort(key=lambda d: (_same_end(d), d["stop"] or len(d["moves"])))
        chosen += candidates[: KEEP[kind]]
    return chosen


def _today(data: dict[str, Any]) -> dict[str, Any]:
    """The state revision 2 replays the game's log to ({} when it cannot)."""
    from bot.game import Game, GameSettings, Move

    settings = replace(GameSettings.from_dict(data["settings"]), rules=2)
    try:
        return Game.replay(settings, data["seed"], map(Move.from_dict, data["moves"])).state_dict()
    except ValueError:
        return {}


def _same_state(data: dict[str, Any]) -> bool:
    """True when revision 2 replays the game's log to the state it had (the old release's
    state read as the store reads it)."""
    return _today(data) == _stored_state(data)


def _same_end(data: dict[str, Any]) -> bool:
    """True when revision 2 ends the game's log as it ended."""
    return _today(data).get("termination") == data["state"]["termination"]


def _stored_state(data: dict[str, Any]) -> dict[str, Any]:
    """The old release's state in this tree's layout (see ``bot/store/upgrades.py``)."""
    from bot.game import Game, GameSettings, Move
    from bot.store.upgrades import upgrade_state

    settings = GameSettings.from_dict(data["settings"])
    moves = [Move.from_dict(m) for m in data["moves"]]
    return upgrade_state(dict(data["state"]), lambda: Game.replay(settings, data["seed"], moves))


async def store(picked: list[dict[str, Any]], path: Path) -> None:
    """Store the games with the store this process imports, as the bot would have."""
    from bot.services.options import TableOptions  # the old revision's module (PYTHONPATH)

    from bot.game import Game, GameSettings, Move
    from bot.game.randomplay import push_random
    from bot.store import Seat, SQLiteStore

    db = await SQLiteStore.open(path)
    try:
        for channel, data in enumerate(picked, start=1):
            settings = GameSettings.from_dict(data["settings"])
            moves = [Move.from_dict(m) for m in data["moves"]][: data["stop"]]
            active = channel == 1 or data["stop"] is not None
            if channel == 1:  # stopped one move before its stalemate
                moves = moves[:-1]
            game = Game.new(settings, data["seed"])
            seats = [Seat(100 + i, f"P{i}") for i in range(settings.players)]
            options = TableOptions(
                preset=settings.preset,
                sequences_to_win=settings.sequences_to_win,
                manual_draw=settings.manual_draw,
                endless_play_guard=settings.endless_play_guard,
                turn_time_limit=600,
                host_id=100,
            )
            record = await db.games.create(
                7, channel, game, seats, options.to_dict() | {"kind": data["kind"]}, None, 1000.0
            )
            for number, move in enumerate(moves):
                game.push(move)
                await db.games.append_move(
                    record.id, number, move, 100 + max(move.seat, 0), game, 2000.0 + number
                )
            if data["kind"] == "ordinary" and channel == len(picked):  # an undo, then a move
                count = len(game.moves)
                before = Game.replay(settings, game.seed, game.moves[:-1])
                await db.games.truncate_last(record.id, count, before, 3000.0)
                move = push_random(before, random.Random(count))
                await db.games.append_move(record.id, count - 1, move, 7, before, 3001.0)
                game = before
            if not active:
                await db.games.finish(record.id, "finished", 4000.0 + channel)
                teams = [[100 + i] for i in range(settings.teams)]
                await db.results.record(
                    record.id, 7, teams, game.winner, True, {"moves": len(moves)}, 4000.0
                )
    finally:
        await db.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", default="a68c04c")
    parser.add_argument("--games", type=int, default=400, help="games played to choose from")
    parser.add_argument("--out", type=Path, default=ROOT / "tests/data/a68c04c_games.sql.gz")
    parser.add_argument("--play", type=int, help=argparse.SUPPRESS)  # in the old worktree
    parser.add_argument("--store", nargs=2, type=Path, help=argparse.SUPPRESS)  # there too
    args = parser.parse_args()
    if args.play is not None:
        play(args.play)
        return
    if args.store:
        asyncio.run(store(json.loads(args.store[0].read_text()), args.store[1]))
        return
    with checkout(args.rev) as tree, tempfile.TemporaryDirectory() as scratch:
        env = os.environ | {"PYTHONPATH": str(tree)}

        def old(*extra: str) -> str:
            command = [sys.executable, __file__, *extra]
            return subprocess.run(
                command, env=env, cwd=tree, check=True, capture_output=True, text=True
            ).stdout

        games = [json.loads(line) for line in old("--play", str(args.games)).splitlines()]
        picked = pick(games)
        picked.sort(key=lambda d: (d["kind"] != "skip", d["kind"] == "ordinary"))
        chosen, db = Path(scratch) / "picked.json", Path(scratch) / "old.db"
        chosen.write_text(json.dumps(picked))
        old("--store", str(chosen), str(db))
        with contextlib.closing(sqlite3.connect(db)) as conn, conn:
            dump = "\n".join(conn.iterdump()) + "\n"
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(gzip.compress(dump.encode(), mtime=0))
    kinds = [d["kind"] for d in picked]
    print(f"{args.out}: {len(picked)} games ({', '.join(kinds)}), {args.out.stat().st_size} bytes")


if __name__ == "__main__":
    main()
