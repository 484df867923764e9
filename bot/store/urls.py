"""Where the store lives, as written: a SQLite file path or a ``postgresql://`` URL.

A URL's password never leaves this process: :func:`redact` replaces it in anything shown
(messages, ``check``, logs).
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

SCHEMES = ("postgresql", "postgres")
MASK = "***"
_URL_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://")


def is_postgres_url(location: str | Path) -> bool:
    """True for a ``postgresql://`` (or ``postgres://``) URL; anything else is a file path."""
    return isinstance(location, str) and (url_scheme(location) or "").lower() in SCHEMES


def url_scheme(location: str) -> str | None:
    """The scheme of a ``scheme://...`` URL (any kind), or None for what is not one.

    >>> url_scheme("postgresql+asyncpg://u:p@h/db"), url_scheme("data/sequence.db")
    ('postgresql+asyncpg', None)
    """
    match = _URL_SCHEME.match(location)
    return match.group(1) if match else None


def url_problem(url: str) -> str | None:
    """Why a ``postgresql://`` URL cannot be read, told without its password, or None.

    >>> url_problem("postgresql://bot:ab/cd@db/seq")
    'a / ? or # in its user or password must be written %2F, %3F or %23'
    """
    try:
        urlsplit(url).port  # noqa: B018 (reading the port validates the URL)
    except ValueError as error:
        if "@" in url.split("://", 1)[1]:  # the "port" is a piece of the password
            return "a / ? or # in its user or password must be written %2F, %3F or %23"
        return redact(str(error), url)
    return None


def _passwords(url: str) -> list[str]:
    """The passwords written in a URL (in its user part or as ``password=``), raw and decoded."""
    found: list[str] = []
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        password = None
        parts = None
    if password:
        found.append(password)
    query = parts.query if parts is not None else url.partition("?")[2]
    for match in re.finditer(r"(?:^|&)password=([^&]*)", query):
        if match.group(1):
            found.append(match.group(1))
    return sorted({*found, *(unquote(p) for p in found)}, key=len, reverse=True)


def redact(text: str, url: str | None = None) -> str:
    """``text`` with the password of ``url`` (default: ``text`` itself, a URL) masked."""
    url = text if url is None else url
    if not is_postgres_url(url):
        return text
    if url is text:  # the URL itself: mask its password's places
        text = re.sub(r"(://[^/@:]*:).*@", rf"\g<1>{MASK}@", text, count=1)
        return re.sub(r"((?:\?|&)password=)[^&]*", rf"\g<1>{MASK}", text)
    for password in _passwords(url):  # another text (an error message): mask it anywhere
        text = text.replace(password, MASK)
    return text
