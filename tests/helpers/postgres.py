"""The rule for PostgreSQL tests on a machine without PostgreSQL."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests import pg_server


def require_postgresql() -> None:
    """Skip the test when PostgreSQL's binaries are missing, except under ``CI=true`` where it
    fails: CI must test both backends (``.ci/run`` installs PostgreSQL)."""
    if pg_server.find_bin() is not None:
        return
    reason = "PostgreSQL is not installed (no initdb): the PostgreSQL tests cannot run"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(reason + " (CI=true: install Debian's postgresql).")
    pytest.skip(reason + ".")


@pytest.fixture(scope="module")
def own_server() -> Iterator[pg_server.Server]:
    """A PostgreSQL server of the test module's own, which its tests may stop or pause (import
    the fixture into the module)."""
    require_postgresql()
    with pg_server.controlled_server() as started:
        yield started


@pytest.fixture(scope="module")
def own_database_url(own_server: pg_server.Server) -> str:
    """The database on :func:`own_server` that holds the module's schemas."""
    return pg_server.create_database_now(own_server.url, "tests")
