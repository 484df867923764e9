"""Playing turns through Discord: the private hand panel, jacks, dead cards, the choice of
five, bad input, privacy, Discord errors and restarts."""

from __future__ import annotations

import pytest
import simcord

from bot.app import create_bot
from bot.config import Settings
from bot.game import player_view, space_name
from bot.game.board import CARD_SPACES, parse_space
from bot.game.cards import is_jack
from bot.game.moves import Move
from cogs.common.table import seat_names
from cogs.hand.panel import hand_line
from render.board import render_hand

from .e2e_driver import components, find_component, open_hand
from .e2e_helpers import make_table, open_and_start, seat_actor
from .engine_helpers import normal_play


@pytest.fixture
def bot_settings(settings_on_each_backend: Settings) -> Settings:
    """Every test here runs twice: on SQLite and on PostgreSQL (conftest's store backends)."""
    return settings_on_each_backend


def normal_playable(game, seat):
    """A non-jack card of ``seat`` with an open space."""
    return normal_play(game, seat)[0]


def hand_with(seed_range, players, wanted):
    """The first seed whose first player is dealt a card satisfying ``wanted``."""
    from bot.game import Game, GameSettings

    for seed in seed_range:
        game = Game.new(GameSettings.create(players), seed)
        if any(wanted(card) for card in game.hands[game.turn]):
            return seed
    raise AssertionError("no such seed")


async def two_player_game(env, seed=1):
    table = await make_table(env, ["alice", "bob"])
    record = await open_and_start(table, seed=seed)
    return table, record


async def test_play_through_the_panel_buttons(simcord_env):
    table, record = await two_player_game(simcord_env)
    game = record.game
    seat = game.turn
    mover = seat_actor(table, record, seat)
    board = table.channel.last_message
    opened = await mover.click(board, label="Your hand")
    assert opened.ephemeral
    panel = opened.response
    assert panel.attachments[0].filename == "hand.png"
    card = normal_playable(game, seat)
    select_id = find_component(panel, f"seq:card:{record.id}:")["custom_id"]
    await mover.select(panel, [card], custom_id=select_id)
    targets = game.targets(seat, card)
    buttons = [c["label"] for c in components(panel) if c.get("custom_id", "").startswith("seq:go")]
    assert buttons == [f"Play on {space_name(s)}" for s in targets]
    await mover.click(panel, label=f"Play on {space_name(targets[0])}")
    assert record.game.chips[targets[0]] == record.game.team_of(seat)
    assert record.game.turn != seat
    assert "Done" in panel.content
    new_board = table.channel.last_message
    assert new_board.id != board.id and "your turn" in new_board.content


async def test_two_eyed_jack_row_then_space_then_confirm(simcord_env):
    seed = hand_with(range(200), 2, lambda c: c in ("JD", "JC"))
    table, record = await two_player_game(simcord_env, seed)
    game = record.game
    seat = game.turn
    mover = seat_actor(table, record, seat)
    jack = next(c for c in game.hands[seat] if c in ("JD", "JC"))
    panel = await open_hand(table, mover)
    await mover.select(panel, [jack], custom_id=find_component(panel, "seq:card:")["custom_id"])
    row_select = find_component(panel, "seq:row:")
    assert len(row_select["options"]) == 10  # every row has open spaces on an empty board
    await mover.select(panel, ["4"], custom_id=row_select["custom_id"])
    space_select = find_component(panel, "seq:space:")
    offered = [int(o["value"]) for o in space_select["options"]]
    assert offered == list(range(40, 50))  # row 5: every space is open on the first move
    await mover.select(panel, ["44"], custom_id=space_select["custom_id"])
    assert "Confirm" in panel.content
    await mover.click(panel, custom_id=find_component(panel, "seq:go:")["custom_id"])
    assert record.game.chips[44] == record.game.team_of(seat)
    assert record.game.discards[seat][-1] == jack


async def test_one_eyed_jack_removes_an_opponent_chip_and_places_nothing(simcord_env):
    seed = hand_with(range(400), 2, lambda c: c in ("JH", "JS"))
    table, record = await two_player_game(simcord_env, seed)
    game = record.game
    first = game.turn
    jacker = seat_actor(table, record, first)
    # the first player plays a normal card, then the opponent does, then the first removes it
    other = 1 - first
    await jacker.slash(
        table.channel,
        "sequence play",
        card=(c := normal_playable(game, first)),
        space=space_name(game.targets(first, c)[0]),
    )
    opponent = seat_actor(table, record, other)
    card = normal_playable(game, other)
    target = game.targets(other, card)[0]
    await opponent.slash(table.channel, "sequence play", card=card, space=space_name(target))
    game = record.game
    jack = next(c for c in game.hands[first] if c in ("JH", "JS"))
    chips_before = sum(1 for c in game.chips if c >= 0)
    panel = await open_hand(table, jacker)
    await jacker.select(panel, [jack], custom_id=find_component(panel, "seq:card:")["custom_id"])
    await jacker.select(
        panel, [str(target // 10)], custom_id=find_component(panel, "seq:row:")["custom_id"]
    )
    space_select = find_component(panel, "seq:space:")
    assert str(target) in [o["value"] for o in space_select["options"]]
    await jacker.select(panel, [str(target)], custom_id=space_select["custom_id"])
    await jacker.click(panel, custom_id=find_component(panel, "seq:go:")["custom_id"])
    assert record.game.chips[target] == -1
    assert sum(1 for c in record.game.chips if c >= 0) == chips_before - 1
    assert "removed the chip" in table.channel.last_message.embeds[0].description


async def test_a_one_eyed_jack_with_nothing_to_remove_is_not_called_dead(simcord_env):
    seed = hand_with(range(400), 2, lambda c: c in ("JH", "JS"))
    table, record = await two_player_game(simcord_env, seed)
    game = record.game
    seat = game.turn
    mover = seat_actor(table, record, seat)
    jack = next(c for c in game.hands[seat] if c in ("JH", "JS"))
    assert game.targets(seat, jack) == []  # the first move: no chip on the board yet
    panel = await open_hand(table, mover)
    options = find_component(panel, "seq:card:")["options"]
    hint = next(o["description"] for o in options if o["value"] == jack)
    assert hint == "One-eyed jack: no opponent chip to remove now"
    await mover.select(panel, [jack], custom_id=find_component(panel, "seq:card:")["custom_id"])
    assert "cannot be played now: there is no opponent chip it may remove" in panel.content
    assert "dead" not in panel.content
    ids = [c.get("custom_id", "") for c in components(panel)]
    assert not any(i.startswith(("seq:dead", "seq:go")) for i in ids), ids
    assert find_component(panel, "seq:card:")  # another card can still be chosen


async def test_a_locked_chip_cannot_be_removed(simcord_env):
    seed = hand_with(range(400), 2, lambda c: c in ("JH", "JS"))
    table, record = await two_player_game(simcord_env, seed)
    game = record.game
    seat = game.turn
    opponent = 1 - game.team_of(seat)
    # Arrange: the opponent completed a sequence on row 5 (B5-F5); its chips are locked.
    window = (41, 42, 43, 44, 45)
    for space in window:
        game.chips[space] = opponent
    game._lock(opponent, window)
    jack = next(c for c in game.hands[seat] if c in ("JH", "JS"))
    before = game.to_dict()
    result = await seat_actor(table, record, seat).slash(
        table.channel, "sequence play", card=jack, space="C5"
    )
    assert result.ephemeral and "locked" in result.response.content
    assert game.to_dict() == before


async def test_dead_card_turned_in_then_the_turn_goes_on(simcord_env):
    table, record = await two_player_game(simcord_env)
    game = record.game
    seat = game.turn
    mover = seat_actor(table, record, seat)
    dead = next(c for c in game.hands[seat] if not is_jack(c) and game.hands[seat].count(c) == 1)
    # Arrange: the opponent's chips already cover both spaces of that card.
    for space in CARD_SPACES[dead]:
        game.chips[space] = 1 - game.team_of(seat)
    hand_size = len(game.hands[seat])
    first_board = table.channel.last_message
    panel = await open_hand(table, mover)
    await mover.select(panel, [dead], custom_id=find_component(panel, "seq:card:")["custom_id"])
    assert "is dead" in panel.content
    await mover.click(panel, custom_id=find_component(panel, "seq:dead:")["custom_id"])
    assert dead not in record.game.hands[seat] and len(record.game.hands[seat]) == hand_size
    # The exchange leaves a trace at the table, like any move: a board saying what happened,
    # and the board it replaces reads in the past tense, without buttons.
    board = table.channel.last_message
    assert board.id != first_board.id
    assert "turned in the dead card" in board.embeds[0].description
    assert board.attachments[0].filename == "board.png"
    retired = next(m for m in table.channel.history() if m.id == first_board.id)
    assert "Then:" in retired.content and "turned in the dead card" in retired.content
    assert not retired.components
    assert record.game.turn == seat and record.game.dead_card_used  # still this player's turn
    assert "carry on" in panel.content
    # the panel's picture of the hand is the hand now: the replacement, not the dead card
    shown = await panel.attachments[0].read()
    assert shown == render_hand(player_view(record.game, seat), seat_names(record))
    # Seed 1 deals the mover another card that is live: the turn has a move to go on with.
    second = next((c for c in game.hands[seat] if not is_jack(c) and c != dead), None)
    assert second is not None and not game.is_dead(second)
    again = await mover.slash(table.channel, "sequence play", card="XX", space="A1")
    assert again.ephemeral and "is not a card" in again.response.content


async def test_a_line_of_six_lets_the_mover_choose_the_five(simcord_env):
    table, record = await two_player_game(simcord_env)
    game = record.game
    seat = game.turn
    team = game.team_of(seat)
    mover = seat_actor(table, record, seat)
    card = normal_playable(game, seat)
    target = game.targets(seat, card)[0]
    row, col = divmod(target, 10)
    # Arrange: the mover's chips around the target in its row, so the play makes six.
    start = max(0, min(col - 2, 4))
    window = [row * 10 + c for c in range(start, start + 6)]
    assert target in window
    for space in window:
        if space != target and space not in (0, 9, 90, 99):
            game.chips[space] = team
    result = await mover.slash(table.channel, "sequence play", card=card, space=space_name(target))
    fives = [
        c for c in components(result.response) if c.get("custom_id", "").startswith("seq:five")
    ]
    assert len(fives) >= 2 and "choose which five" in result.response.content
    chosen = fives[-1]
    await mover.click(result.response, custom_id=chosen["custom_id"])
    assert len(record.game.sequences) == 1
    first, last = chosen["label"].split("–")
    assert record.game.sequences[0][1][0] == parse_space(first)
    assert record.game.sequences[0][1][-1] == parse_space(last)
    assert "Sequence!" in table.channel.last_message.embeds[0].description


async def test_more_ways_to_choose_the_five_than_one_panel_holds(simcord_env):
    """A chip at the crossing of three lines of six of the mover's chips can complete its three
    sequences in 27 ways (3 fives in each line): a message holds 25 buttons, so the panel could
    not be drawn and the player got "Something went wrong" for a legal move. The ways come a
    page at a time, and every one of them can be chosen."""
    table, record = await two_player_game(simcord_env)
    game = record.game
    seat, target = game.turn, parse_space("E5")  # three spaces free on every side
    team = game.team_of(seat)
    mover = seat_actor(table, record, seat)
    card = next(card for card, spaces in CARD_SPACES.items() if target in spaces)
    game.hands[seat][0] = card
    for step in (1, 10, 9):  # the row, the column and a diagonal (off the corners)
        for distance in (1, 2, 3):
            game.chips[target - distance * step] = game.chips[target + distance * step] = team
    options = game.sequence_options(Move.play(seat, card, target))
    assert len(options) == 27
    result = await mover.slash(table.channel, "sequence play", card=card, space="E5")
    panel = result.response
    assert result.ephemeral and "choose which five" in panel.content, panel.content
    offered: dict[str, str] = {}
    for _ in range(len(options)):
        shown = components(panel)
        assert len(shown) <= 25
        offered |= {
            c["custom_id"]: c["label"] for c in shown if c["custom_id"].startswith("seq:five")
        }
        more = next(c for c in shown if c["label"].startswith("More"))
        if len(offered) == len(options):
            break
        await mover.click(panel, custom_id=more["custom_id"])
    assert len(offered) == len(options)  # every way is on offer, a page at a time
    last = max(offered, key=lambda custom_id: int(custom_id.rsplit(":", 1)[1]))
    await mover.click(panel, custom_id=last)
    assert [five for _, five in record.game.sequences] == list(options[-1])
    assert record.game.winner == team  # two sequences win, and the move made three


async def test_bad_input_is_answered_privately_and_changes_nothing(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob", "outsider"])
    alice, bob, outsider = table.players
    record = await open_and_start(
        table.__class__(simcord_env, table.guild, table.channel, [alice, bob])
    )
    game = record.game
    mover = seat_actor(table, record, game.turn)
    waiting = bob if mover is alice else alice
    before = game.to_dict()

    async def refused(actor, text, **options):
        result = await actor.slash(table.channel, "sequence play", **options)
        assert result.ephemeral, result.response.content
        assert text in result.response.content, result.response.content
        assert record.game.to_dict() == before

    card = normal_playable(game, game.turn)
    space = space_name(game.targets(game.turn, card)[0])
    other_card = normal_playable(game, 1 - game.turn)
    await refused(
        waiting,
        "not your turn",
        card=other_card,
        space=space_name(game.targets(1 - game.turn, other_card)[0]),
    )
    await refused(outsider, "not playing in this game", card=card, space=space)
    missing = next(
        c for c in ("2S", "3S", "4S", "5S", "6S", "7S") if c not in game.hands[game.turn]
    )
    await refused(mover, "You do not hold", card=missing, space="B1")
    await refused(mover, "is not a space", card=card, space="K11")
    await refused(
        mover, "free corner", card="JD" if "JD" in game.hands[game.turn] else card, space="A1"
    )
    wrong = next(s for s in range(100) if s not in CARD_SPACES[card] and s not in (0, 9, 90, 99))
    await refused(mover, "is played on", card=card, space=space_name(wrong))
    # a covered space, then a locked chip
    await mover.slash(table.channel, "sequence play", card=card, space=space)
    game = record.game
    covered = parse_space(space)
    theirs = normal_playable(game, game.turn)
    before = game.to_dict()
    second_mover = seat_actor(table, record, game.turn)
    if covered in CARD_SPACES.get(theirs, ()):
        await refused(second_mover, "already covered", card=theirs, space=space)
    hand = await outsider.slash(table.channel, "sequence hand")
    assert hand.ephemeral and "not playing" in hand.response.content
    nothing = await outsider.slash(table.channel, "sequence status")
    assert nothing.ephemeral and "Game #" in nothing.response.content  # status is public info


async def test_unknown_game_and_stale_and_double_clicks(simcord_env):
    table, record = await two_player_game(simcord_env)
    game = record.game
    seat = game.turn
    mover = seat_actor(table, record, seat)
    first_panel = await open_hand(table, mover)
    second_panel = await open_hand(table, mover)  # the same player opened their hand twice
    card = normal_playable(game, seat)
    for panel in (first_panel, second_panel):
        await mover.select(panel, [card], custom_id=find_component(panel, "seq:card:")["custom_id"])
    go = find_component(first_panel, "seq:go:")["custom_id"]
    await mover.click(first_panel, custom_id=go)
    moves = len(game.moves)
    stale = await mover.click(
        second_panel, custom_id=find_component(second_panel, "seq:go:")["custom_id"]
    )
    assert stale.acknowledged
    assert "earlier turn" in second_panel.content
    assert len(game.moves) == moves  # the double click changed nothing
    # a board whose game has ended, and Discord refused the edit that takes its buttons away:
    # they answer clearly
    old_board = table.channel.last_message
    simcord_env.inject_error(
        "PATCH", f"/channels/{table.channel.id}/messages/{old_board.id}", status=403, code=50013
    )
    await mover.slash(table.channel, "sequence cancel")
    gone = await mover.click(old_board, label="Your hand")
    assert gone.ephemeral and f"Game #{record.id} has ended." in gone.response.content


async def test_a_panel_drawn_before_an_undo_is_out_of_date_after_it(simcord_env):
    """The first player moves; the second opens their hand and chooses a card (its "Play on"
    buttons); the move is taken back (alice hosts and asks, the other team agrees) and the first
    player moves again, elsewhere. The turn number (and the move count) are what they were when
    the panel was drawn, but the position is not: the old button plays nothing, and the panel
    is redrawn as out of date (before, it played on the new position: "✅ Done.")."""
    table, record = await two_player_game(simcord_env)
    alice = table.players[0]
    first = record.game.turn
    second = 1 - first
    mover, waiter = seat_actor(table, record, first), seat_actor(table, record, second)
    card = normal_playable(record.game, first)
    space = record.game.targets(first, card)[0]
    await mover.slash(table.channel, "sequence play", card=card, space=space_name(space))
    old = await open_hand(table, waiter)
    theirs = normal_playable(record.game, second)
    await waiter.select(old, [theirs], custom_id=find_component(old, "seq:card:")["custom_id"])
    go = find_component(old, "seq:go:")["custom_id"]
    ask = await alice.slash(table.channel, "sequence undo")
    agreeing = waiter if alice is mover else mover
    await agreeing.click(ask.response, label="Agree")
    record = table.game()
    assert record.game.moves == []
    other = next(
        (c, t)
        for c in record.game.hands[first]
        if not is_jack(c)
        for t in record.game.targets(first, c)
        if (c, t) != (card, space)
    )
    await mover.slash(table.channel, "sequence play", card=other[0], space=space_name(other[1]))
    assert len(record.game.moves) == 1 and record.game.turn == second
    stale = await waiter.click(old, custom_id=go)
    assert stale.acknowledged
    assert "earlier turn" in old.content and "Done" not in old.content, old.content
    assert len(record.game.moves) == 1 and record.game.turn == second  # nothing was played


async def test_another_user_cannot_see_or_use_a_hand(simcord_env):
    table, record = await two_player_game(simcord_env)
    game = record.game
    mover = seat_actor(table, record, game.turn)
    other = seat_actor(table, record, 1 - game.turn)
    panel = await open_hand(table, mover)
    with pytest.raises(simcord.SetupError):
        await other.click(panel, custom_id=find_component(panel, "seq:card:")["custom_id"])
    theirs = await other.click(table.channel.last_message, label="Your hand")
    assert theirs.ephemeral
    assert hand_line(game.hands[1 - game.turn]) in theirs.response.content
    assert hand_line(game.hands[game.turn]) not in theirs.response.content
    for message in table.channel.history():
        assert "Your hand" not in (message.content or "")


async def test_a_discord_error_while_posting_loses_nothing(simcord_env):
    table, record = await two_player_game(simcord_env)
    game = record.game
    seat = game.turn
    mover = seat_actor(table, record, seat)
    card = normal_playable(game, seat)
    space = game.targets(seat, card)[0]
    board_before = table.channel.last_message
    simcord_env.inject_error("POST", "/channels/*/messages", status=500)
    result = await mover.slash(table.channel, "sequence play", card=card, space=space_name(space))
    assert result.ephemeral and "Done" in result.response.content
    assert record.game.chips[space] == record.game.team_of(seat)
    assert table.channel.last_message.id == board_before.id  # the board could not be posted
    saved = await table.bot.db.games.load(record.id, verify=True)
    assert saved.game == record.game  # the move is saved all the same
    again = await mover.slash(table.channel, "sequence board")
    assert not again.ephemeral
    assert again.response.attachments[0].filename == "board.png"


async def test_a_board_that_could_not_be_posted_is_posted_after_a_restart(
    simcord_env, bot_settings
):
    table, record = await two_player_game(simcord_env)
    game = record.game
    seat = game.turn
    mover = seat_actor(table, record, seat)
    card = normal_playable(game, seat)
    simcord_env.inject_error("POST", "/channels/*/messages", status=500)
    await mover.slash(
        table.channel, "sequence play", card=card, space=space_name(game.targets(seat, card)[0])
    )
    stale = table.channel.last_message  # the board of the start: the move's board failed
    assert "move 0" in stale.embeds[0].title
    await simcord_env.bot.close()
    await simcord_env.restart_bot(create_bot(bot_settings))
    await simcord_env.bot.bus.idle()
    await simcord_env.settle()
    board = table.channel.last_message
    assert board.id != stale.id and board.attachments[0].filename == "board.png"
    assert "move 1" in board.embeds[0].title and "not be posted" in board.embeds[0].description
    retired = next(m for m in table.channel.history() if m.id == stale.id)
    assert retired.content == "↪️ An older board: the newest is below." and not retired.components
    await simcord_env.bot.close()  # once posted, a restart posts nothing more
    await simcord_env.restart_bot(create_bot(bot_settings))
    await simcord_env.bot.bus.idle()
    await simcord_env.settle()
    assert table.channel.last_message.id == board.id


async def test_restart_in_the_middle_of_a_game(simcord_env, bot_settings):
    table, record = await two_player_game(simcord_env)
    for _ in range(3):
        game = record.game
        seat = game.turn
        card = normal_playable(game, seat)
        actor = seat_actor(table, record, seat)
        await actor.slash(
            table.channel, "sequence play", card=card, space=space_name(game.targets(seat, card)[0])
        )
    old_board = table.channel.last_message
    snapshot = record.game.to_dict()
    await simcord_env.bot.close()
    await simcord_env.restart_bot(create_bot(bot_settings))
    restored = simcord_env.bot.games.find_in_channel(table.channel.id)
    assert restored.game.to_dict() == snapshot
    seat = restored.game.turn
    actor = seat_actor(table, restored, seat)
    opened = await actor.click(old_board, label="Your hand")  # a button from before the restart
    assert opened.ephemeral and "Your turn" in opened.response.content
    card = normal_playable(restored.game, seat)
    await actor.slash(
        table.channel,
        "sequence play",
        card=card,
        space=space_name(restored.game.targets(seat, card)[0]),
    )
    assert len(restored.game.moves) == 4
