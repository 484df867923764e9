"""``sequence-bot demo``: one complete game offline, with a progress bar and a summary."""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import logging
import os
import secrets
import sys
import tempfile
from pathlib import Path

from bot.demo import DemoError, DemoOptions, run_demo
from bot.logs import configure_logging

from .codes import FAILED, OK, USAGE
from .progress import ProgressBar

#: The one-line hint when SimCord (the ``[demo]`` extra) is not installed.
INSTALL_DEMO = 'pip install -e ".[demo]"'
#: What the demo writes in its folder (``boards/`` holds the board images).
DEMO_FILES = ("replay.gif", "transcript.txt")


def simcord_missing(command: str) -> str | None:
    """The error line when SimCord is not installed, or None."""
    if importlib.util.find_spec("simcord") is not None:
        return None
    return (
        f"error: {command} needs SimCord, the in-memory Discord (the [demo] extra). "
        f"Install it with: {INSTALL_DEMO}"
    )


def out_problem(out: Path) -> str | None:
    """Why the demo could not write its files in ``out``, or None (the folders are created)."""
    boards = out / "boards"
    blocker = next((p for p in (boards, *boards.parents) if p.exists() and not p.is_dir()), None)
    if blocker is not None:
        return f"--out {out}: {blocker} is a file, not a folder."
    try:
        boards.mkdir(parents=True, exist_ok=True)
        for folder in (out, boards):
            fd, probe = tempfile.mkstemp(dir=folder, prefix=".sequence-probe-")
            os.close(fd)
            os.unlink(probe)
    except OSError as error:
        reason = error.strerror or type(error).__name__
        where = f" ({error.filename})" if error.filename else ""
        return f"--out {out}: cannot write there: {reason}{where}."
    for name in DEMO_FILES:
        if (out / name).is_dir():
            return f"--out {out}: {out / name} is a folder; the demo writes a file there."
    return None


def replay_command(args: argparse.Namespace, seed: int) -> str:
    """The command that plays the same game again: every option that shaped it."""
    return f"sequence-bot demo --seed {seed} --players {args.players} --level {args.level}"


def demo_command(args: argparse.Namespace) -> int:
    """Play the demo game and print where its files are."""
    missing = simcord_missing("`sequence-bot demo`")
    if missing:
        print(missing, file=sys.stderr)
        return USAGE
    problem = out_problem(args.out)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return USAGE
    configure_logging("WARNING")
    logging.getLogger("discord").setLevel(logging.ERROR)  # SimCord's start-up notes are noise here
    seed = args.seed if args.seed is not None else secrets.randbelow(1_000_000)
    options = DemoOptions(out=args.out, seed=seed, players=args.players, level=args.level)
    bar = None if args.quiet else ProgressBar(sys.stderr)
    if not args.quiet:
        print(
            f"Playing Sequence offline: you (alice) and {args.players - 1} {args.level} computer "
            f"player{'' if args.players == 2 else 's'} in SimCord's in-memory Discord, "
            f"seed {seed}.",
            file=sys.stderr,
        )
    try:
        result = asyncio.run(run_demo(options, bar.update if bar else None))
    except (DemoError, OSError) as error:
        if bar:
            bar.finish()
        print(f"error: {error}", file=sys.stderr)
        return FAILED
    except KeyboardInterrupt:
        if bar:
            bar.finish()
        raise
    if bar:
        bar.finish()
    print(result.summary())
    print(f"Same game again: {replay_command(args, seed)}")
    return OK
