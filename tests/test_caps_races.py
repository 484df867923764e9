"""Caps hold however the commands arrive: the same person's (or server's) commands in several
channels at once, on one process or on two processes of a cluster, never open or seat more
than the cap allows. The loser of each race gets the cap's clear refusal.

The races are forced at the service, where they live: every count a cap reads waits a little
before it answers, as a slow store would, so that all the competing commands have checked
before any of them wrote (what let them all through before the check and the write were one
step under a lock every process shares)."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator

import pytest

from bot.services.caps import CapReached, Caps, CapSettings
from bot.services.games import GameService
from bot.services.lobbies import LobbyService, Person
from bot.services.tournament import TournamentService, TournamentSettings
from bot.store.base import Store
from bot.store.location import open_database
from bot.table.options import TableOptions

GUILD = 1
ANN = Person(7, "ann")
#: What a count waits before answering: long enough for every competitor to read it too.
SLOW = 0.05


def slow_counts(db: Store) -> None:
    """Make every count a cap reads on ``db`` answer late (see the module)."""
    repositories = {
        db.lobbies: ("hosted_by", "in_guild", "seating"),
        db.games: ("playing",),
        db.tournaments: ("open_by", "open_in_guild"),
    }
    for repository, names in repositories.items():
        for name in names:
            count = getattr(repository, name)

            async def late(*args: object, _count=count) -> int:
                answer = await _count(*args)
                await asyncio.sleep(SLOW)
                return answer

            setattr(repository, name, functools.update_wrapper(late, count))


def services(db: Store, caps: CapSettings) -> tuple[LobbyService, Caps]:
    games = GameService(db, lambda: 1000.0)
    checks = Caps(db, games, caps)
    return LobbyService(db, lambda: 1000.0, games=games, caps=checks), checks


async def outcomes(*calls) -> tuple[list[object], list[BaseException]]:
    """Run ``calls`` at once: what succeeded, and what was refused."""
    results = await asyncio.gather(*calls, return_exceptions=True)
    done = [r for r in results if not isinstance(r, BaseException)]
    refused = [r for r in results if isinstance(r, BaseException)]
    return done, refused


@pytest.fixture
async def store(db: Store) -> AsyncIterator[Store]:
    slow_counts(db)
    yield db


async def test_four_new_lobbies_at_once_in_four_channels_open_two(store: Store) -> None:
    """MAX_LOBBIES_PER_USER=2: ann sends ``/sequence new`` in four channels at once."""
    lobbies, _ = services(store, CapSettings(lobbies_per_user=2))
    opened, refused = await outcomes(
        *(lobbies.open(GUILD, 100 + n, ANN, TableOptions()) for n in range(4))
    )
    assert len(opened) == 2 and len(refused) == 2, refused
    for error in refused:
        assert isinstance(error, CapReached) and "You already host 2 open lobbies" in str(error)
    assert await store.lobbies.hosted_by(ANN.user_id) == 2


async def test_four_hosts_at_once_fill_a_servers_cap_of_three(store: Store) -> None:
    """MAX_LOBBIES_PER_SERVER=3: four people open lobbies in one server at once."""
    lobbies, _ = services(store, CapSettings(lobbies_per_server=3))
    opened, refused = await outcomes(
        *(lobbies.open(GUILD, 100 + n, Person(n + 1, f"p{n}"), TableOptions()) for n in range(4))
    )
    assert len(opened) == 3 and len(refused) == 1, refused
    assert isinstance(refused[0], CapReached) and "This server has 3 open lobbies" in str(
        refused[0]
    )
    assert await store.lobbies.in_guild(GUILD) == 3


async def test_join_in_three_lobbies_at_once_seats_in_two(store: Store) -> None:
    """MAX_GAMES_PER_USER=2: ann presses Join in three lobbies at once."""
    lobbies, _ = services(store, CapSettings(games_per_user=2))
    for n in range(3):
        await lobbies.open(GUILD, 100 + n, Person(n + 1, f"host{n}"), TableOptions())
    seated, refused = await outcomes(*(lobbies.join(100 + n, ANN) for n in range(3)))
    assert len(seated) == 2 and len(refused) == 1, refused
    assert isinstance(refused[0], CapReached) and "You are already in 2 games or lobbies" in str(
        refused[0]
    )
    assert await store.lobbies.seating(ANN.user_id) == 2


@pytest.mark.parametrize("cap", ["per person", "per server"])
async def test_tournaments_created_at_once_stop_at_the_cap(store: Store, cap: str) -> None:
    """MAX_TOURNAMENTS_PER_USER=1 (ann creates three at once in three channels), or
    MAX_TOURNAMENTS_PER_SERVER=2 (three organisers at once)."""
    settings = (
        CapSettings(tournaments_per_user=1)
        if cap == "per person"
        else CapSettings(tournaments_per_server=2)
    )
    _, caps = services(store, settings)
    service = TournamentService(store, lambda: 1000.0, caps.games)
    table = TournamentSettings(TableOptions(teams=2))

    def organiser(n: int) -> Person:
        return ANN if cap == "per person" else Person(n + 1, f"org{n}")

    created, refused = await outcomes(
        *(
            service.create(
                GUILD, 200 + n, organiser(n), f"Cup {n}", "swiss", 1, table, caps=caps
            )
            for n in range(3)
        )
    )
    most = 1 if cap == "per person" else 2
    assert len(created) == most and len(refused) == 3 - most, refused
    words = "You already run 1 open tournament" if most == 1 else "This server has 2 open"
    assert all(isinstance(e, CapReached) and words in str(e) for e in refused), refused


async def test_two_processes_of_a_cluster_open_no_more_than_the_cap(pg_database_url: str) -> None:
    """MAX_LOBBIES_PER_USER=2 and ann's four ``/sequence new`` reach two processes of a cluster
    (two channels each), each on its own connections to one PostgreSQL: two lobbies open."""
    stores = [await open_database(pg_database_url) for _ in range(2)]
    try:
        calls = []
        for index, db in enumerate(stores):
            slow_counts(db)
            lobbies, _ = services(db, CapSettings(lobbies_per_user=2))
            calls += [lobbies.open(GUILD, 100 + 2 * index + n, ANN, TableOptions()) for n in (0, 1)]
        opened, refused = await outcomes(*calls)
        assert len(opened) == 2 and len(refused) == 2, refused
        assert all(isinstance(e, CapReached) for e in refused), refused
        assert await stores[0].lobbies.hosted_by(ANN.user_id) == 2
    finally:
        for db in stores:
            await db.close()
