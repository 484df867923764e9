"""The bank clock (issue #39): ``/sequence new clock:bank`` gives each player a bank of time that
their turns spend; after each turn the increment is added, up to the cap. The board,
``/sequence status`` and the turn DM show each bank; a bank that runs out applies the table's
``on_timeout`` policy; a restart keeps every bank; give time adds a day to the bank. With
SimCord's virtual clock, on SQLite and on PostgreSQL."""

from __future__ import annotations

import pytest

from bot.app import create_bot
from bot.config import Settings
from bot.services.give_time import DAY

from .e2e_helpers import make_table, open_and_start, play_one, seat_actor, settle, timeouts
from .test_e2e_admin import with_admin

HOUR = 3600
MINUTE = 60


@pytest.fixture
def bot_settings(settings_on_each_backend: Settings) -> Settings:
    """Every test here runs on SQLite and on PostgreSQL."""
    return settings_on_each_backend


async def limit_due(bot, record) -> float:
    """The stored deadline of the turn being played (its bank runs out then)."""
    timer = await bot.db.timers.get(record.id, "limit")
    assert timer is not None and timer.payload["turn"] == record.game.turn_number
    return timer.due_at


async def stored_banks(bot, record) -> tuple[int, ...]:
    """The banks as the store holds them (what a restart or another process reads)."""
    return (await bot.db.games.load(record.id)).options.banks


def name_of(table, record, seat) -> str:
    return seat_actor(table, record, seat).user.name


async def test_a_bank_decreases_grows_by_its_increment_to_its_cap_and_shows_everywhere(
    simcord_env,
):
    table = await make_table(simcord_env, ["alice", "bob"])
    alice = table.players[0]
    for player in table.players:
        await player.slash(table.channel, "sequence-me notify", setting="on")
    record = await open_and_start(
        table,
        clock="bank",
        bank_start="2h",
        bank_increment="1h",
        bank_cap="2h30m",
        on_timeout="skip",
        reminder="none",
    )
    bot = table.bot
    first, second = record.game.turn, 1 - record.game.turn
    assert record.options.clock == "bank" and record.options.turn_time_limit == 0
    assert await limit_due(bot, record) == pytest.approx(bot.clock() + 2 * HOUR, abs=2)
    board = table.channel.last_message.content
    assert "Time runs out" in board
    assert f"Blue: {name_of(table, record, 0)} 2h · 🟢 Green: {name_of(table, record, 1)} 2h." in (
        board
    ), board

    # The bank decreases while its player thinks: /sequence status shows what is left.
    await simcord_env.advance_time(30 * MINUTE)
    status = (await alice.slash(table.channel, "sequence status")).response.content
    assert f"{name_of(table, record, first)} 1h 30m" in status, status
    assert f"{name_of(table, record, second)} 2h" in status, status

    # The move spends 30 minutes and adds the hour: 2h30m (the cap, exactly).
    await play_one(table, record)
    assert record.options.banks[first] == 2 * HOUR + 30 * MINUTE
    assert await stored_banks(bot, record) == record.options.banks
    assert await limit_due(bot, record) == pytest.approx(bot.clock() + 2 * HOUR, abs=2)
    board = table.channel.last_message.content
    assert f"{name_of(table, record, first)} 2h 30m" in board, board
    # The turn DM shows the banks too.
    dm = seat_actor(table, record, second).user.dm_channel.last_message.content
    assert "Your turn" in dm and f"{name_of(table, record, first)} 2h 30m" in dm, dm

    # Ten minutes used of 2h, plus 1h, is 2h50m: held to the cap, 2h30m.
    await simcord_env.advance_time(10 * MINUTE)
    await play_one(table, record)
    assert record.options.banks[second] == 2 * HOUR + 30 * MINUTE
    assert await limit_due(bot, record) == pytest.approx(bot.clock() + 2.5 * HOUR, abs=2)

    # The first player's bank runs out: the turn is skipped, and the bank is the increment.
    await simcord_env.advance_time(2.5 * HOUR + 1)
    await settle(simcord_env)
    assert record.game.moves[-1].kind == "skip" and record.game.moves[-1].seat == first
    assert len(timeouts(table)) == 1
    assert record.options.banks[first] == HOUR
    assert await stored_banks(bot, record) == record.options.banks


async def test_reminders_come_as_today_and_show_the_banks(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(
        table, clock="bank", bank_start="3h", reminder="1h", on_timeout="skip"
    )

    def reminders() -> list[str]:
        return [m.content for m in table.channel.history() if m.content.startswith("⏰")]

    await simcord_env.advance_time(HOUR + 1)
    (first,) = reminders()
    assert "🏦 Banks:" in first and "Time runs out" in first, first
    on_turn = name_of(table, record, record.game.turn)
    assert any(f"{on_turn} 2h{end}" in first for end in (" ·", ".")), first  # 3h less 1h
    await simcord_env.advance_time(HOUR)
    assert len(reminders()) == 2 and timeouts(table) == []
    await simcord_env.advance_time(HOUR)
    await settle(simcord_env)
    assert len(reminders()) == 2 and len(timeouts(table)) == 1


@pytest.mark.parametrize("policy", ["computer", "remove"])
async def test_a_bank_that_runs_out_applies_the_tables_policy(simcord_env, policy):
    names = ["alice", "bob"] if policy == "computer" else ["alice", "bob", "carol", "dave"]
    table = await make_table(simcord_env, names)
    record = await open_and_start(
        table, clock="bank", bank_start="1h", bank_increment="10m", on_timeout=policy
    )
    seat = record.game.turn
    await simcord_env.advance_time(HOUR - 5)
    assert len(record.game.moves) == 0 and timeouts(table) == []
    await simcord_env.advance_time(10)
    await settle(simcord_env)
    assert timeouts(table)
    if policy == "computer":
        assert record.game.moves[-1].kind == "play" and record.game.moves[-1].seat == seat
        assert "computer player moves for them" in timeouts(table)[0].content
        assert record.options.banks[seat] == 10 * MINUTE  # emptied, then the increment
    else:
        assert record.game.out[seat] and not record.game.is_over()
        assert record.game.turn != seat
        board = table.channel.last_message.content
        assert f"{name_of(table, record, seat)} " not in board.split("🏦")[-1], board


async def test_the_banks_survive_a_restart_in_the_middle_of_a_turn(simcord_env, bot_settings):
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(
        table, clock="bank", bank_start="3h", bank_increment="1h", on_timeout="skip"
    )
    first = record.game.turn
    await simcord_env.advance_time(HOUR)
    await play_one(table, record)  # 3h - 1h + 1h
    assert record.options.banks[first] == 3 * HOUR
    second = record.game.turn
    due = await limit_due(table.bot, record)
    await simcord_env.advance_time(2 * HOUR)  # the second player has 1h left

    await simcord_env.bot.close()
    await simcord_env.restart_bot(create_bot(bot_settings))
    record = table.game()
    assert record.options.banks[first] == 3 * HOUR
    assert await limit_due(table.bot, record) == due  # the same deadline: nothing given back
    await simcord_env.advance_time(HOUR - 10)
    assert record.game.turn == second and timeouts(table) == []
    await simcord_env.advance_time(20)
    await settle(simcord_env)
    assert record.game.turn == first and record.game.moves[-1].kind == "skip"
    assert record.options.banks[second] == HOUR
    # The first player's turn runs on their bank, kept across the restart.
    assert await limit_due(table.bot, record) == pytest.approx(due + 3 * HOUR, abs=2)


async def test_give_time_adds_a_day_to_the_players_bank(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(
        table, clock="bank", bank_start="1d", bank_increment="1h", on_timeout="skip"
    )
    mover = seat_actor(table, record, record.game.turn)
    other = next(p for p in table.players if p is not mover)
    seat = record.game.turn
    due = await limit_due(table.bot, record)
    given = await other.slash(table.channel, "sequence clock give")
    assert given.ephemeral and "one more day in their bank" in given.response.content
    assert await limit_due(table.bot, record) == due + DAY
    said = table.channel.last_message.content
    assert said.startswith("⏳") and "one more day in their bank" in said, said
    await simcord_env.advance_time(HOUR)
    await play_one(table, record)  # 2 days less an hour, plus the hour
    assert record.options.banks[seat] == 2 * DAY


async def test_an_undo_takes_back_the_increment_its_move_earned(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players  # alice hosts; bob's team decides
    record = await open_and_start(
        table, clock="bank", bank_start="2h", bank_increment="1h", bank_cap="4h"
    )
    first = record.game.turn
    await simcord_env.advance_time(30 * MINUTE)
    await play_one(table, record)
    assert record.options.banks[first] == 2 * HOUR + 30 * MINUTE
    await simcord_env.advance_time(10 * MINUTE)  # the next player's turn: not charged
    ask = await alice.slash(table.channel, "sequence undo")
    await bob.click(ask.response, label="Agree")
    record = table.game()
    assert record.game.moves == [] and record.game.turn == first
    # what was left at the move (1h30m), not that and the hour the move earned
    assert record.options.banks == (HOUR + 30 * MINUTE, 2 * HOUR)[:: 1 if first == 0 else -1]
    assert await stored_banks(table.bot, record) == record.options.banks
    due = await limit_due(table.bot, record)
    assert due == pytest.approx(table.bot.clock() + HOUR + 30 * MINUTE, abs=2)


async def test_an_undone_time_out_keeps_its_increment(simcord_env):
    """Taking back a skipped turn does not leave its player an empty bank (their turn would
    run out again at once): they have the increment the time-out gave."""
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    record = await open_and_start(
        table, clock="bank", bank_start="1h", bank_increment="10m", on_timeout="skip"
    )
    first = record.game.turn
    await simcord_env.advance_time(HOUR + 1)
    await settle(simcord_env)
    assert [m.kind for m in record.game.moves] == ["skip"]
    ask = await alice.slash(table.channel, "sequence undo")
    await bob.click(ask.response, label="Agree")
    record = table.game()
    assert record.game.moves == [] and record.options.banks[first] == 10 * MINUTE
    due = await limit_due(table.bot, record)
    assert due == pytest.approx(table.bot.clock() + 10 * MINUTE, abs=2)


async def test_bad_bank_options_get_a_clear_answer_and_open_nothing(simcord_env, bot_settings):
    table = await make_table(simcord_env, ["alice", "bob"])
    alice = table.players[0]
    refusals = {
        "add clock:bank": {"bank_start": "1d"},
        "add clock:bank.": {"bank_cap": "2d", "clock": "turn"},
        "leave out time_limit": {"clock": "bank", "time_limit": "1h"},
        "cannot be below its start": {"clock": "bank", "bank_start": "3d", "bank_cap": "1d"},
        "must start with 1 minute to 14 days": {"clock": "bank", "bank_start": "20d"},
        "must be 0 to 14 days": {"clock": "bank", "bank_increment": "15d"},
        "is not a duration": {"clock": "bank", "bank_cap": "lots"},
    }
    for expected, options in refusals.items():
        answer = await alice.slash(table.channel, "sequence new", **options)
        assert answer.ephemeral and expected in answer.response.content, (
            options,
            answer.response.content,
        )
    assert await table.bot.db.lobbies.list_all() == []

    # The owner's ceiling on a turn's time holds a bank too.
    await simcord_env.bot.close()
    await simcord_env.restart_bot(create_bot(bot_settings.with_overrides(max_turn_time_limit=DAY)))
    answer = await alice.slash(table.channel, "sequence new", clock="bank", bank_start="2d")
    assert answer.ephemeral and "holds at most 1 day" in answer.response.content
    assert await table.bot.db.lobbies.list_all() == []
    record = await open_and_start(table, clock="bank", bank_start="12h")
    assert record.options.bank_cap == DAY  # no bank holds more than the owner allows


async def test_a_server_may_make_the_bank_its_tables_clock(simcord_env):
    table, admin = await with_admin(simcord_env)
    for name, value in (("clock", "bank"), ("bank_start", "2d"), ("bank_cap", "4d")):
        answer = await admin.slash(table.channel, "sequence-admin set", setting=name, value=value)
        assert "⚠️" not in answer.response.content, answer.response.content
    refused = await admin.slash(
        table.channel, "sequence-admin set", setting="bank_cap", value="1d"
    )
    assert "cannot be below its start" in refused.response.content
    record = await open_and_start(table)
    options = record.options
    assert (options.clock, options.bank_start, options.bank_cap) == ("bank", 2 * DAY, 4 * DAY)
    assert "🏦 Banks:" in table.channel.last_message.content


async def test_the_lobby_states_the_bank_and_estimates_the_length_with_it(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    opened = await alice.slash(
        table.channel, "sequence new", clock="bank", bank_start="3d", bank_increment="1d"
    )
    joined = await bob.click(opened.response, label="Join")
    (rules,) = [f.value for f in joined.response.embeds[0].fields if f.name == "Rules"]
    assert "a bank of 3 days per player, +1 day after each turn" in rules, rules
    # 25 turns each: 3 days, then a day after each of the 24 others: 27 days each, 54 in all.
    assert "⏱️ Length: at most about 54 days (~50 turns, every bank spent)" in rules, rules
    started = await alice.click(opened.response, label="Start")
    assert started.acknowledged
    begins = started.response.content
    assert "⏱️ A bank of 3 days per player, +1 day after each turn." in begins, begins
