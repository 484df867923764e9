"""Moves: small immutable values, with a human notation (``"7S@C4"``) like python-chess's UCI."""

from __future__ import annotations

from typing import Any, NamedTuple

from .board import CARD_SPACES, parse_space, space_name
from .cards import CANONICAL_CARDS, parse_card

PLAY = "play"  # a card onto a space (or a one-eyed jack removing the chip on it)
DEAD = "dead"  # turn in a dead card and draw a replacement
PASS = "pass"  # no playable card
DRAW = "draw"  # house option manual draw: the draw after a play
FORFEIT = "forfeit"  # table-talk penalty: one card of the player's choice to their discards
TABLETALK = "tabletalk"  # the penalty imposed on a team: each member owes a forfeit
SKIP = "skip"  # the turn's time ran out: the turn passes, nothing played
RESIGN = "resign"  # a whole team resigns
REMOVE = "remove"  # a player leaves the game; their team plays on
AGREE_DRAW = "agree_draw"  # every team agreed to a draw (table-wide: seat -1, no team)

KINDS = (PLAY, DEAD, PASS, DRAW, FORFEIT, TABLETALK, SKIP, RESIGN, REMOVE, AGREE_DRAW)
#: Each kind's one string object, so loaded moves share them.
_KIND = {kind: kind for kind in KINDS}

#: A completed sequence's five spaces, in line order.
Window = tuple[int, int, int, int, int]


class MoveError(ValueError):
    """A text or dict that does not describe a move."""


class Move(NamedTuple):
    """One move. ``seat`` is the acting seat; ``team`` is only used by team-wide moves.

    ``five`` is the mover's choice of sequences when a play makes a line of six or more:
    one window of five spaces per new sequence.
    """

    kind: str
    seat: int
    card: str | None = None
    space: int | None = None
    five: tuple[Window, ...] | None = None
    team: int | None = None

    @classmethod
    def play(cls, seat: int, card: str, space: int, five: tuple[Window, ...] | None = None) -> Move:
        """A card played onto a space (for a one-eyed jack: the chip removed from it)."""
        return cls(PLAY, seat, card, space, five)

    def notation(self) -> str:
        """A compact text form, parsed back by :meth:`from_notation`.

        >>> Move.play(1, "7S", 32).notation()
        '1:7S@C4'
        """
        head = f"{self.seat}:"
        if self.kind == PLAY:
            text = f"{head}{self.card}@{space_name(self.space)}"  # type: ignore[arg-type]
            if self.five:
                text += "=" + ",".join(f"{space_name(w[0])}-{space_name(w[-1])}" for w in self.five)
            return text
        if self.kind in (DEAD, FORFEIT):
            return f"{head}{self.kind}:{self.card}"
        if self.kind in (TABLETALK, RESIGN):
            return f"{head}{self.kind}:{self.team}"
        return f"{head}{self.kind}"

    @classmethod
    def from_notation(cls, text: str) -> Move:
        """Parse :meth:`notation` output."""
        try:
            seat_text, rest = text.split(":", 1)
            seat = int(seat_text)
            if "@" in rest:
                card_text, target = rest.split("@", 1)
                five = None
                if "=" in target:
                    target, windows = target.split("=", 1)
                    five = tuple(_window(part) for part in windows.split(","))
                return cls.play(seat, parse_card(card_text), parse_space(target), five)
            kind, _, arg = rest.partition(":")
            if kind in (DEAD, FORFEIT):
                return cls(kind, seat, parse_card(arg))
            if kind in (TABLETALK, RESIGN):
                return cls(kind, seat, team=int(arg))
            if kind in (PASS, DRAW, SKIP, REMOVE, AGREE_DRAW):
                return cls(kind, seat)
        except ValueError as error:
            raise MoveError(f"Cannot read the move {text!r}: {error}") from error
        raise MoveError(f"Cannot read the move {text!r}.")

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-compatible data (``None`` fields left out)."""
        data: dict[str, Any] = {"kind": self.kind, "seat": self.seat}
        if self.card is not None:
            data["card"] = self.card
        if self.space is not None:
            data["space"] = self.space
        if self.five is not None:
            data["five"] = [list(window) for window in self.five]
        if self.team is not None:
            data["team"] = self.team
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Move:
        """Rebuild a move saved by :meth:`to_dict`.

        Moves are immutable, so a plain move (no ``five``, no ``team``) is shared by every loaded
        game that holds it: a loaded game keeps only references to them.
        """
        get = data.get
        if "five" not in data and "team" not in data:
            try:
                move = _SHARED.get((get("kind"), get("seat"), get("card"), get("space")))
            except TypeError:  # junk such as a list for a space: refused or kept below
                move = None
            if move is not None:
                return move
        kind = data.get("kind")
        if kind not in KINDS:
            raise MoveError(f"Unknown move kind {kind!r}.")
        kind = _KIND[kind]
        card = data.get("card")
        if type(card) is str:
            card = CANONICAL_CARDS.get(card, card)
        five = data.get("five")
        team = data.get("team")
        if five is None and team is None:
            seat, space = data["seat"], data.get("space")
            move = cls(kind, int(seat), card, space)
            if _plain(seat, card, space):
                _SHARED[(kind, seat, card, space)] = move
            return move
        return cls(
            kind,
            int(data["seat"]),
            card,
            data.get("space"),
            tuple(tuple(w) for w in five) if five is not None else None,
            team,
        )


#: Plain moves already loaded, shared between games. Bounded: only moves that can occur (a seat
#: -1..11, a card on one of its spaces or a jack anywhere): some 13,000 at most.
_SHARED: dict[tuple[Any, ...], Move] = {}


def _plain(seat: Any, card: Any, space: Any) -> bool:
    """True for the finite set of moves that can occur, kept in :data:`_SHARED` (never junk)."""
    if type(seat) is not int or not -1 <= seat < 12:
        return False
    if card is None or space is None:
        return space is None and (card is None or (type(card) is str and card in CANONICAL_CARDS))
    if type(card) is not str or card not in CANONICAL_CARDS or type(space) is not int:
        return False
    return 0 <= space < 100 if card[0] == "J" else space in CARD_SPACES[card]


def _window(text: str) -> Window:
    """``"C4-G8"`` -> the five spaces from C4 to G8 (a straight line of five)."""
    first_text, last_text = text.split("-")
    first, last = parse_space(first_text), parse_space(last_text)
    (r0, c0), (r1, c1) = divmod(first, 10), divmod(last, 10)
    d_row, d_col = (r1 - r0) // 4, (c1 - c0) // 4
    if (r1 - r0, c1 - c0) != (4 * d_row, 4 * d_col) or (d_row, d_col) == (0, 0):
        raise MoveError(f"{text} is not a line of five spaces.")
    step = d_row * 10 + d_col
    return tuple(first + i * step for i in range(5))  # type: ignore[return-value]
