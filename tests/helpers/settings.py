"""The settings and the environment variables that set them, and bad values for them (shared
by the configuration, command-line and README tests)."""

from __future__ import annotations

#: Each setting and the environment variable that sets it (a new setting must be added here,
#: to .env.example and to the README).
VARIABLES = {
    "discord_token": "DISCORD_TOKEN",
    "database_path": "SEQUENCE_DATABASE",
    "database_url": "SEQUENCE_DATABASE",
    "log_level": "LOG_LEVEL",
    "dev_guild_id": "DEV_GUILD_ID",
    "shard_count": "SHARD_COUNT",
    "shard_ids": "SHARD_IDS",
    "turn_time_limit": "TURN_TIME_LIMIT",
    "max_turn_time_limit": "MAX_TURN_TIME_LIMIT",
    "time_limit_policy": "TIME_LIMIT_POLICY",
    "reminder_delay": "REMINDER_DELAY",
    "max_reminder_delay": "MAX_REMINDER_DELAY",
    "lobby_expiry": "LOBBY_EXPIRY",
    "computer_move_delay": "COMPUTER_MOVE_DELAY",
    "computer_budget_ms": "COMPUTER_BUDGET_MS",
    "user_rate_limit": "USER_RATE_LIMIT",
    "channel_rate_limit": "CHANNEL_RATE_LIMIT",
    "create_rate_limit": "CREATE_RATE_LIMIT",
    "max_lobbies_per_user": "MAX_LOBBIES_PER_USER",
    "max_lobbies_per_server": "MAX_LOBBIES_PER_SERVER",
    "max_games_per_user": "MAX_GAMES_PER_USER",
    "max_tournaments_per_user": "MAX_TOURNAMENTS_PER_USER",
    "max_tournaments_per_server": "MAX_TOURNAMENTS_PER_SERVER",
    "max_tournament_entrants": "MAX_TOURNAMENT_ENTRANTS",
    "table_talk_ruling_timeout": "TABLE_TALK_RULING_TIMEOUT",
    "draw_offer_timeout": "DRAW_OFFER_TIMEOUT",
    "away_days": "AWAY_DAYS",
}

#: A bad value for a setting, and words its error message must contain.
BAD_SETTINGS = [
    ({"SEQUENCE_DATABASE": " "}, ["SEQUENCE_DATABASE", "empty"]),
    ({"AWAY_DAYS": "400"}, ["AWAY_DAYS", "366"]),
    (
        {"SEQUENCE_DATABASE": "postgresql://bot:hunter2@db:99999/seq"},
        ["SEQUENCE_DATABASE", "postgresql://bot:***@db:99999/seq", "not a valid PostgreSQL URL"],
    ),
    ({"LOG_LEVEL": "LOUD"}, ["LOG_LEVEL", "'LOUD'", "DEBUG"]),
    ({"DEV_GUILD_ID": "my-server"}, ["DEV_GUILD_ID", "whole number"]),
    ({"DEV_GUILD_ID": "0"}, ["DEV_GUILD_ID", "at least 1"]),
    ({"SHARD_COUNT": "two"}, ["SHARD_COUNT", "whole number"]),
    ({"SHARD_COUNT": "0"}, ["SHARD_COUNT", "at least 1"]),
    ({"SHARD_IDS": "0-1"}, ["SHARD_IDS", "needs SHARD_COUNT"]),
    ({"SHARD_COUNT": "4", "SHARD_IDS": "0-4"}, ["SHARD_IDS", "shard 4", "0 to 3"]),
    ({"SHARD_COUNT": "4", "SHARD_IDS": "0-1"}, ["SHARD_IDS", "cluster", "PostgreSQL"]),
    ({"SHARD_COUNT": "4", "SHARD_IDS": "3-1"}, ["SHARD_IDS", "backwards"]),
    ({"SHARD_COUNT": "4", "SHARD_IDS": "0,1,1"}, ["SHARD_IDS", "twice"]),
    ({"SHARD_COUNT": "4", "SHARD_IDS": "first"}, ["SHARD_IDS", "0-3", "4,5,6,7"]),
    ({"SHARD_COUNT": "4", "SHARD_IDS": "0,,1"}, ["SHARD_IDS", "0-3"]),
    ({"TURN_TIME_LIMIT": "-5"}, ["TURN_TIME_LIMIT", "at least 0"]),
    ({"TURN_TIME_LIMIT": "10m"}, ["TURN_TIME_LIMIT", "whole number"]),
    ({"TIME_LIMIT_POLICY": "nap"}, ["TIME_LIMIT_POLICY", "skip, computer or remove"]),
    ({"TURN_TIME_LIMIT": "30"}, ["TURN_TIME_LIMIT", "at least 60"]),
    ({"REMINDER_DELAY": "10"}, ["REMINDER_DELAY", "at least 600"]),
    ({"REMINDER_DELAY": "300"}, ["REMINDER_DELAY", "at least 600"]),
    # Past a table's longest timer, every /sequence new without the option would be refused.
    ({"TURN_TIME_LIMIT": "2592000"}, ["TURN_TIME_LIMIT", "at most 1209600", "14 days"]),
    ({"REMINDER_DELAY": "1209601"}, ["REMINDER_DELAY", "at most 1209600", "14 days"]),
    ({"LOBBY_EXPIRY": "soon"}, ["LOBBY_EXPIRY", "whole number"]),
    ({"COMPUTER_MOVE_DELAY": "99"}, ["COMPUTER_MOVE_DELAY", "between 0 and 60"]),
    ({"COMPUTER_MOVE_DELAY": "fast"}, ["COMPUTER_MOVE_DELAY", "not a number"]),
    ({"COMPUTER_BUDGET_MS": "0"}, ["COMPUTER_BUDGET_MS", "at least 1"]),
    ({"USER_RATE_LIMIT": "4"}, ["USER_RATE_LIMIT", "uses/seconds", "4/60"]),
    ({"CHANNEL_RATE_LIMIT": "0/60"}, ["CHANNEL_RATE_LIMIT", "at least 1"]),
    ({"CREATE_RATE_LIMIT": "many/600"}, ["CREATE_RATE_LIMIT", "uses/seconds"]),
    ({"MAX_LOBBIES_PER_USER": "-1"}, ["MAX_LOBBIES_PER_USER", "at least 0"]),
    ({"MAX_GAMES_PER_USER": "ten"}, ["MAX_GAMES_PER_USER", "whole number"]),
    ({"TABLE_TALK_RULING_TIMEOUT": "10m"}, ["TABLE_TALK_RULING_TIMEOUT", "whole number"]),
    # The owner's ceilings, and the bot's defaults within them (issue #38).
    ({"MAX_TURN_TIME_LIMIT": "30"}, ["MAX_TURN_TIME_LIMIT", "at least 60"]),
    ({"MAX_TURN_TIME_LIMIT": "1209601"}, ["MAX_TURN_TIME_LIMIT", "at most 1209600", "14 days"]),
    ({"MAX_REMINDER_DELAY": "60"}, ["MAX_REMINDER_DELAY", "at least 600"]),
    (
        {"TURN_TIME_LIMIT": "7200", "MAX_TURN_TIME_LIMIT": "3600"},
        ["TURN_TIME_LIMIT=7200", "MAX_TURN_TIME_LIMIT=3600", "within"],
    ),
    (
        {"MAX_REMINDER_DELAY": "3600"},  # the default reminder, 12 h, is past it
        ["REMINDER_DELAY=43200", "MAX_REMINDER_DELAY=3600"],
    ),
    # A table keeps these timers: past 14 days, every /sequence new would be refused.
    ({"LOBBY_EXPIRY": "1209601"}, ["LOBBY_EXPIRY", "at most 1209600"]),
    ({"DRAW_OFFER_TIMEOUT": "2000000"}, ["DRAW_OFFER_TIMEOUT", "at most 1209600"]),
    ({"TABLE_TALK_RULING_TIMEOUT": "2000000"}, ["TABLE_TALK_RULING_TIMEOUT", "at most 1209600"]),
]
