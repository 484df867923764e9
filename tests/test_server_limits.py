"""A server's limits and table timers, unit by unit: reading what an admin types, the owner's
ceilings, the caps in force, and table options stored before tables had timers (issue #38)."""

from __future__ import annotations

import doctest

import pytest

from bot.config import Settings
from bot.services import caps, ceilings, setting_values
from bot.services.caps import tighter
from bot.services.errors import UserError
from bot.services.server_setting_list import SERVER_SETTINGS
from bot.services.setting_values import parse_count, parse_sequences, show_count
from bot.table import options as table_options
from bot.table.options import TableOptions, own_or_bot


@pytest.mark.parametrize("module", [caps, ceilings, setting_values, table_options])
def test_doctests(module) -> None:
    assert doctest.testmod(module).failed == 0


@pytest.mark.parametrize(
    ("text", "value"),
    [("1", 1), (" 12 ", 12), ("10000", 10000), ("none", 0), ("No limit", 0), ("0", 0)],
)
def test_a_limit_is_a_whole_number_or_none(text, value) -> None:
    assert parse_count(text) == value


@pytest.mark.parametrize("text", ["-1", "1.5", "ten", "10001", "٣", "", "5 lobbies"])
def test_anything_else_is_not_a_limit(text) -> None:
    with pytest.raises(UserError, match="is not a limit: give a whole number like 5, or none"):
        parse_count(text)


def test_a_limit_shows_no_limit_for_zero() -> None:
    assert (show_count(0), show_count(7)) == ("no limit", "7")


@pytest.mark.parametrize(
    ("text", "value"), [("1", 1), ("4", 4), (" automatic ", None), ("auto", None)]
)
def test_sequences_to_win_are_1_to_4_or_automatic(text, value) -> None:
    assert parse_sequences(text) == value


@pytest.mark.parametrize("text", ["0", "5", "two", "2.0"])
def test_other_sequences_to_win_are_refused(text) -> None:
    with pytest.raises(UserError, match="is not 1, 2, 3, 4 or automatic"):
        parse_sequences(text)


def test_a_duration_ceiling_allows_none_and_refuses_more_naming_it() -> None:
    owner = Settings(max_turn_time_limit=7200)
    ceiling = SERVER_SETTINGS["time_limit"].ceiling
    assert ceiling is not None
    ceiling.check(0, owner)  # no time limit is not a longer one
    ceiling.check(7200, owner)
    with pytest.raises(UserError) as refused:
        ceiling.check(7201, owner)
    assert (
        str(refused.value) == "A turn's time limit on this bot is at most 2 h (its owner's limit)."
    )
    assert ceiling.clamp(86400, owner) == 7200 and ceiling.clamp(600, owner) == 600
    assert SERVER_SETTINGS["time_limit"].limit_words(owner) == "at most 2 h"


def test_a_cap_ceiling_refuses_none_unless_the_owner_has_no_cap() -> None:
    setting = SERVER_SETTINGS["lobbies_per_server"]
    assert setting.ceiling is not None and setting.kind == "limit"
    capped, uncapped = Settings(max_lobbies_per_server=25), Settings(max_lobbies_per_server=0)
    with pytest.raises(UserError, match="Open lobbies per server: this bot allows at most 25"):
        setting.ceiling.check(0, capped)
    setting.ceiling.check(25, capped)
    setting.ceiling.check(0, uncapped)
    setting.ceiling.check(500, uncapped)
    assert setting.limit_words(capped) == "at most 25"
    assert setting.limit_words(uncapped) is None
    assert setting.bot_default(capped) == 25  # the owner's cap is the bot's default


def test_every_limit_has_the_owners_cap_as_its_ceiling() -> None:
    owner = Settings(
        max_lobbies_per_user=2,
        max_lobbies_per_server=3,
        max_games_per_user=4,
        max_tournaments_per_user=5,
        max_tournaments_per_server=6,
    )
    limits = {name: s for name, s in SERVER_SETTINGS.items() if s.kind == "limit"}
    most = {name: s.ceiling.most(owner) for name, s in limits.items() if s.ceiling}
    assert most == {
        "lobbies_per_person": 2,
        "lobbies_per_server": 3,
        "games_per_person": 4,
        "tournaments_per_person": 5,
        "tournaments_per_server": 6,
    }


def test_the_tighter_cap_wins() -> None:
    assert [tighter(*pair) for pair in ((0, 0), (25, 0), (0, 4), (25, 4), (3, 9))] == [
        0,
        25,
        4,
        4,
        3,
    ]


def test_a_table_stored_before_timers_loads_with_the_bots() -> None:
    stored = TableOptions().to_dict()
    for field in ("lobby_expiry", "table_talk_ruling_timeout", "draw_offer_timeout"):
        del stored[field]
    old = TableOptions.from_dict(stored)
    assert (old.lobby_expiry, old.table_talk_ruling_timeout, old.draw_offer_timeout) == (
        None,
        None,
        None,
    )
    assert own_or_bot(old.draw_offer_timeout, 3600) == 3600
    kept = TableOptions(draw_offer_timeout=600, table_talk_ruling_timeout=0)
    assert TableOptions.from_dict(kept.to_dict()) == kept
    assert own_or_bot(kept.table_talk_ruling_timeout, 600) == 0  # 0: never, not "the bot's"


@pytest.mark.parametrize(
    ("field", "seconds", "words"),
    [
        ("lobby_expiry", 59, "The lobby expiry must be between 1 min and 14 days."),
        ("lobby_expiry", 15 * 86400, "The lobby expiry must be between 1 min and 14 days."),
        ("draw_offer_timeout", 0, "The draw-offer timeout must be between 1 min and 14 days."),
        (
            "table_talk_ruling_timeout",
            -1,
            "The table-talk ruling timeout must be between 0 (none) and 14 days.",
        ),
    ],
)
def test_a_table_timer_out_of_range_is_refused(field, seconds, words) -> None:
    with pytest.raises(UserError) as refused:
        TableOptions(**{field: seconds})
    assert str(refused.value) == words
