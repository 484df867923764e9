"""A series of rematches: the line a rematch's lobby and boards show, and the score it carries."""

from __future__ import annotations

from bot.game.settings import TEAM_NAMES

from .options import TableOptions


def series_score_after(options: TableOptions, teams: int, winner: int | None) -> tuple[int, ...]:
    """The teams' wins once a game of the series (``options``) ended won by ``winner`` (None:
    drawn, which counts for nobody).

    >>> series_score_after(TableOptions(), 2, 0), series_score_after(TableOptions(), 3, None)
    ((1, 0), (0, 0, 0))
    """
    score = list(options.series_score[:teams]) + [0] * (teams - len(options.series_score))
    if winner is not None and 0 <= winner < teams:
        score[winner] += 1
    return tuple(score)


def series_line(
    options: TableOptions, teams: int, winner: int | None = None, *, over: bool = False
) -> str | None:
    """``"Game 2 of the series · Blue 1 – Green 0"`` for a rematch (None for a first game); a
    game ``over`` counts its own result (``winner``) in the score.

    >>> series_line(TableOptions(series_game=2, series_score=(1, 0)), 2)
    'Game 2 of the series · Blue 1 – Green 0'
    >>> series_line(TableOptions(series_game=2, series_score=(1, 0)), 2, 1, over=True)
    'Game 2 of the series · Blue 1 – Green 1'
    """
    if options.series_game <= 1:
        return None
    score = (
        series_score_after(options, teams, winner)
        if over
        else series_score_after(options, teams, None)
    )
    shown = " – ".join(f"{TEAM_NAMES[team]} {wins}" for team, wins in enumerate(score))
    return f"Game {options.series_game} of the series · {shown}"
