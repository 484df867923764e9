"""Settings: parsing, validation with clear errors, ``.env`` files and ``.env.example``."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from discord.ext import commands

from bot.app import create_bot
from bot.config import (
    SETTING_NAMES,
    ConfigError,
    Settings,
    read_env_file,
    token_problem,
    unknown_settings,
)
from bot.store.urls import redact
from tests.helpers.settings import BAD_SETTINGS, VARIABLES

ROOT = Path(__file__).resolve().parents[1]

def test_defaults_from_an_empty_environment():
    settings = Settings.from_mapping({})
    assert settings == Settings()
    assert settings.discord_token is None
    assert settings.database_path == Path("data/sequence.db")


def test_every_setting_is_read():
    settings = Settings.from_mapping(
        {
            "DISCORD_TOKEN": " abc.def.ghi ",
            "SEQUENCE_DATABASE": "/data/x.db",
            "LOG_LEVEL": "debug",
            "DEV_GUILD_ID": "123",
            "SHARD_COUNT": "3",
            "SHARD_IDS": "0-2",
            "TURN_TIME_LIMIT": "600",
            "MAX_TURN_TIME_LIMIT": "86400",
            "TIME_LIMIT_POLICY": "Computer",
            "REMINDER_DELAY": "3600",
            "MAX_REMINDER_DELAY": "7200",
            "LOBBY_EXPIRY": "7200",
            "COMPUTER_MOVE_DELAY": "0.5",
            "COMPUTER_BUDGET_MS": "100",
            "USER_RATE_LIMIT": "2/30",
            "CHANNEL_RATE_LIMIT": " 5/10 ",
            "CREATE_RATE_LIMIT": "1/3600",
            "MAX_LOBBIES_PER_USER": "1",
            "MAX_LOBBIES_PER_SERVER": "0",
            "MAX_GAMES_PER_USER": "3",
            "MAX_TOURNAMENTS_PER_USER": "2",
            "MAX_TOURNAMENTS_PER_SERVER": "4",
            "MAX_TOURNAMENT_ENTRANTS": "0",
            "TABLE_TALK_RULING_TIMEOUT": "0",
            "DRAW_OFFER_TIMEOUT": "600",
        }
    )
    assert settings == Settings(
        discord_token="abc.def.ghi",
        database_path=Path("/data/x.db"),
        log_level="DEBUG",
        dev_guild_id=123,
        shard_count=3,
        shard_ids=(0, 1, 2),
        turn_time_limit=600,
        max_turn_time_limit=86400,
        time_limit_policy="computer",
        reminder_delay=3600,
        max_reminder_delay=7200,
        lobby_expiry=7200,
        computer_move_delay=0.5,
        computer_budget_ms=100,
        user_rate_limit=(2, 30),
        channel_rate_limit=(5, 10),
        create_rate_limit=(1, 3600),
        max_lobbies_per_user=1,
        max_lobbies_per_server=0,
        max_games_per_user=3,
        max_tournaments_per_user=2,
        max_tournaments_per_server=4,
        max_tournament_entrants=0,
        table_talk_ruling_timeout=0,
        draw_offer_timeout=600,
    )


@pytest.mark.parametrize(("values", "words"), BAD_SETTINGS)
def test_a_bad_setting_gets_a_clear_message(values, words):
    with pytest.raises(ConfigError) as caught:
        Settings.from_mapping(values)
    message = str(caught.value)
    for word in words:
        assert word in message
    assert "\n" not in message


def test_a_postgresql_url_is_the_database_and_its_password_never_shows():
    url = "postgresql://bot:hunter2@db.example:5432/sequence?sslmode=require"
    settings = Settings.from_mapping({"SEQUENCE_DATABASE": url})
    assert settings.database_url == url and settings.database_location() == url
    assert settings.database_label() == "postgresql://bot:***@db.example:5432/sequence?sslmode=require"
    assert "hunter2" not in repr(settings)
    for bad in ("postgresql://bot:hunter2@db:port/x", "postgres://bot:hunter2@db:70000/x"):
        with pytest.raises(ConfigError) as caught:
            Settings.from_mapping({"SEQUENCE_DATABASE": bad})
        assert "hunter2" not in str(caught.value) and "bot:***@db" in str(caught.value)
    path = Settings.from_mapping({"SEQUENCE_DATABASE": "data/x.db"})
    assert path.database_url is None and path.database_location() == Path("data/x.db")


@pytest.mark.parametrize(
    "url",
    [
        "postgresql+asyncpg://bot:hunter2@db.example/seq",
        "postgress://bot:hunter2@db.example/seq",
        "sqlite:///data/sequence.db",
    ],
)
def test_a_url_of_another_kind_is_refused_and_its_password_never_shows(url):
    """Not taken for a file path (a folder named after the URL, its password shown)."""
    with pytest.raises(ConfigError) as caught:
        Settings.from_mapping({"SEQUENCE_DATABASE": url})
    message = str(caught.value)
    assert "SEQUENCE_DATABASE" in message and "postgresql://user:password@host" in message
    assert f"{url.split(':', 1)[0]}://" in message and "hunter2" not in message


@pytest.mark.parametrize("password", ["hun/ter2", "hun#ter2", "hun?ter2"])
def test_a_password_with_a_character_to_encode_is_refused_without_showing_it(password):
    """A generated password often holds a / (base64): neither it nor a part of it is shown."""
    url = f"postgresql://bot:{password}@db.example:5432/sequence"
    with pytest.raises(ConfigError) as caught:
        Settings.from_mapping({"SEQUENCE_DATABASE": url})
    message = str(caught.value)
    assert "postgresql://bot:***@db.example:5432/sequence" in message and "%2F" in message
    assert "hun" not in message and "ter2" not in message
    assert "hun" not in redact(url) and "ter2" not in redact(url)


def test_the_token_never_shows_in_the_settings_repr():
    settings = Settings(discord_token="abc.secret-token.xyz")
    assert "secret-token" not in repr(settings)


def test_env_file_is_read_and_the_environment_wins(tmp_path):
    env_file = tmp_path / ".env"
    env_file.write_text(
        "# comment\n\nexport LOG_LEVEL=WARNING\nDISCORD_TOKEN='from.file.token'\nSHARD_COUNT=2\n",
        encoding="utf-8",
    )
    settings = Settings.from_env({"SHARD_COUNT": "4"}, env_file=env_file)
    assert settings.log_level == "WARNING"
    assert settings.discord_token == "from.file.token"
    assert settings.shard_count == 4


def test_a_missing_env_file_is_fine(tmp_path):
    assert Settings.from_env({}, env_file=tmp_path / "nope.env") == Settings()


def test_a_broken_env_file_line_names_the_file_and_line(tmp_path):
    env_file = tmp_path / ".env"
    env_file.write_text("LOG_LEVEL=INFO\nthis is not a setting\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"\.env:2: expected KEY=value"):
        Settings.from_env({}, env_file=env_file)


def test_an_env_file_saved_with_a_byte_order_mark_is_read(tmp_path):
    """Windows editors (Notepad, PowerShell) start a UTF-8 file with a BOM."""
    env_file = tmp_path / ".env"
    env_file.write_text("DISCORD_TOKEN=from.file.token\n", encoding="utf-8-sig")
    assert read_env_file(env_file) == {"DISCORD_TOKEN": "from.file.token"}


@pytest.mark.parametrize("encoding", ["cp1252", "utf-16"])
def test_an_env_file_that_is_not_utf8_is_named_with_how_to_fix_it(tmp_path, encoding):
    env_file = tmp_path / ".env"
    env_file.write_text("# clé du bot\nLOG_LEVEL=INFO\n", encoding=encoding)
    with pytest.raises(ConfigError, match=r"\.env is not UTF-8 text: save it as UTF-8"):
        Settings.from_env({}, env_file=env_file)


@pytest.mark.parametrize(
    ("count", "ids", "expected"),
    [("4", "0-3", (0, 1, 2, 3)), ("8", "4,5,6,7", (4, 5, 6, 7)), ("8", " 0-1, 6 ", (0, 1, 6))],
)
def test_shard_ids_are_a_range_or_a_list(count, ids, expected):
    url = "postgresql://bot@db/sequence"
    settings = Settings.from_mapping(
        {"SHARD_COUNT": count, "SHARD_IDS": ids, "SEQUENCE_DATABASE": url}
    )
    assert settings.shard_ids == expected
    shards = settings.shards()
    assert shards is not None and shards.ids == expected and shards.count == int(count)


def test_a_process_of_a_cluster_runs_its_shards_only(tmp_path):
    settings = Settings(database_path=tmp_path / "a.db", shard_count=4, shard_ids=(2, 3))
    bot = create_bot(settings)
    assert isinstance(bot, commands.AutoShardedBot)
    assert bot.shard_count == 4 and bot.shard_ids == [2, 3]
    shards = settings.shards()
    assert shards is not None
    guild_on_2 = (2 << 22) | 12345
    assert shards.owns(guild_on_2) and not shards.owns(1 << 22)
    assert Settings(shard_count=4).shards() is None  # every shard: every guild


def test_shard_count_makes_an_auto_sharded_bot(tmp_path):
    sharded = create_bot(Settings(database_path=tmp_path / "a.db", shard_count=2))
    single = create_bot(Settings(database_path=tmp_path / "b.db"))
    assert isinstance(sharded, commands.AutoShardedBot)
    assert sharded.shard_count == 2
    assert not isinstance(single, commands.AutoShardedBot)


def example_lines() -> dict[str, str]:
    """``.env.example``'s settings (commented out or not) and their values."""
    found = {}
    for line in (ROOT / ".env.example").read_text(encoding="utf-8").splitlines():
        match = re.fullmatch(r"#? ?([A-Z][A-Z0-9_]*)=(.*)", line.strip())
        if match:
            found[match.group(1)] = match.group(2)
    return found


def test_env_example_lists_every_setting_with_its_default():
    assert set(VARIABLES) == {f.name for f in dataclasses.fields(Settings)}
    example = example_lines()
    assert set(example) == set(VARIABLES.values())
    assert Settings.from_mapping(example) == Settings()
    assert example["DISCORD_TOKEN"] == ""


def test_env_example_comments_every_setting():
    lines = (ROOT / ".env.example").read_text(encoding="utf-8").splitlines()
    for index, line in enumerate(lines):
        if re.fullmatch(r"#? ?[A-Z][A-Z0-9_]*=.*", line.strip()):
            assert index > 0 and lines[index - 1].startswith("# "), line
            assert not re.fullmatch(r"#? ?[A-Z][A-Z0-9_]*=.*", lines[index - 1]), line


def test_env_example_parses_as_an_env_file():
    assert read_env_file(ROOT / ".env.example") == {"DISCORD_TOKEN": ""}


def test_the_setting_names_are_every_setting():
    assert sorted(SETTING_NAMES) == sorted(set(VARIABLES.values()))


def test_names_close_to_a_setting_are_warned_about_and_others_are_not():
    environ = ["PATH", "HOME", "LOG_LEVL", "SEQUENCE_DATBASE", "SEQUENCE_DATABASE", "LANG"]
    assert unknown_settings(environ, ["COMPUTER_DELAY", "LOG_LEVEL"]) == [
        "LOG_LEVL is not a setting (did you mean LOG_LEVEL?); it is ignored.",
        "SEQUENCE_DATBASE is not a setting (did you mean SEQUENCE_DATABASE?); it is ignored.",
        "COMPUTER_DELAY in .env is not a setting; it is ignored.",
    ]


@pytest.mark.parametrize(
    "token",
    ["", "abc", "a.b", "a.b.c.d", "Bot a.b.c", "bot a.b.c", '"a.b.c"', "'a.b.c'", "a b.c.d"],
)
def test_tokens_of_the_wrong_shape(token):
    problem = token_problem(token)
    assert problem is not None and problem.startswith("DISCORD_TOKEN ")
    assert "\n" not in problem


def test_a_token_of_the_right_shape():
    assert token_problem("MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.abcdefghijklmnopqrstuvwxyz_-0123") is None
