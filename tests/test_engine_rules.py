"""The rules of a turn: plays, jacks, dead cards, passing, drawing, table talk, leaving, views."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest

from bot.game import (
    ACTIVE,
    CARD_SPACES,
    CORNERS,
    DRAWN,
    EMPTY,
    WON,
    Game,
    GameSettings,
    Move,
    MoveError,
    player_view,
    public_view,
)
from bot.game.moves import (
    AGREE_DRAW,
    DEAD,
    DRAW,
    FORFEIT,
    KINDS,
    PASS,
    PLAY,
    REMOVE,
    RESIGN,
    SKIP,
    TABLETALK,
)
from cogs.common.describe import end_reason
from tests.engine_helpers import (
    FULL_DECK,
    all_cards,
    assert_illegal,
    build_game,
    card_total,
    play,
    play_random_game,
    push_random,
    sp,
    sps,
)

HAND = ["2S", "3S", "JD", "JH", "AH", "5H", "7H"]
CLASSIC2 = GameSettings.create(2)
CONVOY2 = GameSettings.create(2, preset="convoy")


def cover(*cards: str, team: int = 1) -> dict[int, int]:
    """Chips of ``team`` on both spaces of each card, making the cards dead."""
    return {space: team for card in cards for space in CARD_SPACES[card]}


def game2(**kwargs: object) -> Game:
    """A classic two-player game, seat 0 to move with :data:`HAND`, unless told otherwise."""
    kwargs.setdefault("hands", {0: HAND})
    return build_game(CLASSIC2, **kwargs)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------ plays
@pytest.mark.parametrize("space", ["B1", "G9"])
def test_normal_card_on_either_of_its_spaces(space: str) -> None:
    game = game2()
    top = game.deck[-1]
    assert game.validate(Move.play(0, "2S", sp(space))) is None
    play(game, 0, "2S", space)
    assert game.chips[sp(space)] == 0
    assert game.discards[0] == ["2S"]
    assert "2S" not in game.hands[0] and top in game.hands[0]  # the automatic draw
    assert len(game.hands[0]) == 7 and len(game.deck) == 104 - 14 - 1
    assert game.turn == 1 and game.turn_number == 1
    assert game.last_change == ("placed", sp(space))
    assert game.moves == [Move.play(0, "2S", sp(space))]


def test_normal_card_on_its_other_space_when_one_is_covered() -> None:
    game = game2(chips={"B1": 1})
    assert game.targets(0, "2S") == [sp("G9")]
    play(game, 0, "2S", "G9")
    assert game.chips[sp("G9")] == 0 and game.chips[sp("B1")] == 1


def test_two_eyed_jack_on_any_open_space_never_a_corner() -> None:
    game = game2(chips={"E5": 1, "C3": 0})
    open_spaces = [s for s in range(100) if s not in CORNERS and s not in sps("E5", "C3")]
    assert game.targets(0, "JD") == open_spaces
    for space in open_spaces:
        assert game.validate(Move.play(0, "JD", space)) is None
    for corner in CORNERS:
        assert_illegal(game, Move.play(0, "JD", corner), "free corner")
    assert_illegal(game, Move.play(0, "JD", sp("E5")), "E5 is already covered")
    play(game, 0, "JD", "J5")
    assert game.chips[sp("J5")] == 0 and game.discards[0] == ["JD"]


def test_one_eyed_jack_removes_an_opponent_chip_and_places_nothing() -> None:
    game = game2(chips={"E5": 1, "C3": 0})
    assert game.targets(0, "JH") == [sp("E5")]
    before = list(game.chips)
    play(game, 0, "JH", "E5")
    assert game.chips[sp("E5")] == EMPTY
    assert [c for s, c in enumerate(game.chips) if s != sp("E5")] == [
        c for s, c in enumerate(before) if s != sp("E5")
    ]
    assert game.last_change == ("removed", sp("E5"))
    assert game.turn == 1 and game.discards[0] == ["JH"] and len(game.hands[0]) == 7


def test_one_eyed_jack_refusals() -> None:
    game = game2(
        chips={"E5": 1, "C3": 0, "B2": 1, "C2": 1, "D2": 1, "E2": 1, "F2": 1},
        sequences=[(1, ["B2", "C2", "D2", "E2", "F2"])],
    )
    assert_illegal(game, Move.play(0, "JH", sp("C3")), "your own team's")
    assert_illegal(game, Move.play(0, "JH", sp("D2")), "locked")
    assert_illegal(game, Move.play(0, "JH", sp("D4")), "no chip on D4")
    assert_illegal(game, Move.play(0, "JH", sp("A1")), "free corner")
    assert game.targets(0, "JH") == [sp("E5")]


def test_one_eyed_jack_with_three_teams_removes_either_opponent() -> None:
    game = build_game(GameSettings.create(3), hands={0: ["JS"]}, chips={"E5": 1, "E6": 2, "E7": 0})
    assert game.targets(0, "JS") == [sp("E5"), sp("E6")]


@pytest.mark.parametrize("seat", [0, 1])
def test_one_eyed_jack_spaces_of_a_team(seat: int) -> None:
    """A team's own chips are never targets; partners share a team (four players)."""
    game = build_game(
        GameSettings.create(4),
        hands={seat: ["JS"]},
        chips={"E5": 0, "E6": 1},
        turn=seat,
    )
    opponent = "E6" if seat % 2 == 0 else "E5"
    assert game.targets(seat, "JS") == [sp(opponent)]


# ------------------------------------------------------------------------------------ dead cards
def test_dead_card_turn_in_draws_and_the_turn_continues() -> None:
    game = game2(chips=cover("2S"))
    assert game.is_dead("2S") and not game.is_dead("3S") and not game.is_dead("JD")
    assert Move(DEAD, 0, "2S") in game.legal_moves
    top = game.deck[-1]
    game.push(Move(DEAD, 0, "2S"))
    assert game.discards[0] == ["2S"] and top in game.hands[0] and len(game.hands[0]) == 7
    assert game.turn == 0 and game.dead_card_used
    assert all(m.kind != DEAD for m in game.legal_moves)
    play(game, 0, "AH", "F2")
    assert game.turn == 1 and not game.dead_card_used


def test_only_one_dead_card_a_turn() -> None:
    game = game2(chips=cover("2S", "3S"))
    game.push(Move(DEAD, 0, "2S"))
    assert_illegal(game, Move(DEAD, 0, "3S"), "already turned in a dead card")


def test_a_card_that_is_not_dead() -> None:
    game = game2(chips={"B1": 1})
    assert_illegal(game, Move(DEAD, 0, "2S"), "2♠ is not dead: G9 is open")
    assert_illegal(game, Move(DEAD, 0, "3S"), "is not dead: C1 or F9 is open")
    assert_illegal(game, Move(DEAD, 0, "JD"), "A jack is never dead")
    assert_illegal(game, Move(DEAD, 0, "KD"), "You do not hold K♦")


def test_convoy_dead_card_ends_the_turn_without_a_chip() -> None:
    game = build_game(CONVOY2, hands={0: ["2S", "AH", "5H", "JD", "7H"]}, chips=cover("2S"))
    chips, top = list(game.chips), game.deck[-1]
    game.push(Move(DEAD, 0, "2S"))
    assert game.chips == chips
    assert top in game.hands[0] and len(game.hands[0]) == 5 and game.discards[0] == ["2S"]
    assert game.turn == 1 and not game.dead_card_used


# ------------------------------------------------------------------------------------ passing
def test_pass_only_without_a_playable_card() -> None:
    # 2S is dead and the one-eyed jack has no opponent chip to remove: nothing is playable.
    game = game2(hands={0: ["2S", "JH"]}, chips=cover("2S", team=0), deck=["5D", "JS"])
    assert not game.has_playable_card(0)
    # RULES.md: a player passes "after the dead-card exchange": turn the dead card in first.
    assert set(game.legal_moves) == {Move(DEAD, 0, "2S")}
    assert_illegal(game, Move(PASS, 0), "Turn in your dead card first")
    game.push(Move(DEAD, 0, "2S"))  # the replacement is a one-eyed jack: still nothing to play
    assert set(game.legal_moves) == {Move(PASS, 0)}
    game.push(Move(PASS, 0))
    assert game.turn == 1 and game.hands[0] == ["JH", "JS"] and game.passes_in_row == 1
    assert game.status == ACTIVE


def test_pass_with_a_playable_card_is_refused() -> None:
    game = game2()
    assert_illegal(game, Move(PASS, 0), "You have a playable card, so you cannot pass")
    game = game2(hands={0: ["2S", "JH"]}, chips={**cover("2S", team=0), "E5": 1})
    assert_illegal(game, Move(PASS, 0), "cannot pass")  # the one-eyed jack can remove E5


def test_classic_all_pass_is_a_stalemate() -> None:
    # One-eyed jacks with no opponent chip on the board: nobody can play, nothing is dead.
    game = build_game(CLASSIC2, hands={0: ["JH"], 1: ["JS"]}, deck=["4S", "5S"])
    game.push(Move(PASS, 0))
    assert game.status == ACTIVE
    game.push(Move(PASS, 1))
    assert game.status == DRAWN and game.winner is None and "stalemate" in end_reason(game.outcome)
    assert_illegal(game, Move(PASS, 0), "The game is over")


def test_dead_card_exchanges_are_not_a_stalemate() -> None:
    """Players who turn in dead cards may still draw a playable card: the game goes on."""
    dead = ["2S", "3S", "4S", "5S", "6S", "7S", "8S"]
    game = build_game(
        CLASSIC2,
        hands={0: ["2S", "3S"], 1: ["4S", "5S"]},
        chips=cover(*dead),
        deck=["JD", "6S", "7S", "8S"],
    )
    for seat, card in ((0, "2S"), (1, "4S"), (0, "3S")):
        game.push(Move(DEAD, seat, card))
        game.push(Move(PASS, seat))
        assert game.status == ACTIVE
    game.push(Move(DEAD, 1, "5S"))
    assert "JD" in game.hands[1]  # the exchange brought a wild jack
    play(game, 1, "JD", "E5")


def test_a_player_still_holding_a_dead_card_is_not_stalled() -> None:
    """Seat 0 exchanged a dead card for another; it may exchange again next turn, so no draw."""
    game = build_game(
        CLASSIC2,
        hands={0: ["2S", "3S"], 1: ["JH"]},
        chips=cover("2S", "3S", "4S", team=1),  # seat 1's one-eyed jack has nothing to remove
        deck=["JD", "4S"],
    )
    game.push(Move(DEAD, 0, "2S"))  # draws 4S: dead too
    game.push(Move(PASS, 0))
    game.push(Move(PASS, 1))
    assert game.status == ACTIVE
    game.push(Move(DEAD, 0, "3S"))
    play(game, 0, "JD", "E5")  # the next exchange brought a wild jack


def test_a_timed_out_player_who_could_play_breaks_the_round_of_passes() -> None:
    """A skipped turn proves nothing when the player held a playable card."""
    game = build_game(CLASSIC2, hands={0: ["JH"], 1: ["4S", "JS"]}, deck=["5S", "6S"])
    game.push(Move(PASS, 0))
    game.push(Move(SKIP, 1))  # the turn's time ran out: 4S was playable
    game.push(Move(PASS, 0))
    assert game.status == ACTIVE
    play(game, 1, "4S", "D1")


def test_a_timed_out_player_who_could_not_play_counts_as_passing() -> None:
    game = build_game(CLASSIC2, hands={0: ["JH"], 1: ["JS"]}, deck=["4S", "5S"])
    game.push(Move(PASS, 0))
    game.push(Move(SKIP, 1))
    assert game.status == DRAWN and "stalemate" in end_reason(game.outcome)


def test_passes_of_a_player_who_left_do_not_make_a_stalemate() -> None:
    """Seat 2 passed, then left: seat 1 has not passed since its play, so play goes on."""
    game = build_game(GameSettings.create(3), hands={0: [], 2: []})
    game.push(Move(PASS, 0))
    game.push(next(move for move in game.legal_moves if move.kind == PLAY))
    game.push(Move(PASS, 2))
    game.push(Move(REMOVE, 2))
    game.push(Move(PASS, 0))
    assert game.status == ACTIVE and game.turn == 1 and game.has_playable_card(1)


def test_convoy_dead_card_turn_is_not_a_pass() -> None:
    """Seat 0 passes, seat 1 plays a dead card (its turn), seat 0 passes: seat 1 can still play."""
    game = build_game(
        CONVOY2,
        hands={0: ["JH", "JS", "JH", "JS"], 1: ["7S", "AH", "5H", "KH", "QH"]},
        chips=cover("7S", team=0),  # no team-1 chip: seat 0's one-eyed jacks cannot play
    )
    game.push(Move(PASS, 0))
    game.push(Move(DEAD, 1, "7S"))
    game.push(Move(PASS, 0))
    assert game.status == ACTIVE and len(game.deck) > 0
    play(game, 1, "AH", "F2")


# ------------------------------------------------------------------------------------ the deck
def test_reshuffle_all_discard_piles_when_the_deck_runs_out() -> None:
    game = game2(deck=[])
    game.discards[1] = [game.discards[0].pop() for _ in range(5)]
    piles = sorted(card for pile in game.discards for card in pile)
    play(game, 0, "AH", "F2")
    assert game.reshuffles == 1
    assert game.discards == [[], []]
    assert len(game.hands[0]) == 7
    assert sorted([*game.deck, *game.hands[0]]) == sorted([*piles, "AH", *HAND[:4], *HAND[5:]])
    assert card_total(game) == 104 and all_cards(game) == FULL_DECK


def test_reshuffle_is_deterministic() -> None:
    first, second = game2(deck=[]), game2(deck=[])
    play(first, 0, "AH", "F2")
    play(second, 0, "AH", "F2")
    assert first.deck == second.deck
    assert first.deck != sorted(first.deck)


def test_convoy_never_reshuffles() -> None:
    game = build_game(CONVOY2, hands={0: ["AH", "5H", "JD", "7H", "2S"]}, deck=[])
    piles = [list(pile) for pile in game.discards]
    play(game, 0, "AH", "F2")
    assert game.reshuffles == 0 and game.deck == []
    assert len(game.hands[0]) == 4  # plays on from the hand, no draw
    assert game.discards[0] == [*piles[0], "AH"]
    assert game.status == ACTIVE


def _convoy_end(sequences: list[tuple[int, list[str]]]) -> Game:
    chips = {space: team for team, window in sequences for space in window}
    game = build_game(
        CONVOY2, hands={0: ["AH"], 1: ["5H"]}, deck=[], chips=chips, sequences=sequences
    )
    play(game, 0, "AH", "F2")
    assert game.status == ACTIVE  # seat 1 still holds a card
    play(game, 1, "5H", "E5")
    return game


def test_convoy_end_most_convoys_wins() -> None:
    game = _convoy_end([(1, ["A3", "B3", "C3", "D3", "E3"])])
    assert game.status == WON and game.winner == 1 and "most convoys" in end_reason(game.outcome)


def test_convoy_end_tie_is_a_stalemate() -> None:
    game = _convoy_end([(0, ["A3", "B3", "C3", "D3", "E3"]), (1, ["A4", "B4", "C4", "D4", "E4"])])
    assert game.status == DRAWN and game.winner is None and "stalemate" in end_reason(game.outcome)
    assert _convoy_end([]).status == DRAWN


# ------------------------------------------------------------------------------------ table talk
def test_table_talk_every_member_forfeits_a_card_of_their_choice() -> None:
    game = build_game(GameSettings.create(4), turn=1)
    deck = list(game.deck)
    game.push(Move(TABLETALK, 0, team=1))
    assert game.owed_forfeits == [0, 1, 0, 1]
    assert set(game.legal_moves) == {Move(FORFEIT, 1, card) for card in game.hands[1]}
    card = game.hands[1][0]
    assert_illegal(game, Move.play(1, card, 0), "must first forfeit 1 card")
    assert_illegal(game, Move(PASS, 1), "must first forfeit")
    assert_illegal(game, Move(FORFEIT, 0, game.hands[0][0]), "You owe no card")
    missing = next(c for c in FULL_DECK if c not in game.hands[3])
    assert_illegal(game, Move(FORFEIT, 3, missing), "You do not hold")
    chosen = game.hands[3][-1]
    game.push(Move(FORFEIT, 3, chosen))  # out of turn
    assert game.discards[3] == [chosen] and len(game.hands[3]) == 5 and game.deck == deck
    game.push(Move(FORFEIT, 1, card))
    assert game.owed_forfeits == [0, 0, 0, 0] and game.turn == 1 and len(game.hands[1]) == 5
    move = next(m for m in game.legal_moves if m.kind == PLAY)
    game.push(move)
    assert len(game.hands[1]) == 5  # plays on with one card fewer
    assert card_total(game) == 104


def test_table_talk_twice_owes_two_and_never_more_than_the_hand() -> None:
    game = build_game(CLASSIC2, hands={1: ["2S"]})
    game.push(Move(TABLETALK, 0, team=0))
    game.push(Move(TABLETALK, 0, team=0))
    assert game.owed_forfeits[0] == 2
    assert_illegal(game, Move.play(0, game.hands[0][0], 0), "forfeit 2 cards")
    game.push(Move(TABLETALK, 0, team=1))
    game.push(Move(TABLETALK, 0, team=1))
    assert game.owed_forfeits[1] == 1


def test_table_talk_needs_a_team_in_the_game() -> None:
    game = build_game(CLASSIC2)
    assert_illegal(game, Move(TABLETALK, 0, team=2), "no such team")
    assert_illegal(game, Move(TABLETALK, 0), "no such team")


# ------------------------------------------------------------------------------------ drawing
def test_manual_draw_house_option() -> None:
    settings = GameSettings.create(2, manual_draw=True)
    game = build_game(settings, hands={0: HAND, 1: ["KH", "QH", "JC"]})
    assert_illegal(game, Move(DRAW, 0), "no draw to take")
    play(game, 0, "AH", "F2")
    assert len(game.hands[0]) == 6 and game.owed_draws == {0: 0}
    assert Move(DRAW, 0) in game.legal_moves_for(0)
    top = game.deck[-1]
    game.push(Move(DRAW, 0))
    assert top in game.hands[0] and len(game.hands[0]) == 7 and game.owed_draws == {}
    assert_illegal(game, Move(DRAW, 0), "no draw to take")


def test_manual_draw_lost_once_the_next_player_has_moved_and_drawn() -> None:
    settings = GameSettings.create(2, manual_draw=True)
    game = build_game(settings, hands={0: HAND, 1: ["KH", "QH", "JC"]})
    play(game, 0, "AH", "F2")
    play(game, 1, "KH", "G2")
    assert 0 in game.owed_draws  # the next player has moved but not yet drawn
    game.push(Move(DRAW, 1))
    assert 0 not in game.owed_draws
    assert_illegal(game, Move(DRAW, 0), "no draw to take")
    assert len(game.hands[0]) == 6 and card_total(game) == 104


def test_a_late_draw_never_costs_the_player_who_moved_after_it_was_earned() -> None:
    """A draw taken late, while the next player has not yet drawn, takes no draw from them."""
    settings = GameSettings.create(2, manual_draw=True)
    game = build_game(settings, hands={0: HAND, 1: ["KH", "QH", "JC"]})
    play(game, 0, "AH", "F2")
    play(game, 1, "KH", "G2")
    game.push(Move(DRAW, 0))  # in time: seat 1 has moved but not drawn
    assert game.owed_draws == {1: 1}  # seat 0 has not moved since seat 1's play
    play(game, 0, "5H", "I7")
    game.push(Move(DRAW, 1))  # seat 1's draw of its KH, late: seat 1 has not moved since
    assert game.owed_draws == {0: 2}
    game.push(Move(DRAW, 0))
    assert len(game.hands[0]) == 7 and len(game.hands[1]) == 3 and card_total(game) == 104


def test_a_card_drawn_after_passing_is_not_a_stalemate() -> None:
    """Seat 0 passed, then took its manual draw: a playable 2S, so seat 1's pass ends nothing."""
    settings = GameSettings.create(2, manual_draw=True)
    game = build_game(settings, hands={0: ["AH", "JH"], 1: ["JS"]}, deck=["3S", "2S"])
    play(game, 0, "AH", "F2")
    play(game, 1, "JS", "F2")  # removes it: no Green chip for seat 0's one-eyed jack
    game.push(Move(PASS, 0))
    game.push(Move(DRAW, 0))  # seat 1 has not drawn yet
    game.push(Move(PASS, 1))
    assert game.status == ACTIVE and game.hands[0] == ["JH", "2S"]
    play(game, 0, "2S", "B1")


def test_revision_1_games_play_the_positions_of_the_fixes_as_they_were_played() -> None:
    """A game started before rules revision 2 (its stored settings name no revision) plays the
    positions of the tests above as its engine did, so its log replays to its snapshot."""
    old2, old3 = replace(CLASSIC2, rules=1), replace(GameSettings.create(3), rules=1)
    dead = build_game(
        old2,
        hands={0: ["2S", "3S"], 1: ["JH"]},
        chips=cover("2S", "3S", "4S", team=1),
        deck=["JD", "4S"],
    )
    for move in (Move(DEAD, 0, "2S"), Move(PASS, 0), Move(PASS, 1)):  # a pass holding 3S
        dead.push(move)
    assert dead.status == DRAWN and "stalemate" in end_reason(dead.outcome)
    skipped = build_game(old2, hands={0: ["JH"], 1: ["4S", "JS"]}, deck=["5S", "6S"])
    skipped.push(Move(PASS, 0))
    skipped.push(Move(SKIP, 1))  # a skip neither counted nor started the count again
    assert skipped.passes_in_row == 1
    skipped.push(Move(PASS, 0))
    assert skipped.status == DRAWN and "stalemate" in end_reason(skipped.outcome)
    left = build_game(old3, hands={0: [], 2: []})
    left.push(Move(PASS, 0))
    left.push(next(move for move in left.legal_moves if move.kind == PLAY))
    left.push(Move(PASS, 2))
    left.push(Move(REMOVE, 2))  # its pass still counted
    left.push(Move(PASS, 0))
    assert left.status == DRAWN and "stalemate" in end_reason(left.outcome)
    manual = replace(GameSettings.create(2, manual_draw=True), rules=1)
    late = build_game(manual, hands={0: HAND, 1: ["KH", "QH", "JC"]})
    play(late, 0, "AH", "F2")
    play(late, 1, "KH", "G2")
    late.push(Move(DRAW, 0))  # took seat 1's draw
    assert late.owed_draws == {}
    drawn = build_game(manual, hands={0: ["AH", "JH"], 1: ["JS"]}, deck=["3S", "2S"])
    play(drawn, 0, "AH", "F2")
    play(drawn, 1, "JS", "F2")
    for move in (Move(PASS, 0), Move(DRAW, 0), Move(PASS, 1)):  # the draw left the count
        drawn.push(move)
    assert drawn.status == DRAWN and "stalemate" in end_reason(drawn.outcome)
    assert drawn.hands[0] == ["JH", "2S"]
    for game in (dead, skipped, left, late, drawn):
        stored = {k: v for k, v in game.settings.to_dict().items() if k != "rules"}
        assert GameSettings.from_dict(stored) == game.settings


def test_automatic_draw_by_default() -> None:
    game = game2()
    play(game, 0, "AH", "F2")
    assert game.owed_draws == {} and len(game.hands[0]) == 7
    assert_illegal(game, Move(DRAW, 0), "no draw to take")


# ------------------------------------------------------------------------------------ leaving
def test_resign_with_two_teams_the_other_wins() -> None:
    game = build_game(GameSettings.create(4))
    game.push(Move(RESIGN, 2, team=0))
    assert game.status == WON and game.winner == 1
    assert game.out == [True, False, True, False]
    assert game.hands[0] == [] and card_total(game) == 104


def test_resign_with_three_teams_play_goes_on() -> None:
    game = build_game(GameSettings.create(3), turn=1)
    game.push(Move(RESIGN, 1, team=1))
    assert game.status == ACTIVE and game.turn == 2 and game.active_teams() == [0, 2]
    assert game.legal_moves_for(1) == []
    assert_illegal(game, Move(RESIGN, 0, team=1), "no longer in the game")
    assert_illegal(game, Move(TABLETALK, 0, team=1), "no longer in the game")
    while game.turn != 2:
        game.push(Move(SKIP, game.turn))
    game.push(Move(SKIP, 2))
    assert game.turn == 0  # seat 1 is skipped
    assert_illegal(game, Move(PASS, 1), "no longer in this game")


def test_remove_a_player_the_team_plays_on() -> None:
    game = build_game(GameSettings.create(4), turn=1)
    game.push(Move(REMOVE, 1))
    assert game.status == ACTIVE and game.turn == 2 and game.out == [False, True, False, False]
    assert card_total(game) == 104
    game.push(Move(REMOVE, 3))
    assert game.status == WON and game.winner == 0


def test_skip_passes_the_turn() -> None:
    game = game2()
    game.push(Move(SKIP, 0))
    assert game.turn == 1 and len(game.hands[0]) == 7 and game.status == ACTIVE
    assert_illegal(game, Move(SKIP, 0), "not your turn")


# ------------------------------------------------------------------------------------ refusals
def _refusal_game() -> Game:
    return game2(
        chips={
            **cover("3S"),
            "B1": 1,
            "E5": 0,
            **{name: 1 for name in ("B3", "C3", "D3", "E3", "F3")},
        },
        sequences=[(1, ["B3", "C3", "D3", "E3", "F3"])],
    )


REFUSALS: list[tuple[str, Move, str]] = [
    ("not your turn", Move.play(1, "KH", sp("G2")), "It is not your turn"),
    ("card not in hand", Move.play(0, "KD", sp("H8")), "You do not hold K♦"),
    ("space covered", Move.play(0, "2S", sp("B1")), "B1 is already covered"),
    ("jack on covered", Move.play(0, "JD", sp("E5")), "E5 is already covered"),
    ("chip locked", Move.play(0, "JH", sp("D3")), "part of a completed sequence: it is locked"),
    ("own chip", Move.play(0, "JH", sp("E5")), "your own team's"),
    ("nothing to remove", Move.play(0, "JH", sp("E6")), "There is no chip on E6"),
    ("corner", Move.play(0, "JD", sp("J10")), "J10 is a free corner"),
    ("corner normal card", Move.play(0, "2S", sp("A1")), "free corner"),
    ("wrong space", Move.play(0, "AH", sp("D4")), "A♥ is played on F2 and G5, not on D4"),
    ("no space", Move(PLAY, 0, "AH", None), "Name a space"),
    ("off the board", Move.play(0, "AH", 100), "Name a space"),
    ("not dead", Move(DEAD, 0, "AH"), "A♥ is not dead: F2 or G5 is open"),
    ("pass with a playable card", Move(PASS, 0), "cannot pass"),
    ("no such seat", Move(PASS, 5), "no such seat"),
    ("forfeit not owed", Move(FORFEIT, 0, "2S"), "You owe no card"),
    ("no draw", Move(DRAW, 0), "no draw to take"),
    ("unknown kind", Move("castle", 0, "2S"), "Unknown move"),
    ("five without a sequence", Move.play(0, "AH", sp("F2"), ((11, 12, 13, 14, 15),)), "five"),
]


@pytest.mark.parametrize(("why", "move", "reason"), REFUSALS, ids=[r[0] for r in REFUSALS])
def test_validate_says_why_and_push_changes_nothing(why: str, move: Move, reason: str) -> None:
    game = _refusal_game()
    assert_illegal(game, move, reason)


def test_second_dead_card_and_forfeit_owed_refusals() -> None:
    game = _refusal_game()
    game.push(Move(DEAD, 0, "3S"))
    game.chips[sp("G9")] = 1  # 2S is now dead too
    assert "2S" in game.hands[0] and game.is_dead("2S")
    assert_illegal(game, Move(DEAD, 0, "2S"), "already turned in a dead card this turn")
    game.push(Move(TABLETALK, 1, team=0))
    assert_illegal(game, Move.play(0, "AH", sp("F2")), "You must first forfeit 1 card")


def test_nothing_is_legal_after_the_end() -> None:
    game = build_game(GameSettings.create(4))
    game.push(Move(RESIGN, 0, team=1))
    assert game.legal_moves == [] and game.is_over()
    assert_illegal(game, Move(REMOVE, 0), "The game is over")


def test_legal_moves_are_exactly_the_valid_ones() -> None:
    """Brute force every card and space of the hand against legal_moves."""
    game = _refusal_game()
    for _ in range(2):
        seat = game.turn
        legal = set(game.legal_moves)
        brute = set()
        for card in set(game.hands[seat]):
            for space in range(100):
                if game.validate(Move.play(seat, card, space)) is None:
                    brute.add(Move.play(seat, card, space))
            if game.validate(Move(DEAD, seat, card)) is None:
                brute.add(Move(DEAD, seat, card))
        if game.validate(Move(PASS, seat)) is None:
            brute.add(Move(PASS, seat))
        assert legal == brute
        game.push(Move.play(seat, "JD", sp("J5")) if seat == 0 else sorted(legal)[0])


# ------------------------------------------------------------------------------------ data
def _finished_games() -> list[Game]:
    return [
        play_random_game(GameSettings.create(2), 11),
        play_random_game(GameSettings.create(6, preset="convoy"), 12),
        play_random_game(GameSettings.create(12, 3, small_hands=True), 13),
        play_random_game(GameSettings.create(4, engine_chooses_five=True), 14),
    ]


def test_game_data_round_trips_through_json() -> None:
    for game in _finished_games():
        text = json.dumps(game.to_dict())
        again = Game.from_dict(json.loads(text))
        assert again == game and again.to_dict() == game.to_dict()
        assert Game.replay(game.settings, game.seed, game.moves) == game
        assert game.copy() == game and game.copy() is not game
        assert Game.new(game.settings, game.seed) != game


def test_replay_mid_game_with_every_kind_of_move() -> None:
    settings = GameSettings.create(4, manual_draw=True)
    game = Game.new(settings, 5)
    rng = random.Random(5)
    game.push(Move(TABLETALK, 0, team=1))
    for _ in range(30):
        seat = game.turn
        moves = game.legal_moves_for(seat)
        game.push(rng.choice([m for m in moves if m.kind != DRAW] or moves))
        previous = (seat - 1) % 4
        if previous in game.owed_draws:
            game.push(Move(DRAW, previous))
    game.push(Move(SKIP, game.turn))
    game.push(Move(REMOVE, 3))
    kinds = {move.kind for move in game.moves}
    assert {TABLETALK, FORFEIT, PLAY, DRAW, SKIP, REMOVE} <= kinds
    assert Game.replay(settings, 5, game.moves) == game
    assert Game.from_dict(json.loads(json.dumps(game.to_dict()))) == game
    replayed = Game.replay(settings, 5, [Move.from_notation(m.notation()) for m in game.moves])
    assert replayed == game


NOTATION = [
    (Move.play(1, "7S", 32), "1:7S@C4"),
    (Move.play(0, "JD", 99), "0:JD@J10"),
    (Move.play(2, "TH", 0), "2:TH@A1"),
    (Move.play(0, "AH", 15, ((11, 12, 13, 14, 15),)), "0:AH@F2=B2-F2"),
    (Move.play(0, "JC", 44, ((0, 11, 22, 33, 44), (44, 53, 62, 71, 80))), "0:JC@E5=A1-E5,E5-A9"),
    (Move.play(3, "5H", 68, ((28, 38, 48, 58, 68),)), "3:5H@I7=I3-I7"),
    (Move(DEAD, 0, "2S"), "0:dead:2S"),
    (Move(FORFEIT, 3, "QD"), "3:forfeit:QD"),
    (Move(TABLETALK, 0, team=1), "0:tabletalk:1"),
    (Move(RESIGN, 2, team=0), "2:resign:0"),
    (Move(PASS, 1), "1:pass"),
    (Move(DRAW, 1), "1:draw"),
    (Move(SKIP, 1), "1:skip"),
    (Move(REMOVE, 4), "4:remove"),
]


@pytest.mark.parametrize(("move", "text"), NOTATION, ids=[t for _, t in NOTATION])
def test_move_notation_and_dict_round_trip(move: Move, text: str) -> None:
    assert move.notation() == text
    assert Move.from_notation(text) == move
    assert Move.from_dict(move.to_dict()) == move
    assert Move.from_dict(json.loads(json.dumps(move.to_dict()))) == move
    assert None not in move.to_dict().values()


def test_move_notation_is_lenient_about_case() -> None:
    assert Move.from_notation("1:7s@c4") == Move.play(1, "7S", 32)
    assert Move.from_notation("0:10h@j10") == Move.play(0, "TH", 99)


@pytest.mark.parametrize(
    "text", ["", "pass", "x:pass", "1:fly", "1:7S@K4", "1:7X@C4", "1:dead:ZZ", "1:resign:x",
             "0:AH@F2=B2-F3", "0:AH@F2=B2-B2", "1:7S", "1:tabletalk:"],
)  # fmt: skip
def test_bad_notation_is_refused(text: str) -> None:
    with pytest.raises(MoveError, match="Cannot read the move"):
        Move.from_notation(text)


def test_bad_move_dict_is_refused() -> None:
    with pytest.raises(MoveError, match="Unknown move kind"):
        Move.from_dict({"kind": "fly", "seat": 0})
    assert set(KINDS) == {
        PLAY, DEAD, PASS, DRAW, FORFEIT, TABLETALK, SKIP, RESIGN, REMOVE, AGREE_DRAW
    }


# ------------------------------------------------------------------------------------ views
def test_player_view_has_only_that_seats_hand() -> None:
    game = Game.new(GameSettings.create(4), 9)
    for seat in range(4):
        view = player_view(game, seat)
        assert view.seat == seat and view.hand == tuple(game.hands[seat])
        assert not view.is_public
        assert view.hand_sizes == (6, 6, 6, 6) and view.deck_count == len(game.deck)
    view = public_view(game)
    assert view.hand is None and view.seat is None and view.is_public


def test_views_reveal_no_other_hand_and_no_deck_order() -> None:
    """Two games that differ only in other hands and the deck order look the same to seat 0."""
    base = Game.new(GameSettings.create(4), 21)
    rng = random.Random(1)
    for _ in range(12):
        push_random(base, rng.choice(base.legal_moves), rng)
    data = base.to_dict()
    state = data["state"]
    hidden = [card for seat in (1, 2, 3) for card in state["hands"][seat]] + state["deck"]
    rng.shuffle(hidden)
    for seat in (1, 2, 3):
        size = len(state["hands"][seat])
        state["hands"][seat], hidden = hidden[:size], hidden[size:]
    state["deck"] = hidden
    other = Game.from_dict(data)
    assert other.hands[1:] != base.hands[1:] and other.deck != base.deck
    assert player_view(other, 0) == player_view(base, 0)
    assert public_view(other) == public_view(base)
    assert player_view(other, 1) != player_view(base, 1)
    view = public_view(base)
    for field in view.__slots__:  # type: ignore[attr-defined]
        value = repr(getattr(view, field))
        assert repr(base.deck) not in value
        for seat in range(4):
            assert (
                repr(base.hands[seat]) not in value and repr(tuple(base.hands[seat])) not in value
            )


def test_view_shows_the_public_state() -> None:
    game = game2()
    play(game, 0, "AH", "F2")
    view = player_view(game, 1)
    assert view.chips[sp("F2")] == 0 and view.discards == (("AH",), ())
    assert view.last_move == Move.play(0, "AH", sp("F2"))
    assert view.turn == 1 and view.move_count == 1 and view.status == ACTIVE
    assert view.team_of(3) == 1 and view.sequence_count(0) == 0
    assert view.cut == tuple(game.cut) and view.dealer == game.dealer
