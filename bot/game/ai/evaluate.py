"""Window counting: how close each team is to sequences, and what each move would change.

Every window of five that holds no other team's chip (and could still become a new sequence
under the sharing rule) is worth ``OWN[n]`` to a team holding ``n`` of its spaces (corners count).
"""

from __future__ import annotations

from ..sequences import CORNER, EMPTY
from .lines import OVERLAPPING, SPACE_WINDOWS, WINDOWS
from .position import Position

#: A team's worth of one open window by the spaces it holds (0..4).
OWN = (0.0, 1.0, 3.0, 9.0, 27.0)
#: What another team's open window is worth to a team (it must be blocked): a four is urgent.
BLOCK = (0.0, 1.0, 4.0, 20.0, 200.0)
#: One completed sequence.
SEQUENCE = 1000.0
#: Winning the game (or, negated, losing it).
WIN = 1_000_000.0

#: Per team, what blocking one of its windows is worth by the spaces it holds (0..4).
Blocks = list[tuple[float, ...]]

#: Per team, a factor for each space: how likely the team is to fill it.
Fill = list[list[float]]

_ALL = range(len(WINDOWS))
_ONES = [1.0] * 100


class Analysis:
    """Counts of one position: for each team and window, the spaces held, or -1 when blocked.

    ``worth[team][w]`` is the product of the window's open spaces' fill factors, and
    ``lone[team]`` maps each window blocked for ``team`` by exactly one chip to that chip's
    space, the spaces ``team`` holds there and the worth the window would have without it.
    """

    __slots__ = (
        "_fours",
        "danger",
        "empties",
        "fill",
        "held",
        "invalid",
        "lone",
        "position",
        "potential",
        "worth",
    )

    def __init__(
        self,
        position: Position,
        fill: Fill | None = None,
        parent: Analysis | None = None,
        space: int = -1,
    ) -> None:
        """Count ``position``; with ``parent`` (the position before ``space`` changed and no new
        sequence), only the windows through ``space`` are counted again.

        ``fill[team][space]`` scales a team's windows by how likely it is to fill each of their
        open spaces (by default 1 everywhere): a window is worth ``OWN[n]`` times the product
        of its open spaces' factors.
        """
        self.position = position
        self._fours: dict[int, list[int]] = {}
        teams = position.teams
        self.fill = fill if fill is not None else [_ONES] * teams
        if parent is None:
            self.invalid = [
                frozenset().union(*(OVERLAPPING[w] for w in windows)) if windows else frozenset()
                for windows in position.sequences
            ]
            self.held = [[-1] * len(WINDOWS) for _ in range(teams)]
            self.worth = [[1.0] * len(WINDOWS) for _ in range(teams)]
            self.empties: list[tuple[int, ...]] = [()] * len(WINDOWS)
            self.lone: list[dict[int, tuple[int, int, float]]] = [{} for _ in range(teams)]
            self.potential = [0.0] * teams
            self.danger = [0.0] * teams
            self._count(_ALL)
        else:
            self.invalid = parent.invalid
            self.held = [list(held) for held in parent.held]
            self.worth = [list(worth) for worth in parent.worth]
            self.empties = list(parent.empties)
            self.lone = [dict(lone) for lone in parent.lone]
            self.potential = list(parent.potential)
            self.danger = list(parent.danger)
            self._count(SPACE_WINDOWS[space])

    def _count(self, windows: range | tuple[int, ...]) -> None:
        chips = self.position.chips
        teams = self.position.teams
        held, lone, invalid, potential = self.held, self.lone, self.invalid, self.potential
        danger = self.danger
        empties, worth, fill = self.empties, self.worth, self.fill
        for w in windows:
            cells = WINDOWS[w]
            counts = [0] * teams
            corners = 0
            free = []
            for space in cells:
                chip = chips[space]
                if chip >= 0:
                    counts[chip] += 1
                elif chip == EMPTY:
                    free.append(space)
                elif chip == CORNER:
                    corners += 1
            empties[w] = tuple(free)
            total = 5 - len(free) - corners
            for team in range(teams):
                team_held = held[team]
                team_worth = worth[team]
                old = team_held[w]
                if 0 <= old < 5:
                    potential[team] -= OWN[old] * team_worth[w]
                    danger[team] -= BLOCK[old] * team_worth[w]
                own = counts[team]
                n = -1
                team_lone = lone[team]
                if w not in invalid[team]:
                    factors = fill[team]
                    product = 1.0
                    for space in free:
                        product *= factors[space]
                    if own == total:
                        n = own + corners
                        team_worth[w] = product
                        if n < 5:
                            potential[team] += OWN[n] * product
                            danger[team] += BLOCK[n] * product
                    elif total - own == 1:
                        blocker = next(s for s in cells if chips[s] >= 0 and chips[s] != team)
                        team_lone[w] = (blocker, own + corners, product * factors[blocker])
                        team_held[w] = -1
                        continue
                team_held[w] = n
                if w in team_lone:
                    del team_lone[w]

    def after_place(self, position: Position, space: int) -> Analysis:
        """The analysis of ``position``, this one's position with one chip changed on ``space``."""
        if position.sequences != self.position.sequences:
            return Analysis(position, self.fill)
        return Analysis(position, self.fill, self, space)

    def score(self, team: int) -> float:
        """``team``'s windows (by ``OWN``) less the other teams' (by ``BLOCK``), plus the
        difference in sequences (or a win). A chip's :meth:`place_gains` with ``BLOCK`` for
        the others is the change in this score."""
        position = self.position
        winner = position.winner()
        if winner is not None:
            return WIN if winner == team else -WIN
        total = self.potential[team] + SEQUENCE * len(position.sequences[team])
        for other in range(position.teams):
            if other != team:
                total -= self.danger[other] + SEQUENCE * len(position.sequences[other])
        return total

    def place_gains(self, team: int, blocks: Blocks | None = None) -> dict[int, float]:
        """For each empty space: what a chip of ``team`` there adds to its windows, plus the
        windows of each other team it blocks (worth ``blocks[other][n]``, by default ``OWN``).
        Completing a sequence is not counted here (see :meth:`Position.options`)."""
        gains: dict[int, float] = {}
        get = gains.get
        empties = self.empties
        for other, held in enumerate(self.held):
            worth = self.worth[other]
            if other == team:
                factors = self.fill[team]
                for w, n in enumerate(held):
                    if 0 <= n < 4:
                        product = worth[w]
                        now = OWN[n] * product
                        after = OWN[n + 1] * product
                        for space in empties[w]:
                            gains[space] = get(space, 0.0) + after / factors[space] - now
            else:
                block = blocks[other] if blocks else OWN
                for w, n in enumerate(held):
                    if 0 < n < 5:
                        value = block[n] * worth[w]
                        for space in empties[w]:
                            gains[space] = get(space, 0.0) + value
        return gains

    def fours(self, team: int) -> list[int]:
        """The windows where ``team`` lacks one chip for a sequence (do not change the list)."""
        found = self._fours.get(team)
        if found is None:
            found = self._fours[team] = [w for w, n in enumerate(self.held[team]) if n == 4]
        return found

    def completing(self, team: int) -> set[int]:
        """Empty spaces where a chip of ``team`` would complete a window of five."""
        empties = self.empties
        return {empties[w][0] for w in self.fours(team)}

    def place_gain(self, team: int, space: int, blocks: Blocks | None = None) -> float:
        """:meth:`place_gains` for one space (cheaper when few spaces matter)."""
        total = 0.0
        for other, held in enumerate(self.held):
            worth = self.worth[other]
            if other == team:
                factor = self.fill[team][space]
                for w in SPACE_WINDOWS[space]:
                    n = held[w]
                    if 0 <= n < 4:
                        total += (OWN[n + 1] / factor - OWN[n]) * worth[w]
            else:
                block = blocks[other] if blocks else OWN
                for w in SPACE_WINDOWS[space]:
                    n = held[w]
                    if 0 < n < 5:
                        total += block[n] * worth[w]
        return total

    def remove_gains(self, team: int, blocks: Blocks | None = None) -> dict[int, float]:
        """For each unlocked chip of another team: what removing it takes from that team's
        windows (valued by ``blocks[other]``) plus the windows of ``team`` it no longer blocks."""
        position = self.position
        chips, locked = position.chips, position.locked
        gains: dict[int, float] = {
            s: 0.0 for s in range(100) if chips[s] >= 0 and chips[s] != team and not locked[s]
        }
        for other, held in enumerate(self.held):
            if other == team:
                continue
            block = blocks[other] if blocks else OWN
            worth = self.worth[other]
            factors = self.fill[other]
            for space in gains:
                if chips[space] == other:
                    loss = 0.0
                    factor = factors[space]
                    for w in SPACE_WINDOWS[space]:
                        n = held[w]
                        if 0 < n < 5:
                            loss += (block[n] - block[n - 1] * factor) * worth[w]
                    gains[space] += loss
        for blocker, n, product in self.lone[team].values():
            if blocker in gains:
                gains[blocker] += OWN[n] * product
        return gains
