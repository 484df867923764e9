"""PostgreSQL applies a move's ``COMMIT`` and its answer is lost on the way back (a network
that drops a reply: a proxy in front of the server passes nothing back after the ``COMMIT``).
The game service cannot know whether the move was saved: it raises
:class:`~bot.store.errors.CommitUnknownError` (the player reads
:data:`~cogs.common.replies.SAVED_OR_NOT`, not "nothing was saved") within a player's patience,
and reads the game back once the store answers, so that the saved move is served and published
(its board, its turn) without anyone acting again. Before, the player read "nothing was
saved" and the saved move stayed unshown until another change or a restart.

At the service, on the wall clock: SimCord's clock is virtual, and a wait on a server that
never answers only ends on a real clock (see ``test_e2e_db_hangs``)."""

from __future__ import annotations

import asyncio
import itertools
import signal
import subprocess
import time
from collections.abc import AsyncIterator, Iterator

import asyncpg
import pytest

from bot.game import Move
from bot.services.dispatch import Dispatcher
from bot.services.events import MoveCommitted
from bot.services.games import GameService
from bot.store.connection import INTERACTIVE, waiting
from bot.store.errors import CommitUnknownError
from bot.store.location import open_database
from bot.store.seats import Seat
from bot.table.options import TableOptions
from tests.engine_helpers import playable
from tests.store_util import new_game

from . import pg_server
from .helpers.lost_answers import answer_losing_proxy

pytestmark = pytest.mark.slow

_SCHEMAS = itertools.count(1)
SEATS = [Seat(1, "ada"), Seat(2, "bob")]


@pytest.fixture
def store_url(own_database_url: str) -> str:
    return pg_server.create_schema_now(own_database_url, f"lost_{next(_SCHEMAS)}")


@pytest.fixture
def proxy(store_url: str) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """(the store's URL through the proxy, the proxy: ``SIGUSR1`` loses the next answer)."""
    with answer_losing_proxy(pg_server.port_of(store_url)) as (port, process):
        yield store_url.replace(f":{pg_server.port_of(store_url)}/", f":{port}/"), process


@pytest.fixture
async def service(
    store_url: str, proxy: tuple[str, subprocess.Popen[str]]
) -> AsyncIterator[tuple[GameService, int, list[MoveCommitted]]]:
    """The game service on the store through the proxy, serving one game; its published moves."""
    db = await open_database(store_url)
    record = await db.games.create(55, 56, new_game(7), SEATS, TableOptions(), None, 1.0)
    await db.close()
    games = GameService(await open_database(proxy[0]), time.time, Dispatcher(time.time))
    published: list[MoveCommitted] = []

    async def publish(event: MoveCommitted) -> None:
        published.append(event)

    games.bus.subscribe(MoveCommitted, publish)
    await games.load_active()
    yield games, record.id, published
    await games.bus.close()
    await games.db.close()


async def _stored_moves(url: str, game_id: int) -> int:
    conn = await asyncpg.connect(url)
    try:
        return await conn.fetchval("SELECT count(*) FROM moves WHERE game_id = $1", game_id)
    finally:
        await conn.close()


async def test_a_move_whose_commit_answer_is_lost_is_told_so_and_served_once_read_back(
    service, proxy, store_url
) -> None:
    games, game_id, published = service
    served = games.records[game_id]
    move = Move.play(*playable(served.game))
    proxy[1].send_signal(signal.SIGUSR1)  # the next commit's answer is lost
    await asyncio.sleep(0.2)  # the signal reaches the proxy
    started = time.perf_counter()
    with waiting(INTERACTIVE), pytest.raises(CommitUnknownError, match="may have been saved"):
        await games.play(
            game_id, SEATS[move.seat].user_id, move.card, move.space, expected_turn=0
        )
    took = time.perf_counter() - started
    assert took < 2.5, f"given up after {took:.2f} s"  # within Discord's 3 s
    assert await _stored_moves(store_url, game_id) == 1  # it was saved, after all

    async with asyncio.timeout(10):  # read back (at once, and again while the store is down)
        while not published:
            await asyncio.sleep(0.05)
    await games.bus.idle()
    assert served.game.moves == [move]
    assert [list(event.outcome.moves) for event in published] == [[move]]  # published once
    nxt = Move.play(*playable(served.game))  # the next turn goes on from the saved move
    await games.play(game_id, SEATS[nxt.seat].user_id, nxt.card, nxt.space, expected_turn=1)
    assert await _stored_moves(store_url, game_id) == 2
