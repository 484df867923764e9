"""Module-level caches for everything static, clearable at once (the bench's "from scratch").

Two kinds: drawings (the base board, sprites, text masks) and resources (loaded fonts, the
palette), so that drawing from scratch can be measured apart from a cold start.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

_DRAWINGS: list[Any] = []
_RESOURCES: list[Any] = []


def cached(function: F) -> F:
    """Like :func:`functools.cache`, for drawings; :func:`clear_caches` empties it."""
    wrapper = functools.cache(function)
    _DRAWINGS.append(wrapper)
    return wrapper  # type: ignore[return-value]


def cached_lru(maxsize: int) -> Callable[[F], F]:
    """Like :func:`functools.lru_cache`, for drawings that vary from move to move."""

    def decorate(function: F) -> F:
        wrapper = functools.lru_cache(maxsize=maxsize)(function)
        _DRAWINGS.append(wrapper)
        return wrapper  # type: ignore[return-value]

    return decorate


def cached_resource(function: F) -> F:
    """Like :func:`functools.cache`, for loaded or derived resources (fonts, the palette)."""
    wrapper = functools.cache(function)
    _RESOURCES.append(wrapper)
    return wrapper  # type: ignore[return-value]


def clear_caches(*, resources: bool = True) -> None:
    """Forget every cached drawing, and unless told otherwise every font and the palette."""
    for wrapper in _DRAWINGS + (_RESOURCES if resources else []):
        wrapper.cache_clear()
