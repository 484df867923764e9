"""The rule for PostgreSQL tests on a machine without PostgreSQL."""

from __future__ import annotations

import os

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
