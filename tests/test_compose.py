"""``compose.yaml``: PostgreSQL and two bot processes splitting the shards, each health-checked
by the command that checks the running process, with settings the bot accepts."""

from __future__ import annotations

import re
from pathlib import Path

from bot.config import Settings

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = (ROOT / "compose.yaml").read_text(encoding="utf-8")


def service(name: str) -> str:
    """The lines of one service (up to the next service or top-level key)."""
    match = re.search(rf"^  {re.escape(name)}:\n(.*?)(?=^  \S|^\S|\Z)", COMPOSE, re.M | re.S)
    assert match, f"compose.yaml has no service {name}"
    return match.group(1)


def environment(text: str) -> dict[str, str]:
    pairs = re.findall(r"^      ([A-Z_]+): (.+)$", text, re.M)
    return {key: value.strip().strip('"') for key, value in pairs}


def test_two_bots_split_the_shards_on_one_postgresql() -> None:
    bots = [environment(service(f"bot-{n}")) for n in (0, 1)]
    assert {bot["SHARD_IDS"] for bot in bots} == {"0", "1"}
    assert {bot["SHARD_COUNT"] for bot in bots} == {"2"}
    assert bots[0]["SEQUENCE_DATABASE"] == bots[1]["SEQUENCE_DATABASE"]
    for bot in bots:
        url = bot["SEQUENCE_DATABASE"].replace("${POSTGRES_PASSWORD:-sequence}", "pw")
        settings = Settings.from_mapping({**bot, "SEQUENCE_DATABASE": url})
        shards = settings.shards()
        assert url.startswith("postgresql://") and "@db:5432/" in url
        assert shards is not None and shards.count == 2 and len(shards.ids) == 1
    assert "<<: *bot" in service("bot-0") and "<<: *bot" in service("bot-1")


def test_every_service_is_health_checked() -> None:
    bot = COMPOSE.split("x-bot: &bot", 1)[1].split("services:", 1)[0]
    assert "healthcheck:" in bot
    assert '"sequence-bot", "check", "--heartbeat"' in bot
    assert "condition: service_healthy" in bot  # the bots wait for the database
    assert "pg_isready" in service("db")
