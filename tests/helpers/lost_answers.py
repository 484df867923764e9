"""A TCP proxy in front of PostgreSQL that can lose the server's answer to a ``COMMIT``: the
commit reaches the server (and is applied), and nothing more comes back on that connection, as
when a network drops a reply.

It runs as a process of its own (``python -m tests.helpers.lost_answers SERVER_PORT``): SimCord
runs the test's clock virtually, and a proxy sharing the test's process would share that clock.
The process prints the port it listens on; ``SIGUSR1`` arms it for the next ``COMMIT``.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import subprocess
import sys
from collections.abc import Iterator

#: A simple-query ``COMMIT`` as asyncpg sends it (``Q``, length, text, NUL).
COMMIT = b"Q\x00\x00\x00\x0bCOMMIT\x00"


class Proxy:
    """Forwards connections to the server; :meth:`arm` loses the next commit's answer."""

    def __init__(self, server_port: int) -> None:
        self.server_port = server_port
        self.armed = False

    def arm(self) -> None:
        self.armed = True

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(
                "127.0.0.1", self.server_port
            )
        except OSError:
            writer.close()
            return
        holed: list[bool] = []
        await asyncio.gather(
            self._pump(reader, upstream_writer, holed, watch=True),
            self._pump(upstream_reader, writer, holed, watch=False),
            return_exceptions=True,
        )

    async def _pump(
        self,
        source: asyncio.StreamReader,
        sink: asyncio.StreamWriter,
        holed: list[bool],
        *,
        watch: bool,
    ) -> None:
        try:
            while data := await source.read(65536):
                if watch and self.armed and COMMIT in data:
                    self.armed = False
                    holed.append(True)
                if not watch and holed:
                    continue  # the server's answers on this connection are lost
                sink.write(data)
                await sink.drain()
        finally:
            with contextlib.suppress(Exception):
                sink.close()


async def _main(server_port: int) -> None:
    proxy = Proxy(server_port)
    asyncio.get_running_loop().add_signal_handler(signal.SIGUSR1, proxy.arm)
    server = await asyncio.start_server(proxy.serve, "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


@contextlib.contextmanager
def answer_losing_proxy(server_port: int) -> Iterator[tuple[int, subprocess.Popen[str]]]:
    """(the port it listens on, the process: ``send_signal(SIGUSR1)`` arms it)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.helpers.lost_answers", str(server_port)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        yield int(process.stdout.readline()), process
    finally:
        process.kill()
        process.wait(10)


if __name__ == "__main__":
    asyncio.run(_main(int(sys.argv[1])))
