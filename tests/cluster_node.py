"""One process of a cluster for the kill test: the real bot, on shard SHARD of 2, against a
PostgreSQL URL, in its own SimCord Discord, playing one game in its guild through slash
commands and clicks (as people do) and printing each acknowledged move.

Run as ``python -m tests.cluster_node URL SHARD SEED``. The guild, its channel and its players
are built in the same order every run, so a restarted process meets the same ids (SimCord's
snowflakes follow its virtual clock): it resumes its game from the store and plays it on.
Lines: ``s GAME`` a game started, ``r GAME MOVES`` resumed with that many moves, ``m GAME N``
move N acknowledged, ``f GAME`` the game is over.
"""

from __future__ import annotations

import asyncio
import random
import sys
import tempfile
from pathlib import Path

import simcord

from bot.app import create_bot
from bot.game import player_view
from bot.game.ai import choose_move
from tests.conftest import make_settings
from tests.e2e_driver import make_move, seat_to_act
from tests.e2e_helpers import Table, open_and_start


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


async def main(url: str, shard: int, seed: int) -> None:
    settings = make_settings(
        Path(tempfile.mkdtemp()), database_url=url, shard_count=2, shard_ids=(shard,)
    )
    env = simcord.Env(create_bot(settings))
    # The server, its channel and players exist before the bot connects, as on Discord: a
    # restarted process resumes its game into a channel that is there (a post to a channel
    # Discord does not know would cancel the game, as for a channel deleted meanwhile).
    with env.time_context():
        guild = env.create_guild(f"Club {shard}", shard_id=shard)
        channel = guild.create_text_channel("sequence")
        players = [guild.add_member(env.create_user(n)) for n in (f"p{shard}a", f"p{shard}b")]
    await env.start()
    with env.time_context():
        table = Table(env, guild, channel, players)
        record = table.game()
        if record is None:
            record = await open_and_start(table, seed=seed)
            say(f"s {record.id}")
        else:
            say(f"r {record.id} {len(record.game.moves)}")
        rng = random.Random(seed)
        while not record.game.is_over():
            seat = seat_to_act(record)
            move = choose_move(player_view(record.game, seat), "easy", rng)
            before = len(record.game.moves)
            await make_move(table, record, seat, move)
            for number in range(before, len(record.game.moves)):
                say(f"m {record.id} {number}")
        say(f"f {record.id}")
        await env.shutdown()
        await env.bot.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
