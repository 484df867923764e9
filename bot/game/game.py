"""The game: settings + a shuffle seed + the moves, and the state they lead to.

Like python-chess's ``Board``: :meth:`Game.push` applies a legal move, :attr:`Game.legal_moves`
lists them, :meth:`Game.validate` says in words why a move is illegal. The engine has no clock, no
I/O and no global random: every shuffle comes from a ``random.Random`` seeded by the game's seed.

The rules of a move (checks, chips, sequences, the deck, the ends of a game) read in one place,
as python-chess keeps ``Board`` whole; the state they change and its JSON form are
:class:`~bot.game.state.GameState` (python-chess's ``BaseBoard``), and the board's geometry, the
cards and the settings live in their own modules. Older rules revisions are subclasses
(:mod:`.revision1`).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

from .board import CARD_SPACES, CORNERS, space_name
from .cards import ONE_EYED_JACKS, card_label, is_one_eyed, is_two_eyed
from .deal import deal
from .moves import (
    AGREE_DRAW,
    DEAD,
    DRAW,
    FORFEIT,
    PASS,
    PLAY,
    REMOVE,
    RESIGN,
    SKIP,
    TABLETALK,
    Move,
    Window,
)
from .outcome import Termination
from .sequences import BITS, CORNER, EMPTY, Option, room_score, sequence_options
from .settings import RULES_REVISION, GameSettings
from .state import ACTIVE, DRAWN, WON, GameState

#: The endless-play guard: a classic game is drawn at the deck's second reshuffle with no new
#: sequence since the deal or the last sequence (house option ``endless_play_guard``).
ENDLESS_PLAY_RESHUFFLES = 2
#: :meth:`Game.endless_play` holds from this many reshuffles with no new sequence.
ENDLESS_PLAY_NEAR = ENDLESS_PLAY_RESHUFFLES - 1


class IllegalMove(ValueError):
    """A move the rules do not allow; the message says why, for the player."""


class ChoiceRequired(IllegalMove):
    """The play makes a line of six or more: the mover must choose the five (see ``options``)."""

    def __init__(self, options: list[Option]) -> None:
        super().__init__("Choose which five chips form the sequence.")
        self.options = options


class Game(GameState):
    """A game of Sequence: made by :meth:`new` or :meth:`replay`, changed by :meth:`push`.

    How a game ends (:attr:`outcome`, a value; the interface words it): a team completes its
    sequences; nobody can play on (a full round of passes or skips by players holding no
    playable card and no dead card: a draw, or in convoy the most convoys wins, a tie is a draw;
    our own rule where the sources are silent, except the convoy deck-out, which is the
    variant's); the endless-play guard (house option, on by default: the deck reshuffled a
    second time with no new sequence since the deal or the last one is a draw); every team
    agrees to a draw (:data:`~bot.game.moves.AGREE_DRAW`); teams resign or leave until one is
    left.

    This class plays today's rules (:data:`~bot.game.settings.RULES_REVISION`). A game plays by
    the rules revision it was started under (:attr:`GameSettings.rules`): :meth:`new`,
    :meth:`replay` and :meth:`from_dict` make the class of that revision, a subclass that
    overrides what differs for an older one (:class:`~bot.game.revision1.Revision1Game`), as
    python-chess plays its variants.
    """

    #: The rules revision this class plays.
    revision: ClassVar[int] = RULES_REVISION

    def __init_subclass__(cls, revision: int | None = None, **kwargs: Any) -> None:
        """``class Old(Game, revision=N)`` makes ``Old`` the class of revision N's games."""
        super().__init_subclass__(**kwargs)
        if revision is not None:
            cls.revision = revision
            _RULES_CLASSES[revision] = cls

    def __init__(self, settings: GameSettings, seed: int) -> None:
        """Cut for the dealer, shuffle and deal (the attributes: :class:`GameState`)."""
        self.settings = settings
        self.seed = seed
        self.moves = []
        count = settings.players
        self.chips = [CORNER if s in CORNERS else EMPTY for s in range(100)]
        self.locked = [False] * 100
        self.sequences = []
        self._team_sequences = [[] for _ in range(settings.teams)]
        self.cut, self.dealer, self.hands, self.deck = deal(settings, seed)
        self.discards = [[] for _ in range(count)]
        self.turn = (self.dealer + 1) % count
        self.turn_number = 0
        self.dead_card_used = False
        self.owed_forfeits = [0] * count
        self.owed_draws = {}
        self.out = [False] * count
        self.status = ACTIVE
        self.winner = None
        self.termination = None
        self.leaving_team = None
        self.passes_in_row = 0
        self.reshuffles = 0
        self.reshuffles_since_sequence = 0
        self.last_change = None
        self._masks = [0] * settings.teams
        self._locked_mask = 0

    # ----------------------------------------------------------------- building
    @classmethod
    def new(cls, settings: GameSettings, seed: int) -> Game:
        """Shuffle, cut for the dealer and deal a new game, of the class that plays the rules
        revision of ``settings`` (see :func:`rules_class`)."""
        return rules_class(settings)(settings, seed)

    @classmethod
    def replay(cls, settings: GameSettings, seed: int, moves: Iterable[Move]) -> Game:
        """Rebuild a game from its seed and move log; the same inputs give the same state."""
        game = cls.new(settings, seed)
        for move in moves:
            game.push(move)
        return game

    # ----------------------------------------------------------------- queries
    def endless_play(self) -> bool:
        """True when the endless-play condition holds: play may be going round in circles.

        That is once the deck has been reshuffled since the deal or the last completed sequence,
        with the game still on: one more such reshuffle draws it under the endless-play guard
        (with the guard off, nothing ends it). Computer players offer a draw only then.
        """
        return self.status == ACTIVE and self.reshuffles_since_sequence >= ENDLESS_PLAY_NEAR

    def is_dead(self, card: str) -> bool:
        """A non-jack card whose two spaces are both covered."""
        spaces = CARD_SPACES.get(card)
        if spaces is None:
            return False
        return self.chips[spaces[0]] != EMPTY and self.chips[spaces[1]] != EMPTY

    def targets(self, seat: int, card: str) -> list[int]:
        """The spaces ``card`` can be played on by ``seat`` right now (ignoring turn order)."""
        chips = self.chips
        if is_two_eyed(card):
            return [s for s in range(100) if chips[s] == EMPTY]
        if is_one_eyed(card):
            team = self.team_of(seat)
            locked = self.locked
            return [s for s in range(100) if chips[s] >= 0 and chips[s] != team and not locked[s]]
        return [s for s in CARD_SPACES[card] if chips[s] == EMPTY]

    @property
    def legal_moves(self) -> list[Move]:
        """Every legal move of the seat to move (distinct cards only)."""
        return self.legal_moves_for(self.turn)

    def legal_moves_for(self, seat: int) -> list[Move]:
        """Every legal move ``seat`` can make now, in or out of turn."""
        if self.status != ACTIVE or self.out[seat]:
            return []
        distinct = dict.fromkeys(self.hands[seat])
        if self.owed_forfeits[seat]:
            return [Move(FORFEIT, seat, card) for card in distinct]
        moves: list[Move] = [Move(DRAW, seat)] if seat in self.owed_draws else []
        if seat != self.turn:
            return moves
        plays: list[Move] = []
        chips = self.chips
        make = tuple.__new__
        card_spaces = CARD_SPACES
        for card in distinct:
            spaces = card_spaces.get(card)
            if spaces is None:
                targets = self.targets(seat, card)
            else:
                a, b = spaces
                if chips[a] == EMPTY:
                    targets = [a, b] if chips[b] == EMPTY else [a]
                elif chips[b] == EMPTY:
                    targets = [b]
                else:
                    if not self.dead_card_used:
                        moves.append(Move(DEAD, seat, card))
                    continue
            plays.extend([make(Move, (PLAY, seat, card, s, None, None)) for s in targets])
        if not plays and not any(move.kind == DEAD for move in moves):
            moves.append(Move(PASS, seat))
        return plays + moves

    def has_playable_card(self, seat: int) -> bool:
        """True when ``seat`` holds a card that can be played onto the board."""
        return any(self.targets(seat, card) for card in set(self.hands[seat]))

    def validate(self, move: Move) -> str | None:
        """Why ``move`` is illegal, in words for the player, or ``None`` when it is legal."""
        try:
            self._check(move)
        except IllegalMove as error:
            return str(error)
        return None

    def sequence_options(self, move: Move) -> list[Option]:
        """The ways a legal play completes sequences: [] none, one option, or several to choose."""
        if move.kind != PLAY or is_one_eyed(move.card or "") or move.space is None:
            return []
        team = self.team_of(move.seat)
        before = self.chips[move.space]
        self.chips[move.space] = team
        try:
            return sequence_options(self.chips, move.space, team, self._team_sequences[team])
        finally:
            self.chips[move.space] = before

    # ----------------------------------------------------------------- applying
    def push(self, move: Move) -> None:
        """Apply a legal move; raise :class:`IllegalMove` (nothing changes) when it is not."""
        self._apply(move, self._check(move))

    def _apply(self, move: Move, options: list[Option]) -> None:
        """Apply a move already known to be legal, with its sequence options."""
        kind, seat = move.kind, move.seat
        if kind == PLAY:
            self._play(move, options)
        elif kind == DEAD:
            self._discard(seat, move.card)  # type: ignore[arg-type]
            self._draw(seat)
            self.dead_card_used = True
            self.passes_in_row = 0  # the hand changed: earlier passes no longer prove a stall
            if self.settings.convoy:  # the dead card is the turn: no chip until next turn
                self._end_turn()
        elif kind in (PASS, SKIP):
            self._count_pass(seat, kind)
        elif kind == DRAW:
            self._take_draw(seat)
        elif kind == FORFEIT:
            self._discard(seat, move.card)  # type: ignore[arg-type]
            self.owed_forfeits[seat] -= 1
        elif kind == TABLETALK:
            for member in self.settings.seats_of(move.team):  # type: ignore[arg-type]
                if not self.out[member]:
                    owed = self.owed_forfeits[member] + 1
                    self.owed_forfeits[member] = min(owed, len(self.hands[member]))
        elif kind == RESIGN:
            for member in self.settings.seats_of(move.team):  # type: ignore[arg-type]
                self._leave(member)
            self._after_leaving(move.team, Termination.RESIGNATION)  # type: ignore[arg-type]
        elif kind == REMOVE:
            self._leave(seat)
            self._after_leaving(self.team_of(seat), Termination.DEPARTURE)
        elif kind == AGREE_DRAW:
            self._finish(None, Termination.AGREEMENT)
        self.moves.append(move)
        if (
            self.reshuffles_since_sequence >= ENDLESS_PLAY_RESHUFFLES
            and self.status == ACTIVE
            and self.settings.endless_play_guard
        ):
            self._finish(None, Termination.ENDLESS_PLAY)

    def _check(self, move: Move) -> list[Option]:
        """Raise :class:`IllegalMove` unless ``move`` is legal; return the play's options."""
        if self.status != ACTIVE:
            raise IllegalMove("The game is over.")
        kind, seat = move.kind, move.seat
        count = self.settings.players
        if kind == AGREE_DRAW:
            return []
        if kind in (TABLETALK, RESIGN):
            if move.team is None or not 0 <= move.team < self.settings.teams:
                raise IllegalMove("There is no such team.")
            if move.team not in self.active_teams():
                raise IllegalMove("That team is no longer in the game.")
            return []
        if not 0 <= seat < count:
            raise IllegalMove("There is no such seat in this game.")
        if self.out[seat]:
            raise IllegalMove("You are no longer in this game.")
        hand = self.hands[seat]
        if kind == FORFEIT:
            if not self.owed_forfeits[seat]:
                raise IllegalMove("You owe no card for table talk.")
            if move.card not in hand:
                raise IllegalMove(f"You do not hold {_label(move.card)}.")
            return []
        if kind == DRAW:
            if seat not in self.owed_draws:
                raise IllegalMove("You have no draw to take.")
            return []
        if kind == REMOVE:
            return []
        if seat != self.turn:
            raise IllegalMove("It is not your turn.")
        if kind == SKIP:
            return []
        if self.owed_forfeits[seat]:
            owed = self.owed_forfeits[seat]
            raise IllegalMove(
                f"You must first forfeit {owed} card{'s' if owed > 1 else ''} for table talk."
            )
        if kind == PASS:
            if self.has_playable_card(seat):
                raise IllegalMove("You have a playable card, so you cannot pass.")
            if not self.dead_card_used and any(self.is_dead(card) for card in hand):
                raise IllegalMove("Turn in your dead card first: the new card may be playable.")
            return []
        card = move.card
        if card is None or card not in hand:
            raise IllegalMove(f"You do not hold {_label(card)}.")
        if kind == DEAD:
            if card not in CARD_SPACES:
                raise IllegalMove("A jack is never dead.")
            if self.dead_card_used:
                raise IllegalMove("You have already turned in a dead card this turn.")
            if not self.is_dead(card):
                open_spaces = " or ".join(space_name(s) for s in self.targets(seat, card))
                raise IllegalMove(f"{card_label(card)} is not dead: {open_spaces} is open.")
            return []
        if kind != PLAY:
            raise IllegalMove(f"Unknown move {kind!r}.")
        space = move.space
        if space is None or not 0 <= space < 100:
            raise IllegalMove("Name a space from A1 to J10.")
        name = space_name(space)
        chip = self.chips[space]
        if space in CORNERS:
            raise IllegalMove(f"{name} is a free corner: it counts for everyone and takes no chip.")
        if is_one_eyed(card):
            if chip == EMPTY:
                raise IllegalMove(f"There is no chip on {name} to remove.")
            if chip == self.team_of(seat):
                raise IllegalMove(
                    f"The chip on {name} is your own team's: a one-eyed jack removes an opponent's."
                )
            if self.locked[space]:
                raise IllegalMove(
                    f"The chip on {name} is part of a completed sequence: it is locked."
                )
            return []
        if chip != EMPTY:
            raise IllegalMove(f"{name} is already covered.")
        if not is_two_eyed(card):
            spaces = CARD_SPACES[card]
            if space not in spaces:
                where = " and ".join(space_name(s) for s in spaces)
                raise IllegalMove(f"{card_label(card)} is played on {where}, not on {name}.")
        options = self.sequence_options(move)
        if move.five is not None:
            chosen = _normalise(move.five)
            if len(chosen) != len(move.five) or chosen not in map(_normalise, options):
                raise IllegalMove(
                    "That choice of five is not one of the sequences this move makes."
                )
        elif len(options) > 1 and not self.settings.engine_chooses_five:
            raise ChoiceRequired(options)
        return options

    def _play(self, move: Move, options: list[Option]) -> None:
        seat, card, space = move.seat, move.card, move.space
        assert card is not None and space is not None
        self.hands[seat].remove(card)
        self.discards[seat].append(card)
        team = seat % self.settings.teams
        self.passes_in_row = 0
        won = False
        if card in ONE_EYED_JACKS:
            self._masks[self.chips[space]] &= ~BITS[space]
            self.chips[space] = EMPTY
            self.last_change = ("removed", space)
        else:
            self.chips[space] = team
            self._masks[team] |= BITS[space]
            self.last_change = ("placed", space)
            if options:
                self.reshuffles_since_sequence = 0
                if move.five is not None:
                    chosen: Option = move.five
                elif len(options) == 1:
                    chosen = options[0]
                else:
                    chosen = max(options, key=lambda o: room_score(self.chips, o, team))
                for window in chosen:
                    self._lock(team, window)
                won = len(self._team_sequences[team]) >= self.settings.sequences_to_win
        if self.settings.manual_draw:
            self.owed_draws[seat] = self.turn_number
            for other, earned in list(self.owed_draws.items()):
                if earned < self.turn_number - 1:
                    del self.owed_draws[other]
        else:
            self._draw(seat)
        if won:
            self._finish(team, Termination.SEQUENCES)
            return
        self._end_turn()

    def _lock(self, team: int, window: Window) -> None:
        window = tuple(window)  # type: ignore[assignment]
        self.sequences.append((team, window))
        self._team_sequences[team].append(window)
        for space in window:
            if space not in CORNERS:
                self.locked[space] = True
                self._locked_mask |= BITS[space]

    def _discard(self, seat: int, card: str) -> None:
        self.hands[seat].remove(card)
        self.discards[seat].append(card)

    def _draw(self, seat: int) -> None:
        if not self.deck and not self.settings.convoy:
            pile = [card for discards in self.discards for card in discards]
            if pile:
                self.reshuffles += 1
                self.reshuffles_since_sequence += 1
                random.Random(f"{self.seed}:reshuffle:{self.reshuffles}").shuffle(pile)
                self.deck = pile
                self.discards = [[] for _ in self.discards]
        if self.deck:
            self.hands[seat].append(self.deck.pop())

    def _take_draw(self, seat: int) -> None:
        """Manual draw: ``seat`` takes the card it earned. The seat before it loses its own
        draw only if it earned it earlier (it moved, then we drew first); the new card may be
        playable, so earlier passes no longer prove a stall."""
        earned = self.owed_draws.pop(seat)
        self._draw(seat)
        self.passes_in_row = 0
        previous = self._previous_seat(seat)
        if self.owed_draws.get(previous, earned) < earned:
            del self.owed_draws[previous]

    def _previous_seat(self, seat: int) -> int:
        """The seat that played just before ``seat`` (seats that left are skipped)."""
        count = self.settings.players
        for step in range(1, count):
            previous = (seat - step) % count
            if not self.out[previous]:
                return previous
        return seat

    def _count_pass(self, seat: int, kind: str) -> None:
        """End a turn with no card played (a pass, or a skip when the time ran out).

        It counts towards a stalemate only when the seat is stuck: a player who held a playable
        card, or a dead card to exchange next turn, shows nothing and starts the count again.
        (A legal pass holds no playable card: only its dead cards are looked at.)
        """
        stuck = not any(self.is_dead(card) for card in self.hands[seat]) and (
            kind == PASS or not self.has_playable_card(seat)
        )
        self.passes_in_row = self.passes_in_row + 1 if stuck else 0
        self._end_turn()
        self._finish_if_stalled()

    def _finish_if_stalled(self) -> None:
        """A full count of passes (one by each seat still in) ends the game: nobody can play on."""
        if self.passes_in_row >= len([s for s in self.out if not s]):
            self._finish_stalled()

    def _end_turn(self) -> None:
        self.dead_card_used = False
        self.turn_number += 1
        count = self.settings.players
        seat = self.turn
        for _ in range(count):
            seat = (seat + 1) % count
            if not self.out[seat]:
                break
        self.turn = seat
        if not self.deck and self.settings.convoy and self._hands_empty():
            self._finish_stalled()

    def _hands_empty(self) -> bool:
        return all(not hand for seat, hand in enumerate(self.hands) if not self.out[seat])

    def _finish(
        self, team: int | None, termination: Termination, leaving_team: int | None = None
    ) -> None:
        self.status = WON if team is not None else DRAWN
        self.winner = team
        self.termination = termination
        self.leaving_team = leaving_team

    def _finish_stalled(self) -> None:
        """Nobody can go on: the most sequences wins (convoy), otherwise a draw."""
        counts = {team: self.sequence_count(team) for team in self.active_teams()}
        best = max(counts.values())
        leaders = [team for team, n in counts.items() if n == best]
        if self.settings.convoy and len(leaders) == 1:
            self._finish(leaders[0], Termination.MOST_CONVOYS)
        else:
            self._finish(None, Termination.STALEMATE)

    def _leave(self, seat: int) -> None:
        """``seat`` leaves: its hand goes to its discards, what it owed is void, and the count
        of passes starts again (a seat that left proves nothing about those still in)."""
        if self.out[seat]:
            return
        self.out[seat] = True
        self.passes_in_row = 0
        self.discards[seat].extend(self.hands[seat])
        self.hands[seat].clear()
        self.owed_forfeits[seat] = 0
        self.owed_draws.pop(seat, None)

    def _after_leaving(self, leaving_team: int, termination: Termination) -> None:
        """After ``leaving_team`` resigned or lost a player: the last team left wins."""
        teams = self.active_teams()
        if len(teams) == 1:
            self._finish(teams[0], termination, leaving_team)
        elif not teams:
            self._finish(None, termination, leaving_team)
        elif self.out[self.turn]:
            self._end_turn()

    # ----------------------------------------------------------------- views and data
    def forfeit_choice(self, seat: int) -> str:
        """A deterministic pseudo-random card for a forfeit the player did not choose in time."""
        hand = sorted(self.hands[seat])
        return random.Random(f"{self.seed}:forfeit:{len(self.moves)}").choice(hand)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Game:
        """Rebuild a game from :meth:`to_dict` data, using the snapshot (no replay), as an
        instance of the class of its rules revision. The state is in :meth:`state_dict`'s
        layout: older layouts are the store's to upgrade (:mod:`bot.store.upgrades`)."""
        settings = GameSettings.from_dict(data["settings"])
        kind = rules_class(settings)
        game = kind.__new__(kind)
        game._restore(settings, data)
        return game


#: The class of each rules revision: this module's :class:`Game` for today's, the subclasses
#: that name a ``revision`` for older ones.
_RULES_CLASSES: dict[int, type[Game]] = {RULES_REVISION: Game}


def rules_class(settings: GameSettings) -> type[Game]:
    """The class that plays the rules revision of ``settings``.

    >>> rules_class(GameSettings.create(2)).__name__
    'Game'
    """
    return _RULES_CLASSES[settings.rules]


def _label(card: str | None) -> str:
    return card_label(card) if card else "that card"


def _normalise(option: Sequence[Sequence[int]]) -> frozenset[tuple[int, ...]]:
    return frozenset(tuple(sorted(window)) for window in option)
