"""The banded encoder: the same pixels as the plain drawing, the same bytes whatever was drawn
before, a valid small PNG."""

from __future__ import annotations

import functools
import io
import random
import zlib
from dataclasses import replace
from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image

from bot.game import Game, GameSettings, player_view, public_view
from bot.game.randomplay import push_random
from bot.game.view import PlayerView
from render.bands import _row_band
from render.board import prepare_board, render_board, render_hand
from render.caching import clear_caches, clear_outputs
from render.compose import compose_board, compose_hand
from render.encode import to_palette
from render.palette import palette
from render.pngwrite import adler32_combine, compress_band, png_from_bands
from render.samples import midgame, random_game, sample_names


def _pixels(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG" and image.mode == "P"
    image.load()
    return image


@functools.cache
def _views() -> list[tuple[PlayerView, int]]:
    """Boards that put something on every band edge: both margins, corners, three teams."""
    two = midgame(2)
    corner = public_view(two)
    chips, locked = list(corner.chips), list(corner.locked)
    extra = ((1, (0, 10, 20, 30, 40)), (0, (55, 66, 77, 88, 99)))
    for team, window in extra:
        for space in window:
            chips[space] = chips[space] if space in (0, 99) else team
            locked[space] = True
    corner = replace(
        corner,
        chips=tuple(chips),
        locked=tuple(locked),
        sequences=corner.sequences + extra,
        last_change=("placed", 3),
    )
    removed = replace(corner, last_change=("removed", 95))
    finished = random_game(GameSettings.create(3), 11)
    return [
        (public_view(two), 2),
        (corner, 2),
        (removed, 2),
        (public_view(midgame(3)), 3),
        (public_view(finished), 3),
        (public_view(random_game(GameSettings.create(12, 3), 2, plays=40)), 12),
    ]


@pytest.mark.parametrize("index", range(6))
def test_board_pixels_are_the_drawing_mapped_to_the_palette(index: int) -> None:
    view, players = _views()[index]
    names = sample_names(players)
    image = _pixels(render_board(view, names))
    assert image.tobytes() == to_palette(compose_board(view, names)).tobytes()
    assert image.getpalette()[:30] == palette().getpalette()[:30]


@pytest.mark.parametrize("index", [0, 3, 5])
def test_hand_pixels_are_the_drawing_mapped_to_the_palette(index: int) -> None:
    view, players = _views()[index]
    game_view = replace(view, seat=view.turn, hand=("7C", "2S", "JD", "JH", "AS", "QD"))
    names = sample_names(players)
    image = _pixels(render_hand(game_view, names))
    assert image.tobytes() == to_palette(compose_hand(game_view, names)).tobytes()


def test_same_bytes_whatever_was_drawn_before() -> None:
    game = Game.new(GameSettings.create(2), 7)
    rng = random.Random(7)
    names = sample_names(2)
    seen = []
    for _ in range(40):
        push_random(game, rng)
        seen.append((render_board(public_view(game), names), public_view(game)))
        hand = player_view(game, game.turn)
        seen.append((render_hand(hand, names), hand))
    clear_caches()
    for data, view in reversed(seen[-6:]):
        again = render_board(view, names) if view.hand is None else render_hand(view, names)
        assert again == data
    clear_outputs()
    data, view = seen[-2]
    assert render_board(view, names) == data


def test_a_prepared_board_is_the_same_and_encodes_only_the_new_row() -> None:
    """Preparing between moves leaves every board's bytes as they were, and each move's board
    then encodes one row (the one with the new chip and its frame)."""
    names = sample_names(2)
    games = [Game.new(GameSettings.create(2), 3) for _ in range(2)]
    rng = [random.Random(3), random.Random(3)]
    clear_outputs()
    plain = []
    for _ in range(30):
        push_random(games[0], rng[0])
        plain.append(render_board(public_view(games[0]), names))
    clear_outputs()
    encoded_per_move = []
    for number in range(30):
        push_random(games[1], rng[1])
        view = public_view(games[1])
        before = _row_band.cache_info().misses
        assert render_board(view, names) == plain[number]
        encoded_per_move.append(_row_band.cache_info().misses - before)
        prepare_board(view)
    # Without preparing, a move mostly encodes two rows: the new chip's, and the last move's
    # row again once its frame is gone. (No sequence is made in these moves.)
    assert not games[1].sequences
    assert encoded_per_move[1:] == [1] * 29


def test_mid_game_board_is_under_80_kb() -> None:
    assert len(render_board(public_view(midgame(2)), sample_names(2))) <= 80_000


@given(st.binary(max_size=3000), st.binary(max_size=3000))
def test_adler32_combine_matches_zlib(first: bytes, second: bytes) -> None:
    combined = adler32_combine(zlib.adler32(first), zlib.adler32(second), len(second))
    assert combined == zlib.adler32(first + second)


def test_bands_join_into_one_valid_png() -> None:
    rng = random.Random(3)
    image = Image.new("P", (37, 29))
    image.putdata([rng.randrange(4) for _ in range(37 * 29)])
    image.putpalette([0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255])
    cuts = [0, 1, 13, 29]
    bands = [
        compress_band(image.crop((0, top, 37, bottom)), level)
        for (top, bottom), level in zip(pairwise(cuts), (1, 6, 9), strict=True)
    ]
    palette_bytes = bytes(image.getpalette()[:12])
    data = png_from_bands(37, palette_bytes, bands)
    decoded = Image.open(io.BytesIO(data))
    decoded.verify()
    decoded = Image.open(io.BytesIO(data))
    assert decoded.size == (37, 29)
    assert decoded.tobytes() == image.tobytes()
    assert decoded.convert("RGB").getpixel((5, 5)) == image.convert("RGB").getpixel((5, 5))
