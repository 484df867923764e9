"""Quoting what a person typed back to them in an error: short, whatever they sent.

Discord refuses a reply over 2,000 characters, so an error that repeats a long input would
never arrive. Parsers cap the input's length before parsing and quote it with :func:`echo`.
"""

from __future__ import annotations

#: Characters of the input an error repeats.
ECHO_LIMIT = 24


def echo(text: str, limit: int = ECHO_LIMIT) -> str:
    """``text`` quoted, cut to ``limit`` characters (saying how long it was).

    >>> echo("7x")
    "'7x'"
    >>> echo("7S" * 2000)
    "'7S7S7S7S7S7S7S7S7S7S7S7S…' (4,000 characters)"
    """
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit] + '…'!r} ({len(text):,} characters)"
