"""What a move costs: the bot's own work, and the click through SimCord's simulated Discord.

Plays whole 2-player games the way a player moves: on each turn **Your hand** under the board,
the card, for a jack its row and space, then the play button. That last click is the move; it
is measured twice:

* **own work**: the bot's own cost of the move, measured directly. A stopwatch starts when
  discord.py's gateway parser receives the click (``INTERACTION_CREATE``) and stops when the
  bot's last work for it ends: the component's callback has returned (the service, the store,
  the panel's reply) and the game's event subscribers are done (the board drawn and posted, the
  old board retired, its message id stored). The time spent inside SimCord's simulated Discord
  is taken out: SimCord answers each HTTP request synchronously inside its ``request`` method
  (routing, its backend, the gateway events a request causes), so those calls are timed and
  subtracted, exactly; so are the slices of SimCord's settling loop (the clicking actor's task
  waking to see whether the bot is idle), timed one by one. What is left is discord.py building
  and parsing payloads, the bot's code,
  the store's thread and the drawing thread. (A drawing thread that runs on while the loop is
  inside a simulated request is not counted for that overlap; a real network takes longer.)
  Its **CPU time** is the process's CPU time over the same span (every thread) minus the loop
  thread's CPU time inside those requests: less sensitive to the machine's load than the wall
  time, which is what a player waits.
* **click**: the wall time of SimCord's ``click`` of that button: its interaction payload, the
  bot's work, the simulated Discord and SimCord settling until the bot is idle. Its **slope**
  over the moves of the run (least squares, in ms per 100 moves) says whether a move costs more
  the more moves were played (a fuller board costs a little more to draw, within a game); the
  slope of each game's median against the moves played before it leaves that out. The live
  counts (asyncio tasks, SimCord's tracked timers) after each game must not grow either.

Where the own work goes is printed too (:data:`PARTS`): the time until the player's panel is
answered, the store's transaction of the move, the board's drawing on its thread and the time
the post waits for it. The transaction alone takes 1-2.5 ms (``bench/store.py``). The table
draws the board when it handles the move's event: a thread drawing earlier slowed what ran
meanwhile, each waiting for the interpreter lock (during the transaction, the transaction took
7-13 ms; while the player was answered, the answer started after 5.0-5.8 ms instead of 2.5-3.1).

Opening the panel (**Your hand**, which draws the hand image) is measured the same way, as its
own figure; the card menu is not timed, nor are dead cards, passes, forfeits and the choice of
five (through the panel or the command).

Each run is a fresh process. ``--against REV`` (repeatable) also runs git revision REV's bot (a
temporary ``git worktree``, this file's measuring code), in runs interleaved with the current
tree (each takes each place in turn), and prints the current tree's ratio to it. Figures are
medians over runs, with the range (min-max) of the runs. SimCord's own bookkeeping on the event
loop (it tracks every task and callback the bot schedules) falls inside the own-work span: small
and constant here, it grows with a bot that leaks tasks (compare own work against a revision
without the leak). Run: ``python bench/play.py [--games N] [--runs R] [--against REV ...]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# bench/render.py is named like the render package: keep this folder off the import path.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]
ROOT = _HERE.parent


def percentile(values: list[float], fraction: float) -> float:
    """The ``fraction`` percentile (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def slope(ys: list[float], xs: list[float] | None = None) -> float:
    """Least-squares slope of ``ys`` against ``xs`` (default: their index)."""
    xs = list(range(len(ys))) if xs is None else xs
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    spread = sum((x - mean_x) ** 2 for x in xs)
    return (
        sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / spread
        if spread
        else 0.0
    )


def component(message: Any, prefix: str) -> str:
    """The custom id of the first component starting with ``prefix``."""
    for row in message.components or []:
        for item in row.get("components", []):
            if item.get("custom_id", "").startswith(prefix):
                return item["custom_id"]
    raise LookupError(prefix)


#: Parts of the own-work span, timed on their own (wall; they overlap): the own work until
#: the player's panel starts to be answered (SimCord's time taken out), then, with SimCord's
#: time left in, the store's transaction of the move (``GameService._commit``), the board's
#: drawing (on its thread) and the time the board's post waits for it (``public_board_file``,
#: the board with its alt text; ``render_public_board`` before it, ``Table._board_png`` in
#: revisions that drew the board early).
PARTS = ("reply", "commit", "drawing", "board wait")
#: What is kept of each timed move.
MEASURED = ("own", "cpu", "sim", "click", "calls", *PARTS)


class Stopwatch:
    """The bot's own time on one click: armed before the click, read after it. Wall time
    and the process's CPU time (every thread: the loop, the store's, the drawing one)."""

    def __init__(self) -> None:
        self.arm()
        self.armed = False

    def arm(self) -> None:
        self.armed, self.start, self.end = True, 0.0, 0.0
        self.cpu_start, self.cpu_end = 0.0, 0.0
        #: SimCord's share of the span: its requests and its settling (wall, loop thread CPU).
        self.network = self.network_cpu = self.settling = self.settling_cpu = 0.0
        #: Where the span goes (wall seconds; parts overlap): see :data:`PARTS`.
        self.parts = dict.fromkeys(PARTS, 0.0)

    def read(self) -> tuple[float, float]:
        """Seconds of the bot's own work on the click just made: wall time, CPU time."""
        self.armed = False
        assert self.start and self.end >= self.start, "the click never reached the bot"
        wall = self.end - self.start - self.network - self.settling
        return wall, self.cpu_end - self.cpu_start - self.network_cpu - self.settling_cpu

    def received(self) -> None:
        if self.armed and not self.start:
            self.start, self.cpu_start = time.perf_counter(), time.process_time()

    def finished(self) -> None:
        if self.armed:
            self.end, self.cpu_end = time.perf_counter(), time.process_time()

    def install(self, env: Any) -> None:
        """Hook the click's start and end in the bot, and SimCord's HTTP handlers."""
        import discord.ui.view
        from simcord.http.client import FakeHTTPClient, FakeWebhookAdapter

        state = env.bot._connection
        parse = state.parsers["INTERACTION_CREATE"]

        def parse_interaction(data: Any) -> None:
            self.received()
            parse(data)

        state.parsers["INTERACTION_CREATE"] = parse_interaction
        settle = env._settle_internal

        async def settling(*args: Any, **kwargs: Any) -> Any:
            return await _Sliced(settle(*args, **kwargs), self)

        env._settle_internal = settling
        store = discord.ui.view.ViewStore
        store.schedule_dynamic_item_call = self._ending(store.schedule_dynamic_item_call)  # type: ignore[method-assign]
        bus = env.bot.bus
        bus._call = self._ending(bus._call)
        for client in (FakeHTTPClient, FakeWebhookAdapter):
            client.request = self._network(client.request)  # type: ignore[method-assign]
        self._time_parts()

    def _time_parts(self) -> None:
        """Time the parts of :data:`PARTS` that the bot under test has (a revision may not)."""
        import cogs.common.table as table
        from bot.services.games import GameService

        if hasattr(GameService, "_commit"):
            GameService._commit = self._part("commit", GameService._commit)  # type: ignore[method-assign]
        if hasattr(table.Table, "_board_png"):
            table.Table._board_png = self._part("board wait", table.Table._board_png)  # type: ignore[method-assign]
        elif hasattr(table, "public_board_file"):  # the board and its alt text
            table.public_board_file = self._part("board wait", table.public_board_file)
        elif hasattr(table, "render_public_board"):
            table.render_public_board = self._part("board wait", table.render_public_board)
        import discord

        answer = discord.InteractionResponse.edit_message

        async def answering(*args: Any, **kwargs: Any) -> Any:  # the panel's answer starts
            if self.armed and self.start and not self.parts["reply"]:
                self.parts["reply"] = (
                    time.perf_counter() - self.start - self.network - self.settling
                )
            return await answer(*args, **kwargs)

        discord.InteractionResponse.edit_message = answering  # type: ignore[method-assign]
        if hasattr(table, "render_board"):
            draw = table.render_board

            def drawing(*args: Any) -> Any:  # on the drawing thread
                start = time.perf_counter()
                try:
                    return draw(*args)
                finally:
                    if self.armed:
                        self.parts["drawing"] += time.perf_counter() - start

            table.render_board = drawing

    def _part(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        async def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return await function(*args, **kwargs)
            finally:
                if self.armed:
                    self.parts[name] += time.perf_counter() - start

        return timed

    def _ending(self, function: Callable[..., Any]) -> Callable[..., Any]:
        async def timed(*args: Any, **kwargs: Any) -> Any:
            try:
                return await function(*args, **kwargs)
            finally:
                self.finished()

        return timed

    def _network(self, request: Callable[..., Any]) -> Callable[..., Any]:
        async def timed(*args: Any, **kwargs: Any) -> Any:
            start, cpu = time.perf_counter(), time.thread_time()
            try:
                return await request(*args, **kwargs)
            finally:
                if self.armed:
                    self.network += time.perf_counter() - start
                    self.network_cpu += time.thread_time() - cpu  # the loop's thread

        return timed


class _Sliced:
    """Awaits a coroutine of SimCord's settling, timing each slice it runs on the loop."""

    def __init__(self, coroutine: Any, watch: Stopwatch) -> None:
        self.coroutine, self.watch = coroutine, watch

    def __await__(self) -> Any:
        value: Any = None
        error: BaseException | None = None
        while True:
            start, cpu = time.perf_counter(), time.thread_time()
            try:
                if error is None:
                    signal = self.coroutine.send(value)
                else:
                    signal = self.coroutine.throw(error)
            except StopIteration as done:
                return done.value
            finally:
                if self.watch.armed and self.watch.start:
                    self.watch.settling += time.perf_counter() - start
                    self.watch.settling_cpu += time.thread_time() - cpu
            value, error = None, None
            try:
                value = yield signal
            except BaseException as thrown:  # a cancellation, passed on
                error = thrown


def live_counts(env: Any) -> tuple[int, int]:
    """Unfinished asyncio tasks, and the timers SimCord tracks for the bot (private list)."""
    timers = [
        record
        for record in env._work.callbacks
        if record.when is not None and record.handle is not None and not record.handle.cancelled()
    ]
    return sum(1 for task in asyncio.all_tasks() if not task.done()), len(timers)


async def play_game(
    env: Any, channel: Any, players: list[Any], seed: int, watch: Stopwatch
) -> dict[str, list[float]]:
    """One game; per timed move: own work, click time (s) and API calls."""
    from bot.game import player_view, space_name
    from bot.game.ai import choose_move
    from bot.game.cards import is_jack
    from bot.game.moves import PLAY

    host, guest = players
    bot = env.bot
    lobby = (await host.slash(channel, "sequence new")).response
    await guest.click(lobby, label="Join")
    bot.lobbies.new_seed = lambda: seed
    await host.click(lobby, label="Start")
    record = bot.games.find_in_channel(channel.id)
    rng = random.Random(seed)
    found: dict[str, list[float]] = {key: [] for key in (*MEASURED, "panel")}
    while not record.game.is_over():
        game = record.game
        seat = game.turn
        actor = next(p for p in players if p.id == record.seats[seat].user_id)
        move = choose_move(player_view(game, seat), "medium", rng)
        if move.kind != PLAY:
            await _other_move(actor, channel, move)
            continue
        if move.five:  # a long line: the command offers the fives (not timed)
            space = space_name(move.space or 0)
            offer = await actor.slash(channel, "sequence play", card=move.card, space=space)
            await actor.click(offer.response, custom_id=component(offer.response, "seq:five:"))
            continue
        watch.arm()
        panel = (await actor.click(channel.last_message, label="Your hand")).response
        found["panel"].append(watch.read()[0])
        await actor.select(panel, [move.card], custom_id=component(panel, "seq:card:"))
        if is_jack(move.card or ""):
            await actor.select(
                panel, [str((move.space or 0) // 10)], custom_id=component(panel, "seq:row:")
            )
            await actor.select(panel, [str(move.space)], custom_id=component(panel, "seq:space:"))
        go = component(panel, f"seq:go:{record.id}:{game.turn_number}:{move.card}:{move.space}")
        before = len(env.http_requests)
        watch.arm()
        start = time.perf_counter()
        await actor.click(panel, custom_id=go)
        found["click"].append(time.perf_counter() - start)
        own, cpu = watch.read()
        found["own"].append(own)
        found["cpu"].append(cpu)
        found["sim"].append(watch.network + watch.settling)
        found["calls"].append(len(env.http_requests) - before)
        for part, seconds in watch.parts.items():
            found[part].append(seconds)
    return found


async def _other_move(actor: Any, channel: Any, move: Any) -> None:
    """Dead cards, passes and forfeits go through the panel (not timed)."""
    panel = (await actor.slash(channel, "sequence hand")).response
    if move.kind == "dead":
        await actor.select(panel, [move.card], custom_id=component(panel, "seq:card:"))
        await actor.click(panel, custom_id=component(panel, "seq:dead:"))
    elif move.kind == "pass":
        await actor.click(panel, custom_id=component(panel, "seq:pass:"))
    elif move.kind == "forfeit":
        await actor.select(panel, [move.card], custom_id=component(panel, "seq:forfeit:"))


async def measure(games: int) -> dict[str, Any]:
    """One run: ``games`` games in one bot; every timed move's figures, and counts per game."""
    import simcord

    from bot.app import create_bot
    from bot.config import Settings

    unlimited = (1_000_000, 1)  # SimCord's clock stands still: no command may be refused
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(
            database_path=Path(folder) / "bench.db",
            computer_move_delay=0,
            user_rate_limit=unlimited,
            channel_rate_limit=unlimited,
            create_rate_limit=unlimited,
        )
        async with simcord.run(create_bot(settings)) as env:
            try:
                return await _games(env, games)
            finally:
                await env.bot.close()


async def _games(env: Any, games: int) -> dict[str, Any]:
    watch = Stopwatch()
    watch.install(env)
    guild = env.create_guild("Bench")
    players = [guild.add_member(env.create_user(name)) for name in ("alice", "bob")]
    result: dict[str, Any] = {key: [] for key in (*MEASURED, "panel", "games")}
    for seed in range(games):
        channel = guild.create_text_channel(f"game-{seed}")
        found = await play_game(env, channel, players, seed, watch)
        for key in (*MEASURED, "panel"):
            result[key] += found[key]
        tasks, timers = live_counts(env)
        result["games"].append(
            {
                "moves": len(found["click"]),
                "click": statistics.median(found["click"]),
                "tasks": tasks,
                "timers": timers,
            }
        )
    return result


def summary(result: dict[str, Any]) -> dict[str, float]:
    """The figures of one run (ms, counts)."""
    ms = 1000
    own, click = result["own"], result["click"]
    return {
        "moves": len(click),
        "own median": statistics.median(own) * ms,
        "own p95": percentile(own, 0.95) * ms,
        "cpu median": statistics.median(result["cpu"]) * ms,
        "sim median": statistics.median(result["sim"]) * ms,
        "panel median": statistics.median(result["panel"]) * ms,
        "click median": statistics.median(click) * ms,
        "click p95": percentile(click, 0.95) * ms,
        "click slope": slope([c * ms for c in click]) * 100,
        "own slope": slope([o * ms for o in own]) * 100,
        "game slope": slope(
            [game["click"] * ms for game in result["games"]],
            [sum(g["moves"] for g in result["games"][:n]) for n in range(len(result["games"]))],
        )
        * 100,
        "calls": statistics.mean(result["calls"]),
        **{f"{part} median": statistics.median(result[part]) * ms for part in PARTS},
        "tasks": max(game["tasks"] for game in result["games"]),
        "timers": max(game["timers"] for game in result["games"]),
    }


FIGURES = [
    ("own median", "own work per move: median", "ms"),
    ("own p95", "own work per move: p95", "ms"),
    ("cpu median", "own work per move, CPU time: median", "ms"),
    ("sim median", "SimCord's requests and settling taken out of it: median", "ms"),
    ("reply median", "of which until the player's panel is answered: median", "ms"),
    ("commit median", "of which the store's transaction of the move: median", "ms"),
    ("drawing median", "of which drawing the board (on its own thread): median", "ms"),
    ("board wait median", "of which the board's post waiting for the drawing: median", "ms"),
    ("panel median", "own work to open the panel (draws the hand image): median", "ms"),
    ("click median", "click through SimCord: median", "ms"),
    ("click p95", "click through SimCord: p95", "ms"),
    ("click slope", "click slope", "ms per 100 moves"),
    ("own slope", "own work slope", "ms per 100 moves"),
    ("game slope", "click slope across games (each game's median)", "ms per 100 moves"),
    ("calls", "Discord API calls per move: mean", ""),
    ("tasks", "live asyncio tasks after a game: max", ""),
    ("timers", "live SimCord timers after a game: max", ""),
]


def run_in(tree: Path, games: int) -> dict[str, Any]:
    """:func:`measure` in a fresh process importing the bot of ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    command = [sys.executable, __file__, "--worker", "--games", str(games)]
    done = subprocess.run(command, env=env, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.splitlines()[-1])


def report_run(label: str, result: dict[str, Any]) -> None:
    figures = summary(result)
    per_game = " -> ".join(f"{game['click'] * 1000:.0f}" for game in result["games"])
    counts = " -> ".join(f"{game['tasks']}/{game['timers']}" for game in result["games"])
    print(
        f"{label}: {figures['moves']} moves; own median {figures['own median']:.1f} ms, "
        f"p95 {figures['own p95']:.1f} ms, CPU {figures['cpu median']:.1f} ms; "
        f"click median {figures['click median']:.1f} ms, "
        f"slope {figures['click slope']:+.1f} ms/100 moves; per-game click medians {per_game} ms; "
        f"tasks/timers after each game {counts}"
    )


def spread(values: list[float], unit: str) -> str:
    unit = f" {unit}" if unit else ""
    return (
        f"median {statistics.median(values):.1f}{unit} (runs {min(values):.1f}-{max(values):.1f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=5, help="complete games per run")
    parser.add_argument("--runs", type=int, default=3, help="runs (each a fresh process)")
    parser.add_argument(
        "--against", metavar="REV", action="append", default=[], help="also run git REV's bot"
    )
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(asyncio.run(measure(args.games))))
        return
    sys.path.insert(0, str(_HERE))
    from worktree import checkout

    trees: dict[str, Path] = {"current": ROOT}
    with contextlib.ExitStack() as stack:
        for rev in args.against:
            trees[rev] = stack.enter_context(checkout(rev))
        results: dict[str, list[dict[str, float]]] = {label: [] for label in trees}
        labels = list(trees)
        for number in range(args.runs):
            shift = number % len(labels)  # each tree takes each place in turn
            for label in labels[shift:] + labels[:shift]:
                result = run_in(trees[label], args.games)
                report_run(f"run {number + 1} {label}", result)
                sys.stdout.flush()
                results[label].append(summary(result))
    print(
        f"play: {args.runs} runs of {args.games} games (2 players, seeds 0-{args.games - 1}); "
        "own work = from the bot receiving the play click to its last work for it, minus the "
        "time inside SimCord's simulated Discord; click = SimCord's click, settled"
    )
    for key, name, unit in FIGURES:
        line = f"play: {name}: " + ", ".join(
            f"{label} {spread([run[key] for run in runs], unit)}" for label, runs in results.items()
        )
        if key in ("own median", "own p95", "cpu median", "click median", "click p95"):
            for rev in args.against:
                ratios = [
                    now[key] / then[key]
                    for now, then in zip(results["current"], results[rev], strict=True)
                ]
                line += f"; current/{rev} {statistics.median(ratios):.2f}x"
        print(line)


if __name__ == "__main__":
    main()
