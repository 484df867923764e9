"""Crash safety: a writer killed with SIGKILL at random moments; damaged or unreadable files."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import sqlite3
import sys
import threading
from pathlib import Path

import pytest

from bot.store import DatabaseUnreadableError, SQLiteStore
from bot.store.database import _translate
from tests.store_util import create_game, play

ROOT = Path(__file__).resolve().parent.parent
KILLS = 14


async def run_and_kill(path: Path, seed: int, rng: random.Random) -> list[str]:
    """Start a writer, SIGKILL it at a random moment, return its complete output lines."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.store_writer",
        str(path),
        str(seed),
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
    )
    assert proc.stdout is not None
    chunks: list[bytes] = []

    async def drain() -> None:
        while chunk := await proc.stdout.read(65536):  # type: ignore[union-attr]
            chunks.append(chunk)

    reader = asyncio.create_task(drain())
    if rng.random() < 0.25:  # anywhere, start-up and migrations included
        await asyncio.sleep(rng.uniform(0.0, 0.5))
    else:  # while moves are being committed
        async with asyncio.timeout(20):
            while not chunks:
                await asyncio.sleep(0.005)
        await asyncio.sleep(rng.uniform(0.0, 0.25))
    proc.send_signal(signal.SIGKILL)
    await proc.wait()
    await reader
    assert proc.returncode == -signal.SIGKILL
    text = b"".join(chunks).decode()
    return text.split("\n")[:-1]  # the last piece is empty or a line cut short by the kill


@pytest.mark.slow
async def test_acknowledged_moves_survive_sigkill(tmp_path: Path) -> None:
    path = tmp_path / "crash.db"
    rng = random.Random(20240601)
    acked: dict[int, list[str | None]] = {}  # game -> live moves as acknowledged
    ever: set[tuple[int, int, str]] = set()  # every acknowledged move
    undone: set[tuple[int, int]] = set()
    finished: set[int] = set()
    for run in range(KILLS):
        for line in await run_and_kill(path, run, rng):
            kind, game, *rest = line.split()
            moves = acked.setdefault(int(game), [])
            if kind == "m":
                number, notation = int(rest[0]), rest[1]
                # A restarted writer goes on from what was stored: it may be one move (or one
                # undo) ahead of what the killed one printed. None: a move we never saw acked.
                del moves[number:]
                moves.extend([None] * (number - len(moves)))
                moves.append(notation)
                ever.add((int(game), number, notation))
            elif kind == "u":
                undone.add((int(game), int(rest[0])))
                del moves[int(rest[0]) :]
            else:
                finished.add(int(game))
    assert len(ever) > 100, "the writer hardly ran: the test proves nothing"

    db = await SQLiteStore.open(path)
    try:
        assert await db.integrity_check() == ["ok"]
        for game_id, moves in acked.items():
            log = await db.games.log(game_id)
            stored = {(game_id, e.number, e.move.notation()) for e in log}
            assert {m for m in ever if m[0] == game_id} <= stored
            assert {(game_id, e.number) for e in log if e.undone_at is not None} >= {
                u for u in undone if u[0] == game_id
            }
            live = [e.move.notation() for e in log if e.undone_at is None]
            assert abs(len(live) - len(moves)) <= 1  # at most one unacknowledged commit
            known = [(n, m) for n, m in enumerate(moves[: len(live)]) if m is not None]
            assert all(live[n] == m for n, m in known[:-1])  # the last may have been undone
            record = await db.games.load(game_id)
            assert await db.games.verify(game_id), f"game {game_id}: snapshot != log"
            # The end commits with the final move: never a finished game without its status
            # and result, nor an active one whose log is over.
            result = await db.results.get(game_id)
            assert record.game.is_over() == (record.status == "finished") == (result is not None)
            if game_id in finished:
                assert record.status == "finished"
        assert len(await db.games.active()) <= 1
    finally:
        await db.close()


async def test_a_file_that_is_not_a_database_gives_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "sequence.db"
    content = b"These are my notes, not a database.\n" * 200
    path.write_bytes(content)
    threads = set(threading.enumerate())
    for _ in range(2):  # the same clear answer every time, and the file is not touched
        with pytest.raises(DatabaseUnreadableError) as error:
            await SQLiteStore.open(path)
        message = str(error.value)
        assert str(path) in message and "not a SQLite database" in message
        assert "move the file" in message and "restarting will not help" in message
    assert path.read_bytes() == content
    # aiosqlite's close() returns once its worker was told to stop; the thread then ends on its
    # own. Wait for it (bounded), then require that none is left behind.
    for thread in set(threading.enumerate()) - threads:
        thread.join(timeout=10)
    left_behind = {t for t in set(threading.enumerate()) - threads if t.is_alive()}
    assert not left_behind  # no connection thread left behind


async def test_a_damaged_database_gives_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "damaged.db"
    db = await SQLiteStore.open(path)
    for channel in range(30):
        await play(db, await create_game(db, channel, seed=channel), 20, random.Random(channel))
    await db.close()
    data = bytearray(path.read_bytes())
    page = 4096
    assert len(data) > 10 * page
    rng = random.Random(1)
    for start in range(2 * page, len(data), page):
        data[start : start + page] = rng.randbytes(page)
    path.write_bytes(bytes(data))

    with pytest.raises(DatabaseUnreadableError, match=r"damaged|not a SQLite"):
        db = await SQLiteStore.open(path, check=True)
        await db.close()
    with pytest.raises(DatabaseUnreadableError, match=r"damaged|not a SQLite"):
        db = await SQLiteStore.open(path)
        try:
            await db.games.active()
        finally:
            await db.close()


async def test_a_folder_or_an_uncreatable_folder_gives_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(DatabaseUnreadableError, match="a folder, not a file"):
        await SQLiteStore.open(tmp_path)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(DatabaseUnreadableError, match="folder cannot be created"):
        await SQLiteStore.open(blocker / "sub" / "sequence.db")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
async def test_an_unreadable_file_gives_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "locked.db"
    await (await SQLiteStore.open(path)).close()
    path.chmod(0)
    try:
        with pytest.raises(DatabaseUnreadableError, match=str(path)):
            await SQLiteStore.open(path)
    finally:
        path.chmod(0o600)


def test_corruption_is_recognised_by_its_message_too() -> None:
    error = sqlite3.DatabaseError("file is not a database")
    assert isinstance(_translate(Path("x.db"), error), DatabaseUnreadableError)
