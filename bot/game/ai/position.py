"""A light board for planning: chips and completed sequences, changed by placing and removing."""

from __future__ import annotations

from ..board import CORNERS
from ..sequences import EMPTY, Option, room_score, sequence_options
from ..view import PlayerView
from .lines import WINDOW_INDEX, WINDOWS


class Position:
    """The public board: ``chips`` (as in the engine) and each team's sequences (window indices)."""

    __slots__ = ("chips", "locked", "sequences", "teams", "to_win")

    def __init__(
        self, chips: list[int], sequences: list[list[int]], teams: int, to_win: int
    ) -> None:
        self.chips = chips
        self.sequences = sequences
        self.teams = teams
        self.to_win = to_win
        locked = [False] * 100
        for team_windows in sequences:
            for w in team_windows:
                for space in WINDOWS[w]:
                    locked[space] = space not in CORNERS
        self.locked = locked

    @classmethod
    def from_view(cls, view: PlayerView) -> Position:
        """The board a view shows."""
        sequences: list[list[int]] = [[] for _ in range(view.settings.teams)]
        for team, window in view.sequences:
            sequences[team].append(WINDOW_INDEX[frozenset(window)])
        return cls(list(view.chips), sequences, view.settings.teams, view.settings.sequences_to_win)

    def options(self, team: int, space: int) -> list[Option]:
        """The sequences a chip of ``team`` on the empty ``space`` would complete (engine rules)."""
        chips = self.chips
        chips[space] = team
        try:
            existing = [frozenset(WINDOWS[w]) for w in self.sequences[team]]
            return sequence_options(chips, space, team, existing)
        finally:
            chips[space] = EMPTY

    def best_option(self, team: int, space: int) -> Option | None:
        """The option that leaves the most room for later sequences (``None``: nothing forms)."""
        options = self.options(team, space)
        if not options:
            return None
        if len(options) == 1:
            return options[0]
        chips = list(self.chips)
        chips[space] = team
        return max(options, key=lambda option: room_score(chips, option, team))

    def placed(self, team: int, space: int, option: Option | None = None) -> Position:
        """A new position with a chip of ``team`` on ``space`` (sequences formed as chosen)."""
        if option is None:
            option = self.best_option(team, space)
        chips = list(self.chips)
        chips[space] = team
        sequences = self.sequences
        if option:
            sequences = [list(windows) for windows in sequences]
            sequences[team].extend(WINDOW_INDEX[frozenset(w)] for w in option)
        return Position(chips, sequences, self.teams, self.to_win)

    def removed(self, space: int) -> Position:
        """A new position without the chip on ``space``."""
        chips = list(self.chips)
        chips[space] = EMPTY
        position = Position.__new__(Position)
        position.chips = chips
        position.sequences = self.sequences
        position.teams = self.teams
        position.to_win = self.to_win
        position.locked = self.locked
        return position

    def winner(self) -> int | None:
        """The team that has completed enough sequences, if any."""
        for team, windows in enumerate(self.sequences):
            if len(windows) >= self.to_win:
                return team
        return None
