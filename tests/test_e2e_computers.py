"""Computer players at a Discord table: they wait a configurable pause, then move like anyone;
and hints, only in unrated practice games."""

from __future__ import annotations

import asyncio
import threading

import pytest

from bot.config import Settings
from bot.game import card_label, space_name
from bot.game.board import CARD_SPACES
from bot.game.cards import is_jack
from bot.game.moves import DRAW, Move
from bot.services.events import DrawOffered, MoveUndone
from bot.services.undo import open_request

from .conftest import make_settings
from .e2e_driver import make_move
from .e2e_helpers import (
    against_a_computer,
    make_table,
    open_and_start,
    play_one,
    seat_actor,
    settle,
)

PAUSE = 30.0  # longer than SimCord's settle window (5 s), which runs shorter sleeps at once


@pytest.fixture
def bot_settings(tmp_path) -> Settings:
    return make_settings(tmp_path, computer_move_delay=PAUSE)


async def test_a_computer_moves_after_its_pause_and_posts_like_a_player(simcord_env):
    table, record = await against_a_computer(simcord_env, "medium", seed=3)
    (alice,) = table.players
    assert record.seats[record.game.turn].bot_level == "medium"
    assert "is thinking" in table.channel.last_message.content
    await simcord_env.advance_time(PAUSE - 1)
    assert record.game.moves == []
    await simcord_env.advance_time(2)
    assert len(record.game.moves) == 1 and record.game.moves[0].kind == "play"
    board = table.channel.last_message
    assert "played" in board.embeds[0].description and f"<@{alice.id}>" in board.content


async def test_a_computer_takes_its_manual_draw_at_once(simcord_env):
    """Manual draw: a computer draws right after its play, not after another pause, in which
    the next player could move and draw first and so take its draw away for good."""
    table, record = await against_a_computer(simcord_env, "medium", seed=3, manual_draw=True)
    computer = record.game.turn
    await simcord_env.advance_time(PAUSE + 1)
    record = table.game()
    assert [(m.kind, m.seat) for m in record.game.moves] == [("play", computer), ("draw", computer)]
    assert computer not in record.game.owed_draws and len(record.game.hands[computer]) == 7
    await play_one(table, record)  # alice is quick: she plays and draws within the pause
    await make_move(table, record, 0, Move(DRAW, 0))
    await simcord_env.advance_time(PAUSE + 1)
    assert len(table.game().game.hands[computer]) == 7


async def test_hints_only_in_practice_games(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    lobby = (await alice.slash(table.channel, "sequence new", hints=True)).response
    await bob.click(lobby, label="Join")
    table.bot.lobbies.new_seed = lambda: 1
    await alice.click(lobby, label="Start")
    record = table.game()
    assert record.options.rated is False
    mover = alice if record.seats[record.game.turn].user_id == alice.id else bob
    waiting = bob if mover is alice else alice
    hint = await mover.slash(table.channel, "sequence hint")
    assert hint.ephemeral and hint.response.content.startswith("💡")
    # answered at once ("thinking…", type 5): the think may outlast Discord's 3 s
    answer = [r for r in simcord_env.http_requests if str(r.path).endswith("/callback")][-1]
    assert answer.json["type"] == 5
    assert record.game.moves == []  # a hint plays nothing
    early = await waiting.slash(table.channel, "sequence hint")
    assert early.ephemeral and "not your turn" in early.response.content


async def test_a_convoy_hint_to_turn_in_a_dead_card_says_it_is_the_whole_turn(simcord_env):
    """In convoy a dead card turned in is the whole turn: the hint said "first", as if the
    player could then play on, as in the classic game."""
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table, preset="convoy", hints=True)
    game = record.game
    seat = game.turn
    hand = game.hands[seat]
    for i, card in enumerate(hand):  # no jack: every card of the hand is dead
        if is_jack(card):
            spare = next(c for c in game.deck if not is_jack(c))
            game.deck[game.deck.index(spare)], hand[i] = card, spare
    for card in hand:
        for space in CARD_SPACES[card]:
            game.chips[space] = 1 - game.team_of(seat)
    hint = await seat_actor(table, record, seat).slash(table.channel, "sequence hint")
    assert hint.ephemeral and "Turn in the dead" in hint.response.content
    assert "first" not in hint.response.content
    assert "that is your whole turn" in hint.response.content


async def test_no_hints_in_rated_games(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    lobby = (await alice.slash(table.channel, "sequence new")).response
    await bob.click(lobby, label="Join")
    await alice.click(lobby, label="Start")
    refused = await alice.slash(table.channel, "sequence hint")
    assert refused.ephemeral and "Hints are off" in refused.response.content


async def mixed_table(simcord_env):
    """alice (host) and a computer against bob and a computer; play until a computer of bob's
    team is to move, right after a move of alice's team."""
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    lobby = (await alice.slash(table.channel, "sequence new")).response
    await bob.click(lobby, label="Join")
    await alice.slash(table.channel, "sequence addbot", level="medium", team=0)
    await alice.slash(table.channel, "sequence addbot", level="medium", team=1)
    table.bot.lobbies.new_seed = lambda: 1
    await alice.click(lobby, label="Start")
    record = table.game()
    game = record.game
    while not (record.seats[game.turn].is_computer and game.team_of(game.turn) == 1 and game.moves):
        if record.seats[game.turn].is_computer:
            await simcord_env.advance_time(PAUSE + 1)
        else:
            await play_one(table, record)
        record = table.game()
        game = record.game
    return table, record


async def test_a_computer_waits_for_its_teammate_to_answer_an_undo(simcord_env):
    """The host asks to undo while a computer of the deciding team is to move: the computer
    waits for the answer instead of moving on, which would lapse the request."""
    table, record = await mixed_table(simcord_env)
    alice, bob = table.players
    count = len(record.game.moves)
    ask = await alice.slash(table.channel, "sequence undo")
    assert "Waiting for" in ask.response.content
    await simcord_env.advance_time(10 * PAUSE)
    assert len(table.game().game.moves) == count
    refused = await bob.click(ask.response, label="Refuse")
    assert refused.acknowledged and "refused" in ask.response.content
    await simcord_env.advance_time(PAUSE + 1)
    assert len(table.game().game.moves) == count + 1  # answered: the computer moves on
    record = table.game()
    moves = record.game.moves
    last = max(i for i, move in enumerate(moves) if not record.seats[move.seat].is_computer)
    ask = await alice.slash(table.channel, "sequence undo")  # the computer's move, and more
    await simcord_env.advance_time(10 * PAUSE)
    agreed = await bob.click(ask.response, label="Agree")
    assert agreed.acknowledged and "Undone" in ask.response.content
    # the last move of a person went, with the computer moves after it: a person's turn
    record = table.game()
    assert record.game.moves == moves[:last]
    assert not record.seats[record.game.turn].is_computer
    await simcord_env.advance_time(10 * PAUSE)
    assert len(table.game().game.moves) == last


async def test_an_undo_request_nobody_saw_holds_no_computer(simcord_env):
    """Discord refuses the request's message: nobody can answer it, so it is withdrawn and the
    computer to move does not wait for it."""
    table, record = await mixed_table(simcord_env)
    alice, _ = table.players
    count = len(record.game.moves)
    simcord_env.inject_error("POST", "/interactions/*/callback", status=500)
    await alice.slash(table.channel, "sequence undo")
    assert len(simcord_env.errors) == 1  # the refused answer, logged by the error handler
    assert open_request(table.game()) is None
    await simcord_env.advance_time(PAUSE + 1)
    assert len(table.game().game.moves) == count + 1


async def test_a_computer_waits_for_an_answer_to_a_draw_offer(simcord_env):
    table, record = await mixed_table(simcord_env)
    alice, bob = table.players
    count = len(record.game.moves)
    offer = await alice.slash(table.channel, "sequence draw")
    assert not offer.ephemeral and "Accept the draw" in str(offer.response.components)
    await simcord_env.advance_time(10 * PAUSE)
    assert len(table.game().game.moves) == count  # bob may still answer
    declined = await bob.click(offer.response, label="Decline")
    assert declined.acknowledged
    await simcord_env.advance_time(PAUSE + 1)
    assert len(table.game().game.moves) == count + 1  # answered: the computer moves on


async def test_a_player_out_of_the_game_is_not_promised_a_hint_on_their_turn(simcord_env):
    """A player removed for running out of time has no more turns: /sequence hint told them
    "a hint waits until it is" their turn, which never comes."""
    table = await make_table(simcord_env, ["alice", "bob", "carol", "dave"])
    record = await open_and_start(table, hints=True, time_limit="1h", on_timeout="remove")
    seat = record.game.turn
    removed = seat_actor(table, record, seat)
    await simcord_env.advance_time(3600 + 1)
    assert record.game.out[seat] and not record.game.is_over()
    refused = await removed.slash(table.channel, "sequence hint")
    assert refused.ephemeral and "no longer playing" in refused.response.content
    assert "waits" not in refused.response.content


async def test_a_draw_offer_made_while_a_computer_thinks_waits_for_the_answer(
    simcord_env, monkeypatch
):
    """alice offers a draw while the computer to move is already thinking (its pause over):
    its move, made once the offer was open, lapsed the offer at once, before bob could
    answer. The computer now waits for the answer, as it does when the offer comes first."""
    import bot.services.computers as computers

    table, record = await mixed_table(simcord_env)
    alice, bob = table.players
    count, seat = len(record.game.moves), record.game.turn
    offered, thinking = threading.Event(), threading.Event()
    think = computers.choose_move

    def slow(view, *args, **kwargs):  # the think ends once the offer is open
        thinking.set()
        assert offered.wait(10)
        return think(view, *args, **kwargs)

    async def on_offer(event: DrawOffered) -> None:
        offered.set()

    monkeypatch.setattr(computers, "choose_move", slow)
    table.bot.bus.subscribe(DrawOffered, on_offer)
    # its pause over, the computer thinks (as the scheduled move does), and alice offers
    move = asyncio.ensure_future(table.bot.computers.move_for(record.id, seat, hold=True))
    while not thinking.is_set():
        await asyncio.sleep(0.01)
    offer, moved = await asyncio.gather(alice.slash(table.channel, "sequence draw"), move)
    assert not moved and len(table.game().game.moves) == count
    assert "lapsed" not in offer.response.content
    declined = await bob.click(offer.response, label="Decline")
    assert declined.acknowledged and "declined" in offer.response.content
    await simcord_env.advance_time(PAUSE + 1)
    assert len(table.game().game.moves) == count + 1  # answered: the computer moves on


async def alone_with_computers(simcord_env, on: tuple[int | None, ...], **options):
    """alice, the only person, opens a lobby with ``options`` and seats a computer on each
    team of ``on`` (None: the team the lobby chooses); the table and the game's record."""
    table = await make_table(simcord_env, ["alice"])
    (alice,) = table.players
    lobby = (await alice.slash(table.channel, "sequence new", **options)).response
    for team in on:
        chosen = {} if team is None else {"team": team}
        await alice.slash(table.channel, "sequence addbot", level="easy", **chosen)
    table.bot.lobbies.new_seed = lambda: 1
    await alice.click(lobby, label="Start")
    return table, table.game()


@pytest.mark.parametrize("how", ["time", "ban", "resign"])
async def test_a_game_with_no_person_left_stops(simcord_env, how):
    """The last person playing leaves (removed for time, banned, or their team resigned in a
    three-team game) while computers still play: the computers played the game out with
    nobody watching. Now the change that leaves no person playing also cancels the game: no
    result, one final board that says why, no timers, and no computer moves on."""
    if how == "resign":  # three players, each their own team
        table, record = await alone_with_computers(simcord_env, (None, None), teams=3)
        headline = "🔵 Blue resigned."
    else:  # alice and a computer against two computers
        options = {"time_limit": "1h", "on_timeout": "remove"} if how == "time" else {}
        table, record = await alone_with_computers(simcord_env, (0, 1, 1), **options)
        headline = "**alice** left the game."
    (alice,) = table.players
    bot = table.bot
    if how == "time":
        while record.seats[record.game.turn].is_computer:
            await simcord_env.advance_time(PAUSE + 1)
        await simcord_env.advance_time(3600 + 1)
    elif how == "ban":
        simcord_env.backend.apply_ban(table.guild.id, alice.id, "spam")
        await settle(simcord_env)
    else:
        resigned = await alice.slash(table.channel, "sequence resign")
        assert "resigns" in resigned.response.content
    await settle(simcord_env)
    stopped = f"🛑 Game #{record.id} stopped: no person is left at the table."
    board = table.channel.last_message
    assert board.content == stopped and not board.components
    assert board.embeds[0].description == headline
    texts = [m.content for m in table.channel.history()]
    assert sum(stopped in text for text in texts) == 1
    assert not any(m.components for m in table.channel.history() if m.embeds)
    stored = await bot.db.games.load(record.id)
    assert stored.status == "cancelled" and not stored.game.is_over()
    assert await bot.db.results.get(record.id) is None
    assert await bot.db.timers.of_game(record.id) == []
    assert bot.games.find_in_channel(table.channel.id) is None
    count, moves = len(texts), len(stored.game.moves)
    await simcord_env.advance_time(10 * PAUSE)
    assert len(table.channel.history()) == count
    assert len((await bot.db.games.load(record.id)).game.moves) == moves


async def test_an_undo_against_a_computer_takes_back_its_reply_too(simcord_env):
    """alice plays, the computer replies, alice asks to undo: the computer's reply was taken
    back, it played the same again at once, and nothing said which move went. Now her move
    and the reply both go (the log keeps them, marked undone), the message and the next board
    name them, and it is her turn: the computer waits for her move."""
    table, record = await against_a_computer(simcord_env, "medium", seed=1)
    (alice,) = table.players
    bot = table.bot
    computer = record.seats[1].name
    await play_one(table, record)
    await simcord_env.advance_time(PAUSE + 1)
    mine, reply = table.game().game.moves
    assert mine.seat == 0 and reply.seat == 1
    undone = await alice.slash(table.channel, "sequence undo")
    named = f"**alice**'s {card_label(mine.card)} on **{space_name(mine.space)}**"
    named += f", and **{computer}**'s reply"
    assert undone.response.content == (
        f"↩️ **Undone:** {named}. The move log keeps them, marked undone."
    )
    assert table.channel.last_message.embeds[0].description == f"↩️ Undone: {named}."
    assert f"<@{alice.id}>, your turn" in table.channel.last_message.content
    record = table.game()
    assert record.game.moves == [] and record.game.turn == 0
    log = await bot.db.games.log(record.id)
    assert [(e.move, e.undone_at is not None) for e in log] == [(mine, True), (reply, True)]
    assert (await bot.db.games.load(record.id)).game.moves == []
    await simcord_env.advance_time(10 * PAUSE)
    assert table.game().game.moves == []  # her turn: the computer does not move
    await play_one(table, table.game())
    await simcord_env.advance_time(PAUSE + 1)
    assert len(table.game().game.moves) == 2


async def test_no_undo_before_a_person_has_moved(simcord_env):
    """The computer moved first: there is no move of a person to take back, and nothing is."""
    table, record = await against_a_computer(simcord_env, "medium", seed=3)
    (alice,) = table.players
    await simcord_env.advance_time(PAUSE + 1)
    assert len(record.game.moves) == 1
    refused = await alice.slash(table.channel, "sequence undo")
    assert refused.ephemeral and "No person has moved yet" in refused.response.content
    assert len(table.game().game.moves) == 1


@pytest.mark.parametrize("first", ["undo", "computer"])
async def test_an_undo_and_a_computer_move_in_flight_together(simcord_env, monkeypatch, first):
    """The host asks to undo her move while the computer's reply is being made. Whichever
    commits first, her move is taken back, no reply stands, it is her turn, and the message
    names exactly what went (her move alone when the undo came first: the reply, made for a
    turn that is gone, is dropped)."""
    import bot.services.computers as computers

    table, record = await against_a_computer(simcord_env, "medium", seed=1)
    (alice,) = table.players
    bot = table.bot
    await play_one(table, record)
    computer = record.game.turn
    asked, undone = asyncio.Event(), threading.Event()
    loop = asyncio.get_running_loop()
    if first == "undo":  # the computer thinks until the undo is committed
        think = computers.choose_move

        def slow(view, *args, **kwargs):
            assert undone.wait(10)
            return think(view, *args, **kwargs)

        async def on_undo(event: MoveUndone) -> None:
            undone.set()

        monkeypatch.setattr(computers, "choose_move", slow)
        bot.bus.subscribe(MoveUndone, on_undo)
    else:  # the computer's move is being saved when the undo is asked: the undo waits
        append, request = bot.db.games.append_moves, bot.undo.request

        async def saving(*args, **kwargs):
            await asyncio.wait_for(asked.wait(), 10)
            return await append(*args, **kwargs)

        async def asking(*args, **kwargs):
            loop.call_soon(asked.set)
            return await request(*args, **kwargs)

        monkeypatch.setattr(bot.db.games, "append_moves", saving)
        monkeypatch.setattr(bot.undo, "request", asking)
    move = asyncio.ensure_future(bot.computers.move_for(record.id, computer, hold=True))
    if first == "computer":
        while not move.done() and len(bot.games.locks) == 0:
            await asyncio.sleep(0.01)
    asked_undo, moved = await asyncio.gather(alice.slash(table.channel, "sequence undo"), move)
    await settle(simcord_env)
    record = table.game()
    assert record.game.moves == [] and record.game.turn == 0
    assert moved is (first == "computer")
    log = await bot.db.games.log(record.id)
    assert all(e.undone_at is not None for e in log)
    assert len(log) == (1 if first == "undo" else 2)
    reply = f", and **{record.seats[computer].name}**'s reply"
    assert (reply in asked_undo.response.content) is (first == "computer")
    assert "**Undone:** **alice**'s" in asked_undo.response.content
    await simcord_env.advance_time(10 * PAUSE)
    assert table.game().game.moves == []
