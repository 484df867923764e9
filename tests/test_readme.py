"""The README's commands exist and run, and its tables match the code."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from bot.cli import build_parser
from bot.cli.commands import NEW_GAME, tree_commands
from tests.helpers.settings import VARIABLES

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
VENV_PART = "python3 -m venv .venv && . .venv/bin/activate && "


def section(heading: str) -> str:
    """The text under ``## heading``, up to the next ``## ``."""
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", README, re.M | re.S)
    assert match, f"README has no '## {heading}' section"
    return match.group(1)


def bash_blocks(text: str) -> list[str]:
    return re.findall(r"^```bash\n(.*?)^```", text, re.M | re.S)


def setup_command(heading: str) -> str:
    """The one single-line command of a set-up section."""
    (block,) = bash_blocks(section(heading))
    lines = block.splitlines()
    assert len(lines) == 1, f"'{heading}' must be one line"
    return lines[0]


def table_rows(marker: str) -> list[str]:
    """The rows (after the header) of the table between ``<!-- marker`` and ``<!-- /marker -->``."""
    match = re.search(rf"<!-- {marker}:.*?-->\n(.*?)<!-- /{marker} -->", README, re.S)
    assert match, f"README has no {marker} table"
    rows = [line for line in match.group(1).splitlines() if line.startswith("|")]
    return rows[2:]


def test_the_two_setup_commands():
    demo, tests = setup_command("Try it"), setup_command("Test it")
    assert demo.startswith(VENV_PART) and tests.startswith(VENV_PART)
    assert demo == VENV_PART + 'pip install -e ".[demo]" && sequence-bot demo'
    assert tests.startswith(VENV_PART + 'pip install -e ".[test]" && ')


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    commands = [line for line in ci if line.strip() and not line.lstrip().startswith("#")]
    install = 'pip install -e ".[test]" && '
    expected = setup_command("Test it").removeprefix(VENV_PART).removeprefix(install)
    assert commands[-1] == expected
    assert any('-e ".[test]"' in line for line in commands)


def test_sequence_bot_is_the_console_script():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["scripts"]
    assert scripts["sequence-bot"] == "bot.__main__:main"
    from bot.__main__ import main

    assert callable(main)
    assert setup_command("Try it").endswith("&& sequence-bot demo")


def test_every_sequence_bot_command_in_the_readme_exists():
    parser = build_parser()
    used = set(re.findall(r"sequence-bot (?=([a-z][a-z-]*))", README)) - {"sequence-bot"}
    assert {"demo", "run", "check", "play-local", "commands"} <= used
    for command in sorted(used):
        with pytest.raises(SystemExit) as exited:
            parser.parse_args([command, "--help"])
        assert exited.value.code == 0, command


def sequence_bot(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run the installed ``sequence-bot`` script as a newcomer would."""
    script = Path(sys.executable).with_name("sequence-bot")
    command = [str(script)] if script.exists() else [shutil.which("sequence-bot") or "false"]
    env = {k: v for k, v in os.environ.items() if k not in VARIABLES.values()}
    return subprocess.run(
        [*command, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=180
    )


@pytest.mark.slow
def test_the_demo_command_runs_and_its_replay_line_plays_the_same_game(tmp_path):
    """``sequence-bot demo`` as a newcomer runs it; the "Same game again" line it prints
    repeats every option that shaped the game, so it replays the very same game."""
    out = tmp_path / "demo-output"
    done = sequence_bot("demo", "--seed", "5", "--players", "2", "--level", "easy", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert " wins " in done.stdout
    assert "move 10 · " in done.stderr and "cards left in the deck" in done.stderr
    assert (out / "replay.gif").stat().st_size > 0
    assert (out / "boards" / "board-000.png").exists()
    (again,) = [line for line in done.stdout.splitlines() if line.startswith("Same game again: ")]
    command = again.removeprefix("Same game again: ").split()
    assert command[:2] == ["sequence-bot", "demo"]
    assert command[2:] == ["--seed", "5", "--players", "2", "--level", "easy"]
    replay = sequence_bot(*command[1:], "--out", "again", "--quiet", cwd=tmp_path)
    assert replay.returncode == 0, replay.stderr
    first = (out / "transcript.txt").read_text("utf-8")
    assert (tmp_path / "again" / "transcript.txt").read_text("utf-8") == first


def test_the_demo_folders_the_readme_suggests_are_ignored_by_git():
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    folders = {"demo-output", *re.findall(r"--out (\S+?)`?\s", README)}
    assert len(folders) > 1
    for folder in sorted(folders):
        if folder.startswith("/"):
            continue
        ignored = subprocess.run(
            ["git", "check-ignore", "-q", "--no-index", f"{folder}/boards/board-000.png"],
            cwd=ROOT,
            check=False,
        )
        assert ignored.returncode == 0, f"{folder} is not ignored by git"


def test_the_board_image_exists():
    for image in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", README):
        assert (ROOT / image).is_file(), image


def test_every_setting_is_documented():
    config = section("Configuration")
    for name in VARIABLES.values():
        assert f"`{name}`" in config, name


def test_every_setting_has_the_readme_default_of_the_code():
    """The Configuration table's Default column is the default the bot uses (``.env.example``
    is checked against the same defaults in tests/test_config.py)."""
    from bot.config import Settings

    defaults = Settings()
    fields = {name: field for field, name in reversed(VARIABLES.items())}
    rows = re.findall(r"^\| `([A-Z_]+)` \| ([^|]+) \|", section("Configuration"), re.M)
    assert sorted(name for name, _ in rows) == sorted(set(VARIABLES.values()))
    for name, cell in rows:
        value = getattr(defaults, fields[name])
        if value is None:
            assert cell.startswith("(none"), name
        else:
            shown = "/".join(map(str, value)) if isinstance(value, tuple) else str(value)
            assert cell.strip() == f"`{shown}`", name


async def test_the_readme_tables_are_the_generated_ones(simcord_env):
    """Not only the names: each command's usage and description, each option's text, choices
    and default, as ``sequence-bot commands --write-readme`` writes them."""
    from bot.cli.commands import update_readme

    fix = "refresh the README's tables: sequence-bot commands --write-readme README.md"
    assert update_readme(README, tree_commands(simcord_env.bot.tree)) == README, fix


def _usage_name(cell: str) -> str:
    """``/sequence play <card> <space>`` -> ``sequence play``; a menu entry -> its name."""
    cell = cell.strip().strip("`")
    if cell.startswith("/"):
        return " ".join(w for w in cell[1:].split() if not w.startswith(("<", "[")))
    return cell.split(" (")[0]


async def test_every_command_is_in_the_readme_table(simcord_env):
    live = tree_commands(simcord_env.bot.tree)
    assert any(c.name == NEW_GAME for c in live)
    documented = [_usage_name(row.split("|")[1]) for row in table_rows("commands")]
    fix = "refresh the README's tables: sequence-bot commands --write-readme README.md"
    assert sorted(documented) == sorted(c.name for c in live), fix


async def test_every_house_option_is_in_the_readme_table(simcord_env):
    live = tree_commands(simcord_env.bot.tree)
    new = next(c for c in live if c.name == NEW_GAME)
    documented = [row.split("|")[1].strip().strip("`") for row in table_rows("options")]
    fix = "refresh the README's tables: sequence-bot commands --write-readme README.md"
    assert documented == [o.name for o in new.options], fix


def test_update_readme_rewrites_only_the_marked_tables():
    from bot.cli.commands import Command, Option, update_readme

    commands = [
        Command(
            "sequence new",
            "Open a lobby",
            "chat_input",
            (Option("preset", "Rules", False, "Classic", ()),),
        ),
        Command("Report table talk", "Right-click a message", "message", ()),
    ]
    text = (
        "intro\n<!-- commands: x -->\nold\n<!-- /commands -->\n"
        "mid\n<!-- options: y -->\n<!-- /options -->\nend\n"
    )
    updated = update_readme(text, commands)
    assert updated.startswith("intro\n<!-- commands: x -->\n| Command |")
    assert "| `/sequence new [preset]` | Open a lobby |" in updated
    assert "| Report table talk | Right-click a message |" in updated
    assert "| `preset` | Rules | — | Classic |" in updated
    assert "old" not in updated and "\nmid\n" in updated and updated.endswith("end\n")
    assert update_readme(updated, commands) == updated
    with pytest.raises(ValueError, match="commands"):
        update_readme("no tables", commands)


async def test_a_match_lobby_waits_for_its_show_up_time_as_the_readme_says(simcord_env):
    """The README said a tournament match's lobby stays open until the match is played or the
    organiser reports it; its show-up time decides it too (forfeits by who pressed I'm here:
    tests/test_e2e_tournament.py), so the README names that option with its default."""
    from bot.table.options import format_duration
    from bot.table.tournament import DEFAULT_SHOW_UP

    live = tree_commands(simcord_env.bot.tree)
    (create,) = [c for c in live if c.name == "tournament-admin create"]
    assert "show_up" in [o.name for o in create.options]
    default = format_duration(DEFAULT_SHOW_UP)
    assert f"`/tournament-admin create show_up:`, {default} by default" in " ".join(README.split())
