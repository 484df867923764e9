"""Every eye: team chips and the hand's marks stay distinct under simulated colour blindness.

Chips are read off the posted board and a replay frame (half size), as they are encoded; the
hand's marks are the pixels the hand image changes on the board. Colours are compared as seen
with deuteranopia, protanopia and tritanopia (Machado 2009) and normal vision, in CIEDE2000.
"""

from __future__ import annotations

import io
from dataclasses import replace
from itertools import combinations

import pytest
from PIL import Image

from bot.game import player_view, public_view
from bot.game.view import PlayerView
from render.board import render_board, render_hand
from render.encode import to_palette
from render.handrow import hand_marks
from render.layout import BODY_Y, CHIP_D, HEADER_H, cell_box, centre
from render.replay import SHRINK, frame
from render.samples import midgame, sample_names
from tests.cvd import MACHADO, VISIONS, delta_e_lab, lab, simulate, simulated_delta_e

RGB = tuple[int, int, int]

#: Colours at least this far apart (CIEDE2000) are told apart at a glance.
CLEAR = 20.0
#: Of a chip's face around its letter, the least share that must differ clearly between teams.
MIN_APART = 0.3
#: ... and the least share that must differ in lightness alone (any vision, even none).
MIN_LIGHTNESS_APART = 0.2


def _open(data: bytes) -> Image.Image:
    return Image.open(io.BytesIO(data)).convert("RGB")


@pytest.fixture(scope="module")
def three_teams() -> PlayerView:
    return public_view(midgame(3))


def _chip_spaces(view: PlayerView) -> dict[int, int]:
    """A plain chip of each team: not locked, not the last change."""
    changed = view.last_change[1] if view.last_change else None
    spaces: dict[int, int] = {}
    for space, team in enumerate(view.chips):
        if team >= 0 and not view.locked[space] and space != changed:
            spaces.setdefault(team, space)
    return spaces


def _face(image: Image.Image, x: float, y: float, radius: float) -> list[RGB]:
    """The pixels of a chip's face around its letter: from 0.45 to 0.95 of its radius."""
    pixels = image.load()
    face = []
    for py in range(int(y - radius), int(y + radius) + 1):
        for px in range(int(x - radius), int(x + radius) + 1):
            distance = ((px - x) ** 2 + (py - y) ** 2) ** 0.5
            if 0.45 * radius <= distance <= 0.95 * radius:
                face.append(pixels[px, py])
    return face


def _board_faces(view: PlayerView) -> dict[int, list[RGB]]:
    image = _open(render_board(view, sample_names(3)))
    faces = {}
    for team, space in _chip_spaces(view).items():
        x, y = centre(space)  # a chip's centre lies between pixels: pixel x-1 ends at x
        faces[team] = _face(image, x - 0.5, y - 0.5, CHIP_D / 2)
    return faces


def _replay_faces(view: PlayerView) -> dict[int, list[RGB]]:
    image = to_palette(frame(view, sample_names(3), 10, 10)).convert("RGB")
    faces = {}
    for team, space in _chip_spaces(view).items():
        x, y = centre(space)
        fx, fy = x / SHRINK - 0.5, (y - HEADER_H) / SHRINK - 0.5
        faces[team] = _face(image, fx, fy, CHIP_D / 2 / SHRINK)
    return faces


def _apart(first: list[RGB], second: list[RGB], vision: str) -> tuple[float, float]:
    """Shares of matching pixels that differ clearly, and that differ in lightness alone."""
    clear = light = 0
    for a, b in zip(first, second, strict=True):
        sa, sb = simulate(a, vision), simulate(b, vision)
        clear += delta_e_lab(lab(sa), lab(sb)) >= CLEAR
        light += abs(lab(sa)[0] - lab(sb)[0]) >= CLEAR
    return clear / len(first), light / len(first)


def chip_margins(view: PlayerView) -> dict[tuple[str, str, int, int], tuple[float, float]]:
    """For each size, vision and pair of teams, the two shares of :func:`_apart`."""
    margins = {}
    for size, faces in (("board", _board_faces(view)), ("replay", _replay_faces(view))):
        assert sorted(faces) == [0, 1, 2]
        for vision in VISIONS:
            for a, b in combinations(range(3), 2):
                margins[size, vision, a, b] = _apart(faces[a], faces[b], vision)
    return margins


def test_cvd_helpers_match_published_values() -> None:
    # CIEDE2000 test pairs 1, 7, 17 and 25 of Sharma, Wu and Dalal (2005).
    pairs = (
        ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
        ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
        ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
        ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
    )
    for first, second, expected in pairs:
        assert delta_e_lab(first, second) == pytest.approx(expected, abs=1e-4)
    # Machado's matrices keep greys grey (each row sums to 1)...
    for vision in MACHADO:
        assert simulate((128, 128, 128), vision) == (128, 128, 128)
    # ... and reproduce the complaint: pure-hue red and green chips turn alike for a deuteranope.
    green, red = (31, 158, 84), (214, 52, 52)
    assert simulated_delta_e(green, red, "normal") > 60
    assert simulated_delta_e(green, red, "deuteranopia") < 10


def test_team_chips_differ_by_more_than_hue(three_teams: PlayerView) -> None:
    for (size, vision, a, b), (clear, light) in chip_margins(three_teams).items():
        where = f"{size} {vision}: teams {a} and {b}: {clear:.2f} clear, {light:.2f} lightness"
        assert clear >= MIN_APART, where
        assert light >= MIN_LIGHTNESS_APART, where


def _mark_pixels(before: Image.Image, after: Image.Image, space: int) -> list[tuple[RGB, RGB]]:
    """The pixels of a space's cell the hand image changed: (board colour, marked colour)."""
    left, top, right, bottom = cell_box(space)
    old, new = before.load(), after.load()
    return [
        (old[x, y], new[x, y])
        for y in range(top, bottom)
        for x in range(left, right)
        if old[x, y] != new[x, y]
    ]


#: The least pixels of each mark that must stand out clearly from the board beneath.
MIN_MARK_PIXELS = {"numbered": 800, "wild": 100, "remove": 400}


def hand_mark_margins(view: PlayerView) -> dict[tuple[str, str], int]:
    """For each kind of mark and vision, the fewest clearly visible pixels of any one mark."""
    board = _open(render_board(replace(view, hand=None, seat=None), sample_names(3)))
    hand = _open(render_hand(view, sample_names(3)))
    assert board.crop((0, HEADER_H, board.width, BODY_Y)) != hand.crop(
        (0, HEADER_H, hand.width, BODY_Y)
    )
    marks = hand_marks(view)
    kinds = {"numbered": set(marks.numbered), "wild": marks.wild, "remove": marks.remove}
    fewest = {}
    for kind, spaces in kinds.items():
        assert spaces, kind
        changed = {space: _mark_pixels(board, hand, space) for space in spaces}
        for vision in VISIONS:
            fewest[kind, vision] = min(
                sum(simulated_delta_e(a, b, vision) >= CLEAR for a, b in pixels)
                for pixels in changed.values()
            )
    return fewest


def test_hand_marks_stay_visible_under_every_vision() -> None:
    game = midgame(3)
    view = replace(player_view(game, game.turn), hand=("7C", "2S", "JD", "JH"))
    for (kind, vision), count in hand_mark_margins(view).items():
        assert count >= MIN_MARK_PIXELS[kind], (kind, vision, count)
