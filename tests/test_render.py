"""The board renderer: sizes, chips where they are, marks where they belong, determinism."""

from __future__ import annotations

import io
from dataclasses import replace
from importlib import resources
from itertools import pairwise

import pytest
from PIL import Image

from bot.game import GameSettings, Move, player_view, public_view
from bot.game.board import CARD_SPACES
from bot.game.cards import is_red
from bot.game.sequences import EMPTY
from render import TEAM_COLOUR_VALUES, TEAM_COLOURS, TEAM_NAMES
from render.board import render_board, render_hand
from render.caching import clear_caches
from render.handrow import hand_marks
from render.layout import (
    CELL,
    board_image_size,
    cell_box,
    centre,
    hand_card_boxes,
    hand_image_size,
)
from render.replay import render_replay_gif
from render.samples import midgame, random_game, sample_names
from render.theme import CARD, GOLD_LIGHT, HIGHLIGHT, TARGET

RGB = tuple[int, int, int]


def _open(data: bytes) -> Image.Image:
    return Image.open(io.BytesIO(data)).convert("RGB")


def _close(colour: RGB, expected: RGB, tolerance: int = 24) -> bool:
    return max(abs(a - b) for a, b in zip(colour, expected, strict=True)) <= tolerance


def _chip_probes(image: Image.Image, space: int) -> list[RGB]:
    """Four points on a chip's face, clear of its letter."""
    x, y = centre(space)
    return [image.getpixel((x + dx, y + dy)) for dx, dy in ((18, 0), (-18, 0), (0, 18), (0, -18))]


@pytest.fixture(scope="module")
def game():
    return midgame(2)


@pytest.fixture(scope="module")
def board(game) -> Image.Image:
    return _open(render_board(public_view(game), sample_names(2)))


def test_board_image_size(game, board) -> None:
    assert board.size == board_image_size(2, 2)
    twelve = random_game(GameSettings.create(12, 3), 2, plays=20)
    image = _open(render_board(public_view(twelve), sample_names(12)))
    assert image.size == board_image_size(12, 3)
    assert image.height > board.height


def test_chips_in_team_colours_and_none_on_empty_spaces(game, board) -> None:
    assert sum(1 for chip in game.chips if chip >= 0) >= 40
    for space, team in enumerate(game.chips):
        probes = _chip_probes(board, space)
        if team >= 0:
            assert all(_close(p, TEAM_COLOURS[team]) for p in probes), (space, probes)
        else:
            for colour in TEAM_COLOURS:
                assert not all(_close(p, colour) for p in probes), (space, probes)


def test_locked_chips_wear_a_gold_ring(game, board) -> None:
    locked = [space for space in range(100) if game.locked[space]]
    assert len(locked) == 10
    for space in range(100):
        x, y = centre(space)
        ring = board.getpixel((x + 35, y))
        if game.locked[space]:
            assert _close(ring, GOLD_LIGHT, 40), space
        elif game.chips[space] >= 0:
            assert not _close(ring, GOLD_LIGHT, 40), space


def test_sequence_line_joins_its_spaces(game, board) -> None:
    for _, window in game.sequences:
        for a, b in pairwise(window):
            (xa, ya), (xb, yb) = centre(a), centre(b)
            midpoint = board.getpixel(((xa + xb) // 2, (ya + yb) // 2))
            assert not _close(midpoint, CARD, 30), (a, b, midpoint)


def _frame_probe(image: Image.Image, space: int) -> RGB:
    """A point on the left edge of a space's card, where the last-move frame is drawn."""
    x0, y0, _, _ = cell_box(space)
    return image.getpixel((x0 + 4, y0 + CELL // 2))


def test_last_move_frame_only_on_the_changed_space(game, board) -> None:
    kind, changed = game.last_change
    assert kind == "placed"
    lit = [s for s in range(100) if _close(_frame_probe(board, s), HIGHLIGHT, 20)]
    assert lit == [changed]


def test_removed_chip_leaves_a_ghost_mark(game) -> None:
    view = public_view(game)
    space = next(s for s in range(100) if view.chips[s] >= 0 and not view.locked[s])
    chips = list(view.chips)
    chips[space] = EMPTY
    removed = replace(view, chips=tuple(chips), last_change=("removed", space))
    image = _open(render_board(removed, sample_names(2)))
    assert _close(_frame_probe(image, space), HIGHLIGHT, 20)
    assert _close(image.getpixel(centre(space)), HIGHLIGHT, 30)


def test_finished_game_renders_its_result() -> None:
    game = random_game(GameSettings.create(2), 11)
    assert game.status == "won"
    image = _open(render_board(public_view(game), sample_names(2)))
    # The header's big chip is the winner's.
    assert _close(image.getpixel((52 + 18, 54)), TEAM_COLOURS[game.winner])


def test_hand_image_shows_exactly_the_hand(game) -> None:
    view = player_view(game, game.turn)
    image = _open(render_hand(view, sample_names(2)))
    assert image.size == hand_image_size()
    boxes = hand_card_boxes(len(view.hand))
    for card, (left, top, right, bottom) in zip(view.hand, boxes, strict=True):
        assert _close(image.getpixel((left + 6, (top + bottom) // 2)), CARD, 12), card
        assert (_red_pixels(image.crop((left, top, right, bottom))) > 200) == is_red(card), card
    middle = (boxes[0][1] + boxes[0][3]) // 2
    three = _open(render_hand(replace(view, hand=view.hand[:3]), sample_names(2)))
    for left, _, _, _ in hand_card_boxes(3):
        assert _close(three.getpixel((left + 6, middle)), CARD, 12)
    for left, _, right, _ in (boxes[0], boxes[-1]):
        assert not _close(three.getpixel(((left + right) // 2, middle)), CARD, 30)


def _red_pixels(image: Image.Image) -> int:
    data = image.tobytes()
    return sum(
        1 for i in range(0, len(data), 3) if data[i] > 150 and data[i + 1] < 80 and data[i + 2] < 90
    )


def test_hand_image_marks_playable_spaces(game) -> None:
    view = player_view(game, game.turn)
    view = replace(view, hand=("7C", "JH", "2S"))
    marks = hand_marks(view)
    team = view.team_of(view.seat)
    expected = {s for card in ("7C", "2S") for s in CARD_SPACES[card] if view.chips[s] == EMPTY}
    assert set(marks.numbered) == expected
    assert marks.remove == {
        s for s in range(100) if view.chips[s] >= 0 and view.chips[s] != team and not view.locked[s]
    }
    image = _open(render_hand(view, sample_names(2)))
    for space in range(100):
        x0, y0, _, _ = cell_box(space)
        edge = image.getpixel((x0 + 6, y0 + CELL // 2))
        assert _close(edge, TARGET, 20) == (space in expected), space


def test_render_hand_needs_a_hand(game) -> None:
    with pytest.raises(ValueError):
        render_hand(public_view(game), sample_names(2))


def test_same_input_same_bytes(game) -> None:
    view, names = public_view(game), sample_names(2)
    first = render_board(view, names)
    assert render_board(view, names) == first
    clear_caches()
    assert render_board(view, names) == first
    assert len(first) < 300_000


def test_replay_gif_one_frame_per_play_and_small() -> None:
    settings = GameSettings.create(2)
    game = random_game(settings, 11, plays=25)
    moves = [move.to_dict() for move in game.moves]
    data = render_replay_gif(settings, 11, moves, sample_names(2))
    again = render_replay_gif(settings, 11, [Move.from_dict(m) for m in moves], sample_names(2))
    assert again == data
    gif = Image.open(io.BytesIO(data))
    assert gif.format == "GIF"
    assert gif.n_frames == sum(1 for move in game.moves if move.kind == "play")
    assert len(data) < 25 * 20_000


def test_fonts_and_licence_ship_with_the_package() -> None:
    folder = resources.files("render").joinpath("fonts")
    names = {entry.name for entry in folder.iterdir()}
    assert {"DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "LICENSE.txt"} <= names


def test_team_identity_in_one_place() -> None:
    assert TEAM_NAMES == ("Blue", "Green", "Red")
    assert (
        TEAM_COLOUR_VALUES[0]
        == (TEAM_COLOURS[0][0] << 16) | (TEAM_COLOURS[0][1] << 8) | (TEAM_COLOURS[0][2])
    )
