"""``/sequence-me export``: a member's games, results, ratings over time and tournament entries,
as JSON that another program can read (the format is documented in the README: "Your data").

Format ``sequence-bot/export``, version :data:`VERSION`. Every part is a complete JSON document
with the same head (``format``, ``version``, ``member``, ``exported_at``, ``part``, ``parts``);
the games are shared out between the parts, oldest first, so that each part stays within
``limit`` bytes (a Discord upload); the other sections are in part 1. Times are Unix seconds
(UTC); Discord ids are strings (they exceed what a JavaScript number holds exactly).

What is left out on purpose: every hand (the shuffle's seed too, which would deal them again):
a move says what a player showed the table (the card played, a dead card, a forfeit), never
what they held; other players' Discord ids (a seat gives the name shown at the table).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bot.skill import Rating, outcome_for
from bot.store.codec import dumps

if TYPE_CHECKING:
    from bot.store.away import AwayPeriod
    from bot.store.base import Store
    from bot.store.members import Entry, RatingStep, SeatedGame
    from bot.store.results import ResultRecord

FORMAT = "sequence-bot/export"
VERSION = 1
#: The largest part: Discord's upload limit for a bot in a server without boosts was 8 MiB
#: (10 MiB since 2024); the interaction's own limit lowers it further if smaller.
PART_LIMIT = 8 * 1024 * 1024


@dataclass(frozen=True)
class ExportData:
    """Everything the store gave for one member's export."""

    user_id: int
    games: list[SeatedGame]
    moves: dict[int, list[str]]
    results: dict[int, ResultRecord]
    steps: list[RatingStep]
    ratings: list[tuple[int, float, float, float, int]]
    totals: list[tuple[int, ...]]
    entries: list[Entry]
    reports: list[tuple[int, int, str, float]]
    preferences: dict[str, Any]
    seasons: list[tuple[int, str, Rating, int]] = field(default_factory=list)
    away: list[AwayPeriod] = field(default_factory=list)


class ExportService:
    """Assembles a member's export from the store's repositories."""

    def __init__(self, db: Store) -> None:
        self.db = db

    async def gather(self, user_id: int) -> ExportData:
        """Read what the export holds (several reads; nothing is written)."""
        members = self.db.members
        games = await members.seated_games(user_id)
        results = {r.game_id: r for r in await members.results(user_id)}
        return ExportData(
            user_id=user_id,
            games=games,
            moves=await members.live_moves([game.id for game in games]),
            results=results,
            steps=await members.rating_steps(user_id),
            ratings=await members.ratings(user_id),
            totals=await members.totals(user_id),
            entries=await members.entries(user_id),
            reports=await members.reports(user_id),
            preferences=await self.db.prefs.all(user_id),
            seasons=await self.db.seasons.of_member(user_id),
            away=await self.db.away.since(user_id, 0.0),
        )

    async def export(self, user_id: int, now: float, limit: int = PART_LIMIT) -> list[bytes]:
        """The member's export, in as many parts as ``limit`` bytes each needs (at least
        one). The JSON is built off the event loop (a long history is megabytes)."""
        data = await self.gather(user_id)
        return await asyncio.to_thread(build_parts, data, now, limit)


def build_parts(data: ExportData, now: float, limit: int = PART_LIMIT) -> list[bytes]:
    """The export's parts (see the module): each a JSON document within ``limit`` bytes."""
    changes = {(s.guild_id, s.game_id): s.delta for s in data.steps}
    games = [dumps(game_entry(data, game, changes)).encode() for game in data.games]
    sections = other_sections(data)
    head = {"format": FORMAT, "version": VERSION, "member": str(data.user_id)}
    head["exported_at"] = round(now, 3)
    # Each part: head, its games, then (part 1) the other sections. Sizes are counted on the
    # encoded games, with room for the head's part numbers.
    overhead = len(dumps({**head, "part": 99999, "parts": 99999, "games": []}).encode())
    first_extra = len(dumps(sections).encode())
    shares: list[list[bytes]] = [[]]
    size = overhead + first_extra
    for text in games:
        if shares[-1] and size + len(text) + 1 > limit:
            shares.append([])
            size = overhead
        shares[-1].append(text)
        size += len(text) + 1
    parts = []
    for number, share in enumerate(shares, start=1):
        top = dumps({**head, "part": number, "parts": len(shares)}).encode()
        body = b'"games":[' + b",".join(share) + b"]"
        if number == 1:
            body += b"," + dumps(sections).encode()[1:-1]
        parts.append(top[:-1] + b"," + body + b"}")
    return parts


def game_entry(
    data: ExportData, game: SeatedGame, changes: dict[tuple[int, int], float]
) -> dict[str, Any]:
    """One game from the member's side: its rules, seats, moves and result."""
    teams = int(game.settings.get("teams", 2))
    mine = next(i for i, seat in enumerate(game.seats) if seat.user_id == data.user_id)
    entry: dict[str, Any] = {
        "id": game.id,
        "server": str(game.guild_id),
        "status": game.status,
        "created_at": round(game.created_at, 3),
        "finished_at": None if game.finished_at is None else round(game.finished_at, 3),
        "rules": game.settings,
        "seats": [
            {
                "seat": index,
                "team": index % teams,
                "name": seat.name,
                "you": index == mine,
                "computer": seat.bot_level,
            }
            for index, seat in enumerate(game.seats)
        ],
        "your_seat": mine,
        "your_team": mine % teams,
        "moves": data.moves.get(game.id, []),
        "result": None,
    }
    result = data.results.get(game.id)
    if result is not None:
        team = result.team_of(data.user_id)
        entry["result"] = {
            "winner_team": result.winner_team,
            "outcome": None if team is None else outcome_for(result, team),
            "rated": result.rated,
            "termination": result.summary.get("termination"),
            "sequences": result.summary.get("sequences"),
            "rating_change": changes.get((result.guild_id, result.game_id)),
        }
    return entry


def other_sections(data: ExportData) -> dict[str, Any]:
    """Ratings over time, totals, tournament entries, table-talk calls, preferences, season
    ratings and periods away."""
    history: dict[int, list[dict[str, Any]]] = {}
    for step in data.steps:
        history.setdefault(step.guild_id, []).append(
            {"game": step.game_id, "order": step.seq, "rating": step.ordinal, "change": step.delta}
        )
    return {
        "ratings": [
            {
                "server": str(guild),
                "mu": mu,
                "sigma": sigma,
                "rating": ordinal,
                "rated_games": games,
                "history": history.get(guild, []),
            }
            for guild, mu, sigma, ordinal, games in data.ratings
        ],
        "totals": [
            dict(zip(TOTAL_KEYS, (str(row[0]), *row[1:]), strict=True)) for row in data.totals
        ],
        "tournaments": [tournament_entry(entry) for entry in data.entries],
        "tabletalk_calls": [
            {"game": game, "team_called": team, "status": status, "at": round(at, 3)}
            for game, team, status, at in data.reports
        ],
        "preferences": data.preferences,
        "season_ratings": [
            {
                "server": str(guild),
                "season": season,
                "mu": rating.mu,
                "sigma": rating.sigma,
                "rating": rating.ordinal,
                "rated_games": games,
            }
            for guild, season, rating, games in data.seasons
        ],
        "away": [
            {
                "server": None if period.guild_id is None else str(period.guild_id),
                "from": round(period.from_at, 3),
                "until": round(period.until_at, 3),
                "cover": period.cover,
                "ended_at": None if period.ended_at is None else round(period.ended_at, 3),
            }
            for period in data.away
        ],
    }


TOTAL_KEYS = ("server", "games", "wins", "draws", "losses", "sequences", "jacks")


def tournament_entry(entry: Entry) -> dict[str, Any]:
    """A tournament entry and how its matches went for the member's side."""
    matches = []
    for round_number, match_id, outcome, winner, game_id in entry.matches:
        won = None if winner is None else winner == entry.entrant_id
        matches.append(
            {"round": round_number, "match": match_id, "how": outcome, "won": won, "game": game_id}
        )
    return {
        "id": entry.tournament_id,
        "server": str(entry.guild_id),
        "name": entry.tournament,
        "format": entry.format,
        "status": entry.status,
        "entrant": entry.entrant,
        "seed": entry.seed,
        "joined_at": round(entry.joined_at, 3),
        "dropped_at": None if entry.dropped_at is None else round(entry.dropped_at, 3),
        "matches": matches,
    }
