"""The bot's own cost per move, measured through SimCord's in-memory Discord.

Plays whole 2-player games: on each turn the player opens **Your hand**, picks the card, then
clicks the space (or the confirm button for a jack); the time from that click until the new
board is posted is measured. A no-op slash command through the same simulated Discord measures
the harness's own cost; the difference is the bot's cost per move. Also counts the Discord API
calls each move makes. Run: ``python bench/play.py [--games N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# bench/render.py is named like the render package: keep this folder off the import path.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]

import discord  # noqa: E402
import simcord  # noqa: E402

from bot.app import create_bot  # noqa: E402
from bot.config import Settings  # noqa: E402
from bot.game import player_view, space_name  # noqa: E402
from bot.game.ai import choose_move  # noqa: E402
from bot.game.cards import is_jack  # noqa: E402
from bot.game.moves import PLAY  # noqa: E402


def percentile(values: list[float], fraction: float) -> float:
    """The ``fraction`` percentile (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def component(message: Any, prefix: str) -> str:
    """The custom id of the first component starting with ``prefix``."""
    for row in message.components or []:
        for item in row.get("components", []):
            if item.get("custom_id", "").startswith(prefix):
                return item["custom_id"]
    raise LookupError(prefix)


def add_noop(bot: Any) -> None:
    """A slash command that does nothing but answer: the harness's own cost."""

    @discord.app_commands.command(name="bench-noop", description="Does nothing")
    async def noop(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("ok", ephemeral=True)

    bot.tree.add_command(noop)


async def play_game(
    env: Any, channel: Any, players: list[Any], seed: int
) -> tuple[list[float], list[int]]:
    """One game; the click-to-board times and API calls of its plays."""
    host, guest = players
    bot = env.bot
    lobby = (await host.slash(channel, "sequence new")).response
    await guest.click(lobby, label="Join")
    bot.lobbies.new_seed = lambda: seed
    await host.click(lobby, label="Start")
    record = bot.games.find_in_channel(channel.id)
    rng = random.Random(seed)
    times: list[float] = []
    calls: list[int] = []
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
        panel = (await actor.click(channel.last_message, label="Your hand")).response
        await actor.select(panel, [move.card], custom_id=component(panel, "seq:card:"))
        if is_jack(move.card or ""):
            await actor.select(
                panel, [str(move.space // 10)], custom_id=component(panel, "seq:row:")
            )
            await actor.select(panel, [str(move.space)], custom_id=component(panel, "seq:space:"))
        go = component(panel, f"seq:go:{record.id}:{game.turn_number}:{move.card}:{move.space}")
        before = len(env.http_requests)
        start = time.perf_counter()
        await actor.click(panel, custom_id=go)
        times.append(time.perf_counter() - start)
        calls.append(len(env.http_requests) - before)
    return times, calls


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


async def measure(games: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(database_path=Path(folder) / "bench.db", computer_move_delay=0)
        bot = create_bot(settings)
        add_noop(bot)
        async with simcord.run(bot) as env:
            guild = env.create_guild("Bench")
            players = [guild.add_member(env.create_user(name)) for name in ("alice", "bob")]
            noop: list[float] = []
            channel = guild.create_text_channel("noop")
            for _ in range(100):
                start = time.perf_counter()
                await players[0].slash(channel, "bench-noop")
                noop.append(time.perf_counter() - start)
            times: list[float] = []
            calls: list[int] = []
            for seed in range(games):
                channel = guild.create_text_channel(f"game-{seed}")
                game_times, game_calls = await play_game(env, channel, players, seed)
                times += game_times
                calls += game_calls
            await env.bot.close()
    ms = 1000
    move_median, noop_median = statistics.median(times) * ms, statistics.median(noop) * ms
    print(f"play: {games} games, {len(times)} plays by click, {len(noop)} no-op commands")
    print(
        f"play: click to new board posted: median {move_median:.1f} ms, "
        f"p95 {percentile(times, 0.95) * ms:.1f} ms"
    )
    print(
        f"play: no-op slash command (harness): median {noop_median:.1f} ms, "
        f"p95 {percentile(noop, 0.95) * ms:.1f} ms"
    )
    print(
        f"play: bot's own cost per move: median {move_median - noop_median:.1f} ms, "
        f"p95 {(percentile(times, 0.95) - percentile(noop, 0.95)) * ms:.1f} ms"
    )
    print(
        f"play: Discord API calls per move: median {statistics.median(calls):.0f}, "
        f"max {max(calls)}, mean {statistics.mean(calls):.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=5, help="complete games to play")
    asyncio.run(measure(parser.parse_args().games))


if __name__ == "__main__":
    main()
