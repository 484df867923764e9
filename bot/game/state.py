"""The state of a game: what a snapshot holds, the plain queries on it, its JSON form, copies.

:class:`GameState` is to :class:`~bot.game.game.Game` what python-chess's ``BaseBoard`` is to
its ``Board``: the position without the rules of a move. :meth:`GameState.state_dict` is the one
layout the engine writes and reads; snapshots stored in older layouts are upgraded to it by the
store (:mod:`bot.store.upgrades`) before the engine reads them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Self

from .board import CORNERS
from .cards import CANONICAL_CARDS
from .moves import Move, Window
from .outcome import Outcome, Termination
from .sequences import BITS
from .settings import GameSettings

ACTIVE = "active"
WON = "won"
DRAWN = "drawn"

#: The state's lists of lists, and its flat lists: what :meth:`GameState.copy` copies.
_NESTED_FIELDS = ("hands", "discards", "_team_sequences")
_LIST_FIELDS = (
    "moves",
    "chips",
    "locked",
    "sequences",
    "cut",
    "deck",
    "owed_forfeits",
    "out",
    "_masks",
)


class GameState:
    """A game's settings, seed, moves and the state they lead to (see :class:`Game`)."""

    settings: GameSettings
    seed: int
    moves: list[Move]
    chips: list[int]
    locked: list[bool]
    sequences: list[tuple[int, Window]]
    #: Each team's completed sequences (the windows of ``sequences``, shared).
    _team_sequences: list[list[Window]]
    cut: list[str]
    dealer: int
    hands: list[list[str]]
    deck: list[str]
    discards: list[list[str]]
    turn: int
    turn_number: int
    dead_card_used: bool
    owed_forfeits: list[int]
    #: Manual-draw house option: seat -> the turn number at which its draw was earned.
    owed_draws: dict[int, int]
    out: list[bool]
    status: str
    winner: int | None
    #: The kind of ending, once the game is over.
    termination: Termination | None
    #: The team whose resignation or departure ended the game, if one did.
    leaving_team: int | None
    passes_in_row: int
    reshuffles: int
    #: Reshuffles since the deal or the last completed sequence (the endless-play count).
    reshuffles_since_sequence: int
    #: The last board change: ("placed" | "removed", space), or None.
    last_change: tuple[str, int] | None
    #: A bit per chip of each team and per locked space, kept by moves for the random player
    #: (:mod:`.randomplay`). Validation never reads them: tests that edit ``chips`` by hand
    #: stay right.
    _masks: list[int]
    _locked_mask: int

    # ----------------------------------------------------------------- queries
    def team_of(self, seat: int) -> int:
        """The team of a seat (seats alternate teams)."""
        return seat % self.settings.teams

    def sequence_count(self, team: int) -> int:
        """Completed sequences of one team."""
        return len(self._team_sequences[team])

    def is_over(self) -> bool:
        """True once the game is won or drawn."""
        return self.status != ACTIVE

    @property
    def outcome(self) -> Outcome | None:
        """How the game ended (what ended it, the winner, the score), or None while it is on."""
        if self.termination is None:
            return None
        return Outcome(
            self.termination,
            self.winner,
            tuple(len(windows) for windows in self._team_sequences),
            self.leaving_team,
        )

    def active_teams(self) -> list[int]:
        """Teams with at least one seat still in the game."""
        return sorted({self.team_of(s) for s in range(self.settings.players) if not self.out[s]})

    # ----------------------------------------------------------------- copies and data
    def copy(self) -> Self:
        """An independent copy: every list and dict of the state is copied, the immutable
        values (moves, cards, settings) are shared."""
        fields = dict(self.__dict__)
        for name in _NESTED_FIELDS:
            fields[name] = [list(part) for part in fields[name]]
        for name in _LIST_FIELDS:
            fields[name] = list(fields[name])
        fields["owed_draws"] = dict(fields["owed_draws"])
        twin = type(self).__new__(type(self))
        twin.__dict__.update(fields)
        return twin

    def to_dict(self) -> dict[str, Any]:
        """The whole game (settings, seed, moves and a state snapshot) as JSON-compatible data."""
        return {
            "settings": self.settings.to_dict(),
            "seed": self.seed,
            "moves": [move.to_dict() for move in self.moves],
            "state": self.state_dict(),
        }

    def state_dict(self) -> dict[str, Any]:
        """The state snapshot alone, as JSON-compatible data."""
        return {
            "chips": list(self.chips),
            "sequences": [[team, list(window)] for team, window in self.sequences],
            "hands": [list(hand) for hand in self.hands],
            "deck": list(self.deck),
            "discards": [list(pile) for pile in self.discards],
            "cut": list(self.cut),
            "dealer": self.dealer,
            "turn": self.turn,
            "turn_number": self.turn_number,
            "dead_card_used": self.dead_card_used,
            "owed_forfeits": list(self.owed_forfeits),
            "owed_draws": {str(seat): n for seat, n in self.owed_draws.items()},
            "out": list(self.out),
            "status": self.status,
            "winner": self.winner,
            "termination": self.termination.value if self.termination else None,
            "leaving_team": self.leaving_team,
            "passes_in_row": self.passes_in_row,
            "reshuffles": self.reshuffles,
            "reshuffles_since_sequence": self.reshuffles_since_sequence,
            "last_change": list(self.last_change) if self.last_change else None,
        }

    def _restore(self, settings: GameSettings, data: dict[str, Any]) -> None:
        """Set the whole game from :meth:`to_dict` data (the state in :meth:`state_dict`'s
        layout; ``settings`` read from it), without replaying it.

        Card codes and other repeated strings are shared with every other loaded game (the
        JSON decoder makes a new string for each), so a loaded game holds little of its own.
        """
        self.settings = settings
        self.seed = data["seed"]
        move_from_dict = Move.from_dict
        self.moves = [move_from_dict(m) for m in data["moves"]]
        state = data["state"]
        self.chips = list(state["chips"])
        self.sequences = [(team, tuple(window)) for team, window in state["sequences"]]
        self._team_sequences = [[] for _ in range(settings.teams)]
        self.locked = [False] * 100
        self._locked_mask = 0
        for team, window in self.sequences:
            self._team_sequences[team].append(window)
            for space in window:
                if space not in CORNERS:
                    self.locked[space] = True
                    self._locked_mask |= BITS[space]
        self._masks = _team_masks(self.chips, settings.teams)
        self.hands = [_cards(hand) for hand in state["hands"]]
        self.deck = _cards(state["deck"])
        self.discards = [_cards(pile) for pile in state["discards"]]
        self.cut = _cards(state["cut"])
        self.dealer = state["dealer"]
        self.turn = state["turn"]
        self.turn_number = state["turn_number"]
        self.dead_card_used = state["dead_card_used"]
        self.owed_forfeits = list(state["owed_forfeits"])
        self.owed_draws = {int(seat): n for seat, n in state["owed_draws"].items()}
        self.out = list(state["out"])
        self.status = _WORDS.get(state["status"], state["status"])
        self.winner = state["winner"]
        termination = state["termination"]
        self.termination = Termination(termination) if termination else None
        self.leaving_team = state["leaving_team"]
        self.passes_in_row = state["passes_in_row"]
        self.reshuffles = state["reshuffles"]
        self.reshuffles_since_sequence = state["reshuffles_since_sequence"]
        last = state["last_change"]
        self.last_change = (_WORDS.get(last[0], last[0]), last[1]) if last else None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"<Game {self.settings.preset} {self.settings.players}p seed={self.seed} "
            f"moves={len(self.moves)} {self.status}>"
        )


#: The repeated words of a snapshot, each as one shared string.
_WORDS = {word: word for word in (ACTIVE, WON, DRAWN, "placed", "removed")}


def _cards(cards: Iterable[str]) -> list[str]:
    """A list of card codes, each the one shared string of its card."""
    canonical = CANONICAL_CARDS
    try:
        return [canonical[card] for card in cards]
    except (KeyError, TypeError):  # not a card code: kept as it is, as before
        return [canonical.get(card, card) if isinstance(card, str) else card for card in cards]


def _team_masks(chips: Sequence[int], teams: int) -> list[int]:
    """A bit per chip of each team."""
    masks = [0] * teams
    for space, chip in enumerate(chips):
        if chip >= 0:
            masks[chip] |= BITS[space]
    return masks
