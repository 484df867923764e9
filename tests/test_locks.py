"""Keyed locks: one holder per key at a time, keys independent, and a key's lock kept only while
someone holds or waits for it (a cancelled waiter leaves nothing behind)."""

from __future__ import annotations

import asyncio

import pytest

from bot.services.locks import KeyedLocks


async def test_one_holder_per_key_and_keys_are_independent() -> None:
    locks = KeyedLocks()
    order: list[str] = []
    release = asyncio.Event()

    async def hold(key: str, name: str) -> None:
        async with locks(key):
            order.append(f"{name} in")
            await release.wait()
            order.append(f"{name} out")

    first = asyncio.create_task(hold("a", "first"))
    second = asyncio.create_task(hold("a", "second"))
    other = asyncio.create_task(hold("b", "other"))
    await asyncio.sleep(0)
    assert order == ["first in", "other in"]  # the second waits for the first; "b" does not
    assert len(locks) == 2
    release.set()
    await asyncio.gather(first, second, other)
    assert order.index("first out") < order.index("second in")
    assert len(locks) == 0  # nobody holds or waits: nothing is kept


async def test_a_cancelled_waiter_leaves_no_lock_behind() -> None:
    locks = KeyedLocks()
    entered = asyncio.Event()
    release = asyncio.Event()

    async def holder() -> None:
        async with locks(1):
            entered.set()
            await release.wait()

    async def waiter() -> None:
        async with locks(1):
            pytest.fail("the waiter was cancelled before it got the lock")

    holding = asyncio.create_task(holder())
    await entered.wait()
    waiting = asyncio.create_task(waiter())
    await asyncio.sleep(0)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    release.set()
    await holding
    assert len(locks) == 0


async def test_an_error_inside_releases_the_lock() -> None:
    locks = KeyedLocks()
    with pytest.raises(ValueError):
        async with locks("k"):
            raise ValueError("boom")
    async with locks("k"):  # free again
        pass
    assert len(locks) == 0
