"""Shared fixtures: the real bot (``create_bot``) on SimCord's in-memory Discord, and the
store on both backends (a SQLite file, a database on a throwaway PostgreSQL server)."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from bot.app import create_bot
from bot.config import Settings
from bot.store.location import open_database
from tests import pg_server
from tests.helpers.deadlines import DEADLINE, FirstResponseClock, late_message
from tests.helpers.postgres import own_database_url, own_server, require_postgresql

#: The store backends every store test runs on.
BACKENDS = ("sqlite", "postgresql")
_numbers = itertools.count(1)


def make_settings(tmp_path: Path, **overrides: object) -> Settings:
    """Test settings: a database in ``tmp_path``, computers that move without a pause."""
    base = Settings(
        database_path=tmp_path / "sequence.db",
        computer_move_delay=0.0,
        computer_budget_ms=20,
    )
    return base.with_overrides(**overrides)


@pytest.fixture(autouse=True)
def first_response_clock(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[FirstResponseClock]:
    """Every interaction's first response, timed on real time (the test fails in
    :func:`pytest_runtest_call` when one took longer than a second)."""
    clock = FirstResponseClock()
    clock.install(monkeypatch)
    yield clock
    clock.write_log(request.node.nodeid)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """Fail a test in which an interaction was answered first after the deadline."""
    result = yield
    clock = getattr(item, "funcargs", {}).get("first_response_clock")
    within = item.get_closest_marker("first_answer_within")
    deadline = within.args[0] if within is not None else DEADLINE
    if isinstance(clock, FirstResponseClock) and clock.late(deadline):
        pytest.fail(late_message(clock.late(deadline)))
    return result


@pytest.fixture
def bot_settings(tmp_path: Path) -> Settings:
    """The settings the bot under test runs with (override the fixture to change them)."""
    return make_settings(tmp_path)


@pytest.fixture
def settings_on_each_backend(store_location: str | Path, tmp_path: Path) -> Settings:
    """Test settings on a fresh store of each backend (a module runs its end-to-end tests on
    both by overriding ``bot_settings`` with this fixture)."""
    if isinstance(store_location, Path):
        return make_settings(tmp_path, database_path=store_location)
    return make_settings(tmp_path, database_url=store_location)


@pytest.fixture
def simcord_bot(bot_settings: Settings):
    """The real bot, as ``python -m bot`` builds it."""
    return create_bot(bot_settings)


@pytest.fixture
async def simcord_env(simcord_env):
    """SimCord's environment, with the bot closed at the end (SimCord never closes it), so
    the database's worker thread ends even when a test fails."""
    yield simcord_env
    if not simcord_env.bot.is_closed():
        await simcord_env.bot.close()


@pytest.fixture(scope="session")
def pg_server_url() -> Iterator[str]:
    """A PostgreSQL server for the whole session: the URL of its ``postgres`` database.

    Without PostgreSQL's binaries the PostgreSQL tests are skipped, except under ``CI=true``
    where they fail (:func:`~tests.helpers.postgres.require_postgresql`).
    """
    require_postgresql()
    with pg_server.temporary_server() as url:
        yield url


@pytest.fixture(scope="session")
def pg_shared_database_url(pg_server_url: str) -> str:
    """The database that holds the PostgreSQL tests' schemas (created once a session)."""
    return pg_server.create_database_now(pg_server_url, "tests")


@pytest.fixture
def pg_url(pg_shared_database_url: str) -> str:
    """The URL of a fresh, empty PostgreSQL store (one per test): a schema of its own in a
    shared database, chosen by the URL (``options=-csearch_path=...``). A schema costs a
    fraction of a ``CREATE DATABASE``; no other test's session is left in that database."""
    return pg_server.create_schema_now(pg_shared_database_url, f"test_{next(_numbers)}")


@pytest.fixture
def pg_database_url(pg_server_url: str) -> str:
    """The URL of a fresh, empty PostgreSQL database (one per test), for the tests that run
    several processes (bots or store users) at once: the advisory locks of their shards and
    their ``NOTIFY`` channels are per database, not per schema."""
    return pg_server.create_database_now(pg_server_url, f"test_{next(_numbers)}")


@pytest.fixture(params=BACKENDS)
def store_location(request: pytest.FixtureRequest, tmp_path: Path) -> str | Path:
    """Where a fresh store lives: a SQLite file path, or a fresh PostgreSQL store's URL."""
    if request.param == "sqlite":
        return tmp_path / "store.db"
    return request.getfixturevalue("pg_url")


@pytest.fixture
async def db(store_location: str | Path) -> AsyncIterator[object]:
    """A migrated store on each backend, closed at the end."""
    database = await open_database(store_location)
    yield database
    await database.close()


__all__ = ["own_database_url", "own_server"]  # fixtures for the modules that stop their server
