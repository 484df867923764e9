"""Module-level caches for everything static, clearable at once (the bench's "from scratch").

Four kinds: drawings (the base board, sprites), resources (loaded fonts, the palette), drawings
that vary from move to move (text masks: a move's line, the deck's count) and outputs (encoded
board rows), so that drawing from scratch, a cold start and a move whose every row and text is
new can be measured apart.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

_DRAWINGS: list[Any] = []
_RESOURCES: list[Any] = []
_VARYING: list[Any] = []
_OUTPUTS: list[Any] = []


def cached(function: F) -> F:
    """Like :func:`functools.cache`, for drawings; :func:`clear_caches` empties it."""
    wrapper = functools.cache(function)
    _DRAWINGS.append(wrapper)
    return wrapper  # type: ignore[return-value]


def cached_lru(maxsize: int) -> Callable[[F], F]:
    """Like :func:`functools.lru_cache`, for drawings that vary from move to move."""

    def decorate(function: F) -> F:
        wrapper = functools.lru_cache(maxsize=maxsize)(function)
        _VARYING.append(wrapper)
        return wrapper  # type: ignore[return-value]

    return decorate


def cached_resource(function: F) -> F:
    """Like :func:`functools.cache`, for loaded or derived resources (fonts, the palette)."""
    wrapper = functools.cache(function)
    _RESOURCES.append(wrapper)
    return wrapper  # type: ignore[return-value]


def clear_caches(*, resources: bool = True) -> None:
    """Forget every cached drawing and encoded part, and unless told otherwise every font and
    the palette."""
    for wrapper in _DRAWINGS + _VARYING + _OUTPUTS + (_RESOURCES if resources else []):
        wrapper.cache_clear()


def cached_output(maxsize: int) -> Callable[[F], F]:
    """Like :func:`functools.lru_cache`, for encoded parts of images that change per move."""

    def decorate(function: F) -> F:
        wrapper = functools.lru_cache(maxsize=maxsize)(function)
        _OUTPUTS.append(wrapper)
        return wrapper  # type: ignore[return-value]

    return decorate


def clear_outputs() -> None:
    """Forget what was drawn or encoded for particular moves (texts, encoded rows), keeping
    every static drawing and resource."""
    for wrapper in _VARYING + _OUTPUTS:
        wrapper.cache_clear()
