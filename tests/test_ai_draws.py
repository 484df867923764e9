"""Draw offers by computer players: accept only when not ahead; offer only in endless play and
when not clearly winning."""

from __future__ import annotations

import pytest

from bot.game import Game, GameSettings, player_view, public_view
from bot.game.ai import accepts_draw, offers_draw
from bot.game.sequences import EMPTY
from tests.helpers.positions import random_position, with_state

ROW_9 = [81, 82, 83, 84, 85]  # B9..F9


def board(seed: int, lines: dict[int, list[int]], sequences: list[int]) -> Game:
    """A 2-player game with only the chips of ``lines`` (team -> spaces) on the board, and a
    completed sequence on them for each team in ``sequences``."""
    game = Game.new(GameSettings.create(2), seed)
    chips = [EMPTY if c >= 0 else c for c in game.chips]
    for team, spaces in lines.items():
        for space in spaces:
            chips[space] = team
    done = [[team, lines[team]] for team in sequences]
    return with_state(game, chips=chips, sequences=done)


def seat_of(game: Game, team: int) -> int:
    return next(s for s in range(game.settings.players) if game.team_of(s) == team)


def test_level_board_accepts_and_offers_only_when_endless() -> None:
    game = Game.new(GameSettings.create(2), 1)
    for seat in (0, 1):
        view = player_view(game, seat)
        assert accepts_draw(view)
        assert offers_draw(view, endless=True)
        assert not offers_draw(view, endless=False)


def test_ahead_by_a_sequence_refuses_and_does_not_offer() -> None:
    game = board(2, {0: ROW_9, 1: [11, 12]}, sequences=[0])
    ahead, behind = player_view(game, seat_of(game, 0)), player_view(game, seat_of(game, 1))
    assert not accepts_draw(ahead)
    assert not offers_draw(ahead, endless=True)
    assert accepts_draw(behind)
    assert offers_draw(behind, endless=True)
    assert not offers_draw(behind, endless=False)


def test_a_small_lead_refuses_but_still_offers_when_endless() -> None:
    game = board(3, {0: [11, 12, 13], 1: [81]}, sequences=[])
    ahead = player_view(game, seat_of(game, 0))
    assert not accepts_draw(ahead)
    assert offers_draw(ahead, endless=True)
    assert accepts_draw(player_view(game, seat_of(game, 1)))


@pytest.mark.parametrize("preset", ["classic", "convoy"])
def test_never_both_sides_ahead(preset: str) -> None:
    for seed in range(20):
        game = random_position(2, preset, seed)
        views = [player_view(game, seat) for seat in (0, 1)]
        assert any(accepts_draw(view) for view in views)


def test_public_view_is_refused() -> None:
    game = Game.new(GameSettings.create(2), 4)
    with pytest.raises(ValueError):
        accepts_draw(public_view(game))
    with pytest.raises(ValueError):
        offers_draw(public_view(game), endless=True)
