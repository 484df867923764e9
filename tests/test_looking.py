"""A lobby's call for players to the looking-for-game role, at the service: once per lobby
however the clicks arrive, given back when Discord refused the post, and how many players it
asks for. (Through Discord: tests/test_e2e_roles.py.)"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.services.errors import UserError
from bot.services.lobbies import LobbyService, Person
from bot.services.looking import players_wanted
from bot.store.base import Store
from bot.store.lobbies import LobbyRecord
from bot.store.seats import Seat
from bot.table.options import TableOptions

GUILD, CHANNEL = 1, 100
ANN, BEN = Person(7, "ann"), Person(8, "ben")


def slow_reads(db: Store) -> None:
    """Every read of a channel's lobby answers late, as a slow store would: two clicks at once
    both read before either writes, unless something keeps them apart."""
    read = db.lobbies.get_for_channel

    async def late(*args: Any) -> Any:
        answer = await read(*args)
        await asyncio.sleep(0.05)
        return answer

    db.lobbies.get_for_channel = late  # type: ignore[method-assign]


async def test_two_clicks_at_once_ping_once(db: Store) -> None:
    lobbies = LobbyService(db, lambda: 1000.0)
    lobby = await lobbies.open(GUILD, CHANNEL, ANN, TableOptions(), looking=True)
    slow_reads(db)
    results = await asyncio.gather(
        *(lobbies.call_for_players(CHANNEL, lobby.id, ANN.user_id) for _ in range(2)),
        return_exceptions=True,
    )
    made = [r for r in results if not isinstance(r, BaseException)]
    refused = [r for r in results if isinstance(r, BaseException)]
    assert len(made) == 1 and len(refused) == 1, results
    assert isinstance(refused[0], UserError)
    assert "already pinged for this lobby (by <@7> <t:1000:R>)" in str(refused[0])
    stored = await db.lobbies.get(lobby.id)
    assert stored is not None and stored.looking is not None
    assert (stored.looking.pinged_by, stored.looking.pinged_at) == (ANN.user_id, 1000.0)


async def test_a_call_discord_refused_is_given_back_and_others_are_refused(db: Store) -> None:
    lobbies = LobbyService(db, lambda: 1000.0)
    lobby = await lobbies.open(GUILD, CHANNEL, ANN, TableOptions(), looking=True)
    await lobbies.join(CHANNEL, BEN)
    with pytest.raises(UserError, match=r"Only the host \(<@7>\) can ping"):
        await lobbies.call_for_players(CHANNEL, lobby.id, BEN.user_id)
    recorded, wanted = await lobbies.call_for_players(CHANNEL, lobby.id, ANN.user_id)
    assert wanted == 1 and recorded.seats == (await db.lobbies.get(lobby.id)).seats
    await lobbies.call_not_posted(recorded)
    stored = await db.lobbies.get(lobby.id)
    assert stored.looking is not None and not stored.looking.made
    assert [seat.user_id for seat in stored.seats] == [ANN.user_id, BEN.user_id]
    await lobbies.call_for_players(CHANNEL, lobby.id, ANN.user_id)  # may call again

    plain = await lobbies.open(GUILD, CHANNEL + 1, ANN, TableOptions())
    with pytest.raises(UserError, match="no looking-for-game role was set"):
        await lobbies.call_for_players(CHANNEL + 1, plain.id, ANN.user_id)
    with pytest.raises(UserError, match="This lobby is closed"):
        await lobbies.call_for_players(CHANNEL + 1, plain.id + 99, ANN.user_id)
    assert (await db.lobbies.get(plain.id)).looking is None


def test_how_many_players_a_lobby_still_wants():
    def lobby(seated: int, **options: Any) -> LobbyRecord:
        seats = [Seat(n + 1, f"p{n}", None) for n in range(seated)]
        return LobbyRecord(1, 1, 1, 1, TableOptions(**options), seats)

    assert players_wanted(lobby(1)) == 1  # two players can start
    assert players_wanted(lobby(2)) == 1  # then three (three teams of one)
    assert players_wanted(lobby(2, teams=2)) == 2  # two teams: four
    assert players_wanted(lobby(5)) == 1
    assert players_wanted(lobby(12)) is None  # full
    assert players_wanted(lobby(8, preset="convoy")) is None
    assert players_wanted(lobby(6, preset="convoy")) == 2
