"""A series of games between the same sides (a rematch's, or a tournament's best-of match): the
line its lobby and boards show, the score it carries (a drawn game counts half for each side),
and when a best-of series is decided."""

from __future__ import annotations

from bot.game.settings import TEAM_NAMES

from .options import TableOptions


def scored(score: tuple[float, ...], sides: int, winner: int | None) -> tuple[float, ...]:
    """``score`` (each side's points, in side order) once a game won by side ``winner`` (None:
    drawn, half a point each) is counted.

    >>> scored((1, 0), 2, None), scored((), 3, 2)
    ((1.5, 0.5), (0, 0, 1))
    """
    points: list[float] = list(score[:sides]) + [0] * (sides - len(score))
    if winner is None:
        points = [p + 0.5 for p in points]
    elif 0 <= winner < sides:
        points[winner] += 1
    return tuple(points)


def series_score_after(options: TableOptions, teams: int, winner: int | None) -> tuple[float, ...]:
    """The teams' points once a game of the series (``options``) ended won by ``winner`` (None:
    drawn, which counts half for each team).

    >>> series_score_after(TableOptions(), 2, 0), series_score_after(TableOptions(), 2, None)
    ((1, 0), (0.5, 0.5))
    """
    return scored(options.series_score, teams, winner)


def series_decided(score: tuple[float, ...], best_of: int, played: int) -> bool:
    """True when a best-of-``best_of`` series stands decided after ``played`` games at
    ``score``: a side has more than half of the points of ``best_of`` games (or, once they are
    all played and were level, of every game played: a deciding game won).

    >>> series_decided((2, 0), 3, 2), series_decided((1.5, 0.5), 3, 2)
    (True, False)
    >>> series_decided((1.5, 1.5), 3, 3), series_decided((2.5, 1.5), 3, 4)
    (False, True)
    """
    return bool(score) and max(score) > max(best_of, played) / 2


def points_text(points: float) -> str:
    """``"1"``, ``"½"`` or ``"1½"``.

    >>> points_text(2.0), points_text(0.5), points_text(1.5)
    ('2', '½', '1½')
    """
    whole, half = int(points), points - int(points) >= 0.5
    if not half:
        return str(whole)
    return f"{whole or ''}½"


def score_text(score: tuple[float, ...], names: tuple[str, ...]) -> str:
    """``"Blue 1 – Green 0"``: each side's name (``names``, else its colour) and points."""
    return " – ".join(
        f"{names[side] if side < len(names) else TEAM_NAMES[side]} {points_text(points)}"
        for side, points in enumerate(score)
    )


def series_line(
    options: TableOptions, teams: int, winner: int | None = None, *, over: bool = False
) -> str | None:
    """``"Game 2 of the series · Blue 1 – Green 0"`` for a rematch, ``"Game 2 of 3 · ann 1 –
    ben 0"`` for a best-of match (None for a single game); a game ``over`` counts its own
    result (``winner``: a team, None a draw) in the score.

    >>> series_line(TableOptions(series_game=2, series_score=(1, 0)), 2)
    'Game 2 of the series · Blue 1 – Green 0'
    >>> series_line(TableOptions(series_game=2, series_score=(1, 0)), 2, 1, over=True)
    'Game 2 of the series · Blue 1 – Green 1'
    >>> series_line(TableOptions(series_best_of=3, series_names=("ann", "ben")), 2)
    'Game 1 of 3 · ann 0 – ben 0'
    >>> series_line(TableOptions(series_game=4, series_best_of=3, series_score=(1.5, 1.5)), 2)
    'Game 4 of a best of 3 (a deciding game) · Blue 1½ – Green 1½'
    """
    best_of = options.series_best_of
    if options.series_game <= 1 and best_of <= 1:
        return None
    before = tuple(options.series_score[:teams]) + (0,) * (teams - len(options.series_score))
    score = scored(before, teams, winner) if over else before
    shown = score_text(score, options.series_names)
    number = options.series_game
    if best_of <= 1:
        return f"Game {number} of the series · {shown}"
    if number > best_of:
        return f"Game {number} of a best of {best_of} (a deciding game) · {shown}"
    return f"Game {number} of {best_of} · {shown}"
