"""Plays whole games through the real Discord surface: slash commands and clicks only.

The moves themselves are decided by the medium computer player from each seat's own view,
so a scripted game is a fair game; every move is then made the way a person makes it.
"""

from __future__ import annotations

import random
from typing import Any

from bot.game import player_view, space_name
from bot.game.ai import choose_move
from bot.game.moves import DEAD, DRAW, FORFEIT, PASS, PLAY, Move

from .e2e_helpers import Table, seat_actor


def components(message: Any) -> list[dict[str, Any]]:
    """The flat list of components (buttons and selects) of a message or response."""
    return [item for row in (message.components or []) for item in row.get("components", [])]


def custom_ids(message: Any) -> list[str]:
    """The custom ids of a message's components, from the message as the bot's client sees it
    (a ``discord.Message``: rows of children); :func:`components` reads an answer's payload."""
    return [item.custom_id for row in message.components for item in row.children]


def find_component(message: Any, prefix: str) -> dict[str, Any]:
    """The component whose custom id starts with ``prefix``."""
    for item in components(message):
        if item.get("custom_id", "").startswith(prefix):
            return item
    ids = [item.get("custom_id") for item in components(message)]
    raise AssertionError(f"no component {prefix!r} in {ids}")


def seat_to_act(record: Any) -> int:
    """The seat that must act now: one owing a forfeit first, else the seat to move."""
    game = record.game
    for seat, owed in enumerate(game.owed_forfeits):
        if owed and not record.seats[seat].is_computer:
            return seat
    return game.turn


async def open_hand(table: Table, actor: Any) -> Any:
    """``/sequence hand``: the player's own ephemeral panel."""
    result = await actor.slash(table.channel, "sequence hand")
    assert result.ephemeral
    return result.response


async def make_move(table: Table, record: Any, seat: int, move: Move) -> None:
    """Make ``move`` for ``seat`` as a person would: a command, or the panel's components."""
    actor = seat_actor(table, record, seat)
    game_id = record.id
    if move.kind == PLAY:
        result = await actor.slash(
            table.channel, "sequence play", card=move.card, space=space_name(move.space or 0)
        )
        assert result.ephemeral, result.response.content
        fives = [
            c for c in components(result.response) if c.get("custom_id", "").startswith("seq:five")
        ]
        if fives:
            wanted = " + ".join(
                f"{space_name(w[0])}–{space_name(w[-1])}" for w in (move.five or ())
            )
            choice = next((c for c in fives if c.get("label") == wanted), fives[0])
            await actor.click(result.response, custom_id=choice["custom_id"])
        return
    panel = await open_hand(table, actor)
    if move.kind == DEAD:
        card_select = find_component(panel, f"seq:card:{game_id}:")["custom_id"]
        await actor.select(panel, [move.card], custom_id=card_select)
        await actor.click(
            panel, custom_id=find_component(panel, f"seq:dead:{game_id}:")["custom_id"]
        )
    elif move.kind == PASS:
        await actor.click(
            panel, custom_id=find_component(panel, f"seq:pass:{game_id}:")["custom_id"]
        )
    elif move.kind == FORFEIT:
        await actor.select(panel, [move.card], custom_id=f"seq:forfeit:{game_id}")
    elif move.kind == DRAW:
        await actor.click(panel, custom_id=f"seq:draw:{game_id}")
    else:
        raise AssertionError(f"the driver cannot make {move}")


async def play_to_the_end(table: Table, record: Any, *, max_moves: int = 600, seed: int = 0) -> Any:
    """Play the game (people's seats through Discord; computers play themselves) to its end."""
    rng = random.Random(seed)
    for _ in range(max_moves):
        game = record.game
        if game.is_over():
            return record
        seat = seat_to_act(record)
        if record.seats[seat].is_computer:
            await table.env.settle()
            continue
        move = choose_move(player_view(game, seat), "medium", rng)
        before = len(game.moves)
        await make_move(table, record, seat, move)
        assert len(record.game.moves) > before, f"{move} was not applied"
    raise AssertionError("the game did not end")
