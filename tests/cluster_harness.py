"""Several bots at once, as the processes of a cluster: each bot in its own SimCord environment
on its own thread and event loop (SimCord runs one environment per loop), all on one database.

``await node.run(fn)`` runs ``fn(env)`` on the node's loop, inside its environment's clock, and
hands back the result to the test's loop.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import simcord
from simcord.backend.models.user import User
from simcord.builders import UserHandle

from bot.app import create_bot
from bot.config import Settings

T = TypeVar("T")


class Node:
    """A bot (``create_bot(settings)``) in its own SimCord environment and thread."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.env: Any = None

    @property
    def bot(self) -> Any:
        return self.env.bot

    async def start(self, world: Callable[[Any], Awaitable[None]] | None = None) -> Node:
        """Start the bot; if its start fails, it is closed and the error raised here.
        ``world(env)`` first builds what its Discord holds (the servers it is in, say)."""
        self.thread.start()

        async def begin() -> Any:
            bot = create_bot(self.settings)
            env = simcord.Env(bot)
            try:
                if world is not None:
                    await world(env)
                await env.start()
            except BaseException:
                await bot.close()
                raise
            return env

        try:
            self.env = await self._submit(begin())
        except BaseException:
            await self.stop()
            raise
        return self

    async def run(self, fn: Callable[[Any], Awaitable[T]]) -> T:
        """``await fn(env)`` on this node's loop, in its environment's time."""

        async def call() -> T:
            with self.env.time_context():
                return await fn(self.env)

        return await self._submit(call())

    async def stop(self) -> None:
        """Close the bot and end its thread (again: nothing)."""
        if not self.thread.is_alive():
            return

        async def end() -> None:
            try:
                await self.env.shutdown()
            finally:
                if not self.env.bot.is_closed():
                    await self.env.bot.close()

        try:
            if self.env is not None:
                await self._submit(end())
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            await asyncio.to_thread(self.thread.join, 10)

    async def _submit(self, coro: Awaitable[T]) -> T:
        future = asyncio.run_coroutine_threadsafe(coro, self.loop)  # type: ignore[arg-type]
        return await asyncio.wrap_future(future)


def same_person(env: Any, user_id: int, name: str) -> UserHandle:
    """The user ``user_id`` (made in another node's environment) in ``env`` too: one Discord
    account seen by two processes, so a DM interaction can reach the process of shard 0."""
    user = User(id=user_id, name=name)
    env.backend.users[user_id] = user
    return UserHandle(env, user)


async def eventually(node: Node, check: Callable[[Any], bool], *, seconds: float = 15.0) -> None:
    """Settle ``node`` until ``check(env)`` holds: what another process tells it (a NOTIFY)
    arrives on its own time, over a real connection."""
    async with asyncio.timeout(seconds):
        while True:

            async def settled(env: Any) -> bool:
                await env.settle()
                await env.bot.bus.idle()
                await env.settle()
                return check(env)

            if await node.run(settled):
                return
            await asyncio.sleep(0.02)
