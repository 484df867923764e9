"""What tournaments look like on Discord: the sign-up card, pairings, results, standings and
the bracket image. Plain functions of a :class:`Snapshot`."""

from __future__ import annotations

import discord

from bot.services.tournament import (
    ELIMINATION,
    FORMAT_NAMES,
    TIEBREAK_NAMES,
    Correction,
    Snapshot,
)
from bot.services.tournament.pairing import bracket_size, elimination_rounds
from bot.services.tournament.standings import BYE, DOUBLE_FORFEIT, FORFEIT, REPORTED
from bot.store.tournaments.records import MatchRecord
from bot.table.options import describe_house_rules, format_duration
from bot.table.series import points_text
from bot.table.tournament import FINAL
from render.bracket import BracketMatch

from ..common.describe import counted, shown_name
from ..common.lengths import (
    DESCRIPTION_LIMIT,
    EMBED_LIMIT,
    FIELD_LIMIT,
    FIELDS_LIMIT,
    clipped,
    message_chunks,
)

GOLD = 0xE2B454


def team_word(size: int) -> str:
    """``"1 player a team"``."""
    return f"{size} player{'s' if size > 1 else ''} a team"


#: The text of a sign-up message (above its embed, which lists the entrants).
SIGNUP_OPEN = "🏆 A tournament is open for sign-up!"


def signup_embed(snapshot: Snapshot) -> discord.Embed:
    """The sign-up message: format, rules, entrants, how to join (while sign-up is open)."""
    tournament = snapshot.tournament
    settings = snapshot.settings
    partners = tournament.team_size - 1
    how = (
        "Press **Join** or use `/tournament join`."
        if partners == 0
        else "Sign up your team with `/tournament join` and name your "
        + ("partner." if partners == 1 else f"{partners} partners.")
    )
    if tournament.status != "signup":  # the footer says sign-up closed: no more how to join
        how = ""
    embed = discord.Embed(
        title=f"🏆 {tournament.name}",
        description=f"{FORMAT_NAMES[tournament.format]} · {team_word(tournament.team_size)} · "
        f"organised by <@{tournament.organiser_id}>\n{how}".rstrip(),
        colour=GOLD,
    )
    rules = [settings.table.preset, *describe_house_rules(settings.table)]
    rules.append(f"{format_duration(settings.show_up)} to show up for a match")
    if tournament.format == "swiss":
        rounds = settings.rounds
        rules.append(counted(rounds, "round") if rounds else "rounds: enough to find a winner")
    if settings.best_of > 1:
        rules.append(best_of_words(settings.best_of, settings.best_of_from))
    embed.add_field(name="Rules", value="\n".join(rules), inline=False)
    entrants = [snapshot.entrants[e] for e in snapshot.seeds()]
    listing = [
        f"{n}. {shown_name(e.name)}"
        + (f" ({' '.join(f'<@{u}>' for u in e.user_ids)})" if len(e.user_ids) > 1 else "")
        for n, e in enumerate(entrants, start=1)
    ]
    most = f" of {settings.max_entrants}" if settings.max_entrants else ""
    embed.add_field(
        name=f"Entrants ({len(entrants)}{most})",
        value=clipped(listing, FIELD_LIMIT) or "—",
        inline=False,
    )
    if tournament.status != "signup":
        embed.set_footer(text=f"Sign-up closed: the tournament is {tournament.status}.")
    return embed


def best_of_words(best_of: int, first: int | str) -> str:
    """``"matches are the best of 3 games from the final"``."""
    start = "" if first == 1 else " from the final" if first == FINAL else f" from round {first}"
    return f"matches are the best of {best_of} games{start}"


def outcome_note(match: MatchRecord) -> str:
    """How a match was decided, in a few words."""
    if match.outcome == BYE:
        return "bye"
    if match.outcome == FORFEIT:
        return "forfeit"
    if match.outcome == DOUBLE_FORFEIT:
        return "no-show"
    if match.outcome == REPORTED:
        return "reported"
    return f"game #{match.game_id}" if match.game_id else ""


def entrant_name(snapshot: Snapshot, entrant_id: int | None) -> str:
    """An entrant's name as typed, for a message: it never formats it nor pings anyone."""
    return shown_name(snapshot.name(entrant_id))


def mentions(snapshot: Snapshot, entrant_id: int) -> str:
    """The members of an entrant as Discord mentions."""
    return " ".join(f"<@{user}>" for user in snapshot.entrants[entrant_id].user_ids)


def series_note(snapshot: Snapshot, match: MatchRecord, score: tuple[float, ...]) -> str:
    """``"best of 3: 2–1 in games"``: how a best-of match's series ended."""
    best_of = snapshot.settings.best_of_in(match.round, snapshot.total_rounds())
    points = "–".join(points_text(side) for side in score)
    return f"best of {best_of}: {points} in games"


def result_line(snapshot: Snapshot, match: MatchRecord, series: str = "") -> str:
    """``"Round 2 · match #5: **alice** beat bob (game #7)"`` (the match by the number
    ``/tournament-admin report`` takes); a best-of match decided by its games says its
    ``series`` (:func:`series_note`) instead of its last game."""
    head = f"Round {match.round} · match #{match.id}:"
    a, b = entrant_name(snapshot, match.entrant_a), entrant_name(snapshot, match.entrant_b)
    if match.outcome == BYE:
        return f"{head} **{a}** has a bye (a win)."
    if match.outcome == DOUBLE_FORFEIT:
        return f"{head} neither {a} nor {b} showed up: a loss for both."
    if match.winner is None:
        return f"{head} {a} and {b} drew ({series or outcome_note(match)})."
    loser = b if match.winner == match.entrant_a else a
    played = f"({series})" if series else f"(game #{match.game_id})" if match.game_id else ""
    how = {FORFEIT: "by forfeit", REPORTED: "(reported by the organiser)"}.get(
        match.outcome or "", played
    )
    return f"{head} **{entrant_name(snapshot, match.winner)}** beat {loser} {how}".rstrip() + "."


def decided_note(snapshot: Snapshot, match: MatchRecord) -> str:
    """A decided match's result in a few words: ``"ann won"``, ``"drawn"``, ``"no-show"``."""
    if match.outcome == DOUBLE_FORFEIT:
        return "no-show"
    if match.winner is None:
        return "drawn"
    return f"{snapshot.name(match.winner)} won"


def correction_text(snapshot: Snapshot, correction: Correction) -> str:
    """The organiser's correction of a result: the new result, the one it replaces and, for
    a match whose game was played to its end, that game's result."""
    lines = [
        f"✏️ Result corrected: {result_line(snapshot, correction.after)}",
        f"It was: {result_line(snapshot, correction.before).split(': ', 1)[1]}",
    ]
    game = correction.game
    if game is not None:
        won = correction.game_winner
        result = "drawn" if won is None else f"won by {entrant_name(snapshot, won)}"
        lines.append(
            f"Game #{game.id} was played to its end and {result}: the organiser's ruling "
            "replaces it."
        )
    return "\n".join(lines)


def pairings_text(snapshot: Snapshot, number: int) -> str:
    """A round's pairings, for the tournament channel."""
    lines = [f"📣 **{shown_name(snapshot.tournament.name)}: round {number}**"]
    for match in snapshot.round_matches(number):
        a, b = entrant_name(snapshot, match.entrant_a), entrant_name(snapshot, match.entrant_b)
        if match.entrant_b is None:
            lines.append(f"• {a} has a bye.")
        elif match.status == "done":
            lines.append(
                f"• #{match.id} · {a} v {b}: {result_line(snapshot, match).split(': ', 1)[1]}"
            )
        else:
            lines.append(
                f"• #{match.id} · {mentions(snapshot, match.entrant_a)} v "
                f"{mentions(snapshot, match.entrant_b)}"
            )
    lines.append(
        "Each match gets its own thread with the lobby seated: press **I'm here** there. The "
        "threads open one by one (Discord may make the last ones wait a few minutes); your "
        "time to show up starts when your thread opens."
    )
    return "\n".join(lines)


def standings_embed(snapshot: Snapshot, title: str | None = None) -> discord.Embed:
    """The table with tie-breaks (or, in a knockout, how far each entrant went)."""
    tournament = snapshot.tournament
    fmt = tournament.format
    rows = snapshot.standings()
    total = snapshot.total_rounds() or 0
    running = tournament.status == "running"
    lines = []
    for row in rows:
        name = entrant_name(snapshot, row.entrant)
        dropped = snapshot.entrants[row.entrant].dropped
        if dropped:
            name += " (dropped)"
        if fmt == ELIMINATION:
            unbeaten = not dropped and not row.losses
            stage = _stage(int(row.tiebreak), total, unbeaten, running)
            lines.append(f"**{row.rank}.** {name} · {stage}")
            continue
        record = f"{row.wins + row.byes}W {row.draws}D {row.losses}L"
        lines.append(
            f"**{row.rank}.** {name} · **{row.points:g}** pts · {record} · "
            f"{TIEBREAK_NAMES[fmt]} {row.tiebreak:g}"
        )
    embed = discord.Embed(
        title=title or f"🏆 {tournament.name}: standings",
        description=clipped(lines, DESCRIPTION_LIMIT) or "No entrants.",
        colour=GOLD,
    )
    rounds = f"round {tournament.round} of {total}" if tournament.round else "not started"
    breaks = (
        "ranked by how far each went"
        if fmt == ELIMINATION
        else f"ties broken by {TIEBREAK_NAMES[fmt].lower()}, then wins, then seed"
    )
    embed.set_footer(text=f"{FORMAT_NAMES[fmt]} · {rounds} · {breaks}")
    return embed


def add_now_playing(embed: discord.Embed, snapshot: Snapshot) -> discord.Embed:
    """Below a running tournament's table, its round's matches: who plays whom, how each
    stands and its thread, in as many fields as it takes within the embed's limits."""
    tournament = snapshot.tournament
    if tournament.status != "running":
        return embed
    lines = [_playing_line(snapshot, match) for match in snapshot.round_matches(tournament.round)]
    name = f"Round {tournament.round} · now playing"
    more = f"Round {tournament.round} · more"
    room = EMBED_LIMIT - len(embed)
    kept = len(lines)
    while kept:  # as many whole lines as fit, then how many were left out
        shown = lines[:kept] + ([f"… and {len(lines) - kept} more"] if kept < len(lines) else [])
        chunks = message_chunks(shown, FIELD_LIMIT)
        names = [name] + [more] * (len(chunks) - 1)
        if len(chunks) <= FIELDS_LIMIT and len("".join(chunks + names)) <= room:
            for field, chunk in zip(names, chunks, strict=True):
                embed.add_field(name=field, value=chunk, inline=False)
            return embed
        kept -= 1
    return embed


def _playing_line(snapshot: Snapshot, match: MatchRecord) -> str:
    """``"#5 · ann v ben · playing (game #7) · <#thread>"``."""
    a = entrant_name(snapshot, match.entrant_a)
    if match.entrant_b is None:
        return f"{a} has a bye."
    if match.status == "playing":
        state = f"playing (game #{match.game_id})"
    elif match.status == "pending":
        state = "waiting for check-in"
    else:
        state = f"decided: {shown_name(decided_note(snapshot, match))}"
    link = f" · <#{match.thread_id}>" if match.thread_id else ""
    return f"#{match.id} · {a} v {entrant_name(snapshot, match.entrant_b)} · {state}{link}"


def _stage(reached: int, total: int, unbeaten: bool, running: bool) -> str:
    """How far a knockout entrant went (``unbeaten``: never knocked out nor dropped; in one
    ended early, its last round was called off rather than lost)."""
    if reached > total:
        return "🥇 champion"
    if reached == total:
        return "final"
    if unbeaten and running:
        return f"in {round_name(max(reached, 1), total).lower()}"
    if reached == 0:
        return "did not play"
    if unbeaten:
        return f"reached {round_name(reached, total).lower()}"
    return f"out in {round_name(reached, total).lower()}"


def round_name(number: int, total: int) -> str:
    """``"Final"``, ``"Semi-finals"``, ``"Quarter-finals"`` or ``"Round 1"``."""
    left = total - number
    return {0: "Final", 1: "Semi-finals", 2: "Quarter-finals"}.get(left, f"Round {number}")


def bracket(snapshot: Snapshot) -> tuple[list[list[BracketMatch]], str | None, list[str]]:
    """The bracket's matches round by round, the champion's name and the round names."""
    count = len(snapshot.entrants)
    total = elimination_rounds(count)
    size = bracket_size(count)
    played = snapshot.tournament.round
    rounds: list[list[BracketMatch]] = []
    advanced: dict[int, int | None] = {}
    for number in range(1, total + 1):
        places = size // 2**number
        by_place = {m.number: m for m in snapshot.round_matches(number)}
        column = []
        winners: dict[int, int | None] = {}
        for place in range(1, places + 1):
            match = by_place.get(place)
            if match is not None:
                won = None
                if match.status == "done" and match.winner is not None:
                    won = 0 if match.winner == match.entrant_a else 1
                bottom = None if match.entrant_b is None else snapshot.name(match.entrant_b)
                note = outcome_note(match) if match.status == "done" else ""
                column.append(BracketMatch(snapshot.name(match.entrant_a), bottom, won, note))
                winners[place] = match.winner if match.status == "done" else None
            elif number <= played:
                column.append(BracketMatch())  # nobody reached this place
                winners[place] = None
            else:
                first, second = advanced.get(2 * place - 1), advanced.get(2 * place)
                column.append(
                    BracketMatch(
                        snapshot.name(first) if first is not None else None,
                        snapshot.name(second) if second is not None else None,
                    )
                )
                winners[place] = None
        rounds.append(column)
        advanced = winners
    champion = snapshot.champion()
    names = [round_name(n, total) for n in range(1, total + 1)]
    return rounds, (snapshot.name(champion) if champion else None), names
