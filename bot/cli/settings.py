"""The settings ``run`` and ``check`` start from: the environment over ``.env``, with warnings."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TextIO

from bot.config import ConfigError, Settings, read_env_file, unknown_settings

#: Read when ``--env-file`` is not given, if it exists.
DEFAULT_ENV_FILE = Path(".env")


def load_settings(env_file: Path | None, warn: TextIO | None = None) -> Settings:
    """Settings from the environment over ``env_file`` (default ``./.env``, if it exists).

    A name that looks like a misspelled setting gets a ``warning:`` line on ``warn`` (stderr).
    Raises :class:`ConfigError` for a bad value, or an ``env_file`` that was named but is missing.
    """
    if env_file is not None and not env_file.is_file():
        what = "is a folder" if env_file.is_dir() else "does not exist"
        raise ConfigError(f"--env-file {env_file} {what}: name a settings file like .env.")
    path = DEFAULT_ENV_FILE if env_file is None else env_file
    from_file = read_env_file(path) if path.is_file() else {}
    for warning in unknown_settings(os.environ, from_file):
        print(f"warning: {warning}", file=warn or sys.stderr)
    return Settings.from_mapping({**from_file, **os.environ})
