"""Worker threads of their own for long CPU work: replay GIFs, and the computer players'
searches (hints too).

Boards and hand panels are drawn on asyncio's default executor (``asyncio.to_thread``), and
a player waits for them: "Your hand" must answer within Discord's 3 seconds. Long work run
there too could take every one of its threads, so it runs in a pool of its own, one job at a
time (pure Python gains nothing from more threads under the interpreter lock): a burst waits
its turn there, and the boards and hands are drawn meanwhile.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

#: Replay GIFs: seconds each for a long game.
REPLAYS = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sequence-replay")
#: The computer players' searches and the hints: up to ``COMPUTER_BUDGET_MS`` each.
THINKING = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sequence-thinking")


async def run_on(
    pool: ThreadPoolExecutor, func: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs
) -> T:
    """``asyncio.to_thread`` on ``pool`` instead of the default executor."""
    loop = asyncio.get_running_loop()
    call = functools.partial(contextvars.copy_context().run, func, *args, **kwargs)
    return await loop.run_in_executor(pool, call)
