"""``python -m bot`` and the ``sequence-bot`` command: see :mod:`bot.cli`."""

from __future__ import annotations

import sys

from bot.cli import main

if __name__ == "__main__":
    sys.exit(main())

__all__ = ["main"]
