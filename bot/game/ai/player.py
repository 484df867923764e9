"""Choosing a whole move for any level: the duties every level shares, then the level's play."""

from __future__ import annotations

import random
from collections.abc import Callable

from ..cards import is_one_eyed
from ..moves import DEAD, DRAW, FORFEIT, PASS, PLAY, Move
from ..sequences import Option
from ..state import ACTIVE
from ..view import PlayerView
from .determinize import fixed_deal, game_from_view, own_hand
from .easy import easy_play
from .evaluate import Analysis
from .medium import medium_play
from .position import Position
from .scoring import least_useful
from .search import DEFAULT_SAMPLES, Clock, hard_play

LEVELS = ("easy", "medium", "hard")


class NoMoveError(ValueError):
    """The viewer has nothing to do now (not its turn, no forfeit or draw owed, game over)."""


def legal_moves(view: PlayerView) -> list[Move]:
    """Every legal move of the viewer's seat, from its view alone."""
    if view.status != ACTIVE:
        raise NoMoveError("The game is over.")
    game = game_from_view(view, fixed_deal(view))
    return game.legal_moves_for(view.seat)  # type: ignore[arg-type]


def choose_move(
    view: PlayerView,
    level: str,
    rng: random.Random,
    cap_ms: float | None = None,
    *,
    samples: int = DEFAULT_SAMPLES,
    clock: Clock | None = None,
) -> Move:
    """A complete legal move for ``view.seat`` at ``level`` ("easy", "medium" or "hard").

    Owed forfeits come first, then an owed draw; a dead card is turned in when that helps (in
    the classic game it does not end the turn: ask again). ``hard`` weighs ``samples`` deals of
    the hidden cards (its work budget), so the move depends only on the view and ``rng``. With
    a ``clock`` (e.g. ``time.perf_counter``), ``cap_ms`` is a safety cap on hard's thinking
    time; without one nothing here reads a clock. Raises :class:`NoMoveError` when the seat has
    nothing to do.
    """
    if level not in LEVELS:
        raise ValueError(f"Unknown level {level!r}: choose one of {', '.join(LEVELS)}.")
    moves = legal_moves(view)
    if not moves:
        raise NoMoveError("This seat has no move to make now.")
    seat = view.seat
    assert seat is not None
    position = Position.from_view(view)
    team = view.team_of(seat)
    if moves[0].kind == FORFEIT:
        if level == "easy":
            return rng.choice(moves)
        return Move(FORFEIT, seat, least_useful(position, team, own_hand(view)))
    draws = [m for m in moves if m.kind == DRAW]
    if draws:
        return draws[0]
    plays = [m for m in moves if m.kind == PLAY]
    dead = [m for m in moves if m.kind == DEAD]
    if dead and (not view.settings.convoy or not plays):
        return dead[0]
    if not plays:
        return Move(PASS, seat)
    if level == "easy":
        return with_five(position, team, easy_play(position, team, plays, rng), rng.choice)
    if level == "medium" or len(plays) == 1:
        move = medium_play(Analysis(position), team, plays)
    else:
        move = hard_play(view, position, team, plays, rng, samples, cap_ms, clock)
    return with_five(position, team, move)


def hint(view: PlayerView, cap_ms: float | None = None, *, clock: Clock | None = None) -> Move:
    """The move the hard player would make, for the ``/sequence hint`` command (``cap_ms`` and
    ``clock`` as in :func:`choose_move`)."""
    return choose_move(view, "hard", random.Random(view.move_count), cap_ms, clock=clock)


def with_five(
    position: Position,
    team: int,
    move: Move,
    pick: Callable[[list[Option]], Option] | None = None,
) -> Move:
    """``move`` with its choice of five when the play makes a line of six or more."""
    if move.kind != PLAY or move.space is None or is_one_eyed(move.card or ""):
        return move
    options = position.options(team, move.space)
    if len(options) < 2:
        return move
    option = pick(options) if pick else position.best_option(team, move.space)
    return move._replace(five=option)
