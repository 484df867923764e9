"""A temporary ``git worktree`` of another revision, so a bench can run that revision's code."""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

#: The source tree these benches belong to.
ROOT = Path(__file__).resolve().parents[1]


@contextmanager
def checkout(rev: str) -> Iterator[Path]:
    """The source tree of git revision ``rev`` in a temporary worktree, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="bench-") as scratch:
        tree = Path(scratch) / "tree"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), rev],
            check=True,
            capture_output=True,
        )
        try:
            yield tree
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)],
                check=False,
                capture_output=True,
            )
