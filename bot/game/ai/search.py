"""The hard player: try the best few plays against many guesses of the hidden cards.

For each guess (a :class:`~.determinize.Deal`), each candidate is played, the other seats
answer as the medium player would with the cards the guess gives them, then the viewer makes
its best answer and the position is scored; a candidate's value is its mean over the guesses.
Positions reached are cached, so most guesses cost only a few look-ups.
"""

from __future__ import annotations

import random
from time import perf_counter

from ..board import CARD_SPACES
from ..cards import is_one_eyed, is_two_eyed
from ..moves import Move
from ..sequences import EMPTY
from ..view import PlayerView
from .determinize import Deal, sample_deal, unseen_cards
from .evaluate import BLOCK, SEQUENCE, WIN, Analysis, Fill
from .heuristic import ONE_EYED_COST, TWO_EYED_COST, Scores, score_plays
from .inference import unlikely_cards
from .lines import WINDOWS
from .medium import MediumScores
from .position import Position
from .tracking import fill_factors

#: Guesses of the hidden cards per move, unless the time budget ends first.
DEFAULT_SAMPLES = 48
#: Plays examined: the best by the medium score.
CANDIDATES = 8
#: How the other seats are expected to play: "medium" or "greedy".
MODEL = "medium"
#: How much better (per guess) than the first candidate another must be to be chosen.
MARGIN = 0.0
#: Read the last play for cards its player cannot have held.
INFER = True
#: Rounds of play looked at after each candidate (every other seat, then the viewer).
ROUNDS = 1
#: The share of a sequence's value credited for one the viewer is sure to complete next turn.
SURE = 0.8
#: What keeping a jack in hand is worth to the search.
JACK_HOLD = (TWO_EYED_COST, ONE_EYED_COST)


class Node:
    """A position reached in the search, with its analysis and scores made on demand."""

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
        self._scores: dict[tuple[int, bool, bool], Scores | MediumScores] = {}
        self.children: dict[tuple[int, int], Node] = {}
        self._jack_targets: dict[tuple[int, bool], list[int]] = {}

    @property
    def analysis(self) -> Analysis:
        if self._analysis is None:
            parent = self._parent
            if parent is None:
                self._analysis = Analysis(self.position, self._fill)
            else:
                self._analysis = parent.analysis.after_place(self.position, self._space)
                self._parent = None
        return self._analysis

    def scores(self, team: int, exact: bool = False, greedy: bool = False) -> Scores | MediumScores:
        """The opponent model's scores for ``team``; ``greedy``, the viewer's own policy;
        ``exact``, changes of the evaluation."""
        key = (team, exact, greedy)
        found = self._scores.get(key)
        if found is None:
            if exact:
                blocks = [BLOCK] * self.position.teams
                found = Scores(self.analysis, team, blocks, JACK_HOLD)
            elif greedy:
                found = Scores(self.analysis, team)
            elif MODEL == "medium":
                found = MediumScores(self.analysis, team)
            else:
                found = Scores(self.analysis, team)
            self._scores[key] = found
        return found

    def jack_targets(self, team: int, removing: bool, fours: list[int]) -> list[int]:
        """The few spaces worth a jack of ``team``: the best by score and those in ``fours``."""
        key = (team, removing)
        found = self._jack_targets.get(key)
        if found is None:
            scores = self.scores(team, exact=True)
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


def hard_play(
    view: PlayerView,
    position: Position,
    team: int,
    plays: list[Move],
    rng: random.Random,
    budget_ms: float,
    samples: int,
) -> Move:
    """The candidate with the best mean value over up to ``samples`` guesses of hidden cards."""
    deadline = perf_counter() + budget_ms / 1000
    unseen = unseen_cards(view)
    fill = fill_factors(view, unseen)
    scored = score_plays(position, team, plays, fill)
    if scored[0][0] >= WIN:
        return scored[0][1]
    candidates = _candidates(scored)
    if len(candidates) == 1:
        return candidates[0]
    search = _Search(view, position, team, fill)
    totals = [0.0] * len(candidates)
    unlikely = unlikely_cards(view) if INFER else None
    for done in range(1, samples + 1):
        started = perf_counter()
        deal = sample_deal(view, rng, unseen, unlikely)
        for i, move in enumerate(candidates):
            totals[i] += search.value(move, deal)
        now = perf_counter()
        if done < samples and now + (now - started) > deadline:
            break
    best = max(range(len(candidates)), key=lambda i: (totals[i], -i))
    if totals[best] - totals[0] <= MARGIN * done:
        best = 0
    return candidates[best]


def _candidates(scored: list[tuple[float, Move]]) -> list[Move]:
    """The best plays by the medium score, at most two per jack kind, one per space and card."""
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


class _Search:
    """Values of candidate plays for one view, sharing the positions they reach."""

    def __init__(self, view: PlayerView, position: Position, team: int, fill: Fill) -> None:
        self.view = view
        self.team = team
        self.seat: int = view.seat  # type: ignore[assignment]
        self.root = Node(position, fill=fill)
        self.hand = list(view.hand or ())
        players = view.settings.players
        order = []
        seat = self.seat
        for _ in range(players):
            seat = (seat + 1) % players
            if seat == self.seat:
                break
            if not view.out[seat]:
                order.append(seat)
        #: The other seats, in the order they play before the viewer's next turn.
        self.others = order

    def value(self, move: Move, deal: Deal) -> float:
        """The value of ``move`` for the viewer's team if the hidden cards are ``deal``."""
        team = self.team
        teams = self.view.settings.teams
        card, space = move.card, move.space
        assert card is not None and space is not None
        node = self.root.child(team, card, space)
        if node.position.winner() is not None:
            return WIN
        hands = {seat: list(deal.hands[seat]) for seat in self.others}
        hand = list(self.hand)
        hand.remove(card)
        deck = deal.deck
        top = len(deck)
        if top:
            top -= 1
            hand.append(deck[top])
        hands[self.seat] = hand
        order = [*self.others, self.seat]
        for turn in range(ROUNDS * len(order) - 1):
            seat = order[turn % len(order)]
            seat_hand = hands[seat]
            mover = seat % teams
            scores = node.scores(mover, greedy=mover == team)
            pick = scores.best(seat_hand, node.position.chips)
            if pick is None:
                continue
            node = node.child(seat % teams, pick[1], pick[2])
            winner = node.position.winner()
            if winner is not None:
                return WIN if winner == team else -WIN
            seat_hand.remove(pick[1])
            if top:
                top -= 1
                seat_hand.append(deck[top])
        threat_seat = self.others[0] if self.others else None
        return self._leaf(node, hand, hands[threat_seat] if threat_seat is not None else [])

    def _leaf(self, node: Node, hand: list[str], next_hand: list[str]) -> float:
        """The position's score plus the viewer's best answer, less the next seat's threat."""
        team = self.team
        position = node.position
        analysis = node.analysis
        base = analysis.score(team)
        base += sum(
            JACK_HOLD[0] if is_two_eyed(c) else JACK_HOLD[1] if is_one_eyed(c) else 0.0
            for c in hand
        )
        scores = node.scores(team, exact=True)
        chips = position.chips
        teams = position.teams
        threat_team = (team + 1) % teams
        fours = [w for w, n in enumerate(analysis.held[threat_team]) if n == 4]
        sequences = len(position.sequences[threat_team])
        loss = WIN if sequences + 1 >= position.to_win else SEQUENCE
        best = None
        best_play: tuple[str, int] | None = None
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
                if fours:
                    left = [w for w in fours if space not in WINDOWS[w]]
                    if left and _can_fill(next_hand, left, chips):
                        value -= loss
                if best is None or value > best:
                    best, best_play = value, (card, space)
        if best_play is None:
            return base - (loss if fours and _can_fill(next_hand, fours, chips) else 0.0)
        return base + best + SURE * self._sure(node, hand, next_hand, best_play)

    def _sure(
        self, node: Node, hand: list[str], next_hand: list[str], play: tuple[str, int]
    ) -> float:
        """A sequence the viewer completes next turn whatever the next seat does, after
        ``play``: its value, or 0."""
        team = self.team
        card, space = play
        child = node.child(team, card, space)
        position = child.position
        if position.winner() is not None:
            return 0.0
        analysis = child.analysis
        fours = analysis.fours(team)
        if not fours:
            return 0.0
        hand = list(hand)
        hand.remove(card)
        wild = "JD" in hand or "JC" in hand
        mine = {s for c in hand for s in CARD_SPACES.get(c, ())}
        fillable = {analysis.empties[w][0] for w in fours}
        if not wild:
            fillable &= mine
        if not fillable:
            return 0.0
        if len(fillable) < 2:
            if "JD" in next_hand or "JC" in next_hand or "JH" in next_hand or "JS" in next_hand:
                return 0.0
            blockers = {s for c in next_hand for s in CARD_SPACES.get(c, ())}
            if fillable <= blockers:
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
