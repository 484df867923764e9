"""What a move leaves behind: nothing that grows with the number of moves played.

Every move here goes the way a player makes it: **Your hand** under the board (an ephemeral panel
with a card menu), the card, for a jack its row and space, then the play button; a second panel
opened with ``/sequence hand`` each turn and left alone. After every move the test counts what
stays alive in the bot's process: asyncio tasks, the views discord.py's view store listens to, and
the timers SimCord tracks for the bot. Counts, never times.

discord.py gives a view sent in an ephemeral response a 15-minute time-out when it has none and
listens to it with a task sleeping on that timer; the bot's views never needed listening (all its
components are DynamicItems), and each panel once left a task and a timer behind
(``cogs/common/components.py`` says how that ended).
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import discord
import pytest

from bot.game import player_view
from bot.game.ai import choose_move
from bot.game.cards import is_jack
from bot.game.moves import PLAY
from cogs.common.components import Components

from .e2e_driver import find_component, make_move, open_hand, seat_to_act
from .e2e_helpers import Table, make_table, open_and_start, seat_actor

#: Moves played before the first count (the first turns arm what a game keeps for its lifetime).
WARM_UP = 4
#: Moves played in all (a 2-player game rarely ends sooner).
MOVES = 40


def live_counts(env: Any) -> dict[str, int]:
    """What is alive now: the loop's unfinished tasks, the view store's entries, SimCord's timers.

    The view store and SimCord's timer list have no public accessor; they are read here only.
    """
    store = env.bot._connection._view_store
    timers = [
        record
        for record in env._work.callbacks
        if record.when is not None and record.handle is not None and not record.handle.cancelled()
    ]
    return {
        "tasks": sum(1 for task in asyncio.all_tasks() if not task.done()),
        "views": sum(len(items) for items in store._views.values()),
        "message views": len(store._synced_message_views),
        "modals": len(store._modals),
        "timers": len(timers),
    }


async def play_by_panel(table: Table, record: Any, rng: random.Random) -> None:
    """One move of the seat to act, through the panel under the board (others through the
    driver: dead cards, passes, forfeits, long lines)."""
    seat = seat_to_act(record)
    game = record.game
    actor = seat_actor(table, record, seat)
    await open_hand(table, actor)  # opened and left alone, as players do
    move = choose_move(player_view(game, seat), "medium", rng)
    if move.kind != PLAY or move.five:
        await make_move(table, record, seat, move)
        return
    opened = await actor.click(table.channel.last_message, label="Your hand")
    assert opened.ephemeral
    panel = opened.response
    card_menu = find_component(panel, f"seq:card:{record.id}:")["custom_id"]
    await actor.select(panel, [move.card], custom_id=card_menu)
    if is_jack(move.card or ""):
        row_menu = find_component(panel, "seq:row:")["custom_id"]
        await actor.select(panel, [str((move.space or 0) // 10)], custom_id=row_menu)
        space_menu = find_component(panel, "seq:space:")["custom_id"]
        await actor.select(panel, [str(move.space)], custom_id=space_menu)
    go = f"seq:go:{record.id}:{game.turn_number}:{move.card}:{move.space}"
    await actor.click(panel, custom_id=find_component(panel, go)["custom_id"])


@pytest.mark.slow
async def test_moves_leave_nothing_behind(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table, seed=3)
    rng = random.Random(3)
    counts: list[dict[str, int]] = []
    for number in range(MOVES):
        assert not record.game.is_over(), "the game ended before enough moves were played"
        before = len(record.game.moves)
        await play_by_panel(table, record, rng)
        assert len(record.game.moves) > before
        if number + 1 >= WARM_UP:
            counts.append(live_counts(simcord_env))
    first, last = counts[0], counts[-1]
    assert last == first, f"after {WARM_UP} moves {first}, after {MOVES} moves {last}"
    assert max(c["tasks"] for c in counts) == first["tasks"]
    assert max(c["timers"] for c in counts) == first["timers"]
    assert first["views"] == first["message views"] == first["modals"] == 0


async def test_a_second_game_leaves_nothing_more(simcord_env):
    """Games played one after another in new channels: the counts after each are the same."""
    after: list[dict[str, int]] = []
    for seed in (5, 6):
        table = await make_table(simcord_env, ["alice", "bob"])
        record = await open_and_start(table, seed=seed)
        rng = random.Random(seed)
        for _ in range(12):
            await play_by_panel(table, record, rng)
        await table.players[0].slash(table.channel, "sequence cancel")
        after.append(live_counts(simcord_env))
    assert after[1] == after[0]


def test_components_refuse_an_item_no_one_would_answer():
    """A Components view is never listened to, so a plain button on it would be dead."""
    with pytest.raises(TypeError, match="not a DynamicItem"):
        Components().add_item(discord.ui.Button(label="Dead", custom_id="dead"))
    link = discord.ui.Button(label="Rules", url="https://example.com")
    assert Components().add_item(link).children == [link]
    assert Components().is_finished()
