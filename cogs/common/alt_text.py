"""Alt text for the images the bot posts, so that a player with a screen reader can follow.

Each text is made from what its image is drawn from, and fits Discord's limit for an
attachment's description: the board's from the public view (it refuses a view with a hand),
the hand image's from its owner's view, the replay's and the bracket's from their inputs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from bot.game import card_name, space_name
from bot.game.cards import is_one_eyed, is_two_eyed
from bot.game.moves import PLAY
from bot.game.settings import TEAM_NAMES
from render.bracket import BracketMatch
from render.handrow import card_targets
from render.podium import Placed

from .describe import counted, end_reason, listed
from .lengths import ALT_TEXT_LIMIT, cut_at_word

if TYPE_CHECKING:
    from bot.game import PlayerView
    from bot.services.stats import ReplayInput

#: The ways a board's chips are told, longest first: each team's spaces with the locked ones
#: marked; the spaces of open chips only; counts only. Each after the first says why.
FULL, OPEN_ONLY, COUNTS = "full", "open", "counts"
SHORTER = {
    FULL: "",
    OPEN_ONLY: "(Locked chips are counted, not listed, to fit.)",
    COUNTS: "(Chips are counted, not listed, to fit.)",
}


def _name(names: Sequence[str], seat: int) -> str:
    """A seat's display name as typed (``Seat N`` when missing)."""
    name = names[seat].strip() if seat < len(names) else ""
    return name or f"Seat {seat + 1}"


def _members(seats: Sequence[int], names: Sequence[str]) -> str:
    """``"alice and carol"``: the names of some seats."""
    return listed([_name(names, seat) for seat in seats])


def board_alt(view: PlayerView, names: Sequence[str], game_id: int) -> str:
    """The posted board in words: whose turn (or the result), the sequences, the last move and
    each team's chips by space. Only public information: a view with a hand is refused."""
    if not view.is_public:
        raise ValueError("board_alt describes the public board: use public_view(game).")
    head = "\n".join(
        [
            f"Sequence board, game #{game_id}, move {view.move_count}.",
            _board_status(view, names),
            _sequences(view),
            _last_move(view, names),
            f"{counted(view.deck_count, 'card')} in the deck.",
        ]
    )
    for level, note in SHORTER.items():
        chips = [_team_chips(view, team, level) for team in range(view.settings.teams)]
        text = "\n".join(filter(None, [head, *chips, note]))
        if len(text) <= ALT_TEXT_LIMIT:
            return text
    return cut_at_word(text, ALT_TEXT_LIMIT)


def _board_status(view: PlayerView, names: Sequence[str]) -> str:
    if view.status == "active":
        playing = TEAM_NAMES[view.team_of(view.turn)]
        return f"{_name(names, view.turn)} to play ({playing} team)."
    if view.winner is None:
        return f"The game is a draw. {end_reason(view.outcome)}".strip()
    team = view.winner
    who = _members(view.settings.seats_of(team), names)
    return f"{TEAM_NAMES[team]} wins ({who}). {end_reason(view.outcome)}".strip()


def _sequences(view: PlayerView) -> str:
    teams = []
    for team in range(view.settings.teams):
        windows = [w for owner, w in view.sequences if owner == team]
        spans = listed([f"{space_name(w[0])} to {space_name(w[-1])}" for w in windows])
        teams.append(f"{TEAM_NAMES[team]} {len(windows)}" + (f" ({spans})" if spans else ""))
    return f"Sequences, {view.settings.sequences_to_win} to win: {'; '.join(teams)}."


def _last_move(view: PlayerView, names: Sequence[str]) -> str:
    move = view.last_move
    if move is None or move.card is None or move.space is None:
        return "No card played yet."
    who, card, where = _name(names, move.seat), card_name(move.card), space_name(move.space)
    if is_one_eyed(move.card):
        return f"Last move: {who} removed the chip on {where} with the {card}."
    return f"Last move: {who} played the {card} on {where}."


def _team_chips(view: PlayerView, team: int, level: str) -> str:
    spaces = [s for s in range(100) if view.chips[s] == team]
    locked = [s for s in spaces if view.locked[s]]
    name = TEAM_NAMES[team]
    if not spaces:
        return f"{name} chips: none."
    count = counted(len(spaces), "chip") + (f", {len(locked)} locked" if locked else "")
    if level == COUNTS:
        return f"{name}: {count}."
    if level == OPEN_ONLY:
        open_ones = ", ".join(space_name(s) for s in spaces if not view.locked[s]) or "none"
        return f"{name}: {count}; open chips: {open_ones}."
    shown = ", ".join(space_name(s) + (" locked" if view.locked[s] else "") for s in spaces)
    return f"{name}, {count}: {shown}."


def hand_alt(view: PlayerView, names: Sequence[str], game_id: int) -> str:
    """The private hand image in words: each card, numbered as drawn, and where it can go.
    For its owner's eyes only, like the image."""
    if view.hand is None or view.seat is None:
        raise ValueError("hand_alt needs a player's view with a hand (player_view).")
    team = view.team_of(view.seat)
    turn = (
        "your turn"
        if view.status == "active" and view.turn == view.seat
        else f"{_name(names, view.turn)} to play"
    )
    head = (
        f"Your hand in game #{game_id}, {TEAM_NAMES[team]} team, {turn}; only you see it. "
        f"{counted(len(view.hand), 'card')}, numbered as on the image:"
    )
    for full in (True, False):
        cards = [
            f"{number}. {card_name(card)}: {_where(view, card, team, full=full)}."
            for number, card in enumerate(view.hand, start=1)
        ]
        text = "\n".join([head, *cards])
        if len(text) <= ALT_TEXT_LIMIT:
            return text
    return cut_at_word(text, ALT_TEXT_LIMIT)


def _where(view: PlayerView, card: str, team: int, *, full: bool) -> str:
    """Where a card of the hand can go now (``full``: a one-eyed jack's chips by space)."""
    targets = card_targets(view, card, team)
    if is_two_eyed(card):
        return f"any open space ({len(targets)} open)" if targets else "no open space"
    if is_one_eyed(card):
        if not targets:
            return "no opponent chip to remove"
        if full:
            return "remove an opponent's chip on " + ", ".join(map(space_name, targets))
        return f"remove one of {counted(len(targets), 'opponent chip')} not in a sequence"
    if not targets:
        return "dead card, both its spaces are covered"
    return " or ".join(map(space_name, targets))


def replay_alt(found: ReplayInput) -> str:
    """The replay GIF in a few words: the teams, how many plays it shows, how it ended."""
    settings = found.settings
    plays = sum(1 for move in found.moves if move.kind == PLAY)
    teams = "; ".join(
        f"{TEAM_NAMES[team]}: {_members(settings.seats_of(team), found.names)}"
        for team in range(settings.teams)
    )
    if found.winner is not None:
        ended = f"{TEAM_NAMES[found.winner]} won. {end_reason(found.outcome)}".strip()
    else:
        ended = end_reason(found.outcome) or "It ended without a result."
    text = (
        f"Animated replay of Sequence game #{found.game_id}: the board after each of its "
        f"{counted(plays, 'play')}, then the end. {teams}. {ended}"
    )
    return cut_at_word(text, ALT_TEXT_LIMIT)


def bracket_alt(
    title: str, rounds: Sequence[Sequence[BracketMatch]], champion: str | None, labels: list[str]
) -> str:
    """The knockout bracket in words, the latest round first; earlier rounds left out to fit
    (and said so)."""
    head = f"Knockout bracket of {title}: " + (
        f"champion {champion}." if champion else "no champion yet."
    )
    parts = [head]
    for label, matches in reversed(list(zip(labels, rounds, strict=True))):
        line = f"{label}: {'; '.join(_match(m) for m in matches)}."
        note = "Earlier rounds are left out to fit."
        if len("\n".join([*parts, line])) + 1 + len(note) > ALT_TEXT_LIMIT:
            parts.append(note)
            break
        parts.append(line)
    return cut_at_word("\n".join(parts), ALT_TEXT_LIMIT)


def _match(match: BracketMatch) -> str:
    """``"ann beat dan"``, ``"ann (bye)"``, ``"ann against ben"``, ``"no one yet"``."""
    note = f" ({match.note})" if match.note and not match.note.startswith("game #") else ""
    if match.winner is not None:
        won, lost = (match.top, match.bottom) if match.winner == 0 else (match.bottom, match.top)
        return f"{won} beat {lost}{note}" if lost else f"{won}{note or ' (bye)'}"
    if match.top is None and match.bottom is None:
        return "no one yet"
    top, bottom = match.top or "to be decided", match.bottom or "to be decided"
    return f"{top} against {bottom}{note}"


def podium_alt(season: str, placed: Sequence[Placed], players: int) -> str:
    """A season's podium in words: each place's player and rating."""
    if not placed:
        return cut_at_word(f"Podium of season {season}: nobody was rated.", ALT_TEXT_LIMIT)
    steps = "; ".join(f"place {p.place}: {p.name}, rating {p.rating}" for p in placed)
    text = f"Podium of season {season}, of {counted(players, 'rated player')}: {steps}."
    return cut_at_word(text, ALT_TEXT_LIMIT)
