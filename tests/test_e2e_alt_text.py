"""Alt text for players who use a screen reader: every image the bot posts carries a description
(Discord's alt text, at most 1,024 characters). The board's tells the game from public facts
only, never a card of a hand; the hand image's lists the player's cards where only they see it."""

from __future__ import annotations

import dataclasses
import random
import re

import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from bot.game import CORNERS, Game, Move, card_name, player_view, public_view, space_name
from bot.game.cards import ALL_CARDS
from bot.game.settings import GameSettings
from cogs.common.alt_text import board_alt, bracket_alt, hand_alt
from cogs.common.lengths import ALT_TEXT_LIMIT
from cogs.common.table import seat_names
from render.bracket import BracketMatch
from tests.engine_helpers import HOUSE_OPTIONS, build_game, normal_play, push_random, random_move

from .e2e_helpers import make_table, open_and_start, seat_actor


def cards_told(text: str) -> set[str]:
    """The cards an alt text names."""
    return {card for card in ALL_CARDS if card_name(card) in text}


def public_cards(game: Game) -> set[str]:
    """The one card a board's text may name: the card of the last play."""
    last = next((m for m in reversed(game.moves) if m.kind == "play"), None)
    return {last.card} if last is not None and last.card else set()


async def test_each_board_posted_carries_alt_text_of_public_facts_only(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table)
    first = table.channel.last_message.attachments[0]
    assert first.description.startswith(f"Sequence board, game #{record.id}, move 0.")
    for _ in range(6):
        game = record.game
        seat = game.turn
        card, space = normal_play(game, seat)
        mover = seat_actor(table, record, seat)
        await mover.slash(table.channel, "sequence play", card=card, space=space_name(space))
        text = table.channel.last_message.attachments[0].description
        assert text == board_alt(public_view(record.game), seat_names(record), record.id)
        assert f"Last move: {record.seats[seat].name} played the {card_name(card)}" in text
        assert f"{space_name(space)}" in text and "to play" in text
        assert len(text) <= ALT_TEXT_LIMIT
        assert cards_told(text) <= public_cards(record.game)  # never a card of a hand
    again = await table.players[0].slash(table.channel, "sequence board")
    assert again.response.attachments[0].description == text


async def test_the_hand_images_alt_text_lists_the_cards_only_where_its_owner_sees_it(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob"])
    for player in table.players:
        await player.slash(table.channel, "sequence-me notify", setting="on")
    record = await open_and_start(table)
    game = record.game
    seat = game.turn
    mover = seat_actor(table, record, seat)
    shown = await mover.slash(table.channel, "sequence hand")
    assert shown.ephemeral
    text = shown.response.attachments[0].description
    assert text.startswith(f"Your hand in game #{record.id}")
    assert cards_told(text) == set(game.hands[seat])
    card, _ = normal_play(game, seat)
    spaces = " or ".join(space_name(s) for s in game.targets(seat, card))
    assert f"{card_name(card)}: {spaces}." in text
    # the turn DM carries the same panel, image and alt text, in the player's own DMs
    dm = mover.user.dm_channel.last_message
    assert dm.attachments[0].description == text
    # nothing public ever carries it: every message of the channel describes public facts
    for message in table.channel.history():
        for attachment in message.attachments:
            assert not (attachment.description or "").startswith("Your hand")
            assert cards_told(attachment.description or "") <= public_cards(record.game)


async def test_a_full_board_is_told_within_discords_limit(simcord_env):
    """Every space covered, long names, three teams: the text still fits 1,024 characters,
    shortened by counting chips rather than listing them (and saying so), never mid-word."""
    names = ["a" * 30 + str(n) for n in range(3)]
    table = await make_table(simcord_env, names)
    record = await open_and_start(table)
    record.game = full_board(record.game.settings, locked_rows=6)
    await table.players[0].slash(table.channel, "sequence board")
    text = table.channel.last_message.attachments[0].description
    assert len(text) <= ALT_TEXT_LIMIT
    assert "Locked chips are counted, not listed, to fit." in text
    assert text.endswith("to fit.)")


def full_board(settings: GameSettings, *, locked_rows: int, **state: object) -> Game:
    """Every space covered: row ``r`` by team ``r % teams``; the first ``locked_rows`` rows
    hold two sequences each (locked chips). ``state``: more of :func:`build_game`'s keywords."""
    teams = settings.teams
    picture = "\n".join(
        "".join("X" if r * 10 + c in CORNERS else str(r % teams) for c in range(10))
        for r in range(10)
    )
    sequences = [
        (r % teams, [r * 10 + c for c in range(start, start + 5)])
        for r in range(locked_rows)
        for start in (0, 5)
    ]
    return build_game(settings, chips=picture, sequences=sequences, **state)


@pytest.mark.parametrize("locked_rows", range(11))
def test_a_full_board_of_twelve_is_told_in_whole_sentences_within_the_limit(locked_rows):
    """A won game of twelve with 32-character names, every space covered, up to all of them
    locked, a jack as the last move: the text fits, ends each line on a whole sentence, and
    either names every covered space or says that chips are counted instead."""
    settings = GameSettings.create(12, teams=3)
    won = dict(status="won", winner=0, termination="sequences")
    game = full_board(settings, locked_rows=locked_rows, **won)
    view = dataclasses.replace(public_view(game), last_move=Move.play(0, "JS", 11))
    names = [f"{'m' * 28} {n:03d}" for n in range(12)]
    text = board_alt(view, names, 123456)
    assert len(text) <= ALT_TEXT_LIMIT
    assert all(line.endswith((".", ".)")) for line in text.splitlines()), text
    named = set(re.findall(r"\b[A-J](?:10|[1-9])\b", text))
    covered = {space_name(s) for s in range(100) if game.chips[s] >= 0}
    assert named >= covered or text.endswith("counted, not listed, to fit.)"), text
    assert "mmmm 000, " in text and "Jack of spades" in text


@hypothesis_settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), HOUSE_OPTIONS, st.integers(0, 300))
def test_no_card_of_any_hand_is_told_on_the_board(seed, settings, moves):
    """In random positions, the board's text names no card but the last one played, whatever
    the hands hold; it fits the limit; and it is the same whoever holds which cards."""
    game = Game.new(settings, seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if game.is_over():
            break
        push_random(game, random_move(game, rng), rng)
    names = [f"player {n}" for n in range(settings.players)]
    text = board_alt(public_view(game), names, 1)
    assert len(text) <= ALT_TEXT_LIMIT
    held = {card for hand in game.hands for card in hand}
    assert cards_told(text) & held <= public_cards(game)
    swapped = game.copy()
    swapped.hands = [swapped.deck[: len(hand)] for hand in game.hands]  # other hidden cards
    assert board_alt(public_view(swapped), names, 1) == text


def test_a_large_brackets_text_keeps_the_latest_rounds_and_says_what_it_left_out():
    """64 entrants with long names: the final and the rounds before it, as many as fit, then
    a note; never more than Discord takes."""
    names = [f"entrant with a long name {n:02d}" for n in range(64)]
    first = [BracketMatch(names[2 * i], names[2 * i + 1], 0) for i in range(32)]
    later = [[BracketMatch() for _ in range(32 >> r)] for r in range(1, 6)]
    labels = ["Round 1", "Round 2", "Round 3", "Quarter-finals", "Semi-finals", "Final"]
    text = bracket_alt("Big Cup", [first, *later], None, labels)
    assert len(text) <= ALT_TEXT_LIMIT
    assert text.startswith("Knockout bracket of Big Cup: no champion yet.\nFinal: no one yet.")
    assert text.endswith("\nEarlier rounds are left out to fit.")
    assert "Round 1:" not in text


def test_a_hand_of_jacks_on_a_crowded_board_is_told_within_the_limit():
    """Four one-eyed jacks facing 48 removable chips: their chips are counted, not listed."""
    hand = ["JS", "JS", "JH", "JH", "JD", "JC", "2S"]
    game = full_board(GameSettings.create(2), locked_rows=0, hands={0: hand})
    text = hand_alt(player_view(game, 0), ["alice", "bob"], 5)
    assert len(text) <= ALT_TEXT_LIMIT
    jack = "1. Jack of spades (one-eyed jack: removes a chip)"
    assert f"{jack}: remove one of 48 opponent chips not in a sequence." in text
    assert "5. Jack of diamonds (two-eyed jack: wild): no open space." in text
    assert "7. 2 of spades: dead card, both its spaces are covered." in text
