"""The command line: ``run`` without a token or with bad settings, ``check``, logs, play-local."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging
import os
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from pathlib import Path
from types import SimpleNamespace
from typing import Any, ClassVar

import discord
import pytest

from bot.cli import build_parser, main
from bot.cli.local import LocalOptions, missing_modules, play_local
from bot.cli.online import beat
from bot.logs import PAYLOAD_LOGGERS, KeyValueFormatter, RedactFilter, configure_logging
from bot.store import NotFoundError
from tests.helpers.settings import BAD_SETTINGS, VARIABLES
from tests.helpers.store import query

from .pg_server import free_port

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "MTIzNDU2Nzg5.fake-token-for-tests.abcdefghijklmnop"


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch, tmp_path):
    """No setting from the developer's environment or ``.env``; a throwaway working folder."""
    for name in VARIABLES.values():
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SEQUENCE_DATABASE", str(tmp_path / "data" / "sequence.db"))


@pytest.fixture(autouse=True)
def restore_logging():
    """``configure_logging`` changes the root logger: put it back after each test."""
    loggers = [logging.getLogger(), *map(logging.getLogger, PAYLOAD_LOGGERS)]
    handlers, levels = list(loggers[0].handlers), [logger.level for logger in loggers]
    yield
    loggers[0].handlers[:] = handlers
    for logger, level in zip(loggers, levels, strict=True):
        logger.setLevel(level)


# --------------------------------------------------------------------------- run
def test_run_without_a_token_says_where_to_put_it(capsys):
    assert main(["run"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("error: no Discord bot token")
    for hint in ("DISCORD_TOKEN", ".env", ".env.example", "sequence-bot demo"):
        assert hint in err
    assert "Traceback" not in err


def test_python_m_bot_run_without_a_token_exits_with_the_message(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in VARIABLES.values()}
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run(
        [sys.executable, "-m", "bot", "run"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("error: no Discord bot token")
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize(("values", "words"), BAD_SETTINGS)
def test_run_with_a_bad_setting_stops_with_one_clear_line(monkeypatch, capsys, values, words):
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    assert main(["run"]) == 2
    out, err = capsys.readouterr()
    assert err.startswith("error: ") and err.count("\n") == 1
    for word in words:
        assert word in err
    assert TOKEN not in out + err


def test_a_broken_env_file_is_named(tmp_path, capsys):
    (tmp_path / ".env").write_text(f"DISCORD_TOKEN={TOKEN}\nLOG_LEVEL INFO\n", encoding="utf-8")
    assert main(["run"]) == 2
    err = capsys.readouterr().err
    assert err == "error: .env:2: expected KEY=value.\n"


def test_an_env_file_in_another_encoding_is_one_clear_line(tmp_path, capsys):
    (tmp_path / ".env").write_text(f"# clé\nDISCORD_TOKEN={TOKEN}\n", encoding="cp1252")
    assert main(["run"]) == 2
    assert main(["check"]) == 1
    err = capsys.readouterr().err
    assert err.count("error: .env is not UTF-8 text") == 2 and err.count("\n") == 2


def test_the_env_file_option_is_read(tmp_path, capsys):
    settings = tmp_path / "prod.env"
    settings.write_text("LOG_LEVEL=chatty\n", encoding="utf-8")
    assert main(["run", "--env-file", str(settings)]) == 2
    assert "LOG_LEVEL='CHATTY'" in capsys.readouterr().err


def test_a_refused_token_is_one_line_and_never_printed(monkeypatch, capsys):
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)
    seen = []

    async def refuse(self: Any, token: str) -> None:
        seen.append(token)
        raise discord.LoginFailure("Improper token has been passed.")

    monkeypatch.setattr(discord.http.HTTPClient, "static_login", refuse)
    assert main(["run"]) == 1
    out, err = capsys.readouterr()
    assert seen == [TOKEN]
    assert "error: Discord refused the token in DISCORD_TOKEN" in err
    assert "level=INFO logger=bot.run msg=Starting" in err
    assert TOKEN not in out + err
    assert "Traceback" not in err


def fake_discord(monkeypatch) -> None:
    """Discord faked under discord.py: the token is accepted, the commands sync, and the
    gateway idles until the bot closes (tests patch one piece to make Discord answer otherwise)."""

    async def login(self: Any, token: str) -> dict[str, Any]:
        return {"id": "1", "username": "Sequence", "discriminator": "0", "avatar": None}

    async def application_info(self: Any) -> Any:
        flags = discord.ApplicationFlags()
        return SimpleNamespace(id=1, interactions_endpoint_url=None, flags=flags)

    async def upsert(self: Any, *args: Any, **kwargs: Any) -> list[Any]:
        return []

    async def connect(self: Any, *, reconnect: bool = True) -> None:
        while not self.is_closed():
            await asyncio.sleep(0.01)

    monkeypatch.setattr(discord.http.HTTPClient, "static_login", login)
    monkeypatch.setattr(discord.Client, "application_info", application_info)
    monkeypatch.setattr(discord.http.HTTPClient, "bulk_upsert_global_commands", upsert)
    monkeypatch.setattr(discord.http.HTTPClient, "bulk_upsert_guild_commands", upsert)
    monkeypatch.setattr(discord.Client, "connect", connect)


def test_a_dev_guild_the_bot_is_not_in_is_one_clear_line(monkeypatch, capsys):
    """Discord answers 403 Missing Access to a sync to a server the bot was not invited to."""
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)
    monkeypatch.setenv("DEV_GUILD_ID", "123456789012345678")
    fake_discord(monkeypatch)

    async def refuse(self: Any, *args: Any, **kwargs: Any) -> None:
        response = SimpleNamespace(status=403, reason="Forbidden")
        raise discord.Forbidden(response, {"code": 50001, "message": "Missing Access"})

    monkeypatch.setattr(discord.http.HTTPClient, "bulk_upsert_guild_commands", refuse)
    assert main(["run"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and TOKEN not in err
    last = err.splitlines()[-1]
    assert last.startswith("error: DEV_GUILD_ID=123456789012345678")
    assert "Missing Access" in last and "invite" in last


def test_discord_failing_at_the_start_is_one_line(monkeypatch, capsys):
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)
    fake_discord(monkeypatch)

    async def fail(self: Any, *args: Any, **kwargs: Any) -> None:
        response = SimpleNamespace(status=503, reason="Service Unavailable")
        raise discord.DiscordServerError(response, "upstream connect error")

    monkeypatch.setattr(discord.http.HTTPClient, "bulk_upsert_global_commands", fail)
    assert main(["run"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and TOKEN not in err
    assert err.splitlines()[-1].startswith("error: Discord answered 503")


def test_sigterm_stops_run_once_the_database_is_closed(monkeypatch, tmp_path, capsys):
    """``docker stop``: the process ends only after the store is closed, however long that
    takes (on PostgreSQL: its listening connection, then its pool)."""
    from bot.store.database import SQLiteStore

    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)
    fake_discord(monkeypatch)
    close, opened, closed = SQLiteStore.close, [], []

    async def connect(self: Any, *, reconnect: bool = True) -> None:
        os.kill(os.getpid(), signal.SIGTERM)
        while not self.is_closed():
            await asyncio.sleep(0.01)

    async def slow_close(self: SQLiteStore) -> None:
        opened.append(self)
        await asyncio.sleep(0.05)
        await close(self)
        closed.append(self)

    monkeypatch.setattr(discord.Client, "connect", connect)
    monkeypatch.setattr(SQLiteStore, "close", slow_close)
    try:
        assert main(["run"]) == 0
        assert "msg=Stopped" in capsys.readouterr().err
        assert closed == opened and len(closed) == 1
    finally:
        for db in set(opened) - set(closed):  # else its thread keeps pytest from exiting
            asyncio.run(close(db))


@pytest.mark.parametrize(
    ("database", "words"),
    [
        (".", "is a folder"),
        ("/proc/sequence/x.db", "cannot be created"),
        ("a-file/x.db", "cannot be created"),
    ],
)
def test_run_stops_before_connecting_when_the_database_is_unusable(
    monkeypatch, tmp_path, capsys, database, words
):
    """A SEQUENCE_DATABASE that cannot be used is a bad setting: one line, exit 2."""
    (tmp_path / "a-file").write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)
    monkeypatch.setenv("SEQUENCE_DATABASE", database)
    assert main(["run"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and words in err


def test_a_database_url_of_another_kind_stops_run_and_check(monkeypatch, tmp_path, capsys):
    """Not a SQLite file in a folder named after the URL, with the password in the logs."""
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)
    monkeypatch.setenv("SEQUENCE_DATABASE", "postgresql+asyncpg://bot:hunter2@db.example/seq")
    assert main(["check"]) == 1
    assert main(["run"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("error: SEQUENCE_DATABASE") == 2 and "hunter2" not in err
    assert list(tmp_path.iterdir()) == []


def test_a_named_env_file_that_is_missing_is_an_error(tmp_path, capsys):
    assert main(["run", "--env-file", "prod.env"]) == 2
    err = capsys.readouterr().err
    assert err == "error: --env-file prod.env does not exist: name a settings file like .env.\n"
    assert main(["check", "--env-file", str(tmp_path)]) == 1  # check answers only 0 or 1
    assert "is a folder" in capsys.readouterr().err


def test_a_misspelled_setting_is_warned_about(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)
    monkeypatch.setenv("TURN_TIME_LIMT", "5")
    monkeypatch.setenv("SEQUENCE_DB", "x.db")
    (tmp_path / ".env").write_text("LOG_LEVEL=INFO\nREMINDER=60\n", encoding="utf-8")
    assert main(["check"]) == 0
    warnings = capsys.readouterr().err.splitlines()
    assert warnings == [
        "warning: TURN_TIME_LIMT is not a setting (did you mean TURN_TIME_LIMIT?); it is ignored.",
        "warning: SEQUENCE_DB is not a setting; it is ignored.",
        "warning: REMINDER in .env is not a setting; it is ignored.",
    ]


def test_no_command_prints_the_help(capsys):
    assert main([]) == 2
    err = capsys.readouterr().err
    for command in ("run", "demo", "check", "play-local", "commands"):
        assert command in err


def test_demo_options_are_validated(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["demo", "--players", "5"])
    assert exited.value.code == 2
    assert "--players" in capsys.readouterr().err


def test_ctrl_c_during_the_demo_stops_it_with_one_line(tmp_path):
    """Pressing Ctrl-C while the demo plays: a line saying it stopped, not a traceback."""
    pytest.importorskip("simcord")
    env = {k: v for k, v in os.environ.items() if k not in VARIABLES.values()}
    env["PYTHONPATH"] = str(ROOT)
    demo = subprocess.Popen(
        [sys.executable, "-m", "bot", "demo", "--seed", "3", "--out", "out"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert demo.stderr is not None
        first = [demo.stderr.readline(), demo.stderr.readline()]
        assert "move 10" in first[1]  # the game is being played
        demo.send_signal(signal.SIGINT)
        out, err = demo.communicate(timeout=60)
    finally:
        demo.kill()
    assert "Traceback" not in err
    assert err.splitlines()[-1] == "stopped (Ctrl-C) before the end."
    assert demo.returncode == 130 and out == ""


def _offline(tmp_path: Path, *command: str) -> subprocess.Popen[str]:
    """``sequence-bot COMMAND`` in a subprocess whose temporary folders go to tmp_path/tmp."""
    env = {k: v for k, v in os.environ.items() if k not in VARIABLES.values()}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *sys.path])
    (tmp_path / "tmp").mkdir()
    env["TMPDIR"] = str(tmp_path / "tmp")
    return subprocess.Popen(
        [sys.executable, "-m", "bot", *command],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_sigterm_during_the_demo_stops_it_and_removes_its_temporary_folder(tmp_path):
    """``kill`` or ``timeout`` stop the demo as Ctrl-C does: one line, no folder left behind."""
    pytest.importorskip("simcord")
    demo = _offline(tmp_path, "demo", "--seed", "3", "--out", "out")
    try:
        assert demo.stderr is not None
        first = [demo.stderr.readline(), demo.stderr.readline()]
        assert "move 10" in first[1]  # the game is being played
        assert [p.name[:14] for p in (tmp_path / "tmp").iterdir()] == ["sequence-demo-"]
        demo.send_signal(signal.SIGTERM)
        out, err = demo.communicate(timeout=60)
    finally:
        demo.kill()
    assert list((tmp_path / "tmp").iterdir()) == []
    assert "Traceback" not in err
    assert err.splitlines()[-1:] == ["stopped (SIGTERM) before the end."]
    assert demo.returncode == 130 and out == ""


@pytest.mark.parametrize(
    ("out", "words"),
    [
        ("/proc/sequence-demo", "cannot write there"),
        ("a-file/demo", "a-file is a file, not a folder"),
        ("blocked", "blocked/boards is a file, not a folder"),
    ],
)
def test_the_demo_checks_its_folder_before_playing(tmp_path, capsys, out, words):
    (tmp_path / "a-file").write_text("not a folder", encoding="utf-8")
    (tmp_path / "blocked").mkdir()
    (tmp_path / "blocked" / "boards").write_text("not a folder", encoding="utf-8")
    assert main(["demo", "--out", out]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"error: --out {out}: ") and captured.err.count("\n") == 1
    assert words in captured.err
    assert "Playing" not in captured.err and not list(tmp_path.rglob("*.png"))


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("missing.md", "No such file or directory"),
        ("folder", "Is a directory"),
        ("plain.md", "no <!-- commands: ... --> ... <!-- /commands --> block"),
    ],
)
def test_write_readme_into_a_file_it_cannot_update_is_one_clear_line(tmp_path, capsys, name, words):
    pytest.importorskip("simcord")
    (tmp_path / "folder").mkdir()
    (tmp_path / "plain.md").write_text("# A README without the tables\n", encoding="utf-8")
    assert main(["commands", "--write-readme", name]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"error: cannot update {name}: {words}.\n"
    assert (tmp_path / "plain.md").read_text(encoding="utf-8") == "# A README without the tables\n"


def test_version(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert re.fullmatch(r"sequence-bot \S+\n", capsys.readouterr().out)


def test_the_offline_commands_without_simcord_say_how_to_install_it(tmp_path):
    """``demo`` and ``commands`` need the [demo] extra: one line and exit 2 without it."""
    env = {k: v for k, v in os.environ.items() if k not in VARIABLES.values()}
    env["PYTHONPATH"] = str(ROOT)
    code = (  # None in sys.modules: Python's own way of making a module unimportable
        "import sys\n"
        "sys.modules['simcord'] = None\n"
        "from bot.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    for command in (["demo"], ["commands"], ["play-local", "--no-browser"]):
        done = subprocess.run(
            [sys.executable, "-c", code, *command],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 2, done.stderr
        assert done.stderr.count("\n") == 1 and "pip install -e" in done.stderr, done.stderr
        assert not (tmp_path / "demo-output").exists()


# --------------------------------------------------------------------------- check
def test_check_passes_with_a_token_and_a_usable_database(monkeypatch, capsys):
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)
    monkeypatch.setenv("DEV_GUILD_ID", "42")
    assert main(["check"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("ok: database ") and "to guild 42" in out
    assert TOKEN not in out


def test_check_fails_without_a_token(capsys):
    assert main(["check"]) == 1
    assert "DISCORD_TOKEN is not set" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("token", "words"),
    [
        ("abc", "does not look like a bot token (three parts separated by dots)"),
        (f"Bot {TOKEN}", 'starts with "Bot "'),
        (f'"{TOKEN}"', "wrapped in quotes"),
        (f"'{TOKEN}'", "wrapped in quotes"),
        ("MTIz.abc", "three parts"),
    ],
)
def test_check_and_run_refuse_a_token_of_the_wrong_shape(monkeypatch, capsys, token, words):
    monkeypatch.setenv("DISCORD_TOKEN", token)
    assert main(["check"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("error: DISCORD_TOKEN ") and err.count("\n") == 1
    assert words in err and token not in err
    assert main(["run"]) == 2
    out, err = capsys.readouterr()
    assert err.startswith("error: DISCORD_TOKEN ") and err.count("\n") == 1 and token not in err


def test_check_fails_on_a_bad_setting(monkeypatch, capsys):
    monkeypatch.setenv("SHARD_COUNT", "many")
    assert main(["check"]) == 1
    assert "SHARD_COUNT='many' is not a whole number" in capsys.readouterr().err


def test_check_rejects_a_database_of_another_program(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)
    other = tmp_path / "other.db"
    with contextlib.closing(sqlite3.connect(other)) as conn, conn:
        conn.execute("CREATE TABLE customers (id INTEGER)")
    monkeypatch.setenv("SEQUENCE_DATABASE", str(other))
    assert main(["check"]) == 1
    assert "not this bot's" in capsys.readouterr().err


def test_check_reads_a_database_the_bot_wrote(monkeypatch, tmp_path, capsys):
    from bot.store.database import SQLiteStore

    async def create() -> None:
        db = await SQLiteStore.open(tmp_path / "bot.db")
        await db.close()

    asyncio.run(create())
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)
    monkeypatch.setenv("SEQUENCE_DATABASE", str(tmp_path / "bot.db"))
    assert main(["check"]) == 0


def test_check_on_postgresql_never_shows_the_password(monkeypatch, pg_url, capsys):
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)
    monkeypatch.setenv("SEQUENCE_DATABASE", pg_url.replace("sequence@", "sequence:hunter2@"))
    assert main(["check"]) == 0  # an empty database: the bot will create its tables
    out, err = capsys.readouterr()
    assert out.startswith("ok: database postgresql://sequence:***@127.0.0.1:")
    asyncio.run(query(pg_url, "CREATE TABLE customers (id INTEGER)"))
    assert main(["check"]) == 1
    assert "not this bot's" in capsys.readouterr().err
    unreachable = f"postgresql://sequence:hunter2@127.0.0.1:{free_port()}/nothing"
    monkeypatch.setenv("SEQUENCE_DATABASE", unreachable)
    assert main(["check"]) == 1
    assert main(["run"]) == 2  # a database it cannot use: stops before connecting to Discord
    out2, err2 = capsys.readouterr()
    assert "cannot be reached" in err2 and "sequence:***@127.0.0.1" in err2
    assert "hunter2" not in out + err + out2 + err2


def test_check_heartbeat(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)
    heartbeat = tmp_path / "heartbeat"
    assert main(["check", "--heartbeat", str(heartbeat)]) == 1
    assert "has not connected" in capsys.readouterr().err
    heartbeat.touch()
    assert main(["check", "--heartbeat", str(heartbeat)]) == 0
    os.utime(heartbeat, (1, 1))
    assert main(["check", "--heartbeat", str(heartbeat), "--max-age", "60"]) == 1
    assert "not connected to Discord, or its database does not answer" in capsys.readouterr().err


async def test_run_touches_the_heartbeat_only_while_ready(tmp_path):
    class FakeBot:
        ready = False

        def is_ready(self) -> bool:
            return self.ready

        def is_closed(self) -> bool:
            return False

    bot, path = FakeBot(), tmp_path / "beat" / "file"
    task = asyncio.create_task(beat(bot, path, every=0.01))  # type: ignore[arg-type]
    await asyncio.sleep(0.05)
    assert not path.exists()
    bot.ready = True
    await asyncio.sleep(0.05)
    task.cancel()
    assert path.exists()


# --------------------------------------------------------------------------- backup
class Writer:
    """``tests.store_writer`` playing games on a database: another process, another connection
    in WAL mode, committing all the time; ``acks`` are the changes it saw committed."""

    def __init__(self, path: Path) -> None:
        self.acks: list[list[str]] = []
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.store_writer", str(path), "3"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.endswith("\n"):  # not one cut short by the kill
                self.acks.append(line.split())

    def wait_for(self, count: int, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while len(self.acks) < count:
            assert time.monotonic() < deadline and self.proc.poll() is None, "the writer stopped"
            time.sleep(0.01)

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()
        self.reader.join()


async def play_one(table: Any, record: Any) -> None:
    """The player to move makes a move, as a person does."""
    from bot.game import player_view
    from bot.game.ai import choose_move

    from .e2e_driver import make_move, seat_to_act

    seat = seat_to_act(record)
    move = choose_move(player_view(record.game, seat), "easy", random.Random(seat))
    await make_move(table, record, seat, move)


def moves_acked(acks: list[list[str]]) -> set[tuple[int, int, str]]:
    """(game, move number, notation) of every move the writer acknowledged."""
    return {(int(a[1]), int(a[2]), a[3]) for a in acks if a[0] == "m"}


async def test_a_backup_while_the_bot_and_another_process_write_serves_the_same_games(
    simcord_env, bot_settings, monkeypatch, tmp_path, capsys
):
    """The bot plays two games (its last writes still in the -wal file) while another process
    keeps committing moves: the copy holds every change committed before the backup began,
    passes integrity_check, and the bot started on it serves the same active games."""
    from bot.app import create_bot

    from .e2e_helpers import Table, make_table, open_and_start

    env, path = simcord_env, bot_settings.database_path
    first = await make_table(env, ["ada", "bob"])
    second = Table(env, first.guild, first.guild.create_text_channel("second"), first.players)
    games = [await open_and_start(first, seed=5), await open_and_start(second, seed=6)]
    await play_one(first, games[0])
    writer = Writer(path)
    try:
        await asyncio.to_thread(writer.wait_for, 30)
        assert Path(f"{path}-wal").stat().st_size > 0  # what copying sequence.db would miss
        before = list(writer.acks)
        monkeypatch.setenv("SEQUENCE_DATABASE", str(path))
        dest = tmp_path / "backups" / "sequence-copy.db"
        assert await asyncio.to_thread(main, ["backup", str(dest)]) == 0
        await asyncio.to_thread(writer.wait_for, len(writer.acks) + 10)  # it kept writing
    finally:
        writer.stop()
    out, err = capsys.readouterr()
    assert err == ""
    done = re.fullmatch(
        rf"done: {re.escape(str(path))} backed up to {re.escape(str(dest))} "
        r"\([\d.]+ [KM]B, (\d+) games, (\d+) active; integrity check ok\)\.\n",
        out,
    )
    assert done, out
    assert not Path(f"{dest}-wal").exists()  # one self-contained file
    with contextlib.closing(sqlite3.connect(dest)) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        counted = conn.execute("SELECT count(*), sum(status = 'active') FROM games").fetchone()
    assert (int(done[1]), int(done[2])) == counted

    played = {t.channel.id: t.game().game.to_dict() for t in (first, second)}
    await env.bot.close()
    await env.restart_bot(create_bot(bot_settings.with_overrides(database_path=dest)))
    db = env.bot.db
    stored: set[tuple[int, int, str]] = set()
    for game_id in {int(a[1]) for a in writer.acks}:
        with contextlib.suppress(NotFoundError):  # a game created after the backup
            stored |= {(game_id, e.number, e.move.notation()) for e in await db.games.log(game_id)}
            assert await db.games.verify(game_id)  # its snapshot is its move log's
    assert moves_acked(before) <= stored
    assert moves_acked(writer.acks) - stored  # the moves after the backup are not in it
    for table in (first, second):
        served = table.game()
        assert served is not None and served.game.to_dict() == played[table.channel.id]
        status = await table.players[0].slash(table.channel, "sequence status")
        assert f"Game #{served.id}" in status.response.content
    await play_one(second, second.game())
    assert len(second.game().game.moves) == len(played[second.channel.id]["moves"]) + 1


async def test_a_restored_backup_resumes_its_games_with_their_clock_and_buttons(
    simcord_env, bot_settings, monkeypatch, tmp_path
):
    """The README's restore: a backup taken mid-game, two more moves, the bot stopped, the
    database and its -wal and -shm files moved aside and the backup put in their place. The
    game is back at the backup's move; the Hand button of the newest board (posted after the
    backup) shows the hand as it is now; the turn's time limit runs out and is applied."""
    from bot.app import create_bot

    from .e2e_driver import open_hand
    from .e2e_helpers import make_table, open_and_start, seat_actor

    env, path = simcord_env, bot_settings.database_path
    table = await make_table(env, ["ada", "bob"])
    record = await open_and_start(table, seed=5, time_limit="1h")
    await play_one(table, record)
    monkeypatch.setenv("SEQUENCE_DATABASE", str(path))
    backup = tmp_path / "backups" / "sequence.db"
    assert await asyncio.to_thread(main, ["backup", str(backup)]) == 0
    saved = record.game.to_dict()
    for _ in range(2):
        await play_one(table, table.game())
    newest = table.channel.last_message
    await env.bot.close()
    aside = tmp_path / "replaced"
    aside.mkdir()
    for file in path.parent.glob(f"{path.name}*"):
        file.rename(aside / file.name)
    shutil.copyfile(backup, path)
    await env.restart_bot(create_bot(bot_settings))

    restored = table.game()
    assert restored.game.to_dict() == saved
    mover = seat_actor(table, restored, restored.game.turn)
    (hand,) = [item.custom_id for row in newest.components for item in row.children]
    panel = await mover.click(newest, custom_id=hand)
    now = await open_hand(table, mover)
    assert panel.ephemeral and f"Your hand** (game #{restored.id}" in panel.response.content
    assert panel.response.content == now.content
    await env.advance_time(3600 + 60)
    assert len(table.game().game.moves) == len(saved["moves"]) + 1  # the turn timed out
    assert table.channel.last_message.id != newest.id


def test_backup_refuses_to_replace_a_file_unless_forced(tmp_path, capsys):
    asyncio.run(_create_database(tmp_path / "data" / "sequence.db"))
    dest = tmp_path / "old.db"
    dest.write_bytes(b"last week's backup")
    assert main(["backup", str(dest)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == (
        f"error: {dest} already exists: name another file, or add --force to replace it.\n"
    )
    assert dest.read_bytes() == b"last week's backup"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    assert main(["backup", str(dest), "--force"]) == 0
    assert "0 games, 0 active; integrity check ok" in capsys.readouterr().out
    with contextlib.closing(sqlite3.connect(dest)) as conn:
        assert conn.execute("SELECT count(*) FROM schema_version").fetchone()[0] > 0


def test_a_backup_of_a_stopped_bots_database_leaves_nothing_beside_it(tmp_path, capsys):
    """The bot is stopped (its database closed: no -wal or -shm file). The backup reads it and
    leaves the folder as it found it, the database's bytes unchanged. Before, a -wal and a -shm
    file were left beside it (a read-only connection cannot remove what it made)."""
    path = tmp_path / "data" / "sequence.db"
    asyncio.run(_create_database(path))
    assert sorted(p.name for p in path.parent.iterdir()) == ["sequence.db"]
    before = path.read_bytes()
    assert main(["backup", str(tmp_path / "backups" / "x.db")]) == 0
    assert "integrity check ok" in capsys.readouterr().out
    assert sorted(p.name for p in path.parent.iterdir()) == ["sequence.db"]
    assert path.read_bytes() == before


def test_backup_refuses_a_postgresql_database_and_points_to_pg_dump(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("SEQUENCE_DATABASE", "postgresql://bot:hunter2@db.example/sequence")
    assert main(["backup", str(tmp_path / "x.db")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("error: SEQUENCE_DATABASE is a PostgreSQL database")
    assert err.count("\n") == 1 and "pg_dump" in err and "hunter2" not in err
    assert list(tmp_path.iterdir()) == []


def test_backup_of_a_missing_database_is_one_clear_line(tmp_path, capsys):
    assert main(["backup", str(tmp_path / "backups" / "x.db")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == (
        f"error: there is no database file {tmp_path / 'data' / 'sequence.db'} to back up "
        "(SEQUENCE_DATABASE).\n"
    )
    assert list(tmp_path.iterdir()) == []  # neither the database nor the backup's folder


def test_a_damaged_database_gives_no_backup(tmp_path, capsys):
    path = tmp_path / "data" / "sequence.db"
    asyncio.run(_create_database(path))
    with contextlib.closing(sqlite3.connect(path)) as conn:
        (page,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'moves_by_game'")
        (size,) = conn.execute("PRAGMA page_size").fetchone()
    with path.open("r+b") as file:
        file.seek((page[0] - 1) * size)
        file.write(b"\xff" * 64)
    dest = tmp_path / "backups" / "x.db"
    assert main(["backup", str(dest)]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("error: the backup of ") and err.count("\n") == 1
    assert "malformed" in err and list(dest.parent.iterdir()) == []


# --------------------------------------------------------------------------- migrate-db
def test_migrate_db_refuses_a_file_a_running_bot_writes_and_copies_it_once_stopped(
    tmp_path, pg_url, capsys
):
    """Another process plays games on the file (as a running bot does): migrate-db refuses
    it, copies nothing and leaves the file as it is; once that process stops, every move it
    committed is copied."""
    path = tmp_path / "data" / "sequence.db"
    writer = Writer(path)
    try:
        writer.wait_for(20)
        assert main(["migrate-db", "--from", str(path), "--to", pg_url]) == 2
        writer.wait_for(len(writer.acks) + 5)  # it played on
    finally:
        writer.stop()
    out, err = capsys.readouterr()
    assert out == "" and err == (
        f"error: the database {path} is open in another process (a running bot?): stop the "
        "bot first, then run migrate-db again; nothing was copied.\n"
    )
    tables = "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()"
    assert asyncio.run(query(pg_url, tables)) == [(0,)]
    assert main(["migrate-db", "--from", str(path), "--to", pg_url]) == 0
    capsys.readouterr()
    live: dict[tuple[int, int], str] = {}
    for ack in writer.acks:
        if ack[0] == "m":
            live[int(ack[1]), int(ack[2])] = ack[3]
        elif ack[0] == "u":
            del live[int(ack[1]), int(ack[2])]
    rows = asyncio.run(query(pg_url, "SELECT game_id, number FROM moves WHERE undone_at IS NULL"))
    # The kill can land between a commit and its acknowledgement: the one change the writer
    # made last may be in the copy unacknowledged (a move, or an undo), as in test_store_crash.
    assert len(set(live) ^ set(rows)) <= 1, (sorted(set(live) - set(rows)), set(rows) - set(live))


@pytest.mark.parametrize(
    ("kind", "words"),
    [
        ("foreign", "but not this bot's: point --from at another file."),
        ("newer", "has schema version 99; this bot knows up to"),
        ("truncated", "cannot be read: database disk image is malformed"),
        ("text", "cannot be read: file is not a database"),
    ],
)
def test_migrate_db_refuses_a_source_that_is_not_this_bot_s_and_writes_nothing(
    tmp_path, kind, words, capsys
):
    path = tmp_path / "source.db"
    if kind == "text":
        path.write_text("notes\n" * 1000)
    elif kind == "foreign":
        with contextlib.closing(sqlite3.connect(path)) as conn:
            conn.execute("CREATE TABLE notes (text TEXT)")
            conn.commit()
    else:
        asyncio.run(_create_database(path))
        if kind == "newer":
            with contextlib.closing(sqlite3.connect(path)) as conn:
                conn.execute("INSERT INTO schema_version VALUES (99, 'x', 0)")
                conn.commit()
        else:
            path.write_bytes(path.read_bytes()[:20_000])
    before = path.read_bytes()
    target = "postgresql://sequence@127.0.0.1:1/sequence"  # never reached
    assert main(["migrate-db", "--from", str(path), "--to", target]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("error: ") and err.count("\n") == 1 and words in err
    assert path.read_bytes() == before


async def _create_database(path: Path) -> None:
    from bot.store.database import SQLiteStore

    db = await SQLiteStore.open(path)
    await db.close()


# --------------------------------------------------------------------------- logging
def test_logs_are_key_value_lines_with_the_token_redacted(capsys):
    configure_logging("INFO", secrets=[TOKEN])
    log = logging.getLogger("bot.test")
    log.info("connecting with %s", TOKEN, extra={"shard": 1, "note": f"token {TOKEN}"})
    try:
        raise RuntimeError(f"bad token {TOKEN}")
    except RuntimeError:
        log.exception("failed")
    log.debug("not shown")
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert lines[0].split(" ", 1)[1] == (
        'level=INFO logger=bot.test msg="connecting with [redacted]" shard=1 '
        'note="token [redacted]"'
    )
    assert 'level=ERROR logger=bot.test msg=failed exc="Traceback' in lines[1]
    assert len(lines) == 2
    assert TOKEN not in err


def test_debug_logging_never_shows_discord_payloads(capsys):
    configure_logging("DEBUG")
    logging.getLogger("discord.http").debug("POST /interactions with %s", {"content": "7♠ J♦"})
    logging.getLogger("bot.test").debug("shown")
    err = capsys.readouterr().err
    assert "7♠" not in err and "msg=shown" in err


class _Answered:
    """An HTTP answer of Discord's to an interaction response: 204, no body."""

    status = 204
    headers: ClassVar[dict[str, str]] = {}

    async def text(self, encoding: str = "utf-8") -> str:
        return ""

    async def __aenter__(self) -> _Answered:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None


class _Session:
    """Stands in for aiohttp's session under discord.py's webhook adapter."""

    def request(self, method: str, url: str, **kwargs: Any) -> _Answered:
        return _Answered()


async def test_debug_logging_never_shows_an_interaction_token(capsys):
    """discord.py answers every interaction (a "Your hand" panel too) and sends its followups
    through its webhook adapter, which logs at DEBUG the URL it posted to: the interaction's
    token is in that URL, and with it anyone reading the log can fetch the ephemeral answer,
    the player's hand, for 15 minutes."""
    from discord.http import MultipartParameters
    from discord.webhook.async_ import AsyncWebhookAdapter

    configure_logging("DEBUG")
    token = "aW50ZXJhY3Rpb246OTg3NjU0MzIxOnNlY3JldC10b2tlbg"
    panel = {"type": 4, "data": {"content": "**Your hand**: 7♠ · J♦", "flags": 64}}
    params = MultipartParameters(payload=panel, multipart=None, files=None)
    adapter = AsyncWebhookAdapter()
    await adapter.create_interaction_response(1, token, session=_Session(), params=params)
    await adapter.execute_webhook(2, token, session=_Session(), payload={"content": "7♠"})
    err = capsys.readouterr().err
    assert token not in err
    assert "7♠" not in err


def test_configure_logging_twice_keeps_one_handler():
    configure_logging("INFO")
    configure_logging("WARNING")
    root = logging.getLogger()
    assert [h.get_name() for h in root.handlers].count("sequence-bot") == 1
    assert root.level == logging.WARNING


def test_formatter_quotes_values_with_spaces_and_quotes():
    record = logging.LogRecord("x", logging.WARNING, __file__, 1, 'say "hi"\nnow', None, None)
    text = KeyValueFormatter().format(record)
    assert text.endswith('level=WARNING logger=x msg="say \\"hi\\"\\nnow"')


def test_short_secrets_are_not_redacted():
    assert RedactFilter(["abc", None, ""]).redact("abc") == "abc"


# --------------------------------------------------------------------------- play-local
def test_play_local_without_the_extra_says_how_to_install_it(capsys, monkeypatch):
    monkeypatch.setattr("bot.cli.local.missing_modules", lambda: ["markdown_it"])  # as if absent
    assert main(["play-local", "--no-browser"]) == 2
    assert '".[local]"' in capsys.readouterr().err


def _api(base: str, key: str, method: str, path: str, body: Any = None, page: str = "") -> Any:
    request = urllib.request.Request(
        base + path, method=method, data=None if body is None else json.dumps(body).encode()
    )
    request.add_header("X-Simcord-Capability", key)
    request.add_header("Content-Type", "application/json")
    if page:
        request.add_header("X-Simcord-Context", page)
    with urllib.request.urlopen(request, timeout=20) as response:
        return response.status, response.read()


def _find_button(value: Any, label: str) -> dict[str, Any] | None:
    if isinstance(value, dict):
        if value.get("label") == label and "control_key" in value:
            return value
        value = list(value.values())
    if isinstance(value, list):
        for item in value:
            found = _find_button(item, label)
            if found:
                return found
    return None


@pytest.mark.skipif(bool(missing_modules()), reason="needs the [local] extra")
async def test_play_local_serves_the_table_on_loopback_and_start_works():
    """The page answers HTTP 200 on 127.0.0.1, and pressing Start in it starts the game."""
    seen: dict[str, Any] = {}

    def browse(url: str) -> None:
        base, key = url.split("/#")
        with urllib.request.urlopen(base + "/", timeout=20) as response:
            seen["index"] = response.status
        _, raw = _api(base, key, "POST", "/api/pages", {})
        page = json.loads(raw)
        seen["lobby"] = [m for m in page["messages"].values() if _find_button(m, "Start")]
        seen["bot"] = page["entities"]["applications"]
        seen["assets"] = page["assets"]
        start = _find_button(page, "Start")
        assert start is not None
        message_id = start["control_key"].split(":")[1]
        action = {
            "protocol_version": 3,
            "kind": "click",
            "sequence": 1,
            "request_id": uuid.uuid4().hex,
            "generation": page["context"]["generation"],
            "bot_generation": page["botGeneration"],
            "published_revision": page["publishedRevision"],
            "target_id": message_id,
            "control_key": start["control_key"],
        }
        _, raw = _api(base, key, "POST", "/api/action", action, page["context"]["id"])
        seen["action"] = json.loads(raw)
        _, raw = _api(base, key, "GET", "/api/state", page=page["context"]["id"])
        seen["state"] = raw.decode()
        seen["messages"] = list(json.loads(raw)["messages"].values())

    async def on_ready(url: str) -> None:
        assert url.startswith("http://127.0.0.1:")
        await asyncio.get_running_loop().run_in_executor(None, browse, url)

    await play_local(LocalOptions(players=2, seed=3), on_ready, until_closed=False)
    assert seen["index"] == 200
    assert seen["action"]["settlement"] == "settled", seen["action"]
    assert "Your hand" in seen["state"]
    # The bot is "Sequence" with its own avatar, not SimCord's TestBot with a default one.
    (bot,) = seen["bot"].values()
    assert bot["name"] == "Sequence" and bot["avatar_kind"] == "custom"
    assert seen["assets"][bot["avatar"]]["available"]
    assert "TestBot" not in seen["state"]
    # The lobby names its host and players; it shows no raw mention.
    (lobby,) = seen["lobby"]
    (embed,) = lobby["embeds"]
    assert embed["description"].startswith("Host: **you**.")
    assert "<@" not in json.dumps(embed) and "you" in json.dumps(embed["fields"])
    # Each board is the message's own image, full width, not squeezed inside the embed.
    boards = [
        m for m in seen["messages"] if any(a["filename"] == "board.png" for a in m["attachments"])
    ]
    assert boards
    for message in boards:
        (image,) = message["attachments"]
        assert image["inline"] and image["available"]
        assert all("image" not in embed for embed in message["embeds"])


@pytest.mark.parametrize("port", ["70000", "-1", "http"])
def test_play_local_refuses_a_port_that_is_not_one(capsys, port):
    """A mistyped ``--port``: the usage line, before anything starts, not a traceback."""
    with pytest.raises(SystemExit) as exited:
        main(["play-local", "--no-browser", "--port", port])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "argument --port" in err and "Traceback" not in err


@pytest.mark.skipif(bool(missing_modules()), reason="needs the [local] extra")
def test_play_local_on_a_port_in_use_is_one_clear_line(capsys):
    """Another program (or another play-local) holds the port: one line and exit 1."""
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["play-local", "--no-browser", "--players", "2", "--port", str(port)]) == 1
    err = capsys.readouterr().err
    expected = f"error: cannot serve the page: preview could not bind port {port}"
    assert err == f"{expected} (Address already in use)\n"


@pytest.mark.skipif(bool(missing_modules()), reason="needs the [local] extra")
def test_play_local_serves_the_page_while_the_browser_opens_it(monkeypatch, capsys):
    """A browser started in the foreground (``BROWSER=firefox`` when none runs yet, or a text
    browser): ``webbrowser.open`` waits for it, and it waits for the page, which must answer."""
    import webbrowser

    seen: list[Any] = []

    def browser(url: str) -> bool:
        base, key = url.split("/#")
        try:
            with urllib.request.urlopen(base + "/", timeout=5) as response:
                seen.append(response.status)
            _, raw = _api(base, key, "POST", "/api/pages", {})
            seen.append(_find_button(json.loads(raw), "Start") is not None)
        except OSError as error:
            seen.append(error)
        os.kill(os.getpid(), signal.SIGINT)  # the player closes the browser, then Ctrl-C
        return True

    monkeypatch.setattr(webbrowser, "open", browser)
    assert main(["play-local", "--players", "2"]) == 0
    assert seen == [200, True]
    assert "Your table is at http://127.0.0.1:" in capsys.readouterr().err


@pytest.mark.skipif(bool(missing_modules()), reason="needs the [local] extra")
def test_sigterm_stops_play_local_and_removes_its_temporary_folder(tmp_path):
    """``kill`` stops play-local as Ctrl-C does: exit 0, its database folder removed."""
    local = _offline(tmp_path, "play-local", "--no-browser", "--players", "2")
    try:
        assert local.stderr is not None
        assert local.stderr.readline().startswith("Your table is at http://127.0.0.1:")
        assert [p.name[:15] for p in (tmp_path / "tmp").iterdir()] == ["sequence-local-"]
        local.send_signal(signal.SIGTERM)
        out, err = local.communicate(timeout=60)
    finally:
        local.kill()
    assert list((tmp_path / "tmp").iterdir()) == []
    assert "Traceback" not in err
    assert local.returncode == 0 and out == ""


# --------------------------------------------------------------------------- Docker
def test_the_dockerfile_runs_existing_commands_as_a_non_root_user():
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert re.search(r"^FROM python:3\.11-slim$", text, re.M)
    assert re.search(r"^USER 10001:10001$", text, re.M)
    assert 'VOLUME ["/data"]' in text and "SEQUENCE_DATABASE=/data/sequence.db" in text
    # With PostgreSQL the replay cache is data/replays in the working folder: the user writes it.
    assert re.search(r"^WORKDIR /app$", text, re.M)
    assert re.search(r"chown sequence:sequence /data /app/data$", text, re.M)
    # The locked dependencies are installed in their own layer, before the code is copied.
    lines = text.splitlines()
    lock = lines.index("COPY requirements.lock ./")
    deps = lines.index("RUN pip install --no-cache-dir --require-hashes -r requirements.lock")
    code = lines.index("COPY bot ./bot")
    app = lines.index("RUN pip install --no-cache-dir --no-deps --no-build-isolation .")
    assert lock < deps < code < app
    cmd = json.loads(re.search(r"^CMD (\[.*\])$", text, re.M).group(1))
    check = json.loads(re.search(r"^\s+CMD (\[.*\])$", text, re.M).group(1))
    assert cmd[:2] == ["sequence-bot", "run"] and check[:2] == ["sequence-bot", "check"]
    parser = build_parser()
    assert parser.parse_args(cmd[1:]).heartbeat == parser.parse_args(check[1:]).heartbeat
    ignored = (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
    assert ".env" in ignored and ".git" in ignored


# --------------------------------------------------------------------------- dependencies
def _pyproject() -> dict[str, Any]:
    import tomllib

    return tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]


def _locked() -> dict[str, str]:
    """``requirements.lock``'s pins: normalised name -> version."""
    from packaging.utils import canonicalize_name

    text = (ROOT / "requirements.lock").read_text("utf-8")
    return {
        canonicalize_name(name): version
        for name, version in re.findall(r"^([A-Za-z0-9_.-]+)==([^\s;]+)", text, re.M)
    }


def test_dependencies_are_bounded_and_simcord_is_an_extra():
    from packaging.requirements import Requirement

    project = _pyproject()
    runtime = {Requirement(r).name.lower(): Requirement(r) for r in project["dependencies"]}
    assert "simcord" not in runtime
    for name, requirement in runtime.items():
        assert any(spec.operator == "<" for spec in requirement.specifier), name
    assert not runtime["openskill"].specifier.contains("7.0")  # a new major changes ratings
    extras = project["optional-dependencies"]
    assert [Requirement(r).name for r in extras["demo"]] == ["simcord"]
    test = [Requirement(r) for r in extras["test"]]
    assert any(r.name == "simcord" and "pytest" in r.extras for r in test)


def test_the_lock_file_pins_every_dependency_within_its_bounds():
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    locked = _locked()
    for line in _pyproject()["dependencies"]:
        requirement = Requirement(line)
        version = locked.get(canonicalize_name(requirement.name))
        assert version is not None, f"{requirement.name} is not in requirements.lock"
        assert requirement.specifier.contains(version), (requirement, version)
    assert "simcord" not in locked  # the image carries no Discord simulator
    text = (ROOT / "requirements.lock").read_text("utf-8")
    pins = re.findall(r"^[A-Za-z0-9_.-]+==.*$", text, re.M)
    assert pins and all(line.endswith("\\") for line in pins)  # each pin is followed by hashes


# --------------------------------------------------------------------------- no hidden card in logs
_CODE = re.compile(r"(?<![A-Za-z0-9])([2-9TJQKA][SHDC])(?![A-Za-z0-9])")
_LABEL = re.compile(r"(10|[2-9JQKA])([♠♥♦♣])")
_SUITS = dict(zip("♠♥♦♣", "SHDC", strict=True))
#: A card in words, as the images' alt text names it: "7 of hearts", "Queen of spades".
_WORDS = re.compile(r"\b(10|[2-9]|Ace|King|Queen|Jack) of (spades|hearts|diamonds|clubs)\b", re.I)
_RANKS = {"ace": "A", "king": "K", "queen": "Q", "jack": "J", "10": "T"}


def cards_named(text: str) -> set[str]:
    """The cards a line names, as codes (``7S``), whether written ``7S`` or ``7♠``."""
    found = set(_CODE.findall(text))
    for rank, suit in _LABEL.findall(text):
        found.add(("T" if rank == "10" else rank) + _SUITS[suit])
    for rank, suit in _WORDS.findall(text):
        found.add(_RANKS.get(rank.lower(), rank) + suit[0].upper())
    return found


class HiddenCardWatch(logging.Handler):
    """Checks every formatted line, as it is emitted, against the game's hidden cards then."""

    def __init__(self, game_of: Any) -> None:
        super().__init__(logging.DEBUG)
        self.setFormatter(KeyValueFormatter())
        self.game_of = game_of
        self.lines = 0
        self.leaks: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.startswith("simcord"):
            return  # the test harness's own Discord, not the bot
        line = self.format(record)
        self.lines += 1
        game = self.game_of()
        if game is None:
            return
        held = {card for hand in game.hands for card in hand} | set(game.deck)
        public = {move.card for move in game.moves if move.card}
        public |= {card for pile in game.discards for card in pile}
        hidden = held - public
        if (cards_named(line) & hidden) or '"deck"' in line or '"hands"' in line:
            self.leaks.append(line)


def test_cards_named():
    assert cards_named("play 7S on C4, then 10♥ and J♣; not ASK or 7SS") == {"7S", "TH", "JC"}
    assert cards_named("the Queen of spades, 10 of hearts; not 7 of them") == {"QS", "TH"}


async def test_a_whole_game_at_debug_logs_no_hidden_card_and_not_the_deck(simcord_env):
    """Root logger at DEBUG, every logger captured: no line names a card that is hidden at the
    moment it is written (a hand or the deck), nor the stored snapshot."""
    from bot.game import player_view
    from bot.game.ai import choose_move

    from .e2e_driver import play_to_the_end
    from .e2e_helpers import make_table, open_and_start

    stream = io.StringIO()
    configure_logging("DEBUG", stream=stream)
    assert logging.getLogger().level == logging.DEBUG
    table = await make_table(simcord_env, ["alice", "bob"])
    games = simcord_env.bot.games
    state: dict[str, Any] = {}

    def game_of() -> Any:
        record = games.records.get(state["id"]) if "id" in state else None
        if record is not None:
            state["game"] = record.game
        return state.get("game")

    watch = HiddenCardWatch(game_of)
    logging.getLogger().addHandler(watch)
    try:
        record = await open_and_start(table, seed=11)
        state["id"] = record.id
        await table.bot.db.games.load(record.id)  # a DEBUG-level read of the stored snapshot
        # A computer move chosen on a state that has moved on since is refused, and logged
        # without its card (the race a slow computer player can lose).
        # The computer thinks for the seat on turn while that player moves: its move lapses.
        seat = record.game.turn
        move = choose_move(player_view(record.game, seat), "medium", random.Random(1))
        thought, _ = await asyncio.gather(
            table.bot.computers.move_for(record.id, seat, "medium"),
            table.bot.games.apply(record.id, move, actor_id=None, expected_turn=0),
        )
        assert thought is False
        assert "lapsed" in stream.getvalue()
        record = await play_to_the_end(table, record)
    finally:
        logging.getLogger().removeHandler(watch)
    assert record.game.is_over()
    assert watch.lines > 0 and stream.getvalue().count("\n") >= watch.lines
    assert watch.leaks == []
