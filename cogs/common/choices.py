"""Option choices shared by several slash commands."""

from __future__ import annotations

from discord import app_commands

from bot.game.settings import TEAM_NAMES

PRESET_CHOICES = [
    app_commands.Choice(name="Classic", value="classic"),
    app_commands.Choice(name="Convoy (variant)", value="convoy"),
]
TEAM_COUNT_CHOICES = [
    app_commands.Choice(name="Automatic", value=0),
    app_commands.Choice(name="2 teams", value=2),
    app_commands.Choice(name="3 teams", value=3),
]
TIMEOUT_CHOICES = [
    app_commands.Choice(name="Skip the turn", value="skip"),
    app_commands.Choice(name="A computer moves for them", value="computer"),
    app_commands.Choice(
        name="Remove the player (their team plays on; with nobody left, it is out)", value="remove"
    ),
]
CLOCK_CHOICES = [
    app_commands.Choice(name="A time limit per turn (time_limit)", value="turn"),
    app_commands.Choice(
        name="A bank of time per player (bank_start, bank_increment, bank_cap)", value="bank"
    ),
]
LEVEL_CHOICES = [
    app_commands.Choice(name="Easy (a beginner)", value="easy"),
    app_commands.Choice(name="Medium (a good heuristic)", value="medium"),
    app_commands.Choice(name="Hard (searches ahead)", value="hard"),
]
TEAM_CHOICES = [
    app_commands.Choice(name=name, value=index) for index, name in enumerate(TEAM_NAMES)
]
