"""A throwaway PostgreSQL server for tests and benches: ``initdb`` + ``pg_ctl`` in a folder.

The server listens on a free loopback port, with its socket in the folder, and trusts local
connections (user ``sequence``, no password). Run as root, the binaries run as the ``postgres``
user (``initdb`` refuses root) through ``runuser``, with the folder owned by that user.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BIN_DIRS = tuple(f"/usr/lib/postgresql/{major}/bin" for major in (15, 16, 17))
USER = "sequence"


def find_bin() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl``, or None when PostgreSQL is not installed."""
    for folder in BIN_DIRS:
        if (Path(folder) / "initdb").is_file():
            return Path(folder)
    found = shutil.which("initdb")
    return Path(found).parent if found else None


def free_port() -> int:
    """A TCP port nobody listens on right now (on 127.0.0.1)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def temporary_server(*, durable: bool = False) -> Iterator[str]:
    """Start a server, yield the URL of its ``postgres`` database, stop and delete it after.

    ``durable=False`` (tests) turns ``fsync`` off: a test server needs no crash safety, and
    ``CREATE DATABASE`` is then fast. ``durable=True`` keeps PostgreSQL's defaults (``fsync``
    and ``synchronous_commit`` on), for benches.
    """
    with controlled_server(durable=durable) as server:
        yield server.url


@dataclass
class Server:
    """A running test server: the URL of its ``postgres`` database, and ``pg_ctl`` to stop it
    and start it again on the same port (an outage, as an admin's restart makes one)."""

    url: str
    pg_ctl: list[str]
    start_args: list[str]

    def stop(self, mode: str = "fast") -> None:
        """``pg_ctl stop -m mode``: ``fast`` ends every session, as a restart does."""
        _run(*self.pg_ctl, "-m", mode, "-w", "stop")

    def start(self) -> None:
        """``pg_ctl start``, waiting until it accepts connections."""
        _run(*self.pg_ctl, *self.start_args, "-w", "start")

    def processes(self) -> list[int]:
        """The server's processes: the postmaster (``postmaster.pid``) and its children."""
        data = Path(self.pg_ctl[self.pg_ctl.index("-D") + 1])
        postmaster = int((data / "postmaster.pid").read_text().split()[0])
        children = [
            int(stat.parent.name)
            for stat in Path("/proc").glob("[0-9]*/stat")
            if _parent_pid(stat) == postmaster
        ]
        return [postmaster, *children]

    def pause(self) -> None:
        """``SIGSTOP`` every process of the server: it hangs (connections stay open, nothing
        answers), as a server behind a network black hole does, until :meth:`resume`."""
        self._signal(signal.SIGSTOP)

    def resume(self) -> None:
        """``SIGCONT`` every process of the server."""
        self._signal(signal.SIGCONT)

    def _signal(self, number: signal.Signals) -> None:
        """Send ``number`` to every process of the server (the postmaster first, so that it forks
        no new one meanwhile); a backend that ended since it was listed is passed over."""
        for pid in self.processes():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, number)


def _parent_pid(stat: Path) -> int | None:
    """The parent pid in a ``/proc/PID/stat`` file (None when the process has gone)."""
    try:
        return int(stat.read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def _run(*args: str) -> None:
    subprocess.run(list(args), check=True, capture_output=True, timeout=120)


@contextlib.contextmanager
def controlled_server(*, durable: bool = False) -> Iterator[Server]:
    """:func:`temporary_server`, yielding the :class:`Server` (its URL, ``stop``, ``start``)."""
    bin_dir = find_bin()
    if bin_dir is None:
        raise FileNotFoundError("PostgreSQL's initdb was not found (install Debian's postgresql).")
    folder = Path(tempfile.mkdtemp(prefix="sequence-pg-"))
    as_user: list[str] = []
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    data, port = folder / "data", free_port()
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c max_connections=200"
    if not durable:
        options += " -c fsync=off -c full_page_writes=off"
    pg_ctl = [*as_user, str(bin_dir / "pg_ctl"), "-D", str(data)]
    server = Server(
        f"postgresql://{USER}@127.0.0.1:{port}/postgres",
        pg_ctl,
        ["-o", options, "-l", str(folder / "log")],
    )
    try:
        _run(*as_user, str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", USER,
             "-E", "UTF8", "--locale=C")
        server.start()
    except subprocess.CalledProcessError as error:
        log = folder / "log"
        detail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
        shutil.rmtree(folder, ignore_errors=True)
        raise RuntimeError(
            f"PostgreSQL did not start: {error.stderr.decode(errors='replace')}{detail}"
        ) from error
    try:
        yield server
    finally:
        with contextlib.suppress(subprocess.SubprocessError):
            server.stop("immediate")
        shutil.rmtree(folder, ignore_errors=True)


def port_of(url: str) -> int:
    """The port of a ``postgresql://user@host:port/...`` URL.

    >>> port_of("postgresql://u@127.0.0.1:5433/tests?options=-csearch_path%3Dx")
    5433
    """
    return int(url.split("@", 1)[1].split("/", 1)[0].rsplit(":", 1)[1])


def accepts_connections(server: Server) -> bool:
    """True when the server's port takes a connection (it is running)."""
    port = port_of(server.url)
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True


def database_url(server_url: str, name: str) -> str:
    """The URL of database ``name`` on the server of ``server_url``."""
    return server_url.rsplit("/", 1)[0] + "/" + name


async def create_database(server_url: str, name: str) -> str:
    """``CREATE DATABASE name`` (a fresh, empty database); its URL."""
    import asyncpg

    conn = await asyncpg.connect(server_url)
    try:
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    return database_url(server_url, name)


def create_database_now(server_url: str, name: str) -> str:
    """:func:`create_database` from synchronous code (a fixture), on its own event loop."""
    return _now(create_database(server_url, name))


def schema_url(database_url: str, schema: str) -> str:
    """The URL of ``database_url`` with ``schema`` as its only ``search_path``: libpq's
    ``options=-csearch_path=...`` (asyncpg sends it at connection as a server setting).

    >>> schema_url("postgresql://u@h:5432/tests", "test_1")
    'postgresql://u@h:5432/tests?options=-csearch_path%3Dtest_1'
    """
    return f"{database_url}?options=-csearch_path%3D{schema}"


async def create_schema(database_url: str, name: str) -> str:
    """``CREATE SCHEMA name`` in the database of ``database_url`` (a fresh, empty store: the
    bot creates its tables in the first schema of its ``search_path``); its URL.

    First it ends every other session of that database: a session a previous test left
    behind would still hold its advisory locks (the shards of a bot) or listen, and the
    database's advisory locks and ``NOTIFY`` channels are not per schema.
    """
    import asyncpg

    conn = await asyncpg.connect(database_url)
    try:
        await conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        await conn.execute(f'CREATE SCHEMA "{name}"')
    finally:
        await conn.close()
    return schema_url(database_url, name)


def create_schema_now(database_url: str, name: str) -> str:
    """:func:`create_schema` from synchronous code (a fixture), on its own event loop."""
    return _now(create_schema(database_url, name))


def _now(work: Coroutine[Any, Any, str]) -> str:
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, work).result()
