"""What the image says: the move count as the message says it, names that fit, free corners
that stay readable under a sequence line."""

from __future__ import annotations

import io
from dataclasses import replace

from PIL import Image, ImageDraw

from bot.game import GameSettings, player_view, public_view
from bot.game.board import space_name
from bot.game.cards import full_deck
from render.board import render_board
from render.bracket import (
    BOX_W,
    LABEL_H,
    MARGIN,
    ROW_H,
    TITLE_H,
    BracketMatch,
    render_bracket,
)
from render.caching import clear_outputs
from render.layout import CARD_BOX_SIZE, INSET, WIDTH, cell_box, seat_box
from render.panels import DECK_W, SCORE_W, TITLE_X, header_lines, seat_name_lines
from render.samples import midgame, random_game, sample_names
from render.text import card_label
from render.theme import FREE_LABEL
from render.typeface import _text_mask, draw_text, fit, font, has_glyph, text_width, visual

#: The top-left corner of a one-match bracket's box.
BOX_LEFT, BOX_TOP = MARGIN, TITLE_H + LABEL_H

LONG = [
    "Babbage (mechanical engine)",
    "Lovelace, Countess of Computing",
    "Grace Brewster Murray Hopper",
    "Dmitri Ivanovich Longname",
]

#: "David Cohen" and "Abdullah Ali": written right to left; the Arabic one joins its letters.
HEBREW = "\u05d3\u05d5\u05d3 \u05db\u05d4\u05df"
ARABIC = "\u0639\u0628\u062f\u0627\u0644\u0644\u0647 \u0639\u0644\u064a"


def _texts(line) -> str:
    return "".join(part.text for part in line)


def _width(line) -> int:
    return sum(text_width(part.text, part.size, bold=part.bold) for part in line)


def test_header_counts_moves_like_the_board_message() -> None:
    game = midgame(2)
    _, lines = header_lines(public_view(game), sample_names(2))
    sub = _texts(lines[1])
    assert f"move {len(game.moves)}" in sub
    assert "turn" not in sub


def test_long_names_shrink_before_they_are_cut() -> None:
    view = public_view(midgame(2))
    _, lines = header_lines(view, LONG[:2])
    title = _texts(lines[0])
    assert title.startswith(LONG[0]) and title.endswith("to play")
    assert lines[0][0].size < 34
    assert "…" not in _texts(lines[2])


def test_a_winning_teams_count_is_never_cut() -> None:
    game = random_game(GameSettings.create(4), 3)
    assert game.winner is not None
    view = public_view(game)
    count = view.sequence_count(game.winner)
    _, lines = header_lines(view, LONG)
    sub = _texts(lines[1])
    assert f" · {count} sequence" in sub and f"move {len(game.moves)}" in sub
    assert "…" not in sub
    assert "&" in sub  # the team, in a shorter form: first names


def test_seat_names_fit_on_one_or_two_lines() -> None:
    for players, teams in ((2, 2), (6, 3), (8, 2), (12, 3)):
        left, _, right, _ = seat_box(0, players, teams)
        width = right - left - 82  # less the seat's discard and margins, as drawn
        for name in [*LONG, "Al", "Ann-Marie Lindqvist-Johansson"]:
            size, lines = seat_name_lines(name, width)
            assert 1 <= len(lines) <= 2
            assert all(text_width(line, size, bold=True) <= width for line in lines)
            assert " ".join(lines) == name, (players, name, lines)


def _label_ink(image: Image.Image, space: int) -> int:
    """Pixels of a free corner's "FREE" label colour around where the label sits."""
    left, top, _, _ = cell_box(space)
    cx, cy = left + 48, top + INSET + round(CARD_BOX_SIZE * 0.80)
    data = image.crop((cx - 24, cy - 8, cx + 24, cy + 8)).tobytes()
    pixels = zip(data[0::3], data[1::3], data[2::3], strict=True)
    return sum(
        1
        for pixel in pixels
        if max(abs(a - b) for a, b in zip(pixel, FREE_LABEL, strict=True)) <= 40
    )


def test_free_corner_label_stays_over_a_sequence_line() -> None:
    view = public_view(midgame(2))
    chips, locked = list(view.chips), list(view.locked)
    window = (0, 10, 20, 30, 40)
    for space in window[1:]:
        chips[space] = 1
    for space in window:
        locked[space] = True
    through = replace(view, chips=tuple(chips), locked=tuple(locked), sequences=((1, window),))
    names = sample_names(2)
    plain = Image.open(io.BytesIO(render_board(view, names))).convert("RGB")
    lined = Image.open(io.BytesIO(render_board(through, names))).convert("RGB")
    assert _label_ink(plain, 0) > 40
    assert _label_ink(lined, 0) >= 0.9 * _label_ink(plain, 0)
    # The line does run through the corner: its centre is no longer the plain card.
    x, y = cell_box(0)[0] + 48, cell_box(0)[1] + 90
    assert lined.getpixel((x, y)) != plain.getpixel((x, y))


def test_the_hand_header_keeps_whose_turn_it_is() -> None:
    game = midgame(4)
    view = replace(player_view(game, 1), turn=2)
    _, lines = header_lines(view, LONG, private=True)
    sub = _texts(lines[1])
    assert sub.endswith(" to play") and "Green" in sub
    assert _width(lines[1]) <= WIDTH - SCORE_W - DECK_W - 16 - TITLE_X


def test_the_last_move_line_drawn_word_by_word_is_the_same_image() -> None:
    """The header draws the last move's line (new every move) from the masks of its words; the
    pixels are those of the whole line drawn at once, for any card, space, verb and name."""
    names = ["alice", "Bob the Builder", "Zoë", "李雷", LONG[1], HEBREW, ARABIC]
    cards = sorted(set(full_deck()))
    for number, card in enumerate(cards):
        name = names[number % len(names)]
        where = space_name((number * 37) % 100)
        for verb in (f"played {card_label(card)} on {where}.", f"removed the chip on {where}."):
            line = f"Last move: {name} {verb}"
            whole, words = Image.new("RGB", (WIDTH, 40)), Image.new("RGB", (WIDTH, 40))
            draw_text(whole, (22, 30), line, 18, (200, 200, 200), anchor="ls")
            draw_text(words, (22, 30), line, 18, (200, 200, 200), anchor="ls", by_words=True)
            assert words.tobytes() == whole.tobytes(), line


def test_right_to_left_names_are_drawn_right_to_left() -> None:
    """A Hebrew or Arabic name reads right to left in the images, as people write it: its
    letters are drawn in reverse (Arabic's joined, every one with a glyph), measured as drawn,
    and cut at its end (on the left) when it is too long."""
    assert visual(HEBREW) == HEBREW[::-1]
    drawn = visual(ARABIC)
    assert len(drawn) == len(ARABIC) and all(has_glyph(c) for c in drawn)
    assert not any("\u0621" <= c <= "\u064a" for c in drawn)  # each letter in its joined form
    for name in (HEBREW, ARABIC, f"Ann & {HEBREW}"):
        ours, pillows = Image.new("RGB", (400, 40)), Image.new("RGB", (400, 40))
        draw_text(ours, (10, 30), name, 20, (255, 255, 255), anchor="ls")
        pen = ImageDraw.Draw(pillows)
        pen.text((10, 30), visual(name), font=font(20), fill=(255, 255, 255), anchor="ls")
        assert ours.tobytes() == pillows.tobytes(), name
        assert text_width(name, 20) == round(font(20).getlength(visual(name)))
    assert visual(f"Ann & {HEBREW}") == f"Ann & {HEBREW[::-1]}"  # the line stays left to right
    cut = fit(HEBREW, text_width(HEBREW, 20) - 10, 20)
    assert cut.endswith("…") and HEBREW.startswith(cut[:-1])
    assert visual(cut).startswith("…")  # the ellipsis at the name's end: its left


def test_clearing_a_moves_outputs_forgets_its_texts() -> None:
    """``clear_outputs`` forgets the texts drawn for particular moves, so that the bench's
    passes never find a position's own line drawn in advance."""
    draw_text(Image.new("RGB", (200, 40)), (0, 30), "Last move: nobody", 18, (1, 2, 3))
    assert _text_mask.cache_info().currsize > 0
    clear_outputs()
    assert _text_mask.cache_info().currsize == 0


def test_a_bracket_name_stops_before_its_match_tag() -> None:
    """A long name beside a match's tag (``game #1234``) is cut before the tag: the tag's
    pixels are the same as beside a short name."""
    tag = "game #1234"

    tag_left = BOX_LEFT + BOX_W - 8 - text_width(tag, 11)

    def tag_area(name: str) -> bytes:
        """The pixels of the tag's end of the (winning, bold) top row of ``name``'s match."""
        match = BracketMatch(name, "Bob", winner=0, note=tag)
        image = Image.open(io.BytesIO(render_bracket("Cup", [[match]], "Bob"))).convert("RGB")
        return image.crop((tag_left - 2, BOX_TOP, BOX_LEFT + BOX_W, BOX_TOP + ROW_H)).tobytes()

    beside_a_short_name = tag_area("Al")
    for name in [*LONG, "W" * 32]:
        assert tag_area(name) == beside_a_short_name, name
