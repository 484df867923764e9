"""Words for what happened at the table: moves, turns, teams and results. Never a hand."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord

from bot.game import Outcome, Termination, card_label, space_name
from bot.game.cards import is_one_eyed, is_two_eyed
from bot.game.moves import (
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
)
from bot.game.settings import TEAM_NAMES
from bot.services.games import nobody_playing
from bot.skill import Rating
from bot.table.away import entry_of
from bot.table.bank import bank_of
from bot.table.options import format_duration
from render.theme import TEAM_EMOJI

if TYPE_CHECKING:
    from bot.game import Game
    from bot.services.events import MoveOutcome
    from bot.store.games.records import GameRecord


def counted(amount: int, noun: str) -> str:
    """``counted(1, "player")`` is ``"1 player"``, ``counted(4, "player")`` ``"4 players"``."""
    return f"{amount} {noun}{'' if amount == 1 else 's'}"


def listed(items: list[str]) -> str:
    """``listed(["a", "b", "c"])`` is ``"a, b and c"``; one item is itself."""
    return " and ".join(filter(None, [", ".join(items[:-1]), *items[-1:]]))


def team_label(team: int) -> str:
    """``"🔵 Blue"``."""
    return f"{TEAM_EMOJI[team]} {TEAM_NAMES[team]}"


def shown_name(name: str) -> str:
    """A display name as typed: its markdown and mentions escaped, so that a name never formats
    a message, pings anyone or shows as another member."""
    return discord.utils.escape_markdown(discord.utils.escape_mentions(name))


def seat_label(record: GameRecord, seat: int, *, mention: bool = False) -> str:
    """A seat's player: a mention (pings) or a bold name; computer players by name."""
    info = record.seats[seat]
    if mention and not info.is_computer:
        return f"<@{info.user_id}>"
    return f"**{shown_name(info.name)}**"


def _computer_covers(record: GameRecord, seat: int) -> bool:
    """True when a computer plays the turns of the seat's player, away."""
    away = entry_of(record.options, seat)
    return away is not None and away.by_computer


def team_members(record: GameRecord, team: int) -> list[int]:
    """The seats of a team."""
    return record.game.settings.seats_of(team)


def describe_move(record: GameRecord, move: Move, game: Game | None = None) -> str:
    """One line for the channel about a move (the card played is public; the hand is not);
    ``game`` is the game right after it (default: the record's)."""
    who = seat_label(record, move.seat) if move.seat >= 0 else "The table"
    if move.seat >= 0 and _computer_covers(record, move.seat):
        who = f"🤖 for {who}"
    kind = move.kind
    if kind == PLAY:
        card, space = card_label(move.card or ""), space_name(move.space or 0)
        if is_one_eyed(move.card or ""):
            return f"{who} played {card} and removed the chip on **{space}**."
        if is_two_eyed(move.card or ""):
            return f"{who} played {card} (wild) on **{space}**."
        return f"{who} played {card} on **{space}**."
    if kind == DEAD:
        return f"{who} turned in the dead card {card_label(move.card or '')}."
    if kind == PASS:
        return f"{who} had no playable card and passed."
    if kind == DRAW:
        return f"{who} drew a card."
    if kind == FORFEIT:
        return f"{who} forfeited {card_label(move.card or '')} for table talk."
    if kind == TABLETALK:
        return f"Table talk: every {team_label(move.team or 0)} player forfeits one card."
    if kind == SKIP:
        return f"{who} ran out of time: the turn passes."
    if kind == RESIGN:
        return f"{team_label(move.team or 0)} resigned."
    if kind == REMOVE:
        game = game or record.game
        if nobody_playing(record, game):  # the game stopped with it (see ended_line)
            return f"{who} left the game."
        return f"{who} left the game; {_after_leaving(game, move.seat)}."
    if kind == AGREE_DRAW:
        return "Every team agreed to a draw."
    return f"{who} moved."


def taken_back(record: GameRecord, moves: tuple[Move, ...]) -> str:
    """The moves an undo takes back, named: the moves of people (a draw that came with a play
    goes unsaid), then the computers' replies after them.

    ``"**alice**'s 7♥ on **C4**, and **Turing (easy bot)**'s reply"``
    """
    replies = [m for m in moves if m.seat >= 0 and record.seats[m.seat].is_computer]
    people = [m for m in moves if m not in replies]
    named = [m for m in people if m.kind != DRAW] or people
    text = listed([_move_name(record, move) for move in named])
    computers = list(dict.fromkeys(seat_label(record, m.seat) for m in replies))
    if len(computers) == 1:
        text += f", and {computers[0]}'s reply"
    elif computers:
        text += f", and the replies of {listed(computers)}"
    return text


def _move_name(record: GameRecord, move: Move) -> str:
    """A move as a noun, for what an undo takes back: ``"**alice**'s 7♥ on **C4**"``."""
    whose = f"{seat_label(record, move.seat)}'s" if move.seat >= 0 else "the table's"
    kind = move.kind
    card = card_label(move.card) if move.card else ""
    if kind == PLAY:
        space = space_name(move.space or 0)
        if is_one_eyed(move.card or ""):
            return f"{whose} {card} that removed the chip on **{space}**"
        wild = " (wild)" if is_two_eyed(move.card or "") else ""
        return f"{whose} {card}{wild} on **{space}**"
    names = {
        DEAD: f"{whose} dead card {card}",
        PASS: f"{whose} pass",
        DRAW: f"{whose} draw",
        FORFEIT: f"{whose} forfeit of {card}",
        SKIP: f"{whose} turn that ran out of time",
        REMOVE: f"{whose} departure",
        RESIGN: f"{team_label(move.team or 0)}'s resignation",
        TABLETALK: f"the table-talk penalty on {team_label(move.team or 0)}",
    }
    return names.get(kind, f"{whose} move")


def _after_leaving(game: Game, seat: int) -> str:
    """Who plays on once ``seat`` left: its team, the other teams, or nobody (the game ended)."""
    team = game.team_of(seat)
    if any(not game.out[s] for s in game.settings.seats_of(team)):
        return "their team plays on"
    if game.is_over():
        return f"{team_label(team)} is out"
    return f"{team_label(team)} is out, and the others play on"


def describe_outcome(outcome: MoveOutcome) -> str:
    """The move, then any sequence it completed."""
    record = outcome.record
    game = outcome.game
    lines = [describe_move(record, outcome.move, game)]
    needed = game.settings.sequences_to_win
    for team, window in outcome.new_sequences:
        ends = f"{space_name(window[0])}–{space_name(window[-1])}"
        lines.append(
            f"✨ **Sequence!** {team_label(team)} {ends} ({game.sequence_count(team)} of {needed})"
        )
    return "\n".join(lines)


def ended_line(record: GameRecord) -> str:
    """What the last board of a cancelled game says: no person was left at the table, or it
    was cancelled (by its host, a moderator, or its channel's deletion)."""
    if nobody_playing(record, record.game):
        return f"🛑 Game #{record.id} stopped: no person is left at the table."
    return f"🛑 Game #{record.id} was cancelled."


def turn_line(record: GameRecord) -> str:
    """Whose turn it is, with a ping for a person."""
    game = record.game
    seat = game.turn
    team = team_label(game.team_of(seat))
    if record.seats[seat].is_computer:
        return f"🤖 {seat_label(record, seat)} is thinking… ({team})"
    away = entry_of(record.options, seat)
    if away is not None and away.by_computer:
        return f"🤖 for {seat_label(record, seat)} is thinking… ({team})"
    if away is not None:
        until = int(away.until)
        return (
            f"⏸️ {seat_label(record, seat)} is away until <t:{until}:f> (<t:{until}:R>): "
            f"the table waits for them ({team})."
        )
    owed = game.owed_forfeits[seat]
    extra = f" First forfeit {owed} card{'s' if owed > 1 else ''} (table talk)." if owed else ""
    return f"{seat_label(record, seat, mention=True)}, your turn ({team}).{extra}"


def deadline_note(deadline: float) -> str:
    """When a turn's time limit runs out, in the reader's own time zone: how soon, and the
    date and time (Discord shows "in a day" for anything from 22 to 35 hours).

    >>> deadline_note(1767225600.4)
    '⏳ Time runs out <t:1767225600:R> (<t:1767225600:f>).'
    """
    stamp = int(deadline)
    return f"⏳ Time runs out <t:{stamp}:R> (<t:{stamp}:f>)."


def bank_seats(record: GameRecord, left: float | None) -> list[tuple[int, float]]:
    """Each person's seat still playing at a bank table, with its bank: the seat on turn's
    what is ``left`` of it now (None: as the turn began), the others' as their last turn left
    them."""
    game, options = record.game, record.options
    return [
        (seat, left if seat == game.turn and left is not None else bank_of(options, seat))
        for seat, info in enumerate(record.seats)
        if not info.is_computer and not game.out[seat]
    ]


def banks_line(record: GameRecord, left: float | None) -> str:
    """``🏦 Banks: 🔵 Blue: alice 2d 4h · 🟢 Green: bob 3d.`` (see :func:`bank_seats`)."""
    game = record.game
    shown = [
        f"{team_label(game.team_of(seat))}: {shown_name(record.seats[seat].name)} "
        f"{format_duration(bank, compact=True)}"
        for seat, bank in bank_seats(record, left)
    ]
    return f"🏦 Banks: {' · '.join(shown)}."


def result_line(record: GameRecord) -> str:
    """The end of the game: the winners and a short summary."""
    game = record.game
    moves = sum(1 for move in game.moves if move.kind == PLAY)
    duration = ""
    if record.finished_at is not None and record.finished_at - record.created_at >= 1:
        duration = f" in {format_duration(record.finished_at - record.created_at)}"
    if game.winner is None:
        head = "🤝 **The game is a draw.**"
    else:
        names = ", ".join(
            seat_label(record, seat, mention=True) for seat in team_members(record, game.winner)
        )
        head = f"🏆 **{team_label(game.winner)} wins!** Congratulations {names}."
    scores = " · ".join(
        f"{team_label(team)} {game.sequence_count(team)}" for team in range(game.settings.teams)
    )
    played = counted(moves, "card")
    return f"{head}\n{end_reason(game.outcome)} {played} played{duration}. Sequences: {scores}."


def end_reason(outcome: Outcome | None) -> str:
    """How a game ended, in a sentence ("" while it is on).

    >>> end_reason(Outcome(Termination.SEQUENCES, winner=1, sequences=(0, 2)))
    'Green completed 2 sequences.'
    >>> end_reason(Outcome(Termination.RESIGNATION, winner=0, sequences=(0, 0), leaving_team=1))
    'Green resigned.'
    """
    if outcome is None:
        return ""
    ending = outcome.termination
    if ending == Termination.SEQUENCES:
        count = outcome.winner_sequences
        return f"{_team_name(outcome.winner)} completed {counted(count, 'sequence')}."
    if ending == Termination.MOST_CONVOYS:
        return f"Nobody can play on: {_team_name(outcome.winner)} has the most convoys."
    if ending == Termination.RESIGNATION:
        return f"{_team_name(outcome.leaving_team)} resigned."
    if ending == Termination.DEPARTURE:
        return f"The last {_team_name(outcome.leaving_team)} player left."
    return _DRAWS[ending]


#: The sentence of each ending that names no team.
_DRAWS = {
    Termination.STALEMATE: "Nobody can play on: the game is a draw (stalemate).",
    Termination.ENDLESS_PLAY: (
        "Endless play: the deck ran out twice with no new sequence, so the game is a draw."
    ),
    Termination.AGREEMENT: "Drawn by agreement.",
}


def _team_name(team: int | None) -> str:
    """A team's name in an end sentence ("A team" if an old record lost which)."""
    return "A team" if team is None else TEAM_NAMES[team]


def scoreline(record: GameRecord) -> str:
    """Sequences per team against the number needed, and the deck."""
    game = record.game
    needed = game.settings.sequences_to_win
    teams = " · ".join(
        f"{team_label(t)} {game.sequence_count(t)}/{needed}" for t in range(game.settings.teams)
    )
    return f"{teams} · 🂠 {len(game.deck)} in the deck"


def shown_rating(rating: Rating) -> str:
    """The rating people see, to a tenth; never "-0.0" for one a hair below zero.

    >>> shown_rating(Rating(mu=24.99, sigma=8.333)), shown_rating(Rating(mu=30.0, sigma=5.0))
    ('0.0', '15.0')
    """
    text = f"{rating.ordinal:.1f}"
    return "0.0" if text == "-0.0" else text
