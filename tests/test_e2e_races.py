"""Competing changes to one game, put in flight together: exactly one takes effect, the other is
told, and what the players then see agrees with the store. Each test was a defect before every
change went through the game service's one path (lock, current-state check, one transaction).

The racing calls are the ones the bot's own handlers make (a click's service call, a timer's
fire), started together with ``asyncio.gather``; the channel is then read as a player would.
"""

from __future__ import annotations

import asyncio
import contextlib
import time

import discord
import pytest

from bot.app import create_bot
from bot.game import Move
from bot.game.moves import RESIGN
from bot.services.errors import UserError
from bot.services.games import STALE
from bot.services.timing import LIMIT, REMINDER
from bot.services.undo import LAPSED

from .e2e_driver import make_move
from .e2e_helpers import (
    four_player_game,
    make_table,
    open_and_start,
    play_one,
    seat_actor,
    settle,
    timeouts,
)
from .engine_helpers import playable

MINUTE = 60


@pytest.mark.parametrize("policy", ["remove", "computer", "skip"])
async def test_a_move_in_time_beats_its_expiry(simcord_env, policy):
    """(a) The expiry fires while the player on turn moves: the move stands, nothing else."""
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table, time_limit="10m", on_timeout=policy)
    bot = table.bot
    timer = await bot.db.timers.get(record.id, LIMIT)
    seat, card, space = playable(record.game)
    user = record.seats[seat].user_id
    played, expired = await asyncio.gather(
        bot.games.play(record.id, user, card, space, expected_turn=record.game.turn_number),
        bot.turn_clock.fire(timer),
        return_exceptions=True,
    )
    await settle(simcord_env)
    assert not isinstance(played, Exception) and expired is None
    game = record.game
    assert [m.kind for m in game.moves] == ["play"] and not any(game.out)
    assert timeouts(table) == []  # no false "ran out of time"
    assert await bot.db.results.get(record.id) is None


async def test_an_expiry_first_refuses_the_late_move(simcord_env):
    """(a) The other order: the time-out wins, and the late player is told, nothing else."""
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table, time_limit="10m", on_timeout="skip")
    bot = table.bot
    timer = await bot.db.timers.get(record.id, LIMIT)
    seat, card, space = playable(record.game)
    user = record.seats[seat].user_id
    expired, played = await asyncio.gather(
        bot.turn_clock.fire(timer),
        bot.games.play(record.id, user, card, space, expected_turn=record.game.turn_number),
        return_exceptions=True,
    )
    await settle(simcord_env)
    assert expired is None and isinstance(played, UserError) and str(played) == STALE
    assert [m.kind for m in record.game.moves] == ["skip"]
    assert len(timeouts(table)) == 1


async def until_waiting_or_done(bot, game_id: int, task: asyncio.Task) -> None:
    """Until ``task`` (a move) is done or waits for the game's lock (real time, not SimCord's)."""
    while not task.done():
        entry = bot.games.locks._locks.get(game_id)
        if entry is not None and entry.users >= 2:
            return
        await asyncio.to_thread(time.sleep, 0.002)


@pytest.mark.parametrize("first", ["time-out", "move"])
async def test_a_computer_stand_in_and_the_late_players_own_move_at_once(
    simcord_env, monkeypatch, first
):
    """Issue #35, item 8: the time limit fired (policy ``computer``) and, while the computer
    thought for dave, dave's own move landed. Before, the channel read "⌛ dave ran out of
    time. A computer player moves for them this turn." and then dave's move was the one that
    counted: the time-out committed no move, so the turn was still his. Now the notice and the
    computer's move are one change: exactly one of the two moves counts, and the channel says
    "ran out of time" only when the computer's did."""
    import bot.services.computers as computers

    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table, time_limit="10m", on_timeout="computer")
    bot = table.bot
    timer = await bot.db.timers.get(record.id, LIMIT)
    seat, card, space = playable(record.game)
    user, turn = record.seats[seat].user_id, record.game.turn_number
    thinking, go_on = asyncio.Event(), asyncio.Event()
    think = computers.run_on

    async def held_thought(*args, **kwargs):
        thinking.set()  # the computer is thinking for the late player...
        await go_on.wait()  # ...until the player's own move is in flight too
        return await think(*args, **kwargs)

    monkeypatch.setattr(computers, "run_on", held_thought)

    async def own_move():
        if first == "time-out":
            await thinking.wait()
        return await bot.games.play(record.id, user, card, space, expected_turn=turn)

    async def time_out():
        while first == "move" and record.id not in bot.games.locks._locks and not moving.done():
            await asyncio.sleep(0)  # the move holds the game's lock first
        return await bot.turn_clock.fire(timer)

    async def release():
        if first == "time-out":
            await thinking.wait()
        await until_waiting_or_done(bot, record.id, moving)
        go_on.set()

    moving = asyncio.ensure_future(own_move())
    timing = asyncio.ensure_future(time_out())
    releasing = asyncio.ensure_future(release())
    played, expired, _ = await asyncio.gather(moving, timing, releasing, return_exceptions=True)
    go_on.set()
    await settle(simcord_env)
    moves = [(m.kind, m.seat) for m in record.game.moves]
    assert len(moves) == 1 and moves[0] == ("play", seat), moves  # one move counted for the turn
    own_counted = not isinstance(played, Exception)
    if own_counted:
        assert record.game.moves[0].card == card and record.game.moves[0].space == space
        assert timeouts(table) == [], [m.content for m in timeouts(table)]  # no false notice
    else:
        assert isinstance(played, UserError) and str(played) == STALE
        (notice,) = timeouts(table)
        assert "computer player moves for them" in notice.content
    assert expired is None
    assert own_counted == (first == "move")


@pytest.mark.parametrize("verdicts", [("uphold", "uphold"), ("uphold", "dismiss")])
async def test_two_rulings_on_one_call(simcord_env, verdicts):
    """(b) Two rulings at once: exactly one takes effect; the other is told which one did."""
    table, record = await four_player_game(simcord_env)
    bot = table.bot
    host = record.options.host_id
    host_seat = next(i for i, s in enumerate(record.seats) if s.user_id == host)
    host_team = record.game.team_of(host_seat)
    offenders = 1 - host_team
    reporter = next(
        s.user_id for i, s in enumerate(record.seats) if record.game.team_of(i) == host_team
    )
    report = await bot.tabletalk.report(table.channel.id, reporter, offenders)
    results = await asyncio.gather(
        *(
            bot.tabletalk.resolve(report.id, host, uphold=v == "uphold", can_moderate=True)
            for v in verdicts
        ),
        return_exceptions=True,
    )
    await settle(simcord_env)
    won = [r for r in results if not isinstance(r, Exception)]
    lost = [r for r in results if isinstance(r, Exception)]
    assert len(won) == 1 and len(lost) == 1
    assert isinstance(lost[0], UserError) and "already upheld" in str(lost[0])
    stored = await bot.db.tabletalk.get(report.id)
    assert stored.status == won[0][0].status == "upheld"
    owed = [record.game.owed_forfeits[s] for s in record.game.settings.seats_of(offenders)]
    assert owed == [1, 1]  # one penalty, not two


async def test_an_undo_takes_back_only_the_move_it_names(simcord_env):
    """(c) The host asks to undo move 1; bob agrees as bob makes move 2: move 2 stands."""
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    record = await open_and_start(table)
    bot = table.bot
    mover = seat_actor(table, record, record.game.turn)
    seat, card, space = playable(record.game)
    await bot.games.play(record.id, mover.id, card, space, expected_turn=0)
    ask = await alice.slash(table.channel, "sequence undo")
    assert "Waiting for" in ask.response.content
    seat, card, space = playable(record.game)
    player = record.seats[seat].user_id
    played, answered = await asyncio.gather(
        bot.games.play(record.id, player, card, space, expected_turn=1),
        bot.undo.answer(record.id, bob.id, 1, agree=True),
        return_exceptions=True,
    )
    await settle(simcord_env)
    # the move came first: the undo lapsed, with a clear answer, and move 2 stands
    assert not isinstance(played, Exception)
    assert isinstance(answered, UserError) and str(answered) == LAPSED
    assert len(record.game.moves) == 2
    assert [e.undone_at for e in await bot.db.games.log(record.id)] == [None, None]


async def test_agree_and_refuse_together_with_three_teams(simcord_env):
    """(c) With 3 teams, one answer wins and the other is told; never the generic apology."""
    table = await make_table(simcord_env, ["alice", "bob", "carol"])
    record = await open_and_start(table)
    bot = table.bot
    mover = record.seats[record.game.turn].user_id
    _, card, space = playable(record.game)
    await bot.games.play(record.id, mover, card, space, expected_turn=0)
    host = record.options.host_id
    await bot.undo.request(record.id, host)
    others = [s.user_id for s in record.seats if s.user_id != host]
    refused, agreed = await asyncio.gather(
        bot.undo.answer(record.id, others[0], 1, agree=False),
        bot.undo.answer(record.id, others[1], 1, agree=True),
        return_exceptions=True,
    )
    assert refused.refused
    assert isinstance(agreed, UserError) and str(agreed) == LAPSED
    assert len(record.game.moves) == 1 and "undo_request" not in record.options.to_dict()


async def test_a_saved_final_move_finishes_the_game_at_start_up(simcord_env, bot_settings):
    """(d) A crash after the final move was saved, before the end was: after the restart the
    game is finished with its result, and the channel is free."""
    table = await make_table(simcord_env, ["alice", "bob"])
    alice = table.players[0]
    record = await open_and_start(table)
    db = table.bot.db
    # What such a crash leaves: the resignation saved as the last move, the status still active.
    game = record.game.copy()
    game.push(Move(RESIGN, -1, team=0))
    await db.games.append_moves(record.id, 0, [(game.moves[-1], alice.id)], game, now=1.0)
    await simcord_env.bot.close()
    await simcord_env.restart_bot(create_bot(bot_settings))
    await settle(simcord_env)
    bot = simcord_env.bot
    assert bot.games.find_in_channel(table.channel.id) is None
    result = await bot.db.results.get(record.id)
    assert result is not None and result.winner_team == 1
    assert (await bot.db.games.load(record.id)).status == "finished"
    fresh = await alice.slash(table.channel, "sequence new")
    assert not fresh.ephemeral  # the channel is free


async def test_lost_timers_are_rebuilt_at_start_up(simcord_env, bot_settings):
    """(e) A crash that lost the turn's timers: at start-up they are rebuilt, and fire."""
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table, time_limit="10m", on_timeout="skip")
    db = table.bot.db
    await db.timers.clear_game(record.id)
    await simcord_env.bot.close()
    await simcord_env.restart_bot(create_bot(bot_settings))
    await settle(simcord_env)
    assert await simcord_env.bot.db.timers.get(record.id, LIMIT) is not None
    await simcord_env.advance_time(10 * MINUTE + 1)
    restored = simcord_env.bot.games.find_in_channel(table.channel.id)
    assert [m.kind for m in restored.game.moves] == ["skip"]


async def test_a_closed_lobby_keeps_no_working_buttons(simcord_env):
    """(f) The last player leaves: the old message loses its buttons; where Discord refused
    that edit, they answer "closed", even after a new lobby opens in the channel (lobby ids
    are never reused)."""
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    gone = (await alice.slash(table.channel, "sequence new")).response
    assert (await alice.slash(table.channel, "sequence leave")).acknowledged
    closed = next(m for m in table.channel.history() if m.id == gone.id)
    assert not closed.components and "the lobby is closed" in closed.content
    old = (await alice.slash(table.channel, "sequence new")).response
    simcord_env.inject_error("PATCH", "/channels/*/messages/*", status=403, code=50013)
    left = await alice.slash(table.channel, "sequence leave")
    assert left.acknowledged
    again = await bob.click(old, label="Join")
    assert again.ephemeral and "closed" in again.response.content
    new = (await bob.slash(table.channel, "sequence new")).response
    stale = await alice.click(old, label="Join")
    assert stale.ephemeral and "closed" in stale.response.content
    lobby = await table.bot.db.lobbies.get_for_channel(table.channel.id)
    assert lobby.seats and [s.user_id for s in lobby.seats] == [bob.id]
    assert new.id != old.id


async def test_a_computer_thinks_once_per_move(simcord_env, monkeypatch):
    """A move publishes more than one event that wakes the computers (the move, the next
    turn): with no pause, the second must not start a second, wasted think of the same move
    while the first is under way."""
    import bot.services.computers as computers

    thought: list[int] = []
    think = computers.choose_move

    def counting(view, *args, **kwargs):
        thought.append(view.seat)
        return think(view, *args, **kwargs)

    monkeypatch.setattr(computers, "choose_move", counting)
    table = await make_table(simcord_env, ["alice"])
    (alice,) = table.players
    lobby = (await alice.slash(table.channel, "sequence new")).response
    for _ in range(3):
        await alice.slash(table.channel, "sequence addbot", level="easy")
    await alice.click(lobby, label="Start")
    record = table.game()
    for _ in range(3):  # alice's turns; the three computers answer each
        seat, card, space = playable(record.game)
        assert not record.seats[seat].is_computer
        await make_move(table, record, seat, Move.play(seat, card, space))
    computer_moves = [m for m in record.game.moves if record.seats[m.seat].is_computer]
    assert len(computer_moves) >= 9 and len(thought) == len(computer_moves), thought


async def test_a_join_while_the_lobby_is_being_posted_keeps_its_seat(simcord_env, monkeypatch):
    """Bob joins in the moment between the lobby's message appearing and the bot remembering
    its id: remembering the message must not take back the seat bob was told he has."""
    from bot.services.lobbies import Person

    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    lobbies = table.bot.lobbies
    remember = lobbies.set_message

    async def joined_meanwhile(lobby, message_id):
        await lobbies.join(table.channel.id, Person(bob.id, "bob"))  # bob's Join, as it lands
        return await remember(lobby, message_id)

    monkeypatch.setattr(lobbies, "set_message", joined_meanwhile)
    opened = await alice.slash(table.channel, "sequence new")
    monkeypatch.undo()
    lobby = await table.bot.db.lobbies.get_for_channel(table.channel.id)
    assert [s.user_id for s in lobby.seats] == [alice.id, bob.id]
    assert lobby.message_id == opened.response.id
    shown = next(m for m in table.channel.history() if m.id == opened.response.id)
    assert "bob" in " ".join(field.value for field in shown.embeds[0].fields)
    started = await alice.click(opened.response, label="Start")
    assert not started.ephemeral
    assert {s.user_id for s in table.game().seats} == {alice.id, bob.id}


@pytest.mark.parametrize("first", ["start", "report"])
async def test_a_result_by_hand_while_the_match_game_starts(simcord_env, first):
    """The organiser reports a match's result as its host starts the game: the match is
    decided once, and no game goes on in its thread for a result already recorded."""
    from tests.helpers.tournament import match_of, snapshot, started_cup

    channel, (org, alice, _bob) = await started_cup(
        simcord_env, ["org", "alice", "bob"], organiser_plays=False
    )
    bot = simcord_env.bot
    snap = await snapshot(bot, channel)
    match = match_of(snap, 1, "alice")
    thread = match.thread_id
    host = (await bot.db.lobbies.get_for_channel(thread)).host_id
    service = bot.tournament_service
    calls = {
        "start": lambda: bot.lobbies.start(thread, host),
        "report": lambda: service.report(snap.tournament.id, org.id, False, match.id, alice.id),
    }
    second = "report" if first == "start" else "start"
    results = await asyncio.gather(calls[first](), calls[second](), return_exceptions=True)
    await settle(simcord_env)
    for result in results:  # a refusal is a clear answer, never a bug
        assert not isinstance(result, Exception) or isinstance(result, UserError), result
    decided = await bot.db.tournaments.match(match.id)
    winner = next(e for e in match.sides if alice.id in snap.entrants[e].user_ids)
    assert decided.status == "done" and decided.winner == winner
    assert bot.games.find_in_channel(thread) is None  # nothing is played for a decided match
    assert await bot.db.games.active_for_channel(thread) is None
    assert (await snapshot(bot, channel)).tournament.status == "finished"


async def test_a_result_by_hand_as_the_match_lobby_becomes_a_game(simcord_env, monkeypatch):
    """The report closes the match lobby in the instant the host's Start writes the game:
    the host is told the lobby is closed, never "something went wrong"."""
    from tests.helpers.tournament import match_of, snapshot, started_cup

    channel, (org, alice, bob) = await started_cup(
        simcord_env, ["org", "alice", "bob"], organiser_plays=False
    )
    bot = simcord_env.bot
    snap = await snapshot(bot, channel)
    match = match_of(snap, 1, "alice")
    lobby = await bot.db.lobbies.get_for_channel(match.thread_id)
    host = next(p for p in (alice, bob) if p.id == lobby.host_id)
    transaction = bot.db.transaction

    @contextlib.asynccontextmanager
    async def reported_meanwhile():
        monkeypatch.undo()  # the report lands as Start is about to write the game
        await bot.tournament_service.report(snap.tournament.id, org.id, False, match.id, alice.id)
        async with transaction():
            yield

    monkeypatch.setattr(bot.db, "transaction", reported_meanwhile)
    thread = next(t for t in channel.threads if t.id == match.thread_id)
    started = await host.slash(thread, "sequence start")
    assert started.ephemeral and "closed" in started.response.content, started.response.content
    assert bot.games.find_in_channel(match.thread_id) is None
    assert (await bot.db.tournaments.match(match.id)).status == "done"


async def test_the_organiser_ends_the_tournament_as_a_match_game_is_won(simcord_env, monkeypatch):
    """``/tournament-admin end`` reaches a match whose game is being won at that moment: the end
    still ends the whole tournament (no round left half cancelled), and says so."""
    from tests.helpers.tournament import (
        announced,
        check_in,
        game_in,
        snapshot,
        started_cup,
        thread_of,
    )

    channel, (org, *players) = await started_cup(
        simcord_env, ["org", "ann", "ben", "cat", "dan"], organiser_plays=False
    )
    bot = simcord_env.bot
    snap = await snapshot(bot, channel)
    first, second = snap.round_matches(1)
    for match in (first, second):
        drawn = {u for e in match.sides for u in snap.entrants[e].user_ids}
        await check_in(channel, match, [p for p in players if p.id in drawn])
    games = [game_in(bot, first), game_in(bot, second)]
    loser = games[1].seats[0].user_id
    cancel = bot.games.cancel

    async def won_meanwhile(game_id):
        if game_id == games[1].id:  # the losing side resigns just before the cancel lands
            await bot.games.vote_resign(game_id, loser)
        return await cancel(game_id)

    monkeypatch.setattr(bot.games, "cancel", won_meanwhile)
    ended = await org.slash(channel, "tournament-admin end")
    monkeypatch.undo()
    await settle(simcord_env)
    assert announced(channel, ended), ended.response.content
    after = await snapshot(bot, channel)
    assert after.tournament.status == "finished"
    assert [m.status for m in after.matches] == ["cancelled", "cancelled"]  # no final paired
    assert "was ended" in ended.response.content
    assert not any(bot.games.find_in_channel(m.thread_id) for m in (first, second))
    assert thread_of(channel, first)  # the threads remain readable


async def test_a_cancel_as_a_move_is_shown_leaves_no_turn_to_play(simcord_env):
    """The host cancels while the board of the move just made is being drawn: the board
    still shows that move, but never pings the next player to play a cancelled game."""
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, _bob = table.players
    record = await open_and_start(table)
    bot = table.bot
    seat, card, space = playable(record.game)
    user = record.seats[seat].user_id
    played, cancelled = await asyncio.gather(
        bot.games.play(record.id, user, card, space, expected_turn=record.game.turn_number),
        alice.slash(table.channel, "sequence cancel"),
        return_exceptions=True,
    )
    await settle(simcord_env)
    assert not isinstance(played, Exception)
    assert "was cancelled" in cancelled.response.content
    assert (await bot.db.games.load(record.id)).status == "cancelled"
    last = table.channel.last_message
    assert "your turn" not in last.content and not last.components, last.content


async def test_a_start_while_the_match_message_is_posted_keeps_the_game(simcord_env, monkeypatch):
    """The match's host presses Start on its lobby while the bot is still posting the match
    message (with *I'm here*): remembering that message must not take the match back to
    waiting without its game, or the show-up clock forfeits a match being played and the
    game's result is never recorded."""
    from tests.helpers.tournament import (
        SHOW_UP,
        anyone_may_organise,
        game_in,
        match_message,
        resign,
        snapshot,
        thread_of,
    )

    env = simcord_env
    bot = env.bot
    guild = env.create_guild("Club")
    anyone_may_organise(env, guild)
    channel = guild.create_text_channel("cup")
    org, alice, bob = (guild.add_member(env.create_user(n)) for n in ("org", "alice", "bob"))
    created = await org.slash(channel, "tournament-admin create", name="Cup", format="elimination")
    for player in (alice, bob):
        await player.click(created.response, label="Join")
    service = bot.tournament_service
    remember = service.set_match_message

    async def started_meanwhile(match, message_id):
        lobby = await bot.db.lobbies.get_for_channel(match.thread_id)
        await bot.lobbies.start(match.thread_id, lobby.host_id)  # the host's Start, as it lands
        await bot.bus.idle()  # the match hears of its game
        return await remember(match, message_id)

    monkeypatch.setattr(service, "set_match_message", started_meanwhile)
    await org.slash(channel, "tournament-admin start")
    monkeypatch.undo()
    await settle(env)
    (match,) = (await snapshot(bot, channel)).round_matches(1)
    record = game_in(bot, match)
    assert match.status == "playing" and match.game_id == record.id
    assert not match_message(channel, match).components  # no I'm here for a game begun
    await env.advance_time(SHOW_UP + 60)  # the show-up time passes: the game is on
    assert bot.games.find_in_channel(match.thread_id) is record
    loser = next(p for p in (alice, bob) if p.id == record.seats[0].user_id)
    await resign(thread_of(channel, match), [loser])
    await settle(env)
    snap = await snapshot(bot, channel)
    (decided,) = snap.round_matches(1)
    assert decided.status == "done" and decided.outcome == "win"
    assert snap.tournament.status == "finished"


@pytest.mark.parametrize("meanwhile", ["end", "start", "join"])
async def test_a_change_while_the_signup_message_is_posted_is_kept(
    simcord_env, monkeypatch, meanwhile
):
    """The organiser ends (or, with two entrants in, starts) the tournament, or a player joins
    it, in the moment between its sign-up message appearing and the bot remembering that
    message's id: remembering it must not open sign-up again, and the message shows it."""
    from bot.services.lobbies import Person
    from tests.helpers.tournament import anyone_may_organise, snapshot

    env = simcord_env
    bot = env.bot
    guild = env.create_guild("Club")
    anyone_may_organise(env, guild)
    channel = guild.create_text_channel("cup")
    org, ann, ben, cat = (
        guild.add_member(env.create_user(n)) for n in ("org", "ann", "ben", "cat")
    )
    service = bot.tournament_service
    tables = bot.get_cog("TournamentTables")
    remember = service.set_message

    async def acted_meanwhile(tournament, message_id):
        if meanwhile == "join":
            await service.join(tournament.id, Person(ann.id, ann.name), [])
            return await remember(tournament, message_id)
        if meanwhile == "end":
            progress = await service.end(tournament.id, org.id, False)
        else:
            for player in (ann, ben):
                await service.join(tournament.id, Person(player.id, player.name), [])
            progress = await service.start(tournament.id, org.id, False)
        await tables.publish(progress)
        return await remember(tournament, message_id)

    monkeypatch.setattr(service, "set_message", acted_meanwhile)
    created = await org.slash(channel, "tournament-admin create", name="Cup", format="swiss")
    monkeypatch.undo()
    await settle(env)
    tournament = (await snapshot(bot, channel)).tournament
    assert tournament.message_id == created.response.id
    shown = next(m for m in channel.history() if m.id == created.response.id)
    if meanwhile == "join":
        assert tournament.status == "signup" and shown.components
        assert "ann" in " ".join(field.value for field in shown.embeds[0].fields)
        return
    assert tournament.status == ("cancelled" if meanwhile == "end" else "running")
    assert not shown.components  # sign-up is closed: no Join
    if meanwhile == "end":
        again = await org.slash(channel, "tournament-admin create", name="Cup", format="swiss")
        assert not again.ephemeral, again.response.content
    else:
        assert tournament.round == 1
        late = await cat.slash(channel, "tournament join")
        assert late.ephemeral and "Sign-up is closed" in late.response.content
        again = await org.slash(channel, "tournament-admin start")
        assert again.ephemeral and "already started" in again.response.content
        assert len((await snapshot(bot, channel)).round_matches(1)) == 1


@pytest.mark.parametrize("step", ["drawn", "posted"])
async def test_a_move_while_the_board_command_answers_leaves_the_newest_board_in_charge(
    simcord_env, monkeypatch, step
):
    """A player asks for /sequence board and a move is made while that board is drawn (or
    posted): the move's board (the newest position) must keep its buttons and be the one
    remembered, and the board drawn before the move must not pass for the newest."""
    import sys

    import discord

    table = await make_table(simcord_env, ["alice", "bob"])
    alice, _bob = table.players
    record = await open_and_start(table)
    bot = table.bot
    info = sys.modules[type(bot.get_cog("Info")).__module__]
    slow = {
        "drawn": (info, "public_board_file"),
        "posted": (discord.Interaction, "original_response"),
    }
    owner, name = slow[step]
    step_itself = getattr(owner, name)

    async def moved_meanwhile(*args):
        done = await step_itself(*args)
        seat, card, space = playable(record.game)
        user = record.seats[seat].user_id
        await bot.games.play(record.id, user, card, space, expected_turn=record.game.turn_number)
        await bot.bus.idle()  # the move's board is posted
        return done

    monkeypatch.setattr(owner, name, moved_meanwhile)
    asked = await alice.slash(table.channel, "sequence board")
    monkeypatch.undo()
    await settle(simcord_env)
    stored = await bot.db.games.load(record.id)
    assert stored.board_move_count == len(record.game.moves) == 1
    live = [m for m in table.channel.history() if m.components]
    assert [m.id for m in live] == [stored.board_message_id], [m.content for m in live]
    assert "your turn" in live[0].content and live[0].id != asked.response.id
    drawn_before = next(m for m in table.channel.history() if m.id == asked.response.id)
    assert drawn_before.content.startswith("↪️") and "moved on" in drawn_before.content


async def test_an_undo_request_that_lapses_as_it_is_posted_keeps_no_buttons(
    simcord_env, monkeypatch
):
    """Bob moves in the moment between the host's undo request appearing and the bot
    remembering its message: the request lapses with nothing to edit yet, so its message must
    say so itself rather than keep "Waiting for" and buttons that can no longer undo."""
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, _ = table.players
    record = await open_and_start(table)
    bot = table.bot
    seat, card, space = playable(record.game)
    await bot.games.play(record.id, record.seats[seat].user_id, card, space, expected_turn=0)
    remember = bot.undo.set_message

    async def moved_meanwhile(game_id, state, message_id):
        seat, card, space = playable(record.game)
        await bot.games.play(record.id, record.seats[seat].user_id, card, space, expected_turn=1)
        return await remember(game_id, state, message_id)

    monkeypatch.setattr(bot.undo, "set_message", moved_meanwhile)
    ask = await alice.slash(table.channel, "sequence undo")
    monkeypatch.undo()
    await settle(simcord_env)
    assert "lapsed" in ask.response.content and not ask.response.components
    assert len(record.game.moves) == 2


async def test_a_reminder_due_as_the_player_moves_pings_nobody(simcord_env):
    """The turn's reminder falls due as the player on turn moves, and is saved just before the
    move. It then told the channel "⏰ @alice, it is still your turn …; waiting 0 s", with the
    next player's deadline, and DMed her "Reminder: it is your turn", after she had moved. Now
    a reminder whose turn has passed by the time it is told says nothing."""
    table = await make_table(simcord_env, ["alice", "bob"])
    for player in table.players:
        await player.slash(table.channel, "sequence-me notify", setting="on")
    record = await open_and_start(table, reminder="1h", time_limit="1d")
    bot = table.bot
    timer = await bot.db.timers.get(record.id, REMINDER)
    seat, card, space = playable(record.game)
    mover = seat_actor(table, record, seat)
    dm = mover.user.dm_channel
    dms = len(dm.history())
    reminded, played = await asyncio.gather(
        bot.turn_clock.fire(timer),
        bot.games.play(record.id, mover.id, card, space, expected_turn=record.game.turn_number),
        return_exceptions=True,
    )
    await settle(simcord_env)
    assert reminded is None and not isinstance(played, Exception)
    assert [m.kind for m in record.game.moves] == ["play"]
    assert [m.content for m in table.channel.history() if m.content.startswith("⏰")] == []
    assert [m.content for m in dm.history()[dms:] if "Reminder" in m.content] == []
    assert "your turn" in table.channel.last_message.content


@pytest.mark.parametrize("when", ["before its pairings", "as its first thread opens"])
async def test_the_organiser_ends_the_tournament_as_the_next_round_opens(
    simcord_env, monkeypatch, when
):
    """A second organiser's /tournament-admin end lands while the last result of round 1 is being
    shown (its round 2 already paired): the end voids round 2, yet the channel then showed
    round 2's pairings ("press I'm here there") below the final standings, and round 2's
    match threads opened empty. Now a voided round is not announced, no thread opens for a
    match that is off, and a thread that opened as the end landed says the match is off."""
    from tests.helpers.tournament import announced, snapshot, started_cup

    env = simcord_env
    bot = env.bot
    channel, (org, ann, *players) = await started_cup(
        env, ["org", "ann", "ben", "cat", "dan"], "swiss", organiser_plays=False
    )
    snap = await snapshot(bot, channel)
    first, second = snap.round_matches(1)
    await org.slash(channel, "tournament-admin report", match=first.id, winner=ann)
    service = bot.tournament_service
    tables = bot.get_cog("TournamentTables")
    step = "report" if when == "before its pairings" else "open_match"
    step_itself = getattr(service, step)

    async def end() -> None:
        await tables.publish(await service.end(snap.tournament.id, org.id, False))

    async def ended_meanwhile(*args):
        monkeypatch.undo()
        if step == "report":  # the result is saved and round 2 paired; then the end lands
            progress = await step_itself(*args)
            await end()
            return progress
        await end()  # the end lands as round 2's first thread opens
        return await step_itself(*args)

    monkeypatch.setattr(service, step, ended_meanwhile)
    winner = next(p for p in players if p.id in snap.entrants[second.entrant_a].user_ids)
    reported = await org.slash(channel, "tournament-admin report", match=second.id, winner=winner)
    monkeypatch.undo()
    await settle(env)
    assert announced(channel, reported), reported.response.content
    after = await snapshot(bot, channel)
    assert after.tournament.status == "finished"
    assert [m.status for m in after.round_matches(2)] == ["cancelled", "cancelled"]
    late = [t for t in channel.threads if " R2 " in t.name]
    if when == "before its pairings":  # the void round is not announced, nor opened
        assert not [m.content for m in channel.history() if "round 2**" in m.content]
        assert not [m for m in channel.history() if m.embeds and "round 1" in m.embeds[0].title]
        assert not late, [t.name for t in late]
    else:  # announced before the end: its one thread says so; the other never opens
        assert len(late) == 1, [t.name for t in late]
    for thread in late:
        assert "the tournament ended" in thread.last_message.content, thread.last_message.content
        assert not any(m.components for m in thread.history())


@pytest.mark.parametrize("command", ["start", "report"])
async def test_a_start_or_report_that_an_end_beat_is_told_the_tournament_ended(
    simcord_env, monkeypatch, command
):
    """Two organisers: one ends the tournament as the other's /tournament-admin start (or report)
    reaches it. The end wins; the start was told "This tournament has already started." of a
    tournament cancelled before it started, and the report "Match #1 is already decided." of
    a match the end called off. Each is now told the tournament ended, and nothing changes."""
    from tests.helpers.tournament import anyone_may_organise, snapshot

    env = simcord_env
    bot = env.bot
    guild = env.create_guild("Club")
    anyone_may_organise(env, guild)
    channel = guild.create_text_channel("cup")
    admins = guild.create_role("Admins", permissions=discord.Permissions(manage_guild=True))
    org = guild.add_member(env.create_user("org"))
    mod = guild.add_member(env.create_user("mod"), roles=[admins])
    ann, ben = (guild.add_member(env.create_user(n)) for n in ("ann", "ben"))
    created = await org.slash(channel, "tournament-admin create", name="Cup", format="swiss")
    for player in (ann, ben):
        await player.click(created.response, label="Join")
    if command == "report":
        await org.slash(channel, "tournament-admin start")
    service = bot.tournament_service
    tournament = (await snapshot(bot, channel)).tournament
    step_itself = getattr(service, command)

    async def ended_meanwhile(*args):
        monkeypatch.undo()
        await service.end(tournament.id, mod.id, True)  # the other organiser's end lands
        return await step_itself(*args)

    monkeypatch.setattr(service, command, ended_meanwhile)
    if command == "start":
        lost = await org.slash(channel, "tournament-admin start")
        told = "This tournament was cancelled before it started."
    else:
        (match,) = (await snapshot(bot, channel)).round_matches(1)
        lost = await org.slash(channel, "tournament-admin report", match=match.id, winner=ann)
        told = "This tournament is over."
    monkeypatch.undo()
    assert lost.ephemeral and lost.response.content == f"⚠️ {told}", lost.response.content
    after = await snapshot(bot, channel)
    assert after.tournament.status == ("cancelled" if command == "start" else "finished")
    assert all(m.status == "cancelled" for m in after.matches)
    assert len(channel.threads) == (0 if command == "start" else 1)  # no round opened


@pytest.mark.parametrize("first", ["correction", "last report"])
async def test_a_correction_and_the_rounds_last_report_together(simcord_env, first):
    """The organiser corrects round 1's first result as a second organiser reports its last
    one, which pairs round 2. Under the tournament's lock one order wins whole: corrected
    first, round 2 is paired from the corrected table; paired first, the correction is
    refused (round 2 was drawn from the result it would replace) and nothing changes."""
    from tests.helpers.tournament import match_of, pairings, snapshot, started_cup

    env = simcord_env
    channel, (org, ann, ben, cat, _) = await started_cup(
        env, ["org", "ann", "ben", "cat", "dan"], "swiss", organiser_plays=False
    )
    bot = env.bot
    service = bot.tournament_service
    tables = bot.get_cog("TournamentTables")
    snap = await snapshot(bot, channel)
    one, last = match_of(snap, 1, "ann"), match_of(snap, 1, "cat")
    await org.slash(channel, "tournament-admin report", match=one.id, winner=ann)
    tournament = snap.tournament.id
    calls = {
        "correction": lambda: service.report(tournament, org.id, False, one.id, ben.id),
        "last report": lambda: service.report(tournament, org.id, True, last.id, cat.id),
    }
    second = "last report" if first == "correction" else "correction"
    results = await asyncio.gather(calls[first](), calls[second](), return_exceptions=True)
    for result in results:
        if not isinstance(result, BaseException):
            await tables.publish(result)
    await settle(env)
    after = await snapshot(bot, channel)
    corrected = next(m for m in after.matches if m.id == one.id)
    if first == "correction":
        assert not any(isinstance(r, BaseException) for r in results), results
        assert after.name(corrected.winner) == "ben"
        assert pairings(after, 2) == [("ben", "cat"), ("ann", "dan")]
        assert any(m.content.startswith("✏️ Result corrected") for m in channel.history())
    else:
        lost = results[1]
        assert isinstance(lost, UserError), lost
        assert str(lost).startswith("Results cannot be changed once the next round is paired")
        assert after.name(corrected.winner) == "ann"
        assert pairings(after, 2) == [("ann", "cat"), ("ben", "dan")]
        assert not any(m.content.startswith("✏️") for m in channel.history())


async def test_a_change_the_games_last_move_beat_is_told_the_game_ended(simcord_env):
    """bob's resignation ends the game while alice's cancel, undo request, draw offer and
    resignation wait for the game: each of hers was told "There is no active game #1.", as
    if the game had never been. Now each is told it has ended, and nothing of hers is made."""
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    record = await open_and_start(table)
    bot = table.bot
    await play_one(table, record)  # a move to undo
    ended, *beaten = await asyncio.gather(
        bot.games.vote_resign(record.id, bob.id),  # alone on his team: the game is over
        bot.games.cancel(record.id),
        bot.undo.request(record.id, alice.id),
        bot.draws.offer(record.id, alice.id),
        bot.games.vote_resign(record.id, alice.id),
        return_exceptions=True,
    )
    await settle(simcord_env)
    assert not isinstance(ended, Exception) and ended.outcome.finished
    assert [str(lost) for lost in beaten] == [f"Game #{record.id} has ended."] * 4
    assert all(isinstance(lost, UserError) for lost in beaten)
    stored = await bot.db.games.load(record.id)
    assert stored.status == "finished" and stored.game.moves == record.game.moves
    alice_seat = next(i for i, seat in enumerate(record.seats) if seat.user_id == alice.id)
    assert stored.game.winner == record.game.team_of(alice_seat)
