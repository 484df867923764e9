"""The offline demo plays a whole game through the real commands and writes its files."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from PIL import Image

from bot.demo import DemoOptions, check_options, deck_progress, leader_text, run_demo
from bot.game.ai import choose_move


@pytest.mark.slow
async def test_the_demo_plays_to_the_end_and_writes_its_files(tmp_path: Path):
    out = tmp_path / "out"
    (out / "boards").mkdir(parents=True)
    (out / "boards" / "board-999.png").write_bytes(b"from an earlier run")
    calls: list[tuple[int, float, str]] = []

    result = await run_demo(
        DemoOptions(out=out, seed=1, players=4),
        lambda moves, fraction, status: calls.append((moves, fraction, status)),
    )

    assert result.winner.startswith(("Blue wins", "Green wins"))
    assert result.moves >= 10 and 0 < result.plays <= result.moves
    # progress after every move, only forward, ending at 100 %
    assert calls[0][0] == 1
    assert [moves for moves, _, _ in calls] == sorted(moves for moves, _, _ in calls)
    fractions = [fraction for _, fraction, _ in calls]
    assert fractions == sorted(fractions) and 0 < fractions[0] < 0.1
    assert calls[-1][0] == result.moves and calls[-1][1] == 1.0
    assert "cards left in the deck" in calls[0][2] and "no sequence yet" in calls[0][2]
    assert result.winner.split()[0] + " leads 2/2" in calls[-1][2]

    boards = sorted((out / "boards").glob("board-*.png"))
    assert boards[0].name == "board-000.png"
    assert boards[-1].name == f"board-{result.moves:03d}.png"
    assert not (out / "boards" / "board-999.png").exists()
    assert len(boards) >= result.plays
    for board in (boards[0], boards[-1]):
        assert board.read_bytes().startswith(b"\x89PNG")
    with Image.open(out / "replay.gif") as gif:
        assert gif.format == "GIF" and gif.n_frames == result.plays

    transcript = (out / "transcript.txt").read_text("utf-8")
    assert transcript.startswith("#sequence")
    assert "(answering alice's command)" in transcript
    assert "**alice** played" in transcript  # the host's moves, made with the hand panel
    assert "wins!" in transcript
    assert "Your hand** (game" not in transcript  # ephemeral hands stay out
    assert set(result.files) == {*boards, out / "replay.gif", out / "transcript.txt"}
    assert not list(out.glob("*.db"))

    summary = result.summary()
    assert result.winner in summary and f"{result.moves} moves" in summary
    # It counts what the channel's result counts: cards played, one-eyed jacks included (they
    # remove a chip: "chips played" overstated the chips on the board).
    assert f"({result.plays} cards played)" in summary, summary
    assert f"{result.plays} cards played" in transcript


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (DemoOptions(players=5), "--players"),
        (DemoOptions(level="genius"), "--level"),
    ],
)
def test_options_the_demo_cannot_play_are_refused(options, message):
    with pytest.raises(ValueError, match=message):
        check_options(options)


def test_deck_progress_and_the_leader():
    from bot.game import Game, GameSettings

    class Record:
        game = Game.new(GameSettings.create(4), seed=1)

    assert deck_progress(Record()) == 0.0
    assert leader_text(Record()) == "no sequence yet"
    Record.game.deck = Record.game.deck[:40]  # 104 - 4 * 6 dealt = 80: half drawn
    assert deck_progress(Record()) == 0.5
    Record.game.reshuffles = 1
    assert deck_progress(Record()) == 1.0


@pytest.mark.slow
async def test_the_demo_waits_for_computers_that_take_their_whole_time_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Computers that each think for 2 s (the hard level's time cap, COMPUTER_BUDGET_MS, which
    binds at four or six players on a slow machine): three in a row take longer than SimCord's
    default wait for the bot (5 s), and the demo still waits for them and plays to the end."""
    from bot.services import computers

    slow = iter([2.0] * 8)  # the first round or so

    def thinking(*args, **kwargs):
        time.sleep(next(slow, 0.0))
        return choose_move(*args, **kwargs)

    monkeypatch.setattr(computers, "choose_move", thinking)
    result = await run_demo(DemoOptions(out=tmp_path / "out", seed=1, players=4))
    assert result.winner.startswith(("Blue wins", "Green wins"))


@pytest.mark.slow
async def test_the_demo_host_answers_a_computer_teams_draw_offer(tmp_path: Path):
    """Seed 35: after the first reshuffle the computer team offers a draw, which waits for the
    host's team. The host answers it from the offer's buttons (as a computer of their team
    would) instead of leaving the computers to hold their moves until the offer lapses."""
    out = tmp_path / "out"
    result = await run_demo(DemoOptions(out=out, seed=35, players=4))
    assert result.winner != "No result"
    transcript = (out / "transcript.txt").read_text()
    assert "The draw offer of 🟢 Green was **declined** by 🔵 Blue" in transcript
