"""Snapshots of older layouts load as the games they were (``bot/store/upgrades.py``), and their
end sentences read back word for word from the outcome the engine now keeps as a value."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from bot.game import DRAWN, WON, Game, GameSettings, Move, Outcome, Termination
from bot.game.moves import AGREE_DRAW, REMOVE, RESIGN
from bot.game.randomplay import push_random
from bot.store.snapshots import decode, snapshot_text
from bot.store.upgrades import leaving_team_of, termination_of, upgrade_state
from cogs.common.describe import end_reason

UNGUARDED2 = GameSettings.create(2, endless_play_guard=False)
ENDLESS = "Endless play: the deck ran out twice with no new sequence, so the game is a draw."


def as_stored_until_now(game: Game) -> dict[str, Any]:
    """The game's data as the engine wrote it until the outcome was a value: the end as a
    sentence (``end_reason``), no ``leaving_team``."""
    data = json.loads(json.dumps(game.to_dict()))
    state = data["state"]
    del state["leaving_team"]
    state["end_reason"] = end_reason(game.outcome)
    return data


def upgraded(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with its state upgraded as the store does on load."""
    settings = GameSettings.from_dict(data["settings"])
    moves = [Move.from_dict(m) for m in data["moves"]]
    upgrade_state(data["state"], lambda: Game.replay(settings, data["seed"], moves))
    return data


def test_old_snapshot_without_the_new_state_keys_loads_the_same() -> None:
    """Snapshots stored before the guard have no count and no termination: both are derived."""
    found = 0
    for seed in range(200):
        game = Game.new(UNGUARDED2, seed)
        rng = random.Random(seed)
        while not game.is_over() and not (game.sequences and game.reshuffles):
            push_random(game, rng)
        for _ in range(60):  # on past the first sequence and reshuffle, maybe to the end
            if not game.is_over():
                push_random(game, rng)
        if not game.sequences or not game.reshuffles:
            continue
        data = as_stored_until_now(game)
        del data["state"]["reshuffles_since_sequence"], data["state"]["termination"]
        del data["settings"]["endless_play_guard"]
        assert Game.from_dict(upgraded(data)) == game
        found += 1
        if found == 3:
            break
    assert found == 3


@pytest.mark.parametrize(
    ("reason", "termination"),
    [
        ("Blue completed 2 sequences.", Termination.SEQUENCES),
        ("Nobody can play on: Red has the most convoys.", Termination.MOST_CONVOYS),
        ("Nobody can play on: the game is a draw (stalemate).", Termination.STALEMATE),
        (ENDLESS, Termination.ENDLESS_PLAY),
        ("Drawn by agreement.", Termination.AGREEMENT),
        ("Green resigned.", Termination.RESIGNATION),
        ("The last Green player left.", Termination.DEPARTURE),
        ("", None),
    ],
)
def test_termination_of_an_old_end_reason(reason: str, termination: Termination | None) -> None:
    assert termination_of(reason) == termination


def ended(players: int, seed: int, *ending: Move) -> Game:
    """A game of ``players`` played at random for 30 moves, then ended by ``ending``."""
    game = Game.new(GameSettings.create(players), seed)
    rng = random.Random(seed)
    for _ in range(30):
        push_random(game, rng)
    for move in ending:
        game.push(move)
    return game


@pytest.mark.parametrize(
    ("game", "sentence"),
    [
        (ended(3, 1, Move(RESIGN, -1, team=2), Move(RESIGN, -1, team=0)), "Blue resigned."),
        (ended(2, 2, Move(REMOVE, 1)), "The last Green player left."),
        (ended(3, 3, Move(REMOVE, 0), Move(REMOVE, 2)), "The last Red player left."),
        (ended(4, 4, Move(AGREE_DRAW, -1)), "Drawn by agreement."),
    ],
    ids=["resigned", "left", "left-of-three", "agreed"],
)
def test_a_snapshot_with_an_end_sentence_loads_the_same_and_reads_the_same(
    game: Game, sentence: str
) -> None:
    """The layout written until now: the team that resigned or left (not the winner) comes
    from the sentence, which the cogs word again from the outcome, the same."""
    data = as_stored_until_now(game)
    assert data["state"]["end_reason"] == sentence
    loaded = Game.from_dict(upgraded(data))
    assert loaded == game and loaded.outcome == game.outcome
    assert end_reason(loaded.outcome) == sentence


def test_a_logged_snapshot_with_an_end_sentence_decodes_the_same() -> None:
    """Start-up's path: a snapshot holding its log, written with an end sentence."""
    game = ended(3, 5, Move(RESIGN, -1, team=1), Move(RESIGN, -1, team=2))
    state = json.loads(snapshot_text(game))
    del state["leaving_team"]
    state["end_reason"] = "Red resigned."
    loaded = decode(game.settings, game.seed, len(game.moves), json.dumps(state))
    assert loaded == game and loaded.status == WON and loaded.winner == 0
    score = tuple(game.sequence_count(team) for team in range(3))
    assert loaded.outcome == Outcome(Termination.RESIGNATION, 0, score, leaving_team=2)


def test_the_team_of_an_old_sentence() -> None:
    assert leaving_team_of("Blue resigned.") == 0
    assert leaving_team_of("The last Red player left.") == 2
    assert leaving_team_of("Team 1 resigned.") == 1  # the first release's words
    assert leaving_team_of("Drawn by agreement.") is None


def test_a_game_still_on_in_the_old_layout_has_no_outcome() -> None:
    game = ended(2, 6)
    data = as_stored_until_now(game)
    assert data["state"]["end_reason"] == ""
    loaded = Game.from_dict(upgraded(data))
    assert loaded == game and loaded.outcome is None and loaded.status not in (WON, DRAWN)
