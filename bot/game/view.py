"""What one player may know: the board, the discards, the hand sizes and their own hand only.

The renderer and computer players read views, never a :class:`~bot.game.game.Game`, so nothing
outside a view can reveal another player's hand or the order of the deck.
"""

from __future__ import annotations

from dataclasses import dataclass

from .game import ENDLESS_PLAY_NEAR, Game
from .moves import Move, Window
from .outcome import Outcome, Termination
from .settings import GameSettings
from .state import ACTIVE


@dataclass(frozen=True, slots=True)
class PlayerView:
    """The public state of a game, plus ``hand`` for the one seat it was made for."""

    settings: GameSettings
    seat: int | None
    hand: tuple[str, ...] | None
    chips: tuple[int, ...]
    locked: tuple[bool, ...]
    sequences: tuple[tuple[int, Window], ...]
    discards: tuple[tuple[str, ...], ...]
    hand_sizes: tuple[int, ...]
    deck_count: int
    turn: int
    turn_number: int
    dead_card_used: bool
    owed_forfeits: tuple[int, ...]
    owed_draws: tuple[int, ...]
    out: tuple[bool, ...]
    cut: tuple[str, ...]
    dealer: int
    status: str
    winner: int | None
    #: How the game ended, once it is over (see :attr:`Game.outcome`).
    outcome: Outcome | None
    last_move: Move | None
    last_change: tuple[str, int] | None
    move_count: int
    #: Deck reshuffles since the deal or the last completed sequence (see ``endless_play``).
    reshuffles_since_sequence: int = 0

    def team_of(self, seat: int) -> int:
        """The team of a seat."""
        return seat % self.settings.teams

    def sequence_count(self, team: int) -> int:
        """Completed sequences of one team."""
        return sum(1 for owner, _ in self.sequences if owner == team)

    @property
    def termination(self) -> Termination | None:
        """The kind of ending, once the game is over."""
        return self.outcome.termination if self.outcome else None

    def endless_play(self) -> bool:
        """True when the endless-play condition holds (see :meth:`Game.endless_play`)."""
        return self.status == ACTIVE and self.reshuffles_since_sequence >= ENDLESS_PLAY_NEAR

    @property
    def is_public(self) -> bool:
        """True for the view anyone may see (no hand in it)."""
        return self.hand is None


def _view(game: Game, seat: int | None) -> PlayerView:
    last_move = next((m for m in reversed(game.moves) if m.kind == "play"), None)
    return PlayerView(
        settings=game.settings,
        seat=seat,
        hand=tuple(game.hands[seat]) if seat is not None else None,
        chips=tuple(game.chips),
        locked=tuple(game.locked),
        sequences=tuple(game.sequences),
        discards=tuple(tuple(pile) for pile in game.discards),
        hand_sizes=tuple(len(hand) for hand in game.hands),
        deck_count=len(game.deck),
        turn=game.turn,
        turn_number=game.turn_number,
        dead_card_used=game.dead_card_used,
        owed_forfeits=tuple(game.owed_forfeits),
        owed_draws=tuple(sorted(game.owed_draws)),
        out=tuple(game.out),
        cut=tuple(game.cut),
        dealer=game.dealer,
        status=game.status,
        winner=game.winner,
        outcome=game.outcome,
        last_move=last_move,
        last_change=game.last_change,
        move_count=len(game.moves),
        reshuffles_since_sequence=game.reshuffles_since_sequence,
    )


def player_view(game: Game, seat: int) -> PlayerView:
    """Exactly what ``seat`` may know: the public state and its own hand."""
    return _view(game, seat)


def public_view(game: Game) -> PlayerView:
    """What anyone watching may know: no hand at all."""
    return _view(game, None)
