"""Discord's length limits, and text fitted within them a whole line at a time."""

from __future__ import annotations

import re
from collections.abc import Iterable

#: The most characters one message holds.
MESSAGE_LIMIT = 2000
#: The most characters an embed's description holds.
DESCRIPTION_LIMIT = 4096
#: The most characters an embed field's value holds.
FIELD_LIMIT = 1024
#: The most characters an embed holds in all (title, description, fields, footer, author).
EMBED_LIMIT = 6000
#: The most fields an embed holds.
FIELDS_LIMIT = 25
#: The most characters an attachment's description (its alt text) holds.
ALT_TEXT_LIMIT = 1024


def message_chunks(lines: Iterable[str], limit: int = MESSAGE_LIMIT) -> list[str]:
    """``lines`` joined into as few texts of at most ``limit`` characters as they fit in,
    never splitting a line (a line longer than ``limit`` alone is cut).

    >>> message_chunks(["abc", "de", "fgh"], limit=6)
    ['abc\\nde', 'fgh']
    """
    chunks: list[str] = []
    text = ""
    for line in lines:
        line = line[:limit]
        if text and len(text) + 1 + len(line) > limit:
            chunks.append(text)
            text = ""
        text = f"{text}\n{line}" if text else line
    chunks.append(text)
    return chunks


def clipped(lines: list[str], limit: int) -> str:
    """As many whole ``lines`` as fit in ``limit`` characters, then how many were left out.

    >>> clipped(["1. ann", "2. ben", "3. cat"], limit=19)
    '1. ann\\n… and 2 more'
    """
    text = "\n".join(lines)
    if len(text) <= limit:
        return text
    kept: list[str] = []
    used = 0  # the kept lines, each with its line break
    for line in lines:
        note = f"… and {len(lines) - len(kept) - 1} more"
        if used + len(line) + 1 + len(note) > limit:
            break
        kept.append(line)
        used += len(line) + 1
    return "\n".join([*kept, f"… and {len(lines) - len(kept)} more"])


def cut_at_word(text: str, limit: int, note: str = " … (cut short)") -> str:
    """``text`` if it fits in ``limit`` characters, else as many whole words as fit with
    ``note`` after them, which says it was cut.

    >>> cut_at_word("one two three", limit=13)
    'one two three'
    >>> cut_at_word("one two three", limit=12, note=" …")
    'one two …'
    """
    if len(text) <= limit:
        return text
    room = max(limit - len(note), 0)
    head = text[:room]
    if not text[room].isspace():  # the cut falls inside a word: that word goes
        head = re.sub(r"\S*$", "", head)
    return (head.rstrip(" ,;:\n") + note)[:limit]
