"""Give time (issue #39): a player of another team gives the player on turn one more day, by
the "+1 day" button under a reminder (persistent: it answers after a restart) or with
``/sequence clock give``; once per turn per team, said in the channel. A gift racing the
time-out: exactly one wins, the other is told."""

from __future__ import annotations

import asyncio
from functools import partial

import pytest
from discord import app_commands

from bot.app import create_bot
from bot.config import Settings
from bot.services.give_time import ALREADY, DAY, NO_LIMIT, OWN_TEAM, OWN_TURN, TURN_OVER
from cogs.base import NOT_IN_DMS

from .e2e_helpers import make_table, open_and_start, seat_actor, settle, timeouts

HOUR = 3600


@pytest.fixture
def bot_settings(settings_on_each_backend: Settings) -> Settings:
    """Every test here runs on SQLite and on PostgreSQL."""
    return settings_on_each_backend


def reminders(table):
    return [m for m in table.channel.history() if m.content.startswith("⏰")]


def gifts(table):
    return [m for m in table.channel.history() if m.content.startswith("⏳")]


async def limit_due(bot, record) -> float:
    timer = await bot.db.timers.get(record.id, "limit")
    assert timer is not None and timer.payload["turn"] == record.game.turn_number
    return timer.due_at


async def test_the_reminders_button_gives_a_day_once_per_team_and_after_a_restart(
    simcord_env, bot_settings
):
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table, time_limit="1d", reminder="12h", on_timeout="skip")
    mover = seat_actor(table, record, record.game.turn)
    other = next(p for p in table.players if p is not mover)
    turn = record.game.turn_number
    due = await limit_due(table.bot, record)
    await simcord_env.advance_time(12 * HOUR + 1)
    (reminder,) = reminders(table)
    assert any("+1 day" in (c.label or "") for row in reminder.components for c in row.children)

    own = await mover.click(reminder, label="+1 day")  # on their own turn: refused
    assert own.ephemeral and OWN_TURN in own.response.content
    assert await limit_due(table.bot, record) == due and gifts(table) == []

    # The button is persistent: it answers after a restart (a new bot, as a new process).
    await simcord_env.bot.close()
    await simcord_env.restart_bot(create_bot(bot_settings))
    record = table.game()
    given = await other.click(reminder, label="+1 day")
    assert given.ephemeral and "You gave" in given.response.content
    assert await limit_due(table.bot, record) == due + DAY
    (said,) = gifts(table)
    assert said.content == (
        f"⏳ **{other.user.name}** gave **{mover.user.name}** one more day: the turn now ends "
        f"<t:{int(due + DAY)}:R>."
    )
    again = await other.slash(table.channel, "sequence clock give")
    assert again.ephemeral and ALREADY in again.response.content
    assert await limit_due(table.bot, record) == due + DAY

    # The old deadline passes: nothing runs out; the day later, the turn does.
    await simcord_env.advance_time(due - table.bot.clock() + HOUR)
    assert record.game.turn_number == turn and timeouts(table) == []
    await simcord_env.advance_time(DAY)
    await settle(simcord_env)
    assert record.game.turn_number == turn + 1 and len(timeouts(table)) == 1

    # A new turn: the old reminder's button is for a turn gone by; the team may give again
    # (the record lapsed with the turn).
    mover2 = seat_actor(table, record, record.game.turn)
    other2 = next(p for p in table.players if p is not mover2)
    due2 = await limit_due(table.bot, record)
    stale = await other2.click(reminder, label="+1 day")
    assert stale.ephemeral and TURN_OVER in stale.response.content
    assert await limit_due(table.bot, record) == due2
    given = await other2.slash(table.channel, "sequence clock give")
    assert "You gave" in given.response.content
    assert await limit_due(table.bot, record) == due2 + DAY


async def test_refusals_change_nothing(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob", "carol", "dave"])
    record = await open_and_start(table, time_limit="1d", on_timeout="skip")
    mover = seat_actor(table, record, record.game.turn)
    teammate = next(
        seat_actor(table, record, s)
        for s in record.game.settings.seats_of(record.game.team_of(record.game.turn))
        if s != record.game.turn
    )
    due = await limit_due(table.bot, record)
    outsider = table.guild.add_member(simcord_env.create_user("eve"))
    answers = [
        await teammate.slash(table.channel, "sequence clock give"),
        await mover.slash(table.channel, "sequence clock give"),
        await outsider.slash(table.channel, "sequence clock give"),
    ]
    expected = [OWN_TEAM, OWN_TURN, "You are not playing in this game."]
    assert [a.response.content for a in answers] == [f"⚠️ {text}" for text in expected]
    assert all(a.ephemeral for a in answers)
    assert await limit_due(table.bot, record) == due and gifts(table) == []

    plain = await make_table(simcord_env, ["cat", "dan"])
    game = await open_and_start(plain)
    opponent = next(p for p in plain.players if p is not seat_actor(plain, game, game.game.turn))
    refused = await opponent.slash(plain.channel, "sequence clock give")
    assert refused.ephemeral and refused.response.content == f"⚠️ {NO_LIMIT}"


@pytest.mark.parametrize("first", ["give", "timeout"])
async def test_a_gift_racing_the_time_out_exactly_one_wins(simcord_env, first):
    """Both in flight at once. ``give``: a gift a minute before the limit reads the stored
    limit under the game's lock; meanwhile the limit falls due and the time-out fires, waiting
    for the lock; the gift commits, and the time-out finds the turn given more time and does
    nothing. ``timeout``: the time-out holds the lock as the gift comes; the turn passes, and
    the gift is refused as too late. Exactly one takes effect; the table sees only it."""
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table, time_limit="1h", on_timeout="skip")
    bot = table.bot
    mover = seat_actor(table, record, record.game.turn)
    other = next(p for p in table.players if p is not mover)
    turn = record.game.turn_number
    due = await limit_due(bot, record)
    bot.turn_clock.cancel_game(record.id)  # the test puts the time-out in flight itself
    now = [due - 60.0 if first == "give" else due + 1.0]
    bot.games.clock = lambda: now[0]  # the time each change is drafted at

    started = asyncio.Event()  # the first change reads the stored limit, under the lock
    get = bot.db.timers.get

    async def reading(game_id, kind):
        started.set()
        for _ in range(5):  # let the other change reach the lock meanwhile
            await asyncio.sleep(0)
        return await get(game_id, kind)

    bot.db.timers.get = reading
    limit = await get(record.id, "limit")

    async def second(call):
        await started.wait()
        now[0] = due + 1.0  # the limit is due now
        return await call()

    give = partial(bot.give_time.give_day, record.id, other.id, expected_revision=record.revision)
    fire = partial(bot.turn_clock.fire, limit)
    if first == "give":
        gift, fired = await asyncio.gather(give(), second(fire), return_exceptions=True)
    else:
        fired, gift = await asyncio.gather(fire(), second(give), return_exceptions=True)
    bot.db.timers.get = get
    await settle(simcord_env)
    assert fired is None  # a time-out never fails: it acts, or finds nothing to do
    if first == "give":
        assert not isinstance(gift, Exception), gift
        assert record.game.turn_number == turn and timeouts(table) == []
        assert await limit_due(bot, record) == due + DAY
        assert len(gifts(table)) == 1
    else:
        assert isinstance(gift, Exception) and str(gift) == TURN_OVER
        assert record.game.turn_number == turn + 1 and len(timeouts(table)) == 1
        assert gifts(table) == []


async def test_give_time_in_a_dm_is_refused_like_any_server_command(simcord_env):
    """``/sequence clock`` is a group of its own: discord.py asks it, not ``/sequence``, whether
    a command may run in a DM, so it refuses DMs itself."""
    table = await make_table(simcord_env, ["alice", "bob"])
    await open_and_start(table, time_limit="1d")
    answer = await table.players[0].user.slash("sequence clock give")
    assert answer.ephemeral and answer.response.content == NOT_IN_DMS
    # discord.py's own error for it, answered by the tree's error handler (and nothing else)
    assert {type(error) for error in simcord_env.errors} == {app_commands.NoPrivateMessage}
