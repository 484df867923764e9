"""What each seat did in one game: the sequences its plays completed and the jacks it played."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.game import Game, GameSettings, Move
from bot.game.cards import is_jack
from bot.game.moves import PLAY


@dataclass(frozen=True)
class Tally:
    """What one player did in one game."""

    sequences: int = 0
    jacks: int = 0


def seat_tallies(settings: GameSettings, seed: int, moves: Sequence[Move]) -> list[Tally]:
    """Replay a game and count, per seat, the sequences its plays completed and the jacks it
    played."""
    game = Game.new(settings, seed)
    sequences = [0] * settings.players
    jacks = [0] * settings.players
    for move in moves:
        before = len(game.sequences)
        game.push(move)
        if move.kind == PLAY and 0 <= move.seat < settings.players:
            sequences[move.seat] += len(game.sequences) - before
            jacks[move.seat] += is_jack(move.card or "")
    return [Tally(s, j) for s, j in zip(sequences, jacks, strict=True)]
