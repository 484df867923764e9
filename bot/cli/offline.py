"""``sequence-bot demo``: one complete game offline, with a progress bar and a summary."""

from __future__ import annotations

import argparse
import asyncio
import logging
import secrets
import sys

from bot.demo import DemoError, DemoOptions, run_demo
from bot.logs import configure_logging

from . import FAILED, OK
from .progress import ProgressBar


def demo_command(args: argparse.Namespace) -> int:
    """Play the demo game and print where its files are."""
    configure_logging("WARNING")
    logging.getLogger("discord").setLevel(logging.ERROR)  # SimCord's start-up notes are noise here
    seed = args.seed if args.seed is not None else secrets.randbelow(1_000_000)
    options = DemoOptions(out=args.out, seed=seed, players=args.players, level=args.level)
    bar = None if args.quiet else ProgressBar(sys.stderr)
    if not args.quiet:
        print(
            f"Playing Sequence offline: you (alice) and {args.players - 1} {args.level} computer "
            f"player(s) in SimCord's in-memory Discord, seed {seed}.",
            file=sys.stderr,
        )
    try:
        result = asyncio.run(run_demo(options, bar.update if bar else None))
    except DemoError as error:
        if bar:
            bar.finish()
        print(f"error: {error}", file=sys.stderr)
        return FAILED
    if bar:
        bar.finish()
    print(result.summary())
    print(f"Same game again: sequence-bot demo --seed {seed}")
    return OK
