"""Logging: one ``key=value`` line per record, and a filter that keeps secrets out of every line.

>>> import logging
>>> formatter = KeyValueFormatter()
>>> record = logging.LogRecord("bot", logging.INFO, __file__, 1, "Resumed %d game(s)", (2,), None)
>>> formatter.format(record).split(" ", 1)[1]
'level=INFO logger=bot msg="Resumed 2 game(s)"'
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Iterable
from typing import TextIO

REDACTED = "[redacted]"
#: Loggers whose DEBUG lines print payloads: discord.py's requests, responses and events (they
#: carry ephemeral replies, a player's hand), the URLs of its answers to interactions (each holds
#: the interaction's token, which fetches the ephemeral answer) and the database drivers'
#: statements with their arguments (snapshots hold every hand). They never go below INFO.
PAYLOAD_LOGGERS = ("discord.http", "discord.gateway", "discord.webhook", "aiosqlite", "asyncpg")
#: Attributes every ``LogRecord`` has; anything else was passed with ``extra=`` and is printed.
_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message",
    "asctime",
    "taskName",
}


def _quote(value: object) -> str:
    """A value as it appears after ``key=``: bare when simple, else double-quoted."""
    text = str(value)
    if text and not any(ch in text for ch in ' "=\n\t\\'):
        return text
    escaped = (
        text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    )
    return f'"{escaped}"'


class KeyValueFormatter(logging.Formatter):
    """``ts=... level=INFO logger=bot.app msg="..." key=value ... exc="..."`` on one line."""

    def format(self, record: logging.LogRecord) -> str:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
        parts = [
            f"ts={stamp}.{int(record.msecs):03d}Z",
            f"level={record.levelname}",
            f"logger={_quote(record.name)}",
            f"msg={_quote(record.getMessage())}",
        ]
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                parts.append(f"{key}={_quote(value)}")
        if record.exc_info:
            parts.append(f"exc={_quote(self.formatException(record.exc_info))}")
        elif record.exc_text:
            parts.append(f"exc={_quote(record.exc_text)}")
        return " ".join(parts)


class RedactFilter(logging.Filter):
    """Replaces every secret (the bot token) in a record's message, arguments and traceback."""

    def __init__(self, secrets: Iterable[str | None]) -> None:
        super().__init__()
        self.secrets = tuple(s for s in secrets if s and len(s) >= 8)

    def redact(self, text: str) -> str:
        """``text`` with each secret replaced by ``[redacted]``."""
        for secret in self.secrets:
            text = text.replace(secret, REDACTED)
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        if not self.secrets:
            return True
        message = record.getMessage()
        clean = self.redact(message)
        if clean != message:
            record.msg, record.args = clean, None
        if record.exc_info and record.exc_info[0] is not None:
            text = logging.Formatter().formatException(record.exc_info)
            record.exc_text, record.exc_info = self.redact(text), None
        elif record.exc_text:
            record.exc_text = self.redact(record.exc_text)
        for key, value in list(vars(record).items()):
            if key not in _STANDARD and isinstance(value, str):
                setattr(record, key, self.redact(value))
        return True


def configure_logging(
    level: str = "INFO",
    *,
    secrets: Iterable[str | None] = (),
    stream: TextIO | None = None,
) -> logging.Handler:
    """Send every logger's records at ``level`` and above to ``stream`` (stderr), one per line.

    discord.py's own loggers propagate to the root logger, so they get the same format and the
    same redaction; its payload loggers stay at INFO or above (see ``PAYLOAD_LOGGERS``).
    Calling it again replaces the handler it installed before.
    """
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(KeyValueFormatter())
    handler.addFilter(RedactFilter(secrets))
    handler.set_name("sequence-bot")
    root = logging.getLogger()
    for old in [h for h in root.handlers if h.get_name() == "sequence-bot"]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    floor = max(logging.getLevelName(level.upper()), logging.INFO)
    for name in PAYLOAD_LOGGERS:
        logging.getLogger(name).setLevel(floor)
    return handler
