"""The hard player: weigh the best few plays against many guesses of the hidden cards.

Each guess (a :class:`~.determinize.Deal`) deals the unseen cards at random, consistently with
what is public (and with what the last play showed, see :mod:`.inference`). For each guess,
each candidate is played; the other teams answer as the medium player would (partners by the
viewer's own scores) with the cards the guess gives them; then the viewer's best answer is
scored, less the sequence the next seat could then complete, plus one the viewer is then sure
to complete. A candidate's value is its mean over the guesses. Positions reached are cached,
so most guesses cost a few look-ups.

The work budget is a number of guesses, so the same view and seed give the same move on any
machine. No clock is read here: a caller may pass one (``clock``, seconds as a float, e.g.
``time.perf_counter``) with a safety cap in milliseconds, which only cuts the search short when
the machine is far slower than expected.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ..board import CARD_SPACES
from ..cards import is_one_eyed, is_two_eyed
from ..game import ENDLESS_PLAY_RESHUFFLES
from ..moves import Move
from ..sequences import EMPTY
from ..view import PlayerView
from .determinize import Deal, sample_deal, unseen_cards
from .evaluate import BLOCK, SEQUENCE, WIN, Analysis, Fill
from .inference import unlikely_cards
from .lines import WINDOWS
from .medium import MediumScores, medium_pick, spoils, threat_windows
from .position import Position
from .scoring import ONE_EYED_COST, TWO_EYED_COST, Pick, Scores, best_play, score_plays
from .tracking import fill_factors

#: A clock for the safety cap: seconds, as ``time.perf_counter`` gives them.
Clock = Callable[[], float]

#: Hard's work budget: guesses of the hidden cards per move (each weighs every candidate).
DEFAULT_SAMPLES = 64
#: Plays examined: the best by the one-move score (at most two per kind of jack).
CANDIDATES = 8
#: Plays that block another team's four, added to the candidates: at most this many of each
#: kind (a plain card, a two-eyed jack, a one-eyed jack).
BLOCKS_PER_KIND = 2
#: What a jack in hand is worth at the end of the look-ahead (its price when spent).
JACK_HOLD = (TWO_EYED_COST, ONE_EYED_COST)
#: The share of a sequence's value credited for one the viewer is sure to complete next turn.
SURE = 0.8


def hard_play(
    view: PlayerView,
    position: Position,
    team: int,
    plays: list[Move],
    rng: random.Random,
    samples: int,
    cap_ms: float | None = None,
    clock: Clock | None = None,
) -> Move:
    """The candidate with the best mean value over ``samples`` guesses.

    With a ``clock``, a guess is not started when it would likely end after ``cap_ms``
    milliseconds (a safety cap: at the intended budget it does not bind).
    """
    timer = _Timer(clock, cap_ms) if clock is not None and cap_ms is not None else None
    unseen = unseen_cards(view)
    fill = fill_factors(view, unseen)
    scored = score_plays(position, team, plays, fill)
    if scored[0][0] >= WIN:
        return scored[0][1]
    search = _Search(view, position, team, fill, unseen)
    candidates = _candidates(scored)
    candidates += [m for m in _blocks(search.root.analysis, team, scored) if m not in candidates]
    if len(candidates) == 1:
        return candidates[0]
    unlikely = unlikely_cards(view)
    totals = [0.0] * len(candidates)
    for done in range(1, max(1, samples) + 1):
        deal = sample_deal(view, rng, unseen, unlikely)
        for i, move in enumerate(candidates):
            totals[i] += search.value(move, deal)
        if timer is not None and done < samples and timer.out_of_time():
            break
    best = max(range(len(candidates)), key=lambda i: (totals[i], -i))
    return candidates[best]


class _Timer:
    """The safety cap: is there time for one more guess, judging by the last one?"""

    def __init__(self, clock: Clock, cap_ms: float) -> None:
        self.clock = clock
        self.last = clock()
        self.deadline = self.last + cap_ms / 1000

    def out_of_time(self) -> bool:
        now = self.clock()
        step, self.last = now - self.last, now
        return now + step > self.deadline


def _candidates(scored: list[tuple[float, Move]]) -> list[Move]:
    """The best plays by score, at most two per kind of jack."""
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


def _blocks(analysis: Analysis, team: int, scored: list[tuple[float, Move]]) -> list[Move]:
    """The plays that take away a space where another team completes a sequence: the best
    two of each kind (a plain card, a two-eyed jack, a one-eyed jack), most taken away first."""
    threats = threat_windows(analysis, team)
    if not threats:
        return []
    found: list[tuple[int, int, Move]] = []
    for order, (_, move) in enumerate(scored):
        spoiled = spoils(analysis, threats, team, move.card, move.space)  # type: ignore[arg-type]
        if spoiled > 0:
            found.append((-spoiled, order, move))
    chosen: list[Move] = []
    kinds = {"two": 0, "one": 0, "": 0}
    for _, _, move in sorted(found):
        card = move.card or ""
        kind = "two" if is_two_eyed(card) else "one" if is_one_eyed(card) else ""
        if kinds[kind] < BLOCKS_PER_KIND:
            kinds[kind] += 1
            chosen.append(move)
    return chosen


class Node:
    """A position reached in the search; its analysis and scores are made when first needed."""

    __slots__ = (
        "_analysis",
        "_fill",
        "_jack_targets",
        "_parent",
        "_scores",
        "_space",
        "children",
        "position",
    )

    def __init__(
        self,
        position: Position,
        parent: Node | None = None,
        space: int = -1,
        fill: Fill | None = None,
    ) -> None:
        self.position = position
        self._fill = fill
        self._parent = parent
        self._space = space
        self._analysis: Analysis | None = None
        self._scores: dict[tuple[int, str], Scores | MediumScores] = {}
        self._jack_targets: dict[tuple[int, bool], list[int]] = {}
        self.children: dict[tuple[int, int], Node] = {}

    @property
    def analysis(self) -> Analysis:
        """The position's analysis (from the parent's, when there is one)."""
        if self._analysis is None:
            parent = self._parent
            if parent is None:
                self._analysis = Analysis(self.position, self._fill)
            else:
                self._analysis = parent.analysis.after_place(self.position, self._space)
                self._parent = None
        return self._analysis

    def scores(self, team: int, kind: str) -> Scores | MediumScores:
        """``team``'s scores: "medium" (how others are expected to play), "own" (the viewer's
        team's one-move scores) or "exact" (changes of the evaluation)."""
        key = (team, kind)
        found = self._scores.get(key)
        if found is None:
            if kind == "medium":
                found = MediumScores(self.analysis, team)
            elif kind == "own":
                found = Scores(self.analysis, team)
            else:
                found = Scores(self.analysis, team, [BLOCK] * self.position.teams, JACK_HOLD)
            self._scores[key] = found
        return found

    def jack_targets(self, team: int, removing: bool, fours: list[int]) -> list[int]:
        """The few spaces worth a jack of ``team``: the best three by score and those of the
        windows ``fours``."""
        key = (team, removing)
        found = self._jack_targets.get(key)
        if found is None:
            scores = self.scores(team, "exact")
            table = scores.remove if removing else scores.place
            best = sorted(table, key=table.__getitem__, reverse=True)[:3]
            chips = self.position.chips
            extra = {
                s
                for w in fours
                for s in WINDOWS[w]
                if s in table and (chips[s] != EMPTY if removing else chips[s] == EMPTY)
            }
            found = best + sorted(extra.difference(best))
            self._jack_targets[key] = found
        return found

    def child(self, team: int, card: str, space: int) -> Node:
        """The node after ``team`` plays ``card`` on ``space``."""
        removing = is_one_eyed(card)
        key = (-1 if removing else team, space)
        node = self.children.get(key)
        if node is None:
            position = self.position
            after = position.removed(space) if removing else position.placed(team, space)
            node = Node(after, self, space)
            self.children[key] = node
        return node


class _Search:
    """Values of candidate plays for one view, sharing the positions they reach."""

    def __init__(
        self, view: PlayerView, position: Position, team: int, fill: Fill, unseen: list[str]
    ) -> None:
        self.view = view
        self.unseen = unseen
        self.team = team
        self.teams = view.settings.teams
        self.seat: int = view.seat  # type: ignore[assignment]
        self.root = Node(position, fill=fill)
        self.hand = list(view.hand or ())
        #: The positions after each candidate, by (card, space): see :meth:`_after`.
        self.afters: dict[tuple[str, int], Node] = {}
        settings = view.settings
        #: True when the deck running out in the look-ahead draws the game (endless-play guard)
        #: unless a sequence is completed first.
        self.last_deck = (
            settings.endless_play_guard
            and not settings.convoy
            and view.reshuffles_since_sequence + 1 >= ENDLESS_PLAY_RESHUFFLES
        )
        self.sequences_now = sum(len(w) for w in position.sequences)
        players = view.settings.players
        #: The other seats still in the game, in the order they play before the viewer again.
        self.others = [
            seat
            for seat in ((self.seat + step) % players for step in range(1, players))
            if not view.out[seat]
        ]

    def value(self, move: Move, deal: Deal) -> float:
        """The value of ``move`` for the viewer's team if the hidden cards are ``deal``."""
        team, teams = self.team, self.teams
        card, space = move.card, move.space
        assert card is not None and space is not None
        node = self._after(card, space)
        if node.position.winner() is not None:
            return WIN
        deck = deal.deck
        top = len(deck)
        hand = list(self.hand)
        hand.remove(card)
        if top:
            top -= 1
            hand.append(deck[top])
        elif self._drawn(node):
            return 0.0
        hands = {seat: list(deal.hands[seat]) for seat in self.others}
        for seat in self.others:
            mover = seat % teams
            if mover == team:
                pick = best_play(node.scores(mover, "own"), hands[seat], node.position.chips)
            else:
                scores = node.scores(mover, "medium")
                pick = medium_pick(scores, node.analysis, mover, hands[seat])  # type: ignore[arg-type]
            if pick is None:
                continue
            node = node.child(mover, pick[1], pick[2])
            winner = node.position.winner()
            if winner is not None:
                return WIN if winner == team else -WIN
            hands[seat].remove(pick[1])
            if top:
                top -= 1
                hands[seat].append(deck[top])
            elif self._drawn(node):
                return 0.0
        next_hand = hands[self.others[0]] if self.others else []
        return self._leaf(node, hand, next_hand)

    def _after(self, card: str, space: int) -> Node:
        """The position after the viewer plays ``card`` on ``space``, counted with the viewer's
        hand without that card: the card's other space is no longer one the viewer holds."""
        key = (card, space)
        node = self.afters.get(key)
        if node is None:
            hand = list(self.hand)
            hand.remove(card)
            position = self.root.position
            after = (
                position.removed(space) if is_one_eyed(card) else position.placed(self.team, space)
            )
            node = Node(after, fill=fill_factors(self.view, self.unseen, hand))
            self.afters[key] = node
        return node

    def _drawn(self, node: Node) -> bool:
        """True when a draw from the empty deck now ends the game as drawn (the endless-play
        guard: a reshuffle with no new sequence since the last one)."""
        return self.last_deck and sum(len(w) for w in node.position.sequences) == self.sequences_now

    def _leaf(self, node: Node, hand: list[str], next_hand: list[str]) -> float:
        """The position's score with the viewer's best answer, less the next seat's threat."""
        team = self.team
        position = node.position
        analysis = node.analysis
        base = analysis.score(team) + sum(
            JACK_HOLD[0] if is_two_eyed(c) else JACK_HOLD[1] if is_one_eyed(c) else 0.0
            for c in hand
        )
        scores = node.scores(team, "exact")
        chips = position.chips
        rival = (team + 1) % position.teams
        fours = analysis.fours(rival)
        loss = WIN if len(position.sequences[rival]) + 1 >= position.to_win else SEQUENCE
        best: Pick | None = None
        seen: set[tuple[str, int]] = set()
        for card in hand:
            spaces = CARD_SPACES.get(card)
            if spaces is not None:
                targets = [s for s in spaces if chips[s] == EMPTY]
            else:
                targets = node.jack_targets(team, is_one_eyed(card), fours)
            for space in targets:
                if (card, space) in seen:
                    continue
                seen.add((card, space))
                value = scores.play_score(card, space)
                if value >= WIN:
                    return WIN
                left = [w for w in fours if space not in WINDOWS[w]]
                if left and _can_fill(next_hand, left, chips):
                    value -= loss
                if best is None or value > best[0]:
                    best = (value, card, space)
        if best is None:
            return base - (loss if fours and _can_fill(next_hand, fours, chips) else 0.0)
        return base + best[0] + SURE * self._sure(node, hand, next_hand, best[1], best[2])

    def _sure(
        self, node: Node, hand: list[str], next_hand: list[str], card: str, space: int
    ) -> float:
        """After the viewer plays ``card`` on ``space``: the value of a sequence it completes
        next turn whatever the next seat does, or 0."""
        team = self.team
        child = node.child(team, card, space)
        position = child.position
        if position.winner() is not None:
            return 0.0
        analysis = child.analysis
        fours = analysis.fours(team)
        if not fours:
            return 0.0
        rest = list(hand)
        rest.remove(card)
        fillable = {analysis.empties[w][0] for w in fours}
        if "JD" not in rest and "JC" not in rest:
            fillable &= {s for c in rest for s in CARD_SPACES.get(c, ())}
        if not fillable:
            return 0.0
        if len(fillable) < 2:
            if any(c in next_hand for c in ("JD", "JC", "JH", "JS")):
                return 0.0
            if fillable <= {s for c in next_hand for s in CARD_SPACES.get(c, ())}:
                return 0.0
        if len(position.sequences[team]) + 1 >= position.to_win:
            return WIN
        return SEQUENCE


def _can_fill(hand: list[str], fours: list[int], chips: list[int]) -> bool:
    """True when ``hand`` can fill the open space of one of the windows ``fours``."""
    if "JD" in hand or "JC" in hand:
        return True
    spaces = {space for w in fours for space in WINDOWS[w] if chips[space] == EMPTY}
    return any(space in spaces for card in hand for space in CARD_SPACES.get(card, ()))
