"""The sliding windows behind the cooldowns, on a clock the test sets."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from bot.config import Settings
from cogs.common.cooldowns import RateLimits, TooFast, Window


def test_a_window_allows_so_many_uses_in_any_stretch_of_its_length():
    window = Window(2, 30)
    for now in (0.0, 10.0):
        assert window.wait(now) == 0
        window.use(now)
    assert window.wait(29.0) == 1.0  # the first use leaves the window at 30
    assert window.wait(30.0) == 0
    window.use(30.0)
    assert window.wait(30.0) == 10.0  # the use at 10 is still inside


def test_limits_count_per_person_and_per_channel_and_refusals_count_nothing():
    now = [1000.0]
    settings = Settings(user_rate_limit=(1, 60), channel_rate_limit=(2, 60))
    limits = RateLimits(lambda: now[0], settings)
    limits.hit("board", user_id=1, channel_id=9)
    with pytest.raises(TooFast, match=r"You used that too often: try again in 1 min\."):
        limits.hit("board", user_id=1, channel_id=9)
    limits.hit("status", user_id=1, channel_id=9)  # another action, its own count
    limits.hit("board", user_id=2, channel_id=9)
    with pytest.raises(TooFast, match="in this channel"):
        limits.hit("board", user_id=3, channel_id=9)
    now[0] += 59.5
    with pytest.raises(TooFast, match=r"try again in 1 s\."):
        limits.hit("board", user_id=1, channel_id=8)
    now[0] += 0.5
    limits.hit("board", user_id=1, channel_id=9)


def test_creating_has_its_own_rate_and_old_windows_are_forgotten(monkeypatch):
    monkeypatch.setattr("cogs.common.cooldowns.PRUNE_AT", 4)
    now = [0.0]
    settings = Settings(user_rate_limit=(5, 60), create_rate_limit=(1, 600))
    limits = RateLimits(lambda: now[0], settings)
    limits.hit("new lobby", 1, 9)
    limits.hit("board", 2, 9)
    with pytest.raises(TooFast, match="10 min"):
        limits.hit("new lobby", 1, 9)
    now[0] = 100.0
    limits.hit("board", 3, 9)  # a fifth window: the empty ones are dropped first
    assert ("board", "user", 2) not in limits._windows
    assert ("new lobby", "user", 1) in limits._windows  # still counting its 600 s
    with pytest.raises(TooFast, match="8 min 20 s"):
        limits.hit("new lobby", 1, 9)


def test_a_use_counts_on_entry_and_is_given_back_when_refused():
    settings = Settings(user_rate_limit=(1, 60), channel_rate_limit=(5, 60))
    limits = RateLimits(lambda: 0.0, settings)
    who = SimpleNamespace(user=SimpleNamespace(id=1), channel_id=9)
    with pytest.raises(ValueError), limits.counting(who, "board"):  # type: ignore[arg-type]
        raise ValueError("refused")
    # counted on entry: the same use made at once is refused
    with limits.counting(who, "board"), pytest.raises(TooFast):  # type: ignore[arg-type]
        limits.hit("board", user_id=1, channel_id=9)
