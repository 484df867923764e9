"""The hard player: try the best few plays against many guesses of the hidden cards.

Each guess (a :class:`~.determinize.Deal`) deals the unseen cards at random, consistently with
what is public. Every candidate play is then followed by a rollout: every seat, the viewer
included, plays on as the medium player would with the cards the guess gives it, to the end of
the game (or a horizon, then scored). A candidate's value is its mean result; the weakest half
of the candidates is dropped after each round of guesses (successive halving), so the budget
goes to the plays that matter.
"""

from __future__ import annotations

import math
import random
from time import perf_counter

from ..cards import is_one_eyed, is_two_eyed
from ..moves import Move
from ..view import PlayerView
from .determinize import sample_deal, unseen_cards
from .evaluate import WIN
from .heuristic import score_plays
from .position import Position
from .rollout import Sim

#: Guesses of the hidden cards per move, unless the time budget ends first.
DEFAULT_SAMPLES = 24
#: Plays examined: the best by the medium score.
CANDIDATES = 8
#: A rollout stops after this many turns and is scored by the board.
HORIZON = 60
#: Guesses per candidate before the weaker half is dropped.
ROUND = 2


def hard_play(
    view: PlayerView,
    position: Position,
    team: int,
    plays: list[Move],
    rng: random.Random,
    budget_ms: float,
    samples: int,
) -> Move:
    """The candidate with the best mean rollout over up to ``samples`` guesses of hidden cards."""
    deadline = perf_counter() + budget_ms / 1000
    scored = score_plays(position, team, plays)
    if scored[0][0] >= WIN:
        return scored[0][1]
    candidates = _candidates(scored)
    if len(candidates) == 1:
        return candidates[0]
    settings = view.settings
    board = Sim.board(
        position.chips,
        position.sequences,
        settings.players,
        settings.teams,
        settings.sequences_to_win,
        settings.convoy,
    )
    board.out = list(view.out)
    discards = [card for pile in view.discards for card in pile]
    unseen = unseen_cards(view)
    seat = view.seat
    assert seat is not None
    totals = [0.0] * len(candidates)
    active = list(range(len(candidates)))
    for done in range(1, samples + 1):
        started = perf_counter()
        deal = sample_deal(view, rng, unseen)
        base = board.deal(deal.hands, deal.deck, discards, seat)
        base.seed = rng.getrandbits(32)
        for k in active:
            move = candidates[k]
            sim = base.copy()
            sim.play(seat, move.card, move.space)  # type: ignore[arg-type]
            sim.advance()
            totals[k] += rollout(sim, team)
        if done % ROUND == 0 and len(active) > 2:
            active.sort(key=lambda k: (-totals[k], k))
            active = sorted(active[: max(2, math.ceil(len(active) / 2))])
        now = perf_counter()
        if now + (now - started) > deadline:
            break
    best = max(active, key=lambda k: (totals[k], -k))
    return candidates[best]


def rollout(sim: Sim, team: int, horizon: int = HORIZON) -> float:
    """Play on with the medium policy: 1 when ``team`` wins, -1 when it loses, 0 for a draw;
    at the horizon, the board's score squashed into (-1, 1)."""
    for _ in range(horizon):
        if sim.winner is not None:
            break
        sim.step()
    winner = sim.winner
    if winner is None:
        return math.tanh(sim.potential(team) / 1000) / 2
    if winner < 0:
        return 0.0
    return 1.0 if winner == team else -1.0


def _candidates(scored: list[tuple[float, Move]]) -> list[Move]:
    """The best plays by the medium score, at most two per jack kind."""
    chosen: list[Move] = []
    jacks = {"two": 0, "one": 0}
    for _, move in scored:
        card = move.card or ""
        kind = "two" if is_two_eyed(card) else "one" if is_one_eyed(card) else ""
        if kind:
            if jacks[kind] >= 2:
                continue
            jacks[kind] += 1
        chosen.append(move)
        if len(chosen) == CANDIDATES:
            break
    return chosen
