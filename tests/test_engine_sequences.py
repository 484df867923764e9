"""Sequences on hand-made boards: lines, corners, sharing, long lines, the five, winning."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from bot.game import (
    ACTIVE,
    CORNER,
    WON,
    ChoiceRequired,
    Game,
    GameSettings,
    IllegalMove,
    Move,
)
from bot.game.moves import SKIP
from cogs.common.describe import end_reason
from tests.engine_helpers import (
    Space,
    assert_illegal,
    build_game,
    play,
    sp,
    sps,
    windows_of,
)

JACKS = ["JD", "JC", "JD", "JC"]  # two-eyed jacks: a chip anywhere, so any line can be built


def seq_game(
    chips: Mapping[Space, int] | str,
    *,
    settings: GameSettings | None = None,
    sequences: Sequence[tuple[int, Sequence[Space]]] = (),
    hands: Mapping[int, Sequence[str]] | None = None,
) -> Game:
    """Seat 0 to move holding four wild jacks, with ``chips`` on the board."""
    return build_game(
        settings or GameSettings.create(2, sequences_to_win=4),
        chips=chips,
        sequences=sequences,
        hands=hands or {0: JACKS, 1: ["JH", "JS"]},
    )


def line(*names: Space) -> dict[Space, int]:
    """Team 0 chips on the named spaces."""
    return dict.fromkeys(names, 0)


def row1(*columns: int) -> tuple[int, ...]:
    """Spaces of row 1 (A2..J2 = 10..19) by column."""
    return tuple(10 + column for column in columns)


# ------------------------------------------------------------------------------------ lines
@pytest.mark.parametrize(
    ("chips", "placed", "window"),
    [
        (["B2", "C2", "D2", "E2"], "F2", ["B2", "C2", "D2", "E2", "F2"]),  # row
        (["C3", "C4", "C5", "C6"], "C7", ["C3", "C4", "C5", "C6", "C7"]),  # column
        (["C2", "D3", "F5", "G6"], "E4", ["C2", "D3", "E4", "F5", "G6"]),  # diagonal \
        (["H2", "G3", "E5", "D6"], "F4", ["H2", "G3", "F4", "E5", "D6"]),  # diagonal /
        (["J6", "I7", "H8", "G9"], "F10", ["J6", "I7", "H8", "G9", "F10"]),  # / at the edge
        (["B3", "B4", "B5", "B6"], "B2", ["B2", "B3", "B4", "B5", "B6"]),  # first chip
    ],
    ids=["row", "column", "diagonal-down-right", "diagonal-down-left", "edge", "placed-first"],
)
def test_five_in_a_line(chips: list[str], placed: str, window: list[str]) -> None:
    game = seq_game(line(*chips))
    play(game, 0, "JD", placed)
    assert windows_of(game, 0) == {tuple(sorted(sps(*window)))}
    assert [s for s in range(100) if game.locked[s]] == sorted(sps(*window))
    assert game.sequence_count(0) == 1 and game.sequence_count(1) == 0
    assert game.status == ACTIVE


def test_four_in_a_line_or_a_broken_line_is_no_sequence() -> None:
    game = seq_game({**line("B2", "C2", "D2", "F2"), "E2": 1})
    play(game, 0, "JD", "G2")
    assert game.sequences == [] and not any(game.locked)


def test_opponent_chips_never_count() -> None:
    game = seq_game({"B2": 1, "C2": 1, "D2": 0, "E2": 0, "F2": 0})
    play(game, 0, "JD", "G2")
    game.push(Move(SKIP, 1))
    play(game, 0, "JC", "H2")
    assert windows_of(game, 0) == {sps("D2", "E2", "F2", "G2", "H2")}


# ------------------------------------------------------------------------------------ corners
@pytest.mark.parametrize(
    ("chips", "placed", "corner"),
    [
        (["B1", "C1", "D1"], "E1", "A1"),  # row with the corner
        (["J2", "J3", "J5"], "J4", "J1"),  # column
        (["F6", "G7", "H8"], "I9", "J10"),  # diagonal
        (["B9", "C8", "D7"], "E6", "A10"),  # anti-diagonal
    ],
)
def test_a_corner_counts_as_a_chip(chips: list[str], placed: str, corner: str) -> None:
    game = seq_game(line(*chips))
    play(game, 0, "JD", placed)
    window = tuple(sorted(sps(*chips, placed, corner)))
    assert windows_of(game, 0) == {window}
    assert game.chips[sp(corner)] == CORNER and not game.locked[sp(corner)]
    assert all(game.locked[s] for s in window if s != sp(corner))


def test_a_corner_can_make_a_line_of_six() -> None:
    game = seq_game(line("B2", "C3", "D4", "F6"))
    move = Move.play(0, "JD", sp("E5"))
    with pytest.raises(ChoiceRequired) as choice:
        game.push(move)
    assert sorted(choice.value.options) == [
        (sps("A1", "B2", "C3", "D4", "E5"),),
        (sps("B2", "C3", "D4", "E5", "F6"),),
    ]


def test_corner_counts_for_every_team_at_the_same_time() -> None:
    game = seq_game(
        {**line("B1", "C1", "D1"), "A2": 1, "A3": 1, "A4": 1},
        hands={0: ["JD", "JC"], 1: ["JD", "JC"]},
    )
    play(game, 0, "JD", "E1")
    play(game, 1, "JC", "A5")
    assert windows_of(game, 0) == {sps("A1", "B1", "C1", "D1", "E1")}
    assert windows_of(game, 1) == {sps("A1", "A2", "A3", "A4", "A5")}
    assert game.chips[0] == CORNER


def test_three_teams_use_one_corner() -> None:
    settings = GameSettings.create(3, sequences_to_win=2)
    game = seq_game(
        {"B1": 0, "C1": 0, "D1": 0, "A2": 1, "A3": 1, "A4": 1, "B2": 2, "C3": 2, "D4": 2},
        settings=settings,
        hands={0: ["JD"], 1: ["JC"], 2: ["JD"]},
    )
    play(game, 0, "JD", "E1")
    play(game, 1, "JC", "A5")
    play(game, 2, "JD", "E5")
    assert [len(windows_of(game, team)) for team in range(3)] == [1, 1, 1]
    assert all(0 in windows_of(game, team).pop() for team in range(3))


# ------------------------------------------------------------------------------------ sharing
def test_a_new_sequence_may_share_one_space_with_an_old_one() -> None:
    old = ["B2", "C2", "D2", "E2", "F2"]
    game = seq_game(line(*old, "D1", "D3", "D4"), sequences=[(0, old)])
    play(game, 0, "JD", "D5")
    assert windows_of(game, 0) == {sps(*old), sps("D1", "D2", "D3", "D4", "D5")}


def test_a_new_sequence_may_not_share_two_spaces() -> None:
    old = row1(0, 1, 2, 3, 4)
    game = seq_game(line(*old, *row1(5, 6)), sequences=[(0, old)])
    play(game, 0, "JD", row1(7)[0])  # eight in a row, but every new five shares 2+ spaces
    assert windows_of(game, 0) == {old}
    game.push(Move(SKIP, 1))
    play(game, 0, "JC", row1(8)[0])  # nine: the new five shares exactly one space
    assert windows_of(game, 0) == {old, row1(4, 5, 6, 7, 8)}


def test_nine_in_a_row_filled_in_the_middle_makes_two_sequences_at_once() -> None:
    game = seq_game(line(*row1(0, 1, 2, 3, 5, 6, 7, 8)), settings=GameSettings.create(2))
    move = Move.play(0, "JD", row1(4)[0])
    assert game.sequence_options(move) == [(row1(0, 1, 2, 3, 4), row1(4, 5, 6, 7, 8))]
    game.push(move)
    assert windows_of(game, 0) == {row1(0, 1, 2, 3, 4), row1(4, 5, 6, 7, 8)}
    assert game.status == WON and game.winner == 0  # two sequences in one move


def test_nine_in_a_row_built_from_the_end() -> None:
    old = row1(0, 1, 2, 3, 4)
    game = seq_game(line(*old, *row1(5, 6, 7)), sequences=[(0, old)])
    play(game, 0, "JD", row1(8)[0])
    assert windows_of(game, 0) == {old, row1(4, 5, 6, 7, 8)}


def test_crossing_lines_make_two_sequences_at_once() -> None:
    game = seq_game(line("A5", "B5", "C5", "D5", "E1", "E2", "E3", "E4"))
    play(game, 0, "JD", "E5")
    assert windows_of(game, 0) == {
        sps("A5", "B5", "C5", "D5", "E5"),
        sps("E1", "E2", "E3", "E4", "E5"),
    }


# ------------------------------------------------------------------------------------ the five
@pytest.mark.parametrize(
    ("columns", "placed", "firsts"),
    [
        ((0, 1, 2, 4, 5), 3, (0, 1)),  # a line of 6
        ((0, 1, 2, 4, 5, 6), 3, (0, 1, 2)),  # 7
        ((0, 1, 2, 4, 5, 6, 7), 3, (0, 1, 2, 3)),  # 8
        ((0, 1, 2, 3, 5, 6, 7), 4, (0, 1, 2, 3)),  # 8, the new chip fifth
    ],
    ids=["six", "seven", "eight", "eight-b"],
)
def test_long_lines_make_the_mover_choose(
    columns: tuple[int, ...], placed: int, firsts: tuple[int, ...]
) -> None:
    game = seq_game(line(*row1(*columns)))
    move = Move.play(0, "JD", row1(placed)[0])
    expected = [(row1(*range(first, first + 5)),) for first in firsts]
    before = game.to_dict()
    with pytest.raises(ChoiceRequired) as choice:
        game.push(move)
    assert sorted(choice.value.options) == sorted(expected)
    assert choice.value.options == game.sequence_options(move)
    assert isinstance(choice.value, IllegalMove) and "Choose" in str(choice.value)
    assert game.validate(move) is not None
    assert game.to_dict() == before
    for option in expected:
        trial = Game.from_dict(before)
        trial.push(move._replace(five=option))
        assert windows_of(trial, 0) == {option[0]}
        assert [s for s in range(100) if trial.locked[s]] == list(option[0])
        assert trial.moves[-1].five == option


def test_an_invalid_five_is_refused() -> None:
    game = seq_game(line(*row1(0, 1, 2, 4, 5)))
    for five in (
        (row1(2, 3, 4, 5, 6),),  # G2 is empty
        (row1(0, 1, 2, 3),),  # not five
        (row1(0, 1, 2, 3, 4), row1(1, 2, 3, 4, 5)),  # both: they share four spaces
        (sps("D1", "D2", "D3", "D4", "D5"),),  # another line
        (row1(1, 2, 3, 4, 5), row1(1, 2, 3, 4, 5)),  # one sequence named twice is not two
    ):
        assert_illegal(
            game,
            Move.play(0, "JD", row1(3)[0], five),  # type: ignore[arg-type]
            "not one of the sequences",
        )
    play(game, 0, "JD", row1(3)[0], five=[row1(1, 2, 3, 4, 5)])  # in any order of the five
    assert windows_of(game, 0) == {row1(1, 2, 3, 4, 5)}


def test_choosing_the_five_decides_the_shared_space() -> None:
    """Row 2 holds six; with A2-E2 locked, E2-I2 may follow; with B2-F2 locked, it may not."""
    chips = line(*row1(0, 1, 2, 4, 5, 6, 7))
    results = {}
    for chosen in (row1(0, 1, 2, 3, 4), row1(1, 2, 3, 4, 5)):
        game = seq_game({**chips, **{s: -1 for s in row1(6, 7)}})
        play(game, 0, "JD", row1(3)[0], five=[chosen])
        for column in (6, 7):
            game.push(Move(SKIP, 1))
            play(game, 0, "JC", row1(column)[0])
        game.push(Move(SKIP, 1))
        play(game, 0, "JD", row1(8)[0])  # fills I2: E2-I2 would share E2 with A2-E2 only
        results[chosen] = windows_of(game, 0)
    assert results[row1(0, 1, 2, 3, 4)] == {row1(0, 1, 2, 3, 4), row1(4, 5, 6, 7, 8)}
    assert results[row1(1, 2, 3, 4, 5)] == {row1(1, 2, 3, 4, 5)}


def test_engine_chooses_five_house_option() -> None:
    settings = GameSettings.create(2, engine_chooses_five=True, sequences_to_win=4)
    # Columns 0-5 of row 2: A2-E2 leaves F2-J2 free for a second sequence; B2-F2 leaves less.
    game = seq_game(line(*row1(0, 1, 2, 4, 5)), settings=settings)
    play(game, 0, "JD", row1(3)[0])
    assert windows_of(game, 0) == {row1(0, 1, 2, 3, 4)}
    # Columns 4-9: F2-J2 leaves A2-E2 and B2-F2 free; E2-I2 leaves only A2-E2.
    game = seq_game(line(*row1(4, 5, 6, 8, 9)), settings=settings)
    play(game, 0, "JD", row1(7)[0])
    assert windows_of(game, 0) == {row1(5, 6, 7, 8, 9)}
    # An explicit valid choice is still respected.
    game = seq_game(line(*row1(0, 1, 2, 4, 5)), settings=settings)
    play(game, 0, "JD", row1(3)[0], five=[row1(1, 2, 3, 4, 5)])
    assert windows_of(game, 0) == {row1(1, 2, 3, 4, 5)}


def test_choice_in_two_directions_at_once() -> None:
    chips = line(*row1(0, 1, 2, 4, 5), "D1", "D3", "D4", "D5")
    game = seq_game(chips)
    move = Move.play(0, "JD", sp("D2"))
    column = sps("D1", "D2", "D3", "D4", "D5")
    with pytest.raises(ChoiceRequired) as choice:
        game.push(move)
    assert sorted(map(sorted, choice.value.options)) == sorted(
        [sorted([row1(0, 1, 2, 3, 4), column]), sorted([row1(1, 2, 3, 4, 5), column])]
    )
    game.push(move._replace(five=(column, row1(1, 2, 3, 4, 5))))
    assert windows_of(game, 0) == {column, row1(1, 2, 3, 4, 5)}


# ------------------------------------------------------------------------------------ locking
def test_locked_chips_cannot_be_removed() -> None:
    game = seq_game(line("B2", "C2", "D2", "E2", "H8"))
    play(game, 0, "JD", "F2")
    for name in ("B2", "C2", "D2", "E2", "F2"):
        assert_illegal(game, Move.play(1, "JH", sp(name)), "locked")
    assert game.targets(1, "JH") == [sp("H8")]
    play(game, 1, "JH", "H8")
    assert game.chips[sp("H8")] == -1


def test_locked_chips_survive_the_round_trip() -> None:
    game = seq_game(line("B2", "C2", "D2", "E2"))
    play(game, 0, "JD", "F2")
    again = Game.from_dict(game.to_dict())
    assert again.locked == game.locked and again.sequences == game.sequences
    assert again.sequence_count(0) == 1


# ------------------------------------------------------------------------------------ winning
def _two_rows(settings: GameSettings) -> Game:
    return seq_game(
        line("B2", "C2", "D2", "E2", "B4", "C4", "D4", "E4"),
        settings=settings,
    )


def _second_turn(game: Game) -> None:
    while game.turn != 0:
        game.push(Move(SKIP, game.turn))


def test_two_teams_win_with_two_sequences() -> None:
    game = _two_rows(GameSettings.create(2))
    play(game, 0, "JD", "F2")
    assert game.status == ACTIVE and game.sequence_count(0) == 1
    _second_turn(game)
    play(game, 0, "JC", "F4")
    assert game.status == WON and game.winner == 0 and "2 sequences" in end_reason(game.outcome)
    assert game.legal_moves == []


def test_three_teams_win_with_one_sequence() -> None:
    game = _two_rows(GameSettings.create(3))
    play(game, 0, "JD", "F2")
    assert game.status == WON and game.winner == 0


@pytest.mark.parametrize(
    ("settings", "needed"),
    [
        (GameSettings.create(2, sequences_to_win=1), 1),
        (GameSettings.create(3, sequences_to_win=2), 2),
        (GameSettings.create(2, preset="convoy"), 3),
        (GameSettings.create(4, sequences_to_win=3), 3),
    ],
)
def test_sequences_to_win_override(settings: GameSettings, needed: int) -> None:
    game = seq_game(
        line("B2", "C2", "D2", "E2", "B4", "C4", "D4", "E4", "B6", "C6", "D6", "E6"),
        settings=settings,
        hands={0: JACKS},
    )
    for made, (card, name) in enumerate((("JD", "F2"), ("JC", "F4"), ("JD", "F6")), start=1):
        play(game, 0, card, name)
        assert game.sequence_count(0) == made
        assert (game.status == WON) is (made >= needed)
        if game.is_over():
            assert game.winner == 0
            return
        _second_turn(game)
    pytest.fail("no win")
