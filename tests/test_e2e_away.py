"""Away (issue #39): ``/sequence-me away until:… cover:pause|computer`` and ``/sequence-me
back``, on SQLite and PostgreSQL with virtual time. With ``pause`` the member's turn clock is
frozen across days (the table told, no reminder or turn DM), and comes back with the time that
was left; with ``computer`` a computer plays their turns, marked, and the game is unrated. The
end arrives by itself, across a restart too, and what a crash kept from the games comes from
the outbox. Bad input changes nothing; going away racing the time-out: exactly one wins; going
away twice at once: one period."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from bot.app import create_bot
from bot.config import Settings
from bot.services.away_input import FORBIDDEN, NO_AWAY_HERE, ONLY_COMPUTER
from bot.services.event_codec import decode
from bot.services.games.service import COVERED

from .e2e_helpers import make_table, open_and_start, play_one, seat_actor, settle, timeouts
from .helpers.tournament import check_in, game_in, snapshot, started_cup

HOUR, DAY = 3600, 86400


@pytest.fixture
def bot_settings(settings_on_each_backend: Settings) -> Settings:
    """Every test here runs on SQLite and on PostgreSQL."""
    return settings_on_each_backend


def said(table, start: str) -> list[str]:
    """The channel's messages that start with ``start``, oldest first."""
    return [m.content for m in table.channel.history() if m.content.startswith(start)]


async def limit_due(bot, record) -> float:
    timer = await bot.db.timers.get(record.id, "limit")
    assert timer is not None and timer.payload["turn"] == record.game.turn_number
    return timer.due_at


def last_board_text(table) -> str:
    boards = [m for m in table.channel.history() if m.attachments]
    return boards[-1].content


async def test_away_with_pause_freezes_the_clock_and_back_resumes_it(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    for player in table.players:
        await player.slash(table.channel, "sequence-me notify", setting="on")
    record = await open_and_start(table, time_limit="1d", reminder="12h", on_timeout="skip")
    bot = table.bot
    mover = seat_actor(table, record, record.game.turn)
    away = next(p for p in table.players if p is not mover)  # the next to play
    dms_before = len(away.user.dm_channel.history()) if away.user.dm_channel else 0

    gone = await away.slash(table.channel, "sequence-me away", until="3d", cover="pause")
    assert gone.ephemeral and "🏖️ You are away in this server until" in gone.response.content
    until = bot.clock() + 3 * DAY
    (told,) = said(table, "🏖️")
    assert f"**{away.user.name}** is away until <t:{int(until)}:f>" in told
    assert "their clock stops" in told

    await play_one(table, record)  # the turn passes to the member away
    assert record.game.turn == record.seats.index(
        next(s for s in record.seats if s.user_id == away.id)
    )
    assert f"**{away.user.name}** is away until" in last_board_text(table)
    due = await limit_due(bot, record)
    assert abs(due - (until + DAY)) < 5  # the whole day counts from the return
    status = await mover.slash(table.channel, "sequence status")
    assert "🏖️ away until" in status.response.content and "clock paused" in status.response.content

    turn = record.game.turn_number
    await simcord_env.advance_time(2 * DAY)  # the clock frozen across days
    await settle(simcord_env)
    assert record.game.turn_number == turn and timeouts(table) == [] and said(table, "⏰") == []
    dms = away.user.dm_channel.history() if away.user.dm_channel else []
    assert len(dms) == dms_before  # no turn DM, no reminder DM

    back = await away.slash(table.channel, "sequence-me back")
    assert back.ephemeral and "Welcome back" in back.response.content
    (welcome,) = said(table, "👋")
    assert f"<@{away.id}> is back early." in welcome
    resumed = await limit_due(bot, record)
    assert abs(resumed - (bot.clock() + DAY)) < 5  # the time that was left: the whole day
    status = await mover.slash(table.channel, "sequence status")
    assert "🏖️" not in status.response.content

    await simcord_env.advance_time(DAY - HOUR)
    await settle(simcord_env)
    assert record.game.turn_number == turn and timeouts(table) == []
    assert len(said(table, "⏰")) == 1  # reminders again, from the return
    await simcord_env.advance_time(2 * HOUR)
    await settle(simcord_env)
    assert record.game.turn_number == turn + 1 and len(timeouts(table)) == 1


async def test_away_on_ones_turn_keeps_the_time_left(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table, time_limit="1d", reminder="none", on_timeout="skip")
    bot = table.bot
    mover = seat_actor(table, record, record.game.turn)
    turn = record.game.turn_number
    await simcord_env.advance_time(6 * HOUR)  # 18 h of the day left
    await mover.slash(table.channel, "sequence-me away", until="2d")
    until = bot.clock() + 2 * DAY
    assert abs(await limit_due(bot, record) - (until + 18 * HOUR)) < 5
    (told,) = said(table, "🏖️")
    assert f"**{mover.user.name}** is away until <t:{int(until)}:f>" in told
    held = int(await limit_due(bot, record))
    assert told.endswith(f"⏳ Time runs out <t:{held}:R> (<t:{held}:f>).")  # from the return

    # The end arrives by itself: the table is told, and the 18 hours count from then.
    await simcord_env.advance_time(2 * DAY + 60)
    await settle(simcord_env)
    (welcome,) = said(table, "👋")
    assert "their time away is over" in welcome
    assert await bot.db.away.lasting(mover.id) == []
    await simcord_env.advance_time(17 * HOUR)
    await settle(simcord_env)
    assert record.game.turn_number == turn and timeouts(table) == []
    await simcord_env.advance_time(2 * HOUR)
    await settle(simcord_env)
    assert record.game.turn_number == turn + 1 and len(timeouts(table)) == 1


async def test_away_with_a_computer_marks_its_moves_and_unrates_the_game(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table, time_limit="1d", on_timeout="skip")
    bot = table.bot
    assert record.options.rated
    mover = seat_actor(table, record, record.game.turn)
    seat = record.game.turn
    bot.computers.delay = lambda: 600.0  # the computer thinks for ten minutes
    gone = await mover.slash(table.channel, "sequence-me away", until="1d", cover="computer")
    own = await play_one(table, record)  # meanwhile the member plays themselves: refused
    assert own.ephemeral and own.response.content == f"⚠️ {COVERED}"
    assert record.game.moves == []
    await simcord_env.advance_time(601)
    assert "makes these games unrated" in gone.response.content
    (told,) = said(table, "🏖️")
    assert "a computer plays their turns" in told and "**unrated**" in told
    await settle(simcord_env)
    assert not table.game().options.rated
    played = [m for m in record.game.moves if m.seat == seat]
    assert played, "the computer played the turn of the member away"
    marked = [m for m in table.channel.history() if f"🤖 for **{mover.user.name}**" in m.content]
    assert marked, "the computer's move is marked on the board"
    log = await bot.db.games.log(record.id)
    assert all(e.actor_user_id is None for e in log if e.move.seat == seat)  # by the computer
    other = next(p for p in table.players if p is not mover)
    await play_one(table, record)  # the other plays: the computer answers again
    await simcord_env.advance_time(601)
    await settle(simcord_env)
    assert other is not mover and record.game.turn != seat
    assert len([m for m in record.game.moves if m.seat == seat]) >= 2

    # Back: their own turns again; the game stays unrated (a computer played in it).
    await mover.slash(table.channel, "sequence-me back")
    await play_one(table, record)
    await settle(simcord_env)
    assert record.game.turn == seat
    assert "your turn" in last_board_text(table)
    assert not table.game().options.rated


async def test_the_end_arrives_across_a_restart(simcord_env, bot_settings):
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table, time_limit="1d", reminder="none", on_timeout="skip")
    mover = seat_actor(table, record, record.game.turn)
    turn = record.game.turn_number
    await mover.slash(table.channel, "sequence-me away", until="1d")
    until = table.bot.clock() + DAY

    await simcord_env.bot.close()
    await simcord_env.restart_bot(create_bot(bot_settings))
    record = table.game()
    assert record.options.away  # kept with the game
    await simcord_env.advance_time(DAY - HOUR)
    await settle(simcord_env)
    assert said(table, "👋") == [] and record.game.turn_number == turn

    # Down when the end falls due: it ends at the next start.
    await simcord_env.bot.close()
    await simcord_env.advance_time(2 * HOUR)
    await simcord_env.restart_bot(create_bot(bot_settings))
    await settle(simcord_env)
    record = table.game()
    assert len(said(table, "👋")) == 1 and not record.options.away
    assert abs(await limit_due(table.bot, record) - (until + DAY)) < 5
    assert record.game.turn_number == turn


async def test_bad_input_changes_nothing(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table, time_limit="1d")
    bot = table.bot
    alice = table.players[0]
    due = await limit_due(bot, record)
    yesterday = datetime.fromtimestamp(bot.clock() - DAY, UTC).strftime("%Y-%m-%d")

    async def refused(expected: str, **options) -> None:
        answer = await alice.slash(table.channel, "sequence-me away", **options)
        assert answer.ephemeral and expected in answer.response.content, answer.response.content
        assert await bot.db.away.lasting(alice.id) == []
        assert not table.game().options.away and await limit_due(bot, record) == due
        assert said(table, "🏖️") == []

    await refused("is neither a duration", until="next week")
    await refused("is neither a duration", until="2026-13-40")
    await refused("is not in the future", until=yesterday)
    await refused("more than this server allows", until="31d")  # the owner's 30 days
    await bot.server_settings.set(table.guild.id, "away_days", "0", alice.id)
    await refused(FORBIDDEN, until="1d")
    await bot.server_settings.set(table.guild.id, "away_days", "5", alice.id)
    await refused("5 days a year", until="6d")
    back = await alice.slash(table.channel, "sequence-me back")
    assert back.ephemeral and "You are not away" in back.response.content

    ok = await alice.slash(table.channel, "sequence-me away", until="1d")
    assert "You are away" in ok.response.content
    again = await alice.slash(table.channel, "sequence-me away", until="1h")
    assert "You are already away" in again.response.content  # overlapping
    assert len(await bot.db.away.lasting(alice.id)) == 1
    await simcord_env.advance_time(HOUR)
    await alice.slash(table.channel, "sequence-me back")  # back early: an hour used

    # 3 days more, run out by themselves: of the 5 days, 5 - 3 days 1 h are left.
    await alice.slash(table.channel, "sequence-me away", until="3d")
    await simcord_env.advance_time(3 * DAY + 60)
    await settle(simcord_env)
    over = await alice.slash(table.channel, "sequence-me away", until="2d")
    assert over.ephemeral and "1 day 23 h of its 5 days" in over.response.content
    assert await bot.db.away.lasting(alice.id) == [] and not table.game().options.away
    fits = await alice.slash(table.channel, "sequence-me away", until="1d")
    assert "You are away" in fits.response.content
    assert len(said(table, "🏖️")) == 3


@pytest.mark.parametrize("rule", ["none", "computer"])
async def test_a_tournament_may_forbid_away_or_allow_only_a_computer(simcord_env, rule):
    channel, (ann, ben) = await started_cup(simcord_env, ["ann", "ben"], away=rule)
    bot = simcord_env.bot
    (match,) = (await snapshot(bot, channel)).round_matches(1)
    await check_in(channel, match, [ann, ben])
    record = game_in(bot, match)
    assert record.options.away_rule == rule  # the match carries the tournament's rule
    refused = NO_AWAY_HERE if rule == "none" else ONLY_COMPUTER
    for cover in ("pause", "computer") if rule == "none" else ("pause",):
        answer = await ann.slash(channel, "sequence-me away", until="1d", cover=cover)
        assert answer.ephemeral
        assert answer.response.content == f"⚠️ {refused.format(game=record.id)}"
        assert await bot.db.away.lasting(ann.id) == [] and not record.options.away
    if rule == "computer":
        allowed = await ann.slash(channel, "sequence-me away", until="1d", cover="computer")
        assert "You are away" in allowed.response.content
        assert game_in(bot, match).options.away


async def test_away_from_a_dm_covers_every_server(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table, time_limit="1d")
    alice = table.players[0]
    gone = await alice.user.slash("sequence-me away", until="2d")
    assert gone.ephemeral and "You are away everywhere" in gone.response.content
    assert table.game().options.away and len(said(table, "🏖️")) == 1
    back = await alice.user.slash("sequence-me back")
    assert f"#{record.id}" in back.response.content
    assert not table.game().options.away


@pytest.mark.parametrize("first", ["away", "timeout"])
async def test_going_away_racing_the_time_out_exactly_one_wins(simcord_env, first):
    """Both in flight at once. ``away``: going away holds the game's lock as the time-out
    fires; the turn is held (the time-out finds the limit moved and does nothing). ``timeout``:
    the time-out holds the lock; the turn passes, and the member is away from the next turn
    on. Either way the table sees one outcome for the turn, and the store agrees."""
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table, time_limit="1h", reminder="none", on_timeout="skip")
    bot = table.bot
    mover = seat_actor(table, record, record.game.turn)
    turn = record.game.turn_number
    due = await limit_due(bot, record)
    bot.turn_clock.cancel_game(record.id)  # the test puts the time-out in flight itself
    limit = await bot.db.timers.get(record.id, "limit")
    now = [due - 60.0]
    bot.games.clock = lambda: now[0]

    started = asyncio.Event()
    get = bot.db.timers.get

    async def reading(game_id, kind):
        started.set()
        for _ in range(5):  # let the other change reach the lock meanwhile
            await asyncio.sleep(0)
        return await get(game_id, kind)

    bot.db.timers.get = reading

    async def second(call):
        await started.wait()
        now[0] = due + 1.0
        return await call()

    async def go_away():
        return await bot.away.go(mover.id, table.guild.id, "1d", "pause")

    async def fire():
        return await bot.turn_clock.fire(limit)

    if first == "away":
        gone, fired = await asyncio.gather(go_away(), second(fire), return_exceptions=True)
    else:
        now[0] = due + 1.0
        fired, gone = await asyncio.gather(fire(), second(go_away), return_exceptions=True)
    bot.db.timers.get = get
    await settle(simcord_env)
    assert fired is None and not isinstance(gone, Exception), gone
    if first == "away":
        assert record.game.turn_number == turn and timeouts(table) == []
        held = await limit_due(bot, record)
        assert held > due + DAY - 120  # held until the return, with the minute left
    else:
        assert record.game.turn_number == turn + 1 and len(timeouts(table)) == 1
        assert record.game.turn != record.seats.index(
            next(s for s in record.seats if s.user_id == mover.id)
        )
    assert len(said(table, "🏖️")) == 1 and table.game().options.away


async def test_a_game_that_starts_while_a_player_is_away_is_covered(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    alice = table.players[0]
    gone = await alice.slash(table.channel, "sequence-me away", until="2d")
    assert "You have no game going on now." in gone.response.content
    until = table.bot.clock() + 2 * DAY
    record = await open_and_start(table, time_limit="1d", reminder="none")
    await settle(simcord_env)
    (told,) = said(table, "🏖️")
    assert f"**{alice.user.name}** is away until <t:{int(until)}:f>" in told
    seat = next(i for i, s in enumerate(record.seats) if s.user_id == alice.id)
    assert record.game.turn == seat  # alice starts (seed 1): her first turn is held
    assert abs(await limit_due(table.bot, record) - (until + DAY)) < 5
    status = await table.players[1].slash(table.channel, "sequence status")
    assert f"**{alice.user.name}**" in status.response.content
    assert f"🏖️ away until <t:{int(until)}:f>, clock paused" in status.response.content


def crash_after_commit(bot) -> None:
    """The process dies as its next changes commit: what they wrote is never handed over in
    memory (only the outbox has it)."""
    bot.bus.deliver = lambda events: None


async def restart(simcord_env, bot_settings) -> None:
    await simcord_env.bot.close()
    await simcord_env.restart_bot(create_bot(bot_settings))
    await settle(simcord_env)


async def test_a_period_stored_before_a_crash_covers_its_games_at_the_next_start(
    simcord_env, bot_settings
):
    """The period was saved (with its outbox), then the process died before it changed the
    games: at the next start, the outbox covers each game (once: a second start changes
    nothing)."""
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table, time_limit="1d", reminder="none")
    alice = table.players[0]
    crash_after_commit(table.bot)
    gone = await table.bot.away.go(alice.id, table.guild.id, "1d", "computer")
    assert gone.games == [record.id] and gone.unrated == [record.id]
    await settle(simcord_env)
    assert not record.options.away and said(table, "🏖️") == []  # died before the covers
    assert len(await table.bot.db.away.lasting(alice.id)) == 1
    for _ in range(2):
        await restart(simcord_env, bot_settings)
    record = table.game()
    assert record.options.away and not record.options.rated
    (told,) = said(table, "🏖️")
    assert "a computer plays their turns" in told


async def test_an_end_stored_before_a_crash_uncovers_its_games_at_the_next_start(
    simcord_env, bot_settings
):
    """Back early was saved (with its outbox), then the process died before it changed the
    games: at the next start, the outbox takes the member's entry out (once)."""
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table, time_limit="1d", reminder="none")
    bot, alice = table.bot, table.players[0]
    await alice.slash(table.channel, "sequence-me away", until="1d")
    assert table.game().options.away
    crash_after_commit(bot)
    back = await bot.away.back(alice.id, table.guild.id)
    assert back.games == [record.id]
    await settle(simcord_env)
    assert table.game().options.away and said(table, "👋") == []  # died before the games
    assert await bot.db.away.lasting(alice.id) == []
    for _ in range(2):
        await restart(simcord_env, bot_settings)
    assert not table.game().options.away
    (welcome,) = said(table, "👋")
    assert f"<@{alice.id}> is back early." in welcome
    assert abs(await limit_due(table.bot, table.game()) - (table.bot.clock() + DAY)) < 5


async def test_the_events_of_a_period_delivered_again_change_nothing(simcord_env):
    """Delivery is at least once: the start and the end of a period, delivered again (even
    the start after the end), leave the game as it is."""
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table, time_limit="1d", reminder="none")
    bot, alice = table.bot, table.players[0]
    await alice.slash(table.channel, "sequence-me away", until="1d", cover="computer")
    await settle(simcord_env)
    rows = {row.kind: row for row in await bot.db.outbox.delivered(record.id)}
    began = decode(rows["AwayPeriodBegan"], table.game())
    bot.bus.deliver([(None, began)])
    await settle(simcord_env)
    assert len(said(table, "🏖️")) == 1 and len(table.game().options.away) == 1
    await alice.slash(table.channel, "sequence-me back")
    await settle(simcord_env)
    rows = {row.kind: row for row in await bot.db.outbox.delivered(record.id)}
    over = decode(rows["AwayPeriodOver"], table.game())
    bot.bus.deliver([(None, over), (None, began)])
    await settle(simcord_env)
    assert not table.game().options.away and len(said(table, "🏖️")) == 1
    assert len(said(table, "👋")) == 1


@pytest.mark.parametrize("second", ["here", "everywhere"])
async def test_going_away_twice_at_once_stores_one_period(simcord_env, second):
    """Two requests in flight together (two channels, or two processes of a cluster): the
    check and the insert are one step per member, so exactly one period is stored and the
    other is told it overlaps."""
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table, time_limit="1d", reminder="none")
    bot, alice = table.bot, table.players[0]
    lasting = bot.db.away.lasting

    async def slow(user_id=None):
        found = await lasting(user_id)
        for _ in range(20):  # let the other request read meanwhile, if it could
            await asyncio.sleep(0)
        return found

    bot.db.away.lasting = slow
    where = table.guild.id if second == "here" else None
    answers = await asyncio.gather(
        bot.away.go(alice.id, table.guild.id, "1d", "pause"),
        bot.away.go(alice.id, where, "2d", "pause"),
        return_exceptions=True,
    )
    bot.db.away.lasting = lasting
    await settle(simcord_env)
    refused = [a for a in answers if isinstance(a, Exception)]
    assert len(refused) == 1 and "You are already away" in str(refused[0]), answers
    (period,) = await bot.db.away.lasting(alice.id)
    assert [e[1] for e in table.game().options.away] == [period.until_at]
    assert len(said(table, "🏖️")) == 1 and record.options.away


async def test_a_late_end_of_a_period_leaves_the_next_period_in_place(simcord_env):
    """A period's end that runs late (the bot was busy or down) after the member went away
    again ends only its own period: the new one stays in the game."""
    table = await make_table(simcord_env, ["alice", "bob"])
    await open_and_start(table, time_limit="1d")
    bot, alice = table.bot, table.players[0]
    await alice.slash(table.channel, "sequence-me away", until="1h")
    (first,) = await bot.db.away.lasting(alice.id)
    bot.scheduler.cancel(("away", first.id))  # its end is late
    await simcord_env.advance_time(2 * 3600)
    again = await alice.slash(table.channel, "sequence-me away", until="1d")
    assert "You are away" in again.response.content
    await bot.away.run_out(first)
    await settle(simcord_env)
    (entry,) = table.game().options.away
    assert entry[1] == first.until_at + HOUR + DAY  # the second period's end
    assert said(table, "👋") == [] and len(await bot.db.away.lasting(alice.id)) == 1


async def test_back_while_the_computer_thinks_gives_the_turn_back(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table, time_limit="1d", reminder="none", on_timeout="skip")
    bot = table.bot
    bot.computers.delay = lambda: 600.0
    mover = seat_actor(table, record, record.game.turn)
    await mover.slash(table.channel, "sequence-me away", until="1d", cover="computer")
    assert await bot.db.timers.get(record.id, "limit") is None  # no clock: a computer covers
    await simcord_env.advance_time(60)
    await mover.slash(table.channel, "sequence-me back")
    assert abs(await limit_due(bot, record) - (bot.clock() + DAY)) < 5  # a whole turn again
    await simcord_env.advance_time(601)
    await settle(simcord_env)
    assert record.game.moves == []  # the computer did not move: the turn is the member's
    await play_one(table, record)
    (entry, *_) = await bot.db.games.log(record.id)
    assert entry.actor_user_id == mover.id  # the member's own move
    assert table.game().options.rated is False  # covered once: unrated for good
