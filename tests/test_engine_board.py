"""The static parts of the engine: layout, spaces, cards, settings, the cut and the deal."""

from __future__ import annotations

from collections import Counter

import pytest

from bot.game import (
    CARD_SPACES,
    CORNER,
    CORNERS,
    EMPTY,
    LAYOUT,
    CardError,
    Game,
    GameSettings,
    SettingsError,
    SpaceError,
    card_label,
    card_name,
    full_deck,
    is_one_eyed,
    is_two_eyed,
    parse_card,
    parse_space,
    space_name,
)
from bot.game.cards import RANKS
from tests.engine_helpers import FULL_DECK, all_cards, card_total

# The layout exactly as RULES.md prints it (row 0 at the top), copied independently of the engine.
RULES_LAYOUT = """
XX 2S 3S 4S 5S 6S 7S 8S 9S XX
6C 5C 4C 3C 2C AH KH QH TH TS
7C AS 2D 3D 4D 5D 6D 7D 9H QS
8C KS 6C 5C 4C 3C 2C 8D 8H KS
9C QS 7C 6H 5H 4H AH 9D 7H AS
TC TS 8C 7H 2H 3H KH TD 6H 2D
QC 9S 9C 8H 9H TH QH QD 5H 3D
KC 8S TC QC KC AC AD KD 4H 4D
AC 7S 6S 5S 4S 3S 2S 2H 3H 5D
XX AD KD QD TD 9D 8D 7D 6D XX
"""

ALL_COUNTS = (2, 3, 4, 6, 8, 9, 10, 12)
CONVOY_COUNTS = (2, 4, 6, 8)


# ------------------------------------------------------------------------------------ layout
def test_layout_is_exactly_the_rules_layout() -> None:
    expected = tuple(tuple(line.split()) for line in RULES_LAYOUT.strip().splitlines())
    assert expected == LAYOUT
    assert isinstance(LAYOUT, tuple) and all(isinstance(row, tuple) for row in LAYOUT)
    assert len(LAYOUT) == 10 and all(len(row) == 10 for row in LAYOUT)


@pytest.mark.parametrize(
    ("row", "column", "code"),
    [(0, 0, "XX"), (0, 9, "XX"), (9, 0, "XX"), (9, 9, "XX"), (0, 1, "2S"), (1, 0, "6C"),
     (1, 9, "TS"), (2, 1, "AS"), (4, 4, "5H"), (5, 3, "7H"), (7, 5, "AC"), (8, 9, "5D"),
     (9, 1, "AD"), (9, 8, "6D")],
)  # fmt: skip
def test_layout_cells(row: int, column: int, code: str) -> None:
    assert LAYOUT[row][column] == code


def test_every_non_jack_card_twice_and_no_jack() -> None:
    counts = Counter(code for row in LAYOUT for code in row)
    assert counts.pop("XX") == 4
    non_jacks = {rank + suit for rank in RANKS if rank != "J" for suit in "SHDC"}
    assert set(counts) == non_jacks and len(non_jacks) == 48
    assert all(n == 2 for n in counts.values())
    assert not any(code.startswith("J") for code in counts)


def test_card_spaces_and_corners() -> None:
    assert {0, 9, 90, 99} == CORNERS
    assert len(CARD_SPACES) == 48
    assert CARD_SPACES["2S"] == (1, 86)
    for card, (a, b) in CARD_SPACES.items():
        assert a < b
        assert LAYOUT[a // 10][a % 10] == card == LAYOUT[b // 10][b % 10]
    covered = sorted(s for spaces in CARD_SPACES.values() for s in spaces)
    assert covered == [s for s in range(100) if s not in CORNERS]


def test_new_game_board_has_corners_and_nothing_else() -> None:
    game = Game.new(GameSettings.create(2), 3)
    assert [s for s, c in enumerate(game.chips) if c == CORNER] == sorted(CORNERS)
    assert all(c == EMPTY for s, c in enumerate(game.chips) if s not in CORNERS)
    assert not any(game.locked) and game.sequences == []


# ------------------------------------------------------------------------------------ spaces
@pytest.mark.parametrize(
    ("text", "space"),
    [("A1", 0), ("a1", 0), ("J1", 9), ("A10", 90), ("j10", 99), ("C4", 32), ("c4", 32),
     ("B2", 11), (" e5 ", 44), ("D10", 93)],
)  # fmt: skip
def test_parse_space(text: str, space: int) -> None:
    assert parse_space(text) == space


def test_space_names_round_trip_every_space() -> None:
    for space in range(100):
        name = space_name(space)
        assert parse_space(name) == space
        assert parse_space(name.lower()) == space
    assert space_name(0) == "A1" and space_name(99) == "J10" and space_name(32) == "C4"


@pytest.mark.parametrize(
    "text", ["", " ", "A", "1", "10", "K1", "A0", "A11", "J0", "1A", "AA1", "A1B", "A-1", "A1.0",
             "Z9", "C44", "♠1"],
)  # fmt: skip
def test_bad_space_names_are_refused_clearly(text: str) -> None:
    with pytest.raises(SpaceError) as error:
        parse_space(text)
    message = str(error.value)
    assert repr(text) in message and "A-J" in message and "1-10" in message
    assert isinstance(error.value, ValueError)


# ------------------------------------------------------------------------------------ cards
@pytest.mark.parametrize(
    ("text", "card"),
    [("7S", "7S"), ("7s", "7S"), ("10h", "TH"), ("10H", "TH"), ("th", "TH"), ("t♥", "TH"),
     ("qd", "QD"), ("j♣", "JC"), ("A♠", "AS"), (" kc ", "KC"), ("2♦", "2D"), ("JH", "JH")],
)  # fmt: skip
def test_parse_card(text: str, card: str) -> None:
    assert parse_card(text) == card


@pytest.mark.parametrize("text", ["", "7", "S", "1H", "11H", "7X", "XX", "JOKER", "ZZ", "7S7"])
def test_bad_cards_are_refused_clearly(text: str) -> None:
    with pytest.raises(CardError, match="is not a card"):
        parse_card(text)


def test_full_deck_and_jacks() -> None:
    deck = full_deck()
    assert len(deck) == 104
    assert Counter(deck) == Counter({card: 2 for card in set(deck)}) and len(set(deck)) == 52
    assert sorted(c for c in deck if is_two_eyed(c)) == ["JC", "JC", "JD", "JD"]
    assert sorted(c for c in deck if is_one_eyed(c)) == ["JH", "JH", "JS", "JS"]
    assert not any(is_one_eyed(c) or is_two_eyed(c) for c in deck if c[0] != "J")


def test_card_labels_and_names() -> None:
    assert card_label("TH") == "10♥" and card_label("JC") == "J♣" and card_label("AS") == "A♠"
    assert card_name("QD") == "Queen of diamonds"
    assert "wild" in card_name("JD") and "two-eyed" in card_name("JC")
    assert "removes" in card_name("JS") and "one-eyed" in card_name("JH")


# ------------------------------------------------------------------------------------ settings
@pytest.mark.parametrize(
    ("players", "teams", "hand_size", "to_win"),
    [(2, 2, 7, 2), (3, 3, 6, 1), (4, 2, 6, 2), (6, 3, 5, 1), (8, 2, 4, 2), (9, 3, 4, 1),
     (10, 2, 3, 2), (12, 2, 3, 2)],
)  # fmt: skip
def test_classic_settings(players: int, teams: int, hand_size: int, to_win: int) -> None:
    settings = GameSettings.create(players)
    assert (settings.players, settings.teams, settings.preset) == (players, teams, "classic")
    assert settings.hand_size == hand_size
    assert settings.sequences_to_win == to_win
    assert not settings.convoy
    assert not (settings.engine_chooses_five or settings.manual_draw or settings.small_hands)


@pytest.mark.parametrize("players", [0, 1, 5, 7, 11, 13, 14, -2])
def test_refused_player_counts(players: int) -> None:
    with pytest.raises(SettingsError) as error:
        GameSettings.create(players)
    message = str(error.value)
    noun = "player" if players == 1 else "players"
    assert f"{players} {noun}:" in message and "2, 3, 4, 6, 8, 9, 10, 12" in message


@pytest.mark.parametrize(
    ("players", "teams"), [(6, 2), (12, 3), (12, 2), (8, 2), (10, 2), (9, 3), (4, 2)]
)
def test_chosen_team_counts(players: int, teams: int) -> None:
    settings = GameSettings.create(players, teams)
    assert settings.teams == teams
    assert settings.sequences_to_win == (2 if teams == 2 else 1)


@pytest.mark.parametrize(
    ("players", "teams", "reason"),
    [(4, 3, "cannot form 3 equal teams"), (8, 3, "cannot form 3 equal teams"),
     (9, 2, "cannot form 2 equal teams"), (10, 3, "equal teams"), (3, 2, "equal teams"),
     (2, 3, "equal teams"), (4, 4, "2 or 3 teams"), (12, 4, "2 or 3 teams"),
     (6, 6, "2 or 3 teams"), (6, 1, "2 or 3 teams"), (2, 1, "2 or 3 teams")],
)  # fmt: skip
def test_refused_team_counts(players: int, teams: int, reason: str) -> None:
    with pytest.raises(SettingsError, match=reason):
        GameSettings.create(players, teams)


@pytest.mark.parametrize("players", ALL_COUNTS)
def test_seating_alternates_teams(players: int) -> None:
    settings = GameSettings.create(players)
    teams = settings.teams
    assert [settings.team_of(s) for s in range(players)] == [s % teams for s in range(players)]
    seats = [settings.seats_of(team) for team in range(teams)]
    assert sorted(s for group in seats for s in group) == list(range(players))
    assert len({len(group) for group in seats}) == 1  # equal teams
    game = Game.new(settings, 1)
    assert all(game.team_of(s) == settings.team_of(s) for s in range(players))


def test_up_to_three_players_play_individually() -> None:
    assert GameSettings.create(2).teams == 2
    assert GameSettings.create(3).teams == 3
    assert GameSettings.create(3).seats_of(1) == [1]


def test_small_hands_house_option() -> None:
    for players in (10, 12):
        assert GameSettings.create(players).hand_size == 3
        assert GameSettings.create(players, small_hands=True).hand_size == 2
    for players in (2, 3, 4, 6, 8, 9):  # other counts are not affected
        assert (
            GameSettings.create(players, small_hands=True).hand_size
            == GameSettings.create(players).hand_size
        )


@pytest.mark.parametrize("players", CONVOY_COUNTS)
def test_convoy_preset(players: int) -> None:
    settings = GameSettings.create(players, preset="convoy")
    assert settings.convoy and settings.preset == "convoy"
    assert settings.hand_size == 5
    assert settings.sequences_to_win == 3
    assert settings.players % settings.teams == 0


@pytest.mark.parametrize("players", [3, 9, 10, 12, 5])
def test_convoy_refuses_other_counts(players: int) -> None:
    with pytest.raises(SettingsError, match=r"Convoy .* 2, 4, 6, 8 players"):
        GameSettings.create(players, preset="convoy")


def test_unknown_preset() -> None:
    with pytest.raises(SettingsError, match="classic or convoy"):
        GameSettings.create(2, preset="speed")


@pytest.mark.parametrize("to_win", [1, 2, 3, 4])
def test_sequences_to_win_house_option(to_win: int) -> None:
    assert GameSettings.create(2, sequences_to_win=to_win).sequences_to_win == to_win
    assert GameSettings.create(3, sequences_to_win=to_win).sequences_to_win == to_win
    assert (
        GameSettings.create(4, preset="convoy", sequences_to_win=to_win).sequences_to_win == to_win
    )


@pytest.mark.parametrize("to_win", [0, 5, -1])
def test_sequences_to_win_out_of_range(to_win: int) -> None:
    with pytest.raises(SettingsError, match="1 to 4"):
        GameSettings.create(2, sequences_to_win=to_win)


def test_settings_round_trip() -> None:
    for settings in (
        GameSettings.create(2),
        GameSettings.create(12, 3, small_hands=True, manual_draw=True),
        GameSettings.create(6, 2, preset="convoy", engine_chooses_five=True, sequences_to_win=1),
    ):
        assert GameSettings.from_dict(settings.to_dict()) == settings
    with pytest.raises(SettingsError, match="Unknown setting"):
        GameSettings.from_dict({**GameSettings.create(2).to_dict(), "jokers": True})
    with pytest.raises(SettingsError):
        GameSettings.from_dict({**GameSettings.create(2).to_dict(), "players": 5})


# ------------------------------------------------------------------------------------ deal, cut
@pytest.mark.parametrize(
    ("players", "preset", "small", "size"),
    [(2, "classic", False, 7), (3, "classic", False, 6), (4, "classic", False, 6),
     (6, "classic", False, 5), (8, "classic", False, 4), (9, "classic", False, 4),
     (10, "classic", False, 3), (12, "classic", False, 3), (10, "classic", True, 2),
     (12, "classic", True, 2), (2, "convoy", False, 5), (4, "convoy", False, 5),
     (6, "convoy", False, 5), (8, "convoy", False, 5)],
)  # fmt: skip
def test_the_deal(players: int, preset: str, small: bool, size: int) -> None:
    settings = GameSettings.create(players, preset=preset, small_hands=small)
    for seed in range(5):
        game = Game.new(settings, seed)
        assert [len(hand) for hand in game.hands] == [size] * players
        assert len(game.deck) == 104 - size * players
        assert game.discards == [[] for _ in range(players)]
        assert card_total(game) == 104 and all_cards(game) == FULL_DECK
        assert game.turn_number == 0 and not game.dead_card_used


def test_the_deal_depends_on_the_seed_only() -> None:
    settings = GameSettings.create(4)
    assert Game.new(settings, 7) == Game.new(settings, 7)
    assert Game.new(settings, 7).hands != Game.new(settings, 8).hands


@pytest.mark.parametrize(("preset", "counts"), [("classic", ALL_COUNTS), ("convoy", CONVOY_COUNTS)])
def test_the_cut(preset: str, counts: tuple[int, ...]) -> None:
    """Lowest card deals (convoy: highest), aces high; the player after the dealer starts."""
    value = {rank: n for n, rank in enumerate(RANKS)}
    dealers = set()
    for players in counts:
        settings = GameSettings.create(players, preset=preset)
        for seed in range(40):
            game = Game.new(settings, seed)
            assert len(game.cut) == players
            assert all(card in FULL_DECK for card in game.cut)
            values = [value[card[0]] for card in game.cut]
            best = max(values) if preset == "convoy" else min(values)
            assert values[game.dealer] == best  # ties cut again among the tied players
            assert game.turn == (game.dealer + 1) % players
            dealers.add(game.dealer)
    assert len(dealers) > 2  # the dealer is not always the same seat


@pytest.mark.parametrize(("preset", "dealer_rank"), [("classic", "2"), ("convoy", "A")])
def test_aces_are_high_in_the_cut(preset: str, dealer_rank: str) -> None:
    for seed in range(500):
        game = Game.new(GameSettings.create(2, preset=preset), seed)
        if sorted(card[0] for card in game.cut) == ["2", "A"]:
            assert game.cut[game.dealer][0] == dealer_rank
            return
    pytest.fail("no cut of an ace against a two in 500 seeds")
