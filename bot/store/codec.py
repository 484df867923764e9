"""JSON as TEXT, compact, and the small helpers the repositories share."""

from __future__ import annotations

import json
from typing import Any

_encoder = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def dumps(value: Any) -> str:
    """Compact JSON text (no NaN, so any reader can parse it)."""
    return _encoder.encode(value)


def loads(text: str) -> Any:
    """Parse JSON text stored by :func:`dumps`."""
    return json.loads(text)


def loads_many(texts: list[str]) -> list[Any]:
    """Parse many JSON texts with one parser call (much faster than one call each)."""
    if not texts:
        return []
    return json.loads("[" + ",".join(texts) + "]")
