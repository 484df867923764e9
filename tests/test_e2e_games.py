"""Complete games from the lobby to the win, through real slash commands and clicks."""

from __future__ import annotations

import pytest

from .e2e_driver import play_to_the_end
from .e2e_helpers import make_table, open_and_start

NAMES = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan"]


@pytest.mark.parametrize(
    ("players", "teams", "needed"),
    [(2, 2, 2), (4, 2, 2), (9, 3, 1)],
    ids=["2 players", "2 teams of 2", "3 teams of 3"],
)
async def test_complete_game(simcord_env, players: int, teams: int, needed: int) -> None:
    table = await make_table(simcord_env, NAMES[:players])
    record = await open_and_start(table)
    assert record.game.settings.teams == teams
    assert [record.game.team_of(s) for s in range(players)] == [s % teams for s in range(players)]
    await play_to_the_end(table, record)
    game = record.game
    assert game.status == "won"
    assert game.sequence_count(game.winner) >= needed
    final = table.channel.last_message
    assert "wins!" in final.content
    assert final.attachments[0].filename == "board.png"
    results = await table.bot.db.results.for_guild(table.guild.id)
    assert [r.winner_team for r in results] == [game.winner]
    assert table.bot.games.find_in_channel(table.channel.id) is None  # the channel is free again
    public = [m for m in table.channel.history() if "Your hand" in (m.content or "")]
    assert public == []  # hands only ever appear in ephemeral messages
