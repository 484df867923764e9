"""Table options: the preset, teams, house rules and the table's own settings, validated.

A lobby's and a game's record hold a :class:`TableOptions`: the store parses it once, where it
loads a row (:meth:`TableOptions.from_dict`), and writes :meth:`TableOptions.to_dict`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any, TypeVar

from bot.errors import UserError
from bot.game import GameSettings, SettingsError

from .bank import BANK, CLOCKS

POLICIES = ("skip", "computer", "remove")
#: What each time-limit policy does, in words ("1 h per turn, then ...").
POLICY_WORDS = {
    "skip": "the turn is skipped",
    "computer": "a computer moves for the player",
    "remove": "the player is removed (their team plays on; with nobody left, it is out)",
}
#: The shortest turn time limit and reminder delay a table may set (0 turns either off).
MIN_TURN_TIME_LIMIT = 60
MIN_REMINDER_DELAY = 10 * 60
#: The longest turn time limit and reminder delay (a table's, or the bot's default for tables;
#: the owner may set a shorter one, ``MAX_TURN_TIME_LIMIT`` and ``MAX_REMINDER_DELAY``), and the
#: longest of a table's other timers (lobby expiry, ruling and draw-offer timeouts).
MAX_TURN_TIMER = 14 * 86400
#: The shortest lobby expiry and draw-offer timeout (``LOBBY_EXPIRY``, ``DRAW_OFFER_TIMEOUT``).
MIN_LOBBY_EXPIRY = MIN_DRAW_OFFER_TIMEOUT = 60
_Bot = TypeVar("_Bot", int, float)


@dataclass(frozen=True)
class TableOptions:
    """What the host chooses when opening a lobby. The rules part becomes :class:`GameSettings`."""

    preset: str = "classic"
    #: 2, 3 or None for automatic (3 teams for 3, 6 and 9 players, else 2).
    teams: int | None = None
    sequences_to_win: int | None = None
    engine_chooses_five: bool = False
    manual_draw: bool = False
    small_hands: bool = False
    #: House option, on by default: a classic game is drawn when the deck is reshuffled a second
    #: time with no new sequence since the first (:attr:`GameSettings.endless_play_guard`).
    endless_play_guard: bool = True
    #: House option: a table-talk call stands without the host's or a moderator's confirmation.
    tabletalk_stands: bool = False
    #: Seconds a player has for a turn; 0 for no limit.
    turn_time_limit: int = 0
    time_limit_policy: str = "skip"
    #: The turn clock: ``turn`` (``turn_time_limit`` per turn, if any) or ``bank``
    #: (:mod:`bot.table.bank`): each seat starts with ``bank_start`` seconds, its turns spend
    #: them, and after each turn ``bank_increment`` is added, up to ``bank_cap`` (0: no cap of
    #: the table's own). A bank that runs out applies ``time_limit_policy``.
    clock: str = "turn"
    bank_start: int = 3 * 86400
    bank_increment: int = 86400
    bank_cap: int = 0
    #: The bot's, not the host's: each seat's bank in seconds as its last turn left it (empty,
    #: or shorter than the seats: the starting bank), set in the transaction that ends a turn.
    banks: tuple[int, ...] = ()
    #: Seconds before the player to move is reminded; 0 for never.
    reminder_delay: int = 12 * 3600
    #: Whether ``/sequence hint`` is allowed (never in rated games).
    hints: bool = False
    rated: bool = True
    #: Who hosts the game (set when it starts; a lobby keeps its host apart).
    host_id: int | None = None
    #: The table's timers, fixed when its lobby opens (a running game keeps them whatever its
    #: server changes since); None, in what was stored before tables had them: the bot's
    #: setting (:func:`own_or_bot`). Seconds before the unstarted lobby closes:
    lobby_expiry: int | None = None
    #: Seconds before a table-talk call that only a moderator could rule on stands (0: never).
    table_talk_ruling_timeout: int | None = None
    #: Seconds a draw offer stays open (also the longest computers wait for an answer).
    draw_offer_timeout: int | None = None
    #: The table opened a thread of its own (``/sequence new thread:yes``), which the bot
    #: closes a while after the game ends (set by the bot where it opens the thread).
    own_thread: bool = False
    #: The fields whose value came from the server's own settings (``/sequence-admin``) when
    #: the table opened (a value changed since, by :meth:`but`, no longer does).
    server_fields: tuple[str, ...] = ()
    #: A game's place in its series (:mod:`bot.table.series`: a rematch's, or a tournament's
    #: best-of match): the game's number (1: the first), the game it follows, the points of
    #: each team (by colour; a drawn game counts half) before it, and the team that dealt the
    #: game before (the next deal goes to another team).
    series_game: int = 1
    series_after: int | None = None
    series_score: tuple[float, ...] = ()
    series_dealer_team: int | None = None
    #: A tournament's best-of match: how many games it is the best of (0: not one), and its
    #: sides' names, by colour, as its lines show them (none: the colours).
    series_best_of: int = 0
    series_names: tuple[str, ...] = ()
    #: The tournament match this table plays (None: not a tournament's): no Rematch.
    tournament_match: int | None = None
    #: Players away (:mod:`bot.table.away`): ``(seat, until, cover)`` for each seat whose
    #: player is away (set by the away service; a lobby has none).
    away: tuple[tuple[int, float, str], ...] = ()
    #: Whether the players may go away (a tournament's rule, :data:`~bot.table.away.AWAY_RULES`):
    #: any cover, only a computer's, or not at all.
    away_rule: str = "any"

    def __post_init__(self) -> None:
        if self.preset not in ("classic", "convoy"):
            raise UserError(f"Unknown preset {self.preset!r}: choose classic or convoy.")
        if self.teams not in (None, 2, 3):
            raise UserError("Teams must be 2, 3 or automatic.")
        if self.sequences_to_win is not None and not 1 <= self.sequences_to_win <= 4:
            raise UserError("Sequences to win must be from 1 to 4.")
        if self.time_limit_policy not in POLICIES:
            raise UserError("The time-limit policy must be skip, computer or remove.")
        if not 0 <= self.turn_time_limit <= MAX_TURN_TIMER:
            raise UserError("The turn time limit must be between 0 (none) and 14 days.")
        if self.turn_time_limit and self.turn_time_limit < MIN_TURN_TIME_LIMIT:
            raise UserError("The turn time limit must be at least 1 minute (or none).")
        _check_bank(self)
        if not 0 <= self.reminder_delay <= MAX_TURN_TIMER:
            raise UserError("The reminder delay must be between 0 (never) and 14 days.")
        if self.reminder_delay and self.reminder_delay < MIN_REMINDER_DELAY:
            raise UserError("Reminders must be at least 10 minutes apart (or none).")
        if self.away_rule not in ("any", "computer", "none"):
            raise UserError("Away must be any, computer or none.")
        if self.hints and self.rated:
            raise UserError("Hints are for practice games: a rated game cannot allow them.")
        _check_timer("The lobby expiry", self.lobby_expiry, MIN_LOBBY_EXPIRY)
        _check_timer("The table-talk ruling timeout", self.table_talk_ruling_timeout, 0)
        _check_timer("The draw-offer timeout", self.draw_offer_timeout, MIN_DRAW_OFFER_TIMEOUT)

    def game_settings(self, players: int) -> GameSettings:
        """The rules for ``players`` players; a clear :class:`UserError` when they do not fit."""
        try:
            return GameSettings.create(
                players,
                self.teams,
                self.preset,
                sequences_to_win=self.sequences_to_win,
                engine_chooses_five=self.engine_chooses_five,
                manual_draw=self.manual_draw,
                small_hands=self.small_hands,
                endless_play_guard=self.endless_play_guard,
            )
        except SettingsError as error:
            raise UserError(str(error)) from None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-compatible data (a tuple as a list, as JSON reads it back)."""
        return {
            name: list(value) if isinstance(value, tuple) else value
            for name, value in asdict(self).items()
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TableOptions:
        """Options saved by :meth:`to_dict` (unknown keys are ignored, missing ones default).

        Saved options are not validated again: a limit tightened since a table opened must
        not lock its game (``but`` validates a changed copy as usual).

        >>> TableOptions.from_dict({"reminder_delay": 300, "votes": [1]}).reminder_delay
        300
        """
        options = object.__new__(cls)
        for each in fields(cls):
            value = data.get(each.name, each.default)
            if isinstance(value, list):  # JSON's array: server_fields, series_score, away
                value = tuple(tuple(v) if isinstance(v, list) else v for v in value)
            object.__setattr__(options, each.name, value)
        return options

    def but(self, **changes: Any) -> TableOptions:
        """A copy with some options changed (validated again); a changed value no longer comes
        from the server's settings.

        >>> TableOptions(rated=False, server_fields=("rated",)).but(rated=True).server_fields
        ()
        """
        kept = tuple(
            name
            for name in self.server_fields
            if name not in changes or changes[name] == getattr(self, name)
        )
        return replace(self, **{"server_fields": kept, **changes})


def own_or_bot(own: int | None, bot_setting: _Bot) -> int | _Bot:
    """A table's own timer, or the bot's setting for a table stored before tables had one.

    >>> own_or_bot(None, 3600), own_or_bot(0, 600)
    (3600, 0)
    """
    return bot_setting if own is None else own


def _check_timer(what: str, seconds: int | None, shortest: int) -> None:
    """Refuse a table's timer outside ``shortest`` (0: none allowed) to 14 days."""
    if seconds is None:
        return
    if not shortest <= seconds <= MAX_TURN_TIMER:
        least = format_duration(shortest) if shortest else "0 (none)"
        raise UserError(f"{what} must be between {least} and 14 days.")


def _check_bank(options: TableOptions) -> None:
    """Refuse a clock that is not one, or a bank outside its ranges or capped below its
    start."""
    if options.clock not in CLOCKS:
        raise UserError("The clock must be turn (a time limit per turn) or bank.")
    if not MIN_TURN_TIME_LIMIT <= options.bank_start <= MAX_TURN_TIMER:
        raise UserError("A bank must start with 1 minute to 14 days.")
    if not 0 <= options.bank_increment <= MAX_TURN_TIMER:
        raise UserError("The time added to a bank after each turn must be 0 to 14 days.")
    cap = options.bank_cap
    if cap and not MIN_TURN_TIME_LIMIT <= cap <= MAX_TURN_TIMER:
        raise UserError("A bank's cap must be 1 minute to 14 days (or none).")
    if cap and cap < options.bank_start:
        raise UserError(
            f"A bank's cap ({format_duration(cap)}) cannot be below its start "
            f"({format_duration(options.bank_start)})."
        )


def bank_words(options: TableOptions) -> str:
    """``"a bank of 3 days per player, +1 day after each turn (at most 7 days)"``.

    >>> bank_words(TableOptions(clock="bank", bank_increment=0))
    'a bank of 3 days per player, +nothing after each turn'
    """
    increment = format_duration(options.bank_increment) if options.bank_increment else "nothing"
    cap = f" (at most {format_duration(options.bank_cap)})" if options.bank_cap else ""
    return (
        f"a bank of {format_duration(options.bank_start)} per player, +{increment} after each "
        f"turn{cap}"
    )


def describe_house_rules(options: TableOptions) -> list[str]:
    """The house rules in force, in words, for lobby and status messages. Those a preset never
    uses are left out: convoy deals its own hands (8 players at most) and keeps its own rule
    for a deck that runs out.

    >>> rules = TableOptions(small_hands=True, endless_play_guard=False)
    >>> len(describe_house_rules(rules)), describe_house_rules(rules.but(preset="convoy"))
    (2, [])
    """
    classic = options.preset != "convoy"
    lines = []
    if options.sequences_to_win:
        needed = options.sequences_to_win
        lines.append(f"{needed} sequence{'' if needed == 1 else 's'} to win")
    if options.engine_chooses_five:
        lines.append("the bot picks the five in a long line")
    if options.manual_draw:
        lines.append("manual draw (forget it and lose it)")
    if options.small_hands and classic:
        lines.append("2 cards each with 10 or 12 players")
    if not options.endless_play_guard and classic:
        lines.append("no endless-play guard (a game may go on after the deck runs out twice)")
    if options.tabletalk_stands:
        lines.append("table-talk calls stand without confirmation")
    policy = POLICY_WORDS.get(options.time_limit_policy, options.time_limit_policy)
    if options.clock == BANK:
        lines.append(f"{bank_words(options)}; when a bank runs out, {policy}")
    elif options.turn_time_limit:
        lines.append(f"{format_duration(options.turn_time_limit)} per turn, then {policy}")
    if options.hints:
        lines.append("hints allowed")
    if not options.rated:
        lines.append("unrated")
    if options.away_rule == "computer":
        lines.append("away only with a computer playing")
    elif options.away_rule == "none":
        lines.append("no going away")
    return lines


def format_duration(seconds: float, *, compact: bool = False) -> str:
    """A duration in its two largest units: ``90`` -> ``"1 min 30 s"``, ``86400`` ->
    ``"1 day"``; ``compact`` (a bank beside a name) ``"2d 4h"``.

    >>> format_duration(90), format_duration(2 * 86400 + 4 * 3600 + 59, compact=True)
    ('1 min 30 s', '2d 4h')
    >>> format_duration(0), format_duration(0, compact=True), format_duration(-5, compact=True)
    ('0 s', '0s', '0s')
    """
    seconds = max(0, int(seconds))
    parts = []
    units = _COMPACT_UNITS if compact else _UNITS
    for unit, size in units:
        amount, seconds = divmod(seconds, size)
        if amount:
            plural = "s" if unit == "day" and amount > 1 else ""
            parts.append(f"{amount}{unit}" if compact else f"{amount} {unit}{plural}")
    return " ".join(parts[:2]) or ("0s" if compact else "0 s")


_UNITS = (("day", 86400), ("h", 3600), ("min", 60), ("s", 1))
_COMPACT_UNITS = (("d", 86400), ("h", 3600), ("m", 60), ("s", 1))
