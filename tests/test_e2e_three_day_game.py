"""A slow game played out across three days of virtual time (issue #39), with each clock
feature in it: a bank clock (spent, grown by its increment, run out), a reminder and the
"+1 day" given from it, quiet hours holding a turn DM overnight, away with the clock paused
and back early, and away covered by a computer (its moves marked, the game unrated).

The test prints what the channel read and what the quiet player's DMs read, in order, with
the virtual time of each message (``pytest -s`` shows it); the assertions check each feature.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime

from bot.game import player_view
from bot.game.ai import choose_move

from .e2e_driver import make_move, seat_to_act
from .e2e_helpers import make_table, open_and_start, play_one, seat_actor, settle, timeouts

HOUR = 3600
MINUTE = 60
#: Monday 7 December 2026, 09:00 UTC (10:00 in Berlin).
MONDAY = datetime(2026, 12, 7, 9, 0, tzinfo=UTC).timestamp()


def _text(message) -> str:
    """A message as a reader sees it: its content, else its embeds' titles and text."""
    if message.content:
        return message.content
    parts = []
    for embed in message.embeds:
        parts.extend(p for p in (embed.title, embed.description) if p)
        parts.extend(f"{f.name}: {f.value}" for f in embed.fields)
    if message.attachments:
        parts.append(f"[image {message.attachments[0].filename}]")
    return " | ".join(parts)


def transcript(messages) -> list[str]:
    """``"Mon 10:00 UTC  text"`` for each message as it reads now, in the order it came to
    read so (a board is edited into a "Then:" line when the next move is made)."""
    ordered = sorted(messages, key=lambda m: m.edited_at or m.created_at)
    return [f"{(m.edited_at or m.created_at):%a %H:%M} UTC  {_text(m)}" for m in ordered]


async def _until(env, moment: float) -> None:
    await env.advance_time(max(0.0, moment - env.bot.clock()))


async def test_a_three_day_game_with_every_clock_feature(simcord_env):
    await _until(simcord_env, MONDAY)
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    for player in table.players:
        await player.slash(table.channel, "sequence-me notify", setting="on")
    quiet = await bob.slash(
        table.channel,
        "sequence-me notify",
        setting="on",
        quiet_from="22:00",
        quiet_to="07:00",
        timezone="Europe/Berlin",
    )
    assert "Quiet hours 22:00–07:00 (Europe/Berlin)" in quiet.response.content
    record = await open_and_start(
        table,
        clock="bank",
        bank_start="12h",
        bank_increment="4h",
        bank_cap="1d",
        reminder="4h",
        on_timeout="skip",
    )
    first = seat_actor(table, record, record.game.turn)
    second = next(p for p in table.players if p is not first)
    assert record.options.rated

    # Monday: a few moves an hour apart; each bank spends its hour and earns 4 hours.
    for _ in range(4):
        await simcord_env.advance_time(HOUR)
        await play_one(table, record)
    assert set(record.options.banks) == {12 * HOUR + 2 * 3 * HOUR}  # twice -1h +4h

    # The player on turn dawdles: the reminder comes after 4 hours, and the other gives a day.
    waiting = seat_actor(table, record, record.game.turn)
    giver = next(p for p in table.players if p is not waiting)
    await simcord_env.advance_time(4 * HOUR + 1)
    (reminder,) = [m for m in table.channel.history() if m.content.startswith("⏰")]
    given = await giver.click(reminder, label="+1 day")
    assert "You gave" in given.response.content
    await play_one(table, record)

    # Monday 23:00 UTC (midnight in Berlin): bob's turn comes in his quiet hours; the turn DM
    # waits for 07:00 Berlin (06:00 UTC), and the clock runs meanwhile.
    await _until(simcord_env, MONDAY + 14 * HOUR)
    if seat_actor(table, record, record.game.turn) is not alice:
        await play_one(table, record)
    dms_before = len(bob.user.dm_channel.history()) if bob.user.dm_channel else 0
    await play_one(table, record)  # alice moves: bob's turn, at night
    assert len(bob.user.dm_channel.history()) == dms_before
    await _until(simcord_env, MONDAY + 21 * HOUR + MINUTE)  # Tuesday 06:01 UTC
    await settle(simcord_env)
    assert len(bob.user.dm_channel.history()) == dms_before + 1
    await play_one(table, record)

    # Tuesday: alice goes away for a day with her clock paused; her turn waits, no reminder.
    went = await alice.slash(table.channel, "sequence-me away", until="1d", cover="pause")
    assert went.ephemeral and "You are away" in went.response.content
    if seat_actor(table, record, record.game.turn) is not alice:
        await play_one(table, record)
    reminders_before = len([m for m in table.channel.history() if m.content.startswith("⏰")])
    await simcord_env.advance_time(10 * HOUR)
    assert len([m for m in table.channel.history() if m.content.startswith("⏰")]) == (
        reminders_before
    )
    back = await alice.slash(table.channel, "sequence-me back")
    assert back.ephemeral
    await play_one(table, record)
    told = [m.content for m in table.channel.history()]
    (away,) = [c for c in told if c.startswith("🏖️ **alice** is away")]
    assert "alice 1d ·" in away  # her bank as she left it (the cap), not counting her time away
    assert any(c.startswith("👋 <@") and "is back early" in c for c in told)

    # Tuesday evening: bob goes away for half a day with a computer playing for him; the game
    # is unrated from then on, and its moves are marked.
    await _until(simcord_env, MONDAY + 35 * HOUR)
    went = await bob.slash(table.channel, "sequence-me away", until="12h", cover="computer")
    assert went.ephemeral
    await settle(simcord_env)
    if seat_actor(table, record, record.game.turn) is alice:
        await play_one(table, record)
        await settle(simcord_env)
    assert not record.options.rated
    assert any("🤖 for" in _text(m) for m in table.channel.history())
    await bob.slash(table.channel, "sequence-me back")

    # Alice lets her bank run out: the turn is skipped, the bank restarts at the increment.
    if seat_actor(table, record, record.game.turn) is not alice:
        await play_one(table, record)
    skipped_before = len(timeouts(table))
    limit = await table.bot.db.timers.get(record.id, "limit")
    await simcord_env.advance_time(limit.due_at - table.bot.clock() + 10)
    await settle(simcord_env)
    assert len(timeouts(table)) >= skipped_before + 1

    # The game is played out, a move every ten minutes (each player's move a good one).
    rng = random.Random(7)
    while not record.game.is_over():
        await simcord_env.advance_time(10 * MINUTE)
        seat = seat_to_act(record)
        move = choose_move(player_view(record.game, seat), "medium", rng)
        await make_move(table, record, seat, move)
    await settle(simcord_env)

    # /sequence stats shows each player's speed in slow games.
    stats = (await bob.slash(table.channel, "sequence stats")).response.embeds[0]
    speed = [f"{f.name}: {f.value}" for f in stats.fields if "speed" in f.name.lower()]
    assert speed, [f.name for f in stats.fields]

    print("\n--- #sequence ---")
    print("\n".join(transcript(table.channel.history())))
    print("--- bob's DMs ---")
    print("\n".join(transcript(bob.user.dm_channel.history())))
    print("--- bob's /sequence stats, speed ---")
    print("\n".join(speed))
    assert first is not second
