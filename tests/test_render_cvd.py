"""Every eye: team chips and the hand's marks stay distinct under simulated colour blindness.

Chips are read off the posted board and a replay frame (half size), as they are encoded; the
hand's marks are the pixels the hand image changes on the board. Colours are compared as seen
with deuteranopia, protanopia and tritanopia and normal vision, in CIEDE2000.

Simulation: Machado, Oliveira and Fernandes (2009), "A Physiologically-based Model for
Simulation of Color Vision Deficiency", severity 1.0 matrices, applied in linear RGB.
Difference: CIEDE2000 (Sharma, Wu and Dalal 2005) between CIELAB colours (sRGB, D65).
"""

from __future__ import annotations

import functools
import io
import math
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

RGB = tuple[int, int, int]
Matrix = tuple[tuple[float, float, float], ...]

MACHADO: dict[str, Matrix] = {
    "protanopia": (
        (0.152286, 1.052583, -0.204868),
        (0.114503, 0.786281, 0.099216),
        (-0.003882, -0.048116, 1.051998),
    ),
    "deuteranopia": (
        (0.367322, 0.860646, -0.227968),
        (0.280085, 0.672501, 0.047413),
        (-0.011820, 0.042940, 0.968881),
    ),
    "tritanopia": (
        (1.255528, -0.076749, -0.178779),
        (-0.078411, 0.930809, 0.147602),
        (0.004733, 0.691367, 0.303900),
    ),
}
#: Every simulated vision, and normal vision, by name.
VISIONS = ("normal", *MACHADO)


def _linear(channel: int) -> float:
    c = channel / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _encoded(value: float) -> int:
    value = min(max(value, 0.0), 1.0)
    c = value * 12.92 if value <= 0.0031308 else 1.055 * value ** (1 / 2.4) - 0.055
    return round(c * 255)


@functools.cache
def simulate(colour: RGB, vision: str) -> RGB:
    """How ``colour`` looks with ``vision`` (``"normal"`` leaves it as it is)."""
    if vision == "normal":
        return colour
    linear = [_linear(c) for c in colour]
    rows = MACHADO[vision]
    simulated = (sum(m * c for m, c in zip(row, linear, strict=True)) for row in rows)
    return tuple(_encoded(value) for value in simulated)  # type: ignore[return-value]


@functools.cache
def lab(colour: RGB) -> tuple[float, float, float]:
    """CIELAB (D65) of an sRGB colour."""
    r, g, b = (_linear(c) for c in colour)
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

    fx, fy, fz = f(x), f(y), f(z)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


@functools.cache
def delta_e(first: RGB, second: RGB) -> float:
    """CIEDE2000 colour difference between two sRGB colours."""
    return delta_e_lab(lab(first), lab(second))


def delta_e_lab(first: tuple[float, float, float], second: tuple[float, float, float]) -> float:
    """CIEDE2000 colour difference between two CIELAB colours (Sharma, Wu, Dalal 2005)."""
    l1, a1, b1 = first
    l2, a2, b2 = second
    c1, c2 = math.hypot(a1, b1), math.hypot(a2, b2)
    c_mean = (c1 + c2) / 2
    g = 0.5 * (1 - math.sqrt(c_mean**7 / (c_mean**7 + 25**7)))
    a1p, a2p = a1 * (1 + g), a2 * (1 + g)
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360
    h2p = math.degrees(math.atan2(b2, a2p)) % 360
    dl, dc = l2 - l1, c2p - c1p
    if c1p * c2p == 0:
        dh = 0.0
    elif abs(h2p - h1p) <= 180:
        dh = h2p - h1p
    else:
        dh = h2p - h1p - 360 if h2p > h1p else h2p - h1p + 360
    dh_big = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh / 2))
    l_mean, cp_mean = (l1 + l2) / 2, (c1p + c2p) / 2
    if c1p * c2p == 0:
        h_mean = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        h_mean = (h1p + h2p) / 2
    else:
        h_mean = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (
        1
        - 0.17 * math.cos(math.radians(h_mean - 30))
        + 0.24 * math.cos(math.radians(2 * h_mean))
        + 0.32 * math.cos(math.radians(3 * h_mean + 6))
        - 0.20 * math.cos(math.radians(4 * h_mean - 63))
    )
    d_theta = 30 * math.exp(-(((h_mean - 275) / 25) ** 2))
    r_c = 2 * math.sqrt(cp_mean**7 / (cp_mean**7 + 25**7))
    s_l = 1 + 0.015 * (l_mean - 50) ** 2 / math.sqrt(20 + (l_mean - 50) ** 2)
    s_c = 1 + 0.045 * cp_mean
    s_h = 1 + 0.015 * cp_mean * t
    r_t = -math.sin(math.radians(2 * d_theta)) * r_c
    return math.sqrt(
        (dl / s_l) ** 2 + (dc / s_c) ** 2 + (dh_big / s_h) ** 2 + r_t * (dc / s_c) * (dh_big / s_h)
    )


def simulated_delta_e(first: RGB, second: RGB, vision: str) -> float:
    """CIEDE2000 between two colours as seen with ``vision``."""
    return delta_e(simulate(first, vision), simulate(second, vision))


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
