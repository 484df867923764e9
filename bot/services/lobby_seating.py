"""How a lobby's seats are grouped into teams and named: the automatic teams, the play order
that alternates them, and the computer players' names. Pure functions of a lobby's record."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from bot.game.settings import TEAM_NAMES, default_team_count
from bot.store.seats import Seat

from .errors import UserError

if TYPE_CHECKING:
    from bot.store.lobbies import LobbyRecord

COMPUTER_NAMES = ("Ada", "Babbage", "Turing", "Hopper", "Lovelace", "Knuth", "Shannon", "Dijkstra")


def computer_name(number: int) -> str:
    """The name of computer player ``number`` (1, 2, ...): the list of names, then the same
    names numbered ("Ada 2"), so that no two computers at a table are called the same."""
    index, turn = (number - 1) % len(COMPUTER_NAMES), (number - 1) // len(COMPUTER_NAMES)
    return COMPUTER_NAMES[index] + (f" {turn + 1}" if turn else "")


def find_computer(lobby: LobbyRecord, name: str) -> Seat:
    """The one computer seat called ``name`` (exactly, else by its start; any case), or the one
    whose seat id ``name`` is; a clear error if none or several match."""
    computers = [seat for seat in lobby.seats if seat.is_computer]
    text = " ".join(name.split())
    found = [seat for seat in computers if str(seat.user_id) == text]
    wanted = text.casefold()
    if not found:
        found = [seat for seat in computers if seat.name.casefold() == wanted]
    if not found and wanted:
        found = [seat for seat in computers if seat.name.casefold().startswith(wanted)]
    if len(found) == 1:
        return found[0]
    names = ", ".join(seat.name for seat in computers)
    if not computers:
        raise UserError("There is no computer player in this lobby.")
    if found:
        raise UserError(f"Several computer players match {text[:50]!r}: pick one from the list.")
    raise UserError(
        f"There is no computer player {text[:50]!r} in this lobby (there are: {names})."
    )


def lobby_team_count(lobby: LobbyRecord) -> int:
    """The teams the lobby will play with (the option, or the automatic choice)."""
    chosen = lobby.options.teams
    return chosen or default_team_count(max(len(lobby.seats), 2))


def lobby_teams(lobby: LobbyRecord) -> list[list[Seat]]:
    """The seats grouped by team as they stand (players without a choice, or whose team the
    table no longer has, spread evenly)."""
    auto = auto_teams(lobby)
    grouped: list[list[Seat]] = [[] for _ in range(lobby_team_count(lobby))]
    for seat in lobby.seats:
        grouped[auto[seat.user_id]].append(seat)
    return grouped


def seat_alternately(lobby: LobbyRecord, teams: int) -> list[Seat]:
    """Seats in play order, alternating teams (A B A B or A B C A B C); equal teams only."""
    grouped = lobby_teams(lobby)[:teams]
    sizes = [len(members) for members in grouped]
    if len(set(sizes)) != 1 or sum(sizes) != len(lobby.seats):
        listing = ", ".join(f"{TEAM_NAMES[t]} {n}" for t, n in enumerate(sizes))
        raise UserError(f"The teams are unequal ({listing}): switch teams or add players.")
    order = []
    for index in range(sizes[0]):
        for team in range(teams):
            order.append(replace(grouped[team][index], team=None))
    return order


def auto_teams(lobby: LobbyRecord) -> dict[int, int]:
    """Players without a chosen team go to the smallest team, in joining order."""
    teams = lobby_team_count(lobby)
    sizes = [0] * teams
    for seat in lobby.seats:
        if seat.team is not None and seat.team < teams:
            sizes[seat.team] += 1
    result = {}
    for seat in lobby.seats:
        if seat.team is not None and seat.team < teams:
            result[seat.user_id] = seat.team
        else:
            team = sizes.index(min(sizes))
            sizes[team] += 1
            result[seat.user_id] = team
    return result


def freeze_teams(lobby: LobbyRecord) -> dict[int, int]:
    """Make everyone's current team explicit, so one player's switch moves nobody else;
    returns each player's team."""
    auto = auto_teams(lobby)
    lobby.seats = [replace(seat, team=auto[seat.user_id]) for seat in lobby.seats]
    return auto


def set_seat_team(lobby: LobbyRecord, user_id: int, team: int) -> None:
    """Put one seat of the lobby on ``team``."""
    lobby.seats = [
        replace(seat, team=team) if seat.user_id == user_id else seat for seat in lobby.seats
    ]
