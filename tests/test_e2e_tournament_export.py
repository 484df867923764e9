"""``/tournament-admin export``: a tournament's standings as a CSV file for its organisers
(issue #41): the rows of the standings the channel shows, in order, with the numbers."""

from __future__ import annotations

import csv
import io

from tests.helpers.tournament import snapshot, standings_rows, started_cup


async def test_the_csv_of_a_finished_swiss_tournament(simcord_env) -> None:
    env = simcord_env
    names = ["ann", "ben", "cat", "=dan"]  # a name a spreadsheet would run as a formula
    channel, members = await started_cup(env, names, "swiss", rounds=2)
    ann, ben = members[0], members[1]
    by_name = {m.user.name: m for m in members}
    for number in (1, 2):
        snap = await snapshot(env.bot, channel)
        for match in snap.round_matches(number):  # the better seed wins each
            winner = by_name[snap.name(match.entrant_a)]
            await ann.slash(channel, "tournament-admin report", match=match.id, winner=winner)
    snap = await snapshot(env.bot, channel)
    assert snap.tournament.status == "finished"
    final = standings_rows(channel.last_message.embeds[0])

    exported = await ann.slash(channel, "tournament-admin export")
    assert exported.ephemeral
    (attachment,) = exported.followups[-1].attachments if exported.followups else (
        exported.response.attachments
    )
    assert attachment.filename == "cup-standings.csv"
    rows = list(csv.DictReader(io.StringIO((await attachment.read()).decode())))
    assert [row["rank"] for row in rows] == ["1", "2", "3", "4"]
    for row, line in zip(rows, final, strict=True):  # what the channel showed, in order
        name = row["entrant"].removeprefix("'")
        assert line.startswith(f"{row['rank']}. {name} · {row['points']} pts"), (row, line)
        assert row["tiebreak"] == "Buchholz" and f"Buchholz {row['tiebreak_value']}" in line
    assert {row["entrant"] for row in rows} >= {"'=dan"}  # not a formula
    assert sum(int(row["wins"]) for row in rows) == 4 and rows[0]["wins"] == "2"

    refused = await ben.slash(channel, "tournament-admin export")  # not its organiser
    assert refused.ephemeral and "export the standings" in refused.response.content
