"""A fast throw-away game for rollouts: the medium policy for every seat, move after move.

The engine's :class:`~bot.game.game.Game` checks and records everything; a rollout needs only
the board, the hands and the deck, and the medium player's scores kept up to date as chips
come and go (only the windows through the changed space are counted again).
"""

from __future__ import annotations

import random

from ..board import CARD_SPACES, CORNERS
from ..cards import is_one_eyed, is_two_eyed
from ..sequences import CORNER, EMPTY, room_score, sequence_options
from .evaluate import OWN
from .heuristic import BLOCK, BLOCK_LAST, ONE_EYED_COST, TWO_EYED_COST
from .lines import OVERLAPPING, SPACE_WINDOWS, WINDOW_INDEX, WINDOWS

_COUNT = len(WINDOWS)
_NEG = float("-inf")
#: What one more chip adds to a team's window, indexed by its held count plus one (-1..5).
_STEP = (0.0, *(OWN[n + 1] - OWN[n] for n in range(4)), 0.0, 0.0)


class Sim:
    """Board, hands and deck of one guessed game, with every team's medium scores per space.

    ``place[t][s]`` is the medium score (less any sequence it completes) of a chip of team
    ``t`` on the empty space ``s``; ``fours[t][s]`` counts the team's windows that a chip on
    ``s`` completes.
    """

    __slots__ = (
        "blocks",
        "chips",
        "contrib",
        "convoy",
        "corners",
        "counts",
        "deck",
        "discards",
        "empties",
        "fours",
        "hands",
        "held",
        "invalid",
        "locked",
        "out",
        "passes",
        "place",
        "players",
        "seed",
        "sequences",
        "teams",
        "to_win",
        "turn",
        "winner",
    )

    @classmethod
    def board(
        cls,
        chips: list[int],
        sequences: list[list[int]],
        players: int,
        teams: int,
        to_win: int,
        convoy: bool,
    ) -> Sim:
        """A sim of the board alone (hands, deck and turn are set by :meth:`deal`)."""
        sim = cls.__new__(cls)
        sim.chips = list(chips)
        sim.sequences = [list(w) for w in sequences]
        sim.players, sim.teams, sim.to_win, sim.convoy = players, teams, to_win, convoy
        sim.corners = [sum(1 for s in cells if s in CORNERS) for cells in WINDOWS]
        sim.hands, sim.deck, sim.discards = [], [], []
        sim.out = [False] * players
        sim.turn = 0
        sim.seed = 0
        sim.passes = 0
        sim.winner = None
        sim._recount()
        return sim

    def _recount(self) -> None:
        """Count every window again (after a new sequence changes what may still be built)."""
        teams = self.teams
        chips = self.chips
        self._rules()
        self.counts = [[0] * _COUNT for _ in range(teams)]
        self.held = [[-1] * _COUNT for _ in range(teams)]
        self.contrib = [[0.0] * _COUNT for _ in range(teams)]
        self.empties = [()] * _COUNT
        for w, cells in enumerate(WINDOWS):
            for s in cells:
                if chips[s] >= 0:
                    self.counts[chips[s]][w] += 1
            self.empties[w] = tuple(s for s in cells if chips[s] == EMPTY)
        self._rescore_all()

    def _rules(self) -> None:
        """What the completed sequences fix: windows no longer buildable, locked chips, and
        medium's block values (indexed by held count plus one) for each team."""
        self.invalid = [
            frozenset().union(*(OVERLAPPING[w] for w in windows)) if windows else frozenset()
            for windows in self.sequences
        ]
        locked = [False] * 100
        for windows in self.sequences:
            for w in windows:
                for s in WINDOWS[w]:
                    locked[s] = s not in CORNERS
        self.locked = locked
        last = self.to_win - 1
        self.blocks = [
            (0.0, *(BLOCK_LAST if len(w) >= last else BLOCK), 0.0) for w in self.sequences
        ]

    def _rescore_all(self) -> None:
        for w in range(_COUNT):
            self._rescore(w)
        self.place = [[0.0] * 100 for _ in range(self.teams)]
        self.fours = [[0] * 100 for _ in range(self.teams)]
        chips = self.chips
        for s in range(100):
            if chips[s] == EMPTY:
                self._respace(s)

    def _rescore(self, w: int) -> None:
        """Window ``w``'s held counts and its share of each team's score per open space."""
        teams = self.teams
        counts, held, contrib = self.counts, self.held, self.contrib
        corners = self.corners[w]
        invalid = self.invalid
        if teams == 2:
            c0, c1 = counts[0][w], counts[1][w]
            h0 = c0 + corners if c1 == 0 and w not in invalid[0] else -1
            h1 = c1 + corners if c0 == 0 and w not in invalid[1] else -1
            held[0][w], held[1][w] = h0, h1
            blocks = self.blocks
            contrib[0][w] = _STEP[h0 + 1] + blocks[1][h1 + 1]
            contrib[1][w] = _STEP[h1 + 1] + blocks[0][h0 + 1]
            return
        total = 0
        for t in range(teams):
            total += counts[t][w]
        hs = [
            counts[t][w] + corners if counts[t][w] == total and w not in invalid[t] else -1
            for t in range(teams)
        ]
        for t in range(teams):
            held[t][w] = hs[t]
            value = _STEP[hs[t] + 1]
            for u in range(teams):
                if u != t:
                    value += self.blocks[u][hs[u] + 1]
            contrib[t][w] = value

    def _respace(self, space: int) -> None:
        """Sum the scores of an open space from its windows."""
        for t in range(self.teams):
            contrib, held = self.contrib[t], self.held[t]
            total = 0.0
            four = 0
            for w in SPACE_WINDOWS[space]:
                total += contrib[w]
                if held[w] == 4:
                    four += 1
            self.place[t][space] = total
            self.fours[t][space] = four

    def copy(self) -> Sim:
        """An independent copy."""
        sim = Sim.__new__(Sim)
        sim.chips = list(self.chips)
        sim.sequences = [list(w) for w in self.sequences]
        sim.players, sim.teams, sim.to_win, sim.convoy = (
            self.players,
            self.teams,
            self.to_win,
            self.convoy,
        )
        sim.corners = self.corners
        sim.invalid, sim.locked, sim.blocks = self.invalid, self.locked, self.blocks
        sim.empties = list(self.empties)
        sim.counts = [list(x) for x in self.counts]
        sim.held = [list(x) for x in self.held]
        sim.contrib = [list(x) for x in self.contrib]
        sim.place = [list(x) for x in self.place]
        sim.fours = [list(x) for x in self.fours]
        sim.hands = [list(h) for h in self.hands]
        sim.deck = list(self.deck)
        sim.discards = list(self.discards)
        sim.out = list(self.out)
        sim.turn, sim.passes, sim.winner = self.turn, self.passes, self.winner
        sim.seed = self.seed
        return sim

    def deal(self, hands: list[list[str]], deck: list[str], discards: list[str], turn: int) -> Sim:
        """A copy with these hands, deck and discards, ``turn`` to play."""
        sim = self.copy()
        sim.hands = [list(h) for h in hands]
        sim.deck = list(deck)
        sim.discards = list(discards)
        sim.turn = turn
        return sim

    # ------------------------------------------------------------------ changes
    def _change(self, space: int, chip: int) -> None:
        """Set the chip on ``space`` (a team or EMPTY) and bring the scores up to date.

        Scores of covered spaces are left stale; a space is summed again when it opens.
        """
        chips = self.chips
        old = chips[space]
        chips[space] = chip
        teams = self.teams
        counts, held, contrib = self.counts, self.held, self.contrib
        place, fours, all_empties = self.place, self.fours, self.empties
        for w in SPACE_WINDOWS[space]:
            if old >= 0:
                counts[old][w] -= 1
            if chip >= 0:
                counts[chip][w] += 1
            before = all_empties[w]
            if chip == EMPTY:
                empties = tuple(s for s in WINDOWS[w] if chips[s] == EMPTY)
            else:
                empties = tuple(s for s in before if s != space)
            all_empties[w] = empties
            olds = [(held[t][w], contrib[t][w]) for t in range(teams)]
            self._rescore(w)
            for t in range(teams):
                old_held, old_value = olds[t]
                delta = contrib[t][w] - old_value
                if delta:
                    team_place = place[t]
                    for s in empties:
                        team_place[s] += delta
                new_held = held[t][w]
                if old_held == 4:
                    team_fours = fours[t]
                    for s in before:
                        team_fours[s] -= 1
                if new_held == 4:
                    team_fours = fours[t]
                    for s in empties:
                        team_fours[s] += 1
        if chip == EMPTY:
            self._respace(space)

    def options(self, team: int, space: int) -> list[tuple[tuple[int, ...], ...]]:
        """The engine's sequence options for a chip of ``team`` on the empty ``space``."""
        chips = self.chips
        chips[space] = team
        try:
            existing = [frozenset(WINDOWS[w]) for w in self.sequences[team]]
            return sequence_options(chips, space, team, existing)  # type: ignore[return-value]
        finally:
            chips[space] = EMPTY

    def completion(self, team: int, space: int) -> float:
        """Medium's value of the sequences a chip there completes (1e6 for a win)."""
        options = self.options(team, space)
        if not options:
            return 0.0
        made = max(len(option) for option in options)
        if len(self.sequences[team]) + made >= self.to_win:
            return 1_000_000.0
        return 1000.0 * made

    def place_chip(self, team: int, space: int) -> None:
        """Put a chip of ``team`` on ``space``, locking any sequence it completes."""
        option = None
        if self.fours[team][space]:
            options = self.options(team, space)
            if options:
                chips = list(self.chips)
                chips[space] = team
                option = max(options, key=lambda o: room_score(chips, o, team))  # type: ignore
        self._change(space, team)
        if option:
            self.sequences[team].extend(WINDOW_INDEX[frozenset(w)] for w in option)
            if len(self.sequences[team]) >= self.to_win:
                self.winner = team
                return
            self._rules()
            self._rescore_all()

    def remove_chip(self, space: int) -> None:
        """Take the chip off ``space``."""
        self._change(space, EMPTY)

    def remove_value(self, team: int, space: int) -> float:
        """Medium's value of removing the chip on ``space`` for ``team``."""
        other = self.chips[space]
        held = self.held[other]
        block = self.blocks[other]
        total = 0.0
        corners, invalid = self.corners, self.invalid[team]
        own_counts = self.counts[team]
        if self.teams == 2:
            foreign_counts = self.counts[other]
            for w in SPACE_WINDOWS[space]:
                n = held[w]
                if 0 < n < 5:
                    total += block[n + 1] - block[n]
                if foreign_counts[w] == 1 and w not in invalid:
                    total += OWN[own_counts[w] + corners[w]]
            return total
        counts = self.counts
        for w in SPACE_WINDOWS[space]:
            n = held[w]
            if 0 < n < 5:
                total += block[n + 1] - block[n]
            if w not in invalid:
                own = own_counts[w]
                if sum(c[w] for c in counts) - own == 1:
                    total += OWN[own + corners[w]]
        return total

    # ------------------------------------------------------------------ turns
    def medium_choice(self, seat: int) -> tuple[str, int] | None:
        """The medium player's play for ``seat`` (card, space), or ``None``: nothing to play."""
        team = seat % self.teams
        chips = self.chips
        place = self.place[team]
        fours = self.fours[team]
        best = _NEG
        choice: tuple[str, int] | None = None
        for card in dict.fromkeys(self.hands[seat]):
            spaces = CARD_SPACES.get(card)
            if spaces is not None:
                targets = [s for s in spaces if chips[s] == EMPTY]
                cost = 0.0
            elif is_two_eyed(card):
                targets = [s for s in range(100) if chips[s] == EMPTY]
                cost = TWO_EYED_COST
            else:
                locked = self.locked
                targets = [
                    s for s in range(100) if chips[s] >= 0 and chips[s] != team and not locked[s]
                ]
                for s in targets:
                    score = self.remove_value(team, s) - ONE_EYED_COST
                    if score > best:
                        best, choice = score, (card, s)
                continue
            for s in targets:
                score = place[s] - cost
                if fours[s]:
                    score += self.completion(team, s)
                if score > best:
                    best, choice = score, (card, s)
        return choice

    def play(self, seat: int, card: str, space: int) -> None:
        """``seat`` plays ``card`` on ``space`` and draws."""
        self.hands[seat].remove(card)
        self.discards.append(card)
        if is_one_eyed(card):
            self.remove_chip(space)
        else:
            self.place_chip(seat % self.teams, space)
        self.passes = 0
        self._draw(seat)

    def _draw(self, seat: int) -> None:
        if not self.deck and not self.convoy and self.discards:
            self.deck = self.discards
            self.discards = []
            random.Random(self.seed + len(self.deck)).shuffle(self.deck)
        if self.deck:
            self.hands[seat].append(self.deck.pop())

    def _dead(self, seat: int) -> str | None:
        chips = self.chips
        for card in self.hands[seat]:
            spaces = CARD_SPACES.get(card)
            if spaces and chips[spaces[0]] != EMPTY and chips[spaces[1]] != EMPTY:
                return card
        return None

    def step(self) -> None:
        """The seat to move plays one medium turn (a dead card, a play or a pass)."""
        seat = self.turn
        dead = self._dead(seat)
        if dead is not None and not self.convoy:
            self.hands[seat].remove(dead)
            self.discards.append(dead)
            self._draw(seat)
        choice = self.medium_choice(seat)
        if choice is None:
            dead = self._dead(seat)
            if dead is not None and self.convoy:
                self.hands[seat].remove(dead)
                self.discards.append(dead)
                self._draw(seat)
            else:
                self.passes += 1
        else:
            self.play(seat, *choice)
        self.advance()

    def advance(self) -> None:
        """End the turn: the next seat in the game is to move; a stalled game ends."""
        if self.winner is not None:
            return
        players = self.players
        seat = self.turn
        for _ in range(players):
            seat = (seat + 1) % players
            if not self.out[seat]:
                break
        self.turn = seat
        active = self.out.count(False)
        if self.passes >= active or (
            self.convoy and not self.deck and not any(self.hands[s] for s in range(players))
        ):
            counts = [len(w) for w in self.sequences]
            best = max(counts)
            if self.convoy and counts.count(best) == 1:
                self.winner = counts.index(best)
            else:
                self.winner = -1

    def potential(self, team: int) -> float:
        """``team``'s open windows minus the others', plus 1000 per sequence difference."""
        total = 0.0
        for t in range(self.teams):
            sign = 1.0 if t == team else -1.0
            value = 1000.0 * len(self.sequences[t])
            for n in self.held[t]:
                if 0 <= n < 5:
                    value += OWN[n]
            total += sign * value
        return total


__all__ = ["CORNER", "Sim"]
