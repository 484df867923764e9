"""The random soak (tests/chaos.py) on a fixed seed, for a bounded number of steps: nothing it
checks after each step may go wrong. ``python bench/chaos.py --seeds ... --steps ...`` runs it
longer, on many seeds."""

from __future__ import annotations

import logging

import pytest

from bot.app import create_bot
from bot.config import Settings

from .chaos import LogCapture, Soak
from .conftest import make_settings


@pytest.fixture
def bot_settings(tmp_path) -> Settings:
    return make_settings(tmp_path, create_rate_limit=(100, 600))


@pytest.mark.slow
async def test_a_random_soak_finds_nothing_wrong(simcord_env, bot_settings):
    """Seed 3 plays, among others, two games of three teams, one with computers, and a
    tournament's match in its thread."""
    with LogCapture() as logs:
        soak = Soak(
            simcord_env, lambda: create_bot(bot_settings), 3, logs, levels=("easy", "medium")
        )
        soak.setup()
        await soak.run(60)
        await soak.play_out()
    wrong = [f for f in soak.findings if not f.expected]
    assert not wrong, "\n".join(map(str, wrong))
    # Every exception SimCord caught and every error logged was found by the check of a step
    # with an injected failure of Discord (none came after the last check, none elsewhere).
    # Reading ``errors`` also tells SimCord they were seen (it would raise them at the end).
    raised = simcord_env.errors
    logged = [r for r in logs.records if r.levelno >= logging.ERROR]
    exceptions = [f for f in soak.findings if f.kind == "exception"]
    error_logs = [f for f in soak.findings if f.kind == "error-log"]
    assert len(raised) == len(exceptions) and len(logged) == len(error_logs)
    assert all(f.faulted for f in exceptions + error_logs)


async def test_the_soak_moves_time_only_when_it_says_so(simcord_env, bot_settings):
    """SimCord 3.2.1 also arms every virtual sleep on the wall clock: a settle whose deadline
    lies past that moment waits for it and lets it fire, then gives what it woke only the rest of
    its own deadline (a turn clock of 1 minute under a 61 s settle: a minute's wait, then a
    time-out that seemed to hang in the bot). The soak's turn clocks fire when it advances time,
    before and after a restart."""
    with LogCapture() as logs:
        soak = Soak(simcord_env, lambda: create_bot(bot_settings), 7, logs)
        soak.setup()
        ann, ben = soak.members[1:3]
        lobby = (
            await ann.slash(soak.channels[0], "sequence new", time_limit="1m", on_timeout="skip")
        ).response
        await ben.click(lobby, label="Join")
        await ann.click(lobby, label="Start")
        (record,) = soak.live_games()
        await simcord_env.settle(timeout=61)
        assert record.game.moves == []
        await soak.do_restart()
        await simcord_env.settle(timeout=61)
        (record,) = soak.live_games()
        assert record.game.moves == []
        await simcord_env.advance_time(61)
        assert [m.kind for m in soak.live_games()[0].game.moves] == ["skip"]


async def test_a_board_discord_refused_is_blamed_on_no_later_step(simcord_env, bot_settings):
    """Discord refuses the board of a move (a 4xx is not retried): the game's newest board
    stays behind until the next board (or ``/sequence board``, or a restart). A later step that
    does not touch the game is not a finding (seed 9's step 88 was); the next move's board is
    checked again."""
    with LogCapture() as logs:
        soak = Soak(simcord_env, lambda: create_bot(bot_settings), 7, logs)
        soak.setup()
        ann, ben = soak.members[1:3]
        lobby = (await ann.slash(soak.channels[0], "sequence new")).response
        await ben.click(lobby, label="Join")
        await ann.click(lobby, label="Start")
        (record,) = soak.live_games()
        simcord_env.inject_error("POST", "/channels/*/messages", status=400)
        soak._faulted = True  # a step of the soak's, as Soak.step injects a failure
        assert await soak.legal_move(record)
        await soak.check()
        simcord_env.backend.faults.clear()
        soak._faulted = False
        await soak.check()  # a step elsewhere
        assert soak.findings == []
        assert await soak.legal_move(record)
        await soak.check()
    assert soak.findings == []
    assert "move 2" in soak.channels[0].last_message.embeds[0].title
