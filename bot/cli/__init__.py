"""``sequence-bot``: ``run`` (on Discord), ``demo`` and ``play-local`` (offline), ``check``,
``commands``, ``backup``, ``standings`` and ``migrate-db``."""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
from collections.abc import Iterator, Sequence
from importlib import metadata
from pathlib import Path
from types import FrameType

from bot.demo import PLAYER_COUNTS
from bot.game.ai import LEVELS

from .codes import FAILED, INTERRUPTED, USAGE

#: The offline modes: SIGTERM stops them as Ctrl-C does, their temporary folder removed.
OFFLINE = ("demo", "play-local")


def build_parser() -> argparse.ArgumentParser:
    """The command line: one subcommand per mode."""
    parser = argparse.ArgumentParser(
        prog="sequence-bot",
        description="Play Sequence, the card-and-chip board game, on Discord.",
        epilog="New here? Start with: sequence-bot demo",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    run = commands.add_parser("run", help="connect to Discord (needs DISCORD_TOKEN)")
    _env_file(run)
    run.add_argument(
        "--heartbeat",
        type=Path,
        metavar="FILE",
        help="touch FILE every 30 s while connected (for `check --heartbeat`)",
    )

    check = commands.add_parser(
        "check", help="validate the settings and the database; exit 0 if `run` can start"
    )
    _env_file(check)
    check.add_argument(
        "--heartbeat",
        type=Path,
        metavar="FILE",
        help="also require FILE to have been touched by `run` within --max-age seconds",
    )
    check.add_argument(
        "--max-age",
        type=float,
        default=120.0,
        metavar="SECONDS",
        help="how recent --heartbeat's touch must be (default: 120)",
    )

    demo = commands.add_parser(
        "demo", help="play a whole game offline (no token, no network) and save what it shows"
    )
    _table_options(demo)
    demo.add_argument(
        "--out", type=Path, default=Path("demo-output"), help="folder to write to (./demo-output)"
    )
    demo.add_argument("--quiet", action="store_true", help="no progress bar, only the summary")

    listing = commands.add_parser("commands", help="list the slash commands (from the code)")
    listing.add_argument(
        "--markdown", action="store_true", help="as the README's tables (commands, house options)"
    )
    listing.add_argument(
        "--write-readme",
        type=Path,
        metavar="FILE",
        help="replace the tables between the README's <!-- commands/options --> markers",
    )

    backup = commands.add_parser(
        "backup",
        help="copy the SQLite database to DEST while the bot runs, and verify the copy",
    )
    _env_file(backup)
    backup.add_argument("dest", type=Path, metavar="DEST", help="the backup file to write")
    backup.add_argument("--force", action="store_true", help="replace DEST if it exists")

    standings = commands.add_parser(
        "standings",
        help="check the stored ratings and stats against a replay of the results (--rebuild)",
    )
    _env_file(standings)
    standings.add_argument(
        "--rebuild", action="store_true", help="compute them again from the results first"
    )

    move = commands.add_parser(
        "migrate-db",
        help="copy a SQLite database to PostgreSQL (the bot stopped), verified game by game",
    )
    move.add_argument("--from", dest="source", required=True, metavar="PATH", help="SQLite file")
    move.add_argument(
        "--to", dest="target", required=True, metavar="URL", help="postgresql://... (empty)"
    )
    move.add_argument(
        "--force", action="store_true", help="replace the data the target already holds"
    )

    local = commands.add_parser(
        "play-local",
        help="play against computers in your browser (offline; needs the [local] extra)",
    )
    _table_options(local)
    local.add_argument(
        "--port", type=port_number, default=None, help="loopback port (default: any free)"
    )
    local.add_argument("--no-browser", action="store_true", help="print the address, open nothing")
    return parser


def port_number(text: str) -> int:
    """``--port``: a TCP port, 0 to 65535 (0: any free one)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port: use 0 to 65535")
    return port


def version() -> str:
    """The installed version of the ``sequence-bot`` package."""
    try:
        return metadata.version("sequence-bot")
    except metadata.PackageNotFoundError:
        return "(not installed)"


def _env_file(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--env-file",
        type=Path,
        default=None,
        metavar="FILE",
        help="settings file read under the environment (default: ./.env, if it exists)",
    )


def _table_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seed", type=int, default=None, help="shuffle seed (default: random)")
    parser.add_argument(
        "--players",
        type=int,
        choices=PLAYER_COUNTS,
        default=4,
        help="players at the table, you included (default 4: two teams of two)",
    )
    parser.add_argument(
        "--level", choices=LEVELS, default="medium", help="the computer players' level"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand; returns the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    terminated: list[int] = []
    try:
        with sigterm_as_ctrl_c(terminated) if args.command in OFFLINE else contextlib.nullcontext():
            return _dispatch(parser, args)
    except BrokenPipeError:  # `sequence-bot commands | head`
        sys.stderr.close()
        return FAILED
    except KeyboardInterrupt:  # Ctrl-C during the demo, commands, backup or migrate-db
        print(f"stopped ({'SIGTERM' if terminated else 'Ctrl-C'}) before the end.", file=sys.stderr)
        return INTERRUPTED


@contextlib.contextmanager
def sigterm_as_ctrl_c(terminated: list[int]) -> Iterator[None]:
    """Within, SIGTERM (``kill``, ``timeout``) stops as Ctrl-C does, through the SIGINT handler
    in force: ``asyncio.run``'s cancels its task, so ``finally`` blocks run and temporary
    folders are removed, then raises KeyboardInterrupt. Each SIGTERM is appended to
    ``terminated``."""

    def stop(signum: int, frame: FrameType | None) -> None:
        terminated.append(signum)
        handler = signal.getsignal(signal.SIGINT)
        if not callable(handler):  # SIGINT ignored, as in a background job: stop all the same
            raise KeyboardInterrupt
        handler(signal.SIGINT, frame)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _dispatch(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    if args.command == "run":
        from .online import run_command

        return run_command(args)
    if args.command == "check":
        from .health import check_command

        return check_command(args)
    if args.command == "demo":
        from .offline import demo_command

        return demo_command(args)
    if args.command == "commands":
        from .commands import commands_command

        return commands_command(args)
    if args.command == "backup":
        from .backup import backup_command

        return backup_command(args)
    if args.command == "standings":
        from .standings import standings_command

        return standings_command(args)
    if args.command == "migrate-db":
        from .migrate import migrate_db_command

        return migrate_db_command(args)
    if args.command == "play-local":
        from .local import play_local_command

        return play_local_command(args)
    parser.print_help(sys.stderr)
    return USAGE
