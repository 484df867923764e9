"""The schema's migrations in SQLite's dialect (applied by :mod:`bot.store.migrations`).

Append only: a new version is added here and to :mod:`bot.store.postgres_migrations` together
(and to ``bot/store/copy.py`` if it changes a table).
"""

from . import season_schema, seeks_schema
from .away_schema import SQLITE_V11

_V1 = """
CREATE TABLE lobbies (
    id          INTEGER PRIMARY KEY,
    guild_id    INTEGER NOT NULL,
    channel_id  INTEGER NOT NULL,
    host_id     INTEGER NOT NULL,
    options     TEXT NOT NULL,
    seats       TEXT NOT NULL,
    message_id  INTEGER,
    created_at  REAL NOT NULL
);
CREATE UNIQUE INDEX lobbies_one_per_channel ON lobbies (channel_id);

CREATE TABLE games (
    id                INTEGER PRIMARY KEY,
    guild_id          INTEGER NOT NULL,
    channel_id        INTEGER NOT NULL,
    settings          TEXT NOT NULL,
    seed              TEXT NOT NULL,
    seats             TEXT NOT NULL,
    options           TEXT NOT NULL,
    status            TEXT NOT NULL DEFAULT 'active'
                      CHECK (status IN ('active', 'finished', 'cancelled')),
    board_message_id  INTEGER,
    lobby_message_id  INTEGER,
    created_at        REAL NOT NULL,
    finished_at       REAL
);
CREATE UNIQUE INDEX games_one_active_per_channel ON games (channel_id) WHERE status = 'active';
CREATE INDEX games_by_guild ON games (guild_id, created_at);

CREATE TABLE moves (
    id          INTEGER PRIMARY KEY,
    game_id     INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    number      INTEGER NOT NULL CHECK (number >= 0),
    seat        INTEGER NOT NULL,
    actor_id    INTEGER,
    move        TEXT NOT NULL,
    created_at  REAL NOT NULL,
    undone_at   REAL
);
CREATE UNIQUE INDEX moves_live_number ON moves (game_id, number) WHERE undone_at IS NULL;
CREATE INDEX moves_by_game ON moves (game_id, id);

CREATE TABLE snapshots (
    game_id     INTEGER PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    move_count  INTEGER NOT NULL CHECK (move_count >= 0),
    state       TEXT NOT NULL,
    updated_at  REAL NOT NULL
);

CREATE TABLE tabletalk_reports (
    id           INTEGER PRIMARY KEY,
    game_id      INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    reporter_id  INTEGER NOT NULL,
    team         INTEGER NOT NULL,
    status       TEXT NOT NULL DEFAULT 'pending'
                 CHECK (status IN ('pending', 'upheld', 'dismissed')),
    message_id   INTEGER,
    created_at   REAL NOT NULL,
    resolved_at  REAL,
    resolved_by  INTEGER
);
CREATE INDEX tabletalk_by_game ON tabletalk_reports (game_id, status);

CREATE TABLE timers (
    game_id  INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    kind     TEXT NOT NULL,
    due_at   REAL NOT NULL,
    payload  TEXT NOT NULL,
    PRIMARY KEY (game_id, kind)
) WITHOUT ROWID;
CREATE INDEX timers_by_due ON timers (due_at);

CREATE TABLE preferences (
    user_id  INTEGER NOT NULL,
    key      TEXT NOT NULL,
    value    TEXT NOT NULL,
    PRIMARY KEY (user_id, key)
) WITHOUT ROWID;

CREATE TABLE results (
    game_id      INTEGER PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    guild_id     INTEGER NOT NULL,
    teams        TEXT NOT NULL,
    winner_team  INTEGER,
    rated        INTEGER NOT NULL CHECK (rated IN (0, 1)),
    summary      TEXT NOT NULL,
    finished_at  REAL NOT NULL
);
CREATE INDEX results_by_guild ON results (guild_id, finished_at);

CREATE TABLE result_players (
    game_id  INTEGER NOT NULL REFERENCES results (game_id) ON DELETE CASCADE,
    team     INTEGER NOT NULL,
    user_id  INTEGER NOT NULL,
    PRIMARY KEY (game_id, team, user_id)
) WITHOUT ROWID;
CREATE INDEX result_players_by_user ON result_players (user_id, game_id);
"""

#: Tournaments: entrants (a user or a fixed team), players (one entrant per user and tournament),
#: and matches, each with its thread, game, check-ins and show-up deadline.
_V2 = """
CREATE TABLE tournaments (
    id            INTEGER PRIMARY KEY,
    guild_id      INTEGER NOT NULL,
    channel_id    INTEGER NOT NULL,
    organiser_id  INTEGER NOT NULL,
    name          TEXT NOT NULL,
    format        TEXT NOT NULL CHECK (format IN ('round_robin', 'swiss', 'elimination')),
    team_size     INTEGER NOT NULL CHECK (team_size IN (1, 2, 3)),
    options       TEXT NOT NULL,
    status        TEXT NOT NULL DEFAULT 'signup'
                  CHECK (status IN ('signup', 'running', 'finished', 'cancelled')),
    round         INTEGER NOT NULL DEFAULT 0,
    message_id    INTEGER,
    created_at    REAL NOT NULL,
    finished_at   REAL
);
CREATE UNIQUE INDEX tournaments_one_open_per_channel ON tournaments (channel_id)
    WHERE status IN ('signup', 'running');
CREATE INDEX tournaments_by_guild ON tournaments (guild_id, created_at);

CREATE TABLE tournament_entrants (
    id             INTEGER PRIMARY KEY,
    tournament_id  INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    name           TEXT NOT NULL,
    members        TEXT NOT NULL,
    seed           INTEGER,
    joined_at      REAL NOT NULL,
    dropped_at     REAL
);
CREATE INDEX tournament_entrants_by_tournament ON tournament_entrants (tournament_id, id);

CREATE TABLE tournament_players (
    tournament_id  INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    user_id        INTEGER NOT NULL,
    entrant_id     INTEGER NOT NULL REFERENCES tournament_entrants (id) ON DELETE CASCADE,
    PRIMARY KEY (tournament_id, user_id)
) WITHOUT ROWID;

CREATE TABLE tournament_matches (
    id             INTEGER PRIMARY KEY,
    tournament_id  INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    round          INTEGER NOT NULL CHECK (round >= 1),
    number         INTEGER NOT NULL CHECK (number >= 1),
    entrant_a      INTEGER NOT NULL REFERENCES tournament_entrants (id),
    entrant_b      INTEGER REFERENCES tournament_entrants (id),
    status         TEXT NOT NULL DEFAULT 'pending'
                   CHECK (status IN ('pending', 'playing', 'done', 'cancelled')),
    outcome        TEXT,
    winner         INTEGER REFERENCES tournament_entrants (id),
    thread_id      INTEGER,
    game_id        INTEGER,
    message_id     INTEGER,
    checkins       TEXT NOT NULL DEFAULT '[]',
    deadline       REAL,
    finished_at    REAL
);
CREATE UNIQUE INDEX tournament_matches_place ON tournament_matches (tournament_id, round, number);
CREATE INDEX tournament_matches_by_thread ON tournament_matches (thread_id);
CREATE INDEX tournament_matches_by_game ON tournament_matches (game_id);
"""

#: Closed lobbies keep their row (and so their id, never reused): a button on an old lobby
#: message then answers that the lobby is closed instead of acting on a newer one.
_V3 = """
ALTER TABLE lobbies ADD COLUMN closed_at REAL;
DROP INDEX lobbies_one_per_channel;
CREATE UNIQUE INDEX lobbies_one_open_per_channel ON lobbies (channel_id) WHERE closed_at IS NULL;
"""

#: Team votes get their own table (resignation votes, draw offers and their cooldowns); the
#: resignation votes of active games move there from the game's options.
_V4 = """
CREATE TABLE votes (
    game_id     INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    kind        TEXT NOT NULL CHECK (kind IN ('resign', 'draw', 'draw_cooldown')),
    team        INTEGER NOT NULL,
    seats       TEXT NOT NULL,
    move_count  INTEGER NOT NULL DEFAULT 0,
    turns_left  INTEGER NOT NULL DEFAULT 0,
    message_id  INTEGER,
    created_at  REAL NOT NULL,
    expires_at  REAL,
    PRIMARY KEY (game_id, kind, team)
) WITHOUT ROWID;
INSERT INTO votes (game_id, kind, team, seats, created_at)
SELECT g.id, 'resign',
       CAST(j.value AS INTEGER) % CAST(json_extract(g.settings, '$.teams') AS INTEGER),
       json_group_array(CAST(j.value AS INTEGER)), g.created_at
FROM games g, json_each(g.options, '$.resign_votes') AS j
WHERE g.status = 'active'
GROUP BY g.id, CAST(j.value AS INTEGER) % CAST(json_extract(g.settings, '$.teams') AS INTEGER);
UPDATE games SET options = json_remove(options, '$.resign_votes')
WHERE json_type(options, '$.resign_votes') IS NOT NULL;
"""

# 5: the move count the game's latest posted board shows, so a board that a crash or a Discord
# error kept from being posted is posted at start-up (NULL: no board posted yet). Games from
# before it are taken as shown.
_V5 = """
ALTER TABLE games ADD COLUMN board_move_count INTEGER;
UPDATE games SET board_move_count = (SELECT move_count FROM snapshots WHERE game_id = games.id);
"""

# 6: the outbox. A change writes the events it causes in its own transaction; each process's
# dispatcher delivers the undelivered ones of its games to their consumers (``pending`` names
# the consumers still to be told, space-separated; empty once delivered) and later prunes them.
# An event is a game's (``game_id``) or a tournament step's (``tournament_id``), never both.
# What the table kept in the timers table to try again (a final board, older boards to retire)
# is the outbox's now: those rows go, and ``timers`` holds timers only.
_V6 = """
CREATE TABLE events (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id     INTEGER REFERENCES games (id) ON DELETE CASCADE,
    tournament_id INTEGER REFERENCES tournaments (id) ON DELETE CASCADE,
    kind        TEXT NOT NULL,
    payload     TEXT NOT NULL,
    pending     TEXT NOT NULL,
    created_at  REAL NOT NULL,
    delivered_at REAL,
    CHECK ((game_id IS NULL) <> (tournament_id IS NULL))
);
CREATE INDEX events_undelivered ON events (game_id, id) WHERE delivered_at IS NULL;
CREATE INDEX events_steps ON events (tournament_id, id)
    WHERE delivered_at IS NULL AND tournament_id IS NOT NULL;
CREATE INDEX events_delivered ON events (delivered_at) WHERE delivered_at IS NOT NULL;
DELETE FROM timers WHERE kind IN ('final_board', 'retire');
"""

# 7: the host's undo request is a typed row of the votes table, as draw offers are, instead of a
# dict in the game's options (which now hold the table's options only): ``team`` the host's team
# (-1: the host has no seat), ``seats`` one seat of each team that agreed (seat ``t`` plays for
# team ``t``), ``move_count`` the moves when asked, ``created_at`` when, ``message_id`` the public
# request. SQLite changes a CHECK by copying the table. A match remembers when its thread was
# found deleted, so that its organiser is asked for its result once, not at every start.
_V7 = """
CREATE TABLE votes_new (
    game_id     INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    kind        TEXT NOT NULL CHECK (kind IN ('resign', 'draw', 'draw_cooldown', 'undo')),
    team        INTEGER NOT NULL,
    seats       TEXT NOT NULL,
    move_count  INTEGER NOT NULL DEFAULT 0,
    turns_left  INTEGER NOT NULL DEFAULT 0,
    message_id  INTEGER,
    created_at  REAL NOT NULL,
    expires_at  REAL,
    PRIMARY KEY (game_id, kind, team)
) WITHOUT ROWID;
INSERT INTO votes_new SELECT * FROM votes;
DROP TABLE votes;
ALTER TABLE votes_new RENAME TO votes;
INSERT INTO votes (game_id, kind, team, seats, move_count, message_id, created_at)
SELECT id, 'undo', COALESCE(json_extract(options, '$.undo_request.host_team'), -1),
       COALESCE(json_extract(options, '$.undo_request.agreed'), '[]'),
       json_extract(options, '$.undo_request.count'),
       json_extract(options, '$.undo_request.message'),
       COALESCE(json_extract(options, '$.undo_request.at'), created_at)
FROM games
WHERE status = 'active' AND json_type(options, '$.undo_request') = 'object';
UPDATE games SET options = json_remove(options, '$.undo_request')
WHERE json_type(options, '$.undo_request') IS NOT NULL;
ALTER TABLE tournament_matches ADD COLUMN thread_gone_at REAL;
"""

# 8: standings kept as results are recorded (bot/store/standings.py): each server's results
# numbered in the order recorded (``seq``; the results stored before are numbered by the time
# they ended, the order ratings applied them); each player's outcome, sequences and jacks per
# game; the ratings, each rated game's change and each player's totals. The migration's second
# step (bot/store/rebuild.py fill_standings) fills them from the results and checks them
# against a replay. Partial indexes for the active games and the open lobbies, and ``chores``,
# the start-up chores done once for all (the rules revisions of old games).
_V8 = """
ALTER TABLE results ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
UPDATE results SET seq = o.n
FROM (SELECT game_id, row_number() OVER (PARTITION BY guild_id ORDER BY finished_at, game_id) AS n
      FROM results) AS o
WHERE o.game_id = results.game_id;
CREATE UNIQUE INDEX results_in_order ON results (guild_id, seq);
ALTER TABLE result_players ADD COLUMN guild_id INTEGER NOT NULL DEFAULT 0;
ALTER TABLE result_players ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
ALTER TABLE result_players ADD COLUMN outcome TEXT NOT NULL DEFAULT 'lost';
ALTER TABLE result_players ADD COLUMN sequences INTEGER NOT NULL DEFAULT 0;
ALTER TABLE result_players ADD COLUMN jacks INTEGER NOT NULL DEFAULT 0;
UPDATE result_players SET guild_id = r.guild_id, seq = r.seq
FROM results AS r WHERE r.game_id = result_players.game_id;
CREATE INDEX result_players_latest ON result_players (user_id, guild_id, seq);

CREATE TABLE ratings (
    guild_id  INTEGER NOT NULL,
    user_id   INTEGER NOT NULL,
    mu        REAL NOT NULL,
    sigma     REAL NOT NULL,
    ordinal   REAL NOT NULL,
    games     INTEGER NOT NULL,
    PRIMARY KEY (guild_id, user_id)
) WITHOUT ROWID;
CREATE INDEX ratings_board ON ratings (guild_id, ordinal DESC, games DESC, user_id);

CREATE TABLE rating_changes (
    guild_id  INTEGER NOT NULL,
    user_id   INTEGER NOT NULL,
    seq       INTEGER NOT NULL,
    game_id   INTEGER NOT NULL REFERENCES results (game_id) ON DELETE CASCADE,
    ordinal   REAL NOT NULL,
    delta     REAL NOT NULL,
    PRIMARY KEY (guild_id, user_id, seq)
) WITHOUT ROWID;

CREATE TABLE player_totals (
    guild_id   INTEGER NOT NULL,
    user_id    INTEGER NOT NULL,
    games      INTEGER NOT NULL,
    wins       INTEGER NOT NULL,
    draws      INTEGER NOT NULL,
    losses     INTEGER NOT NULL,
    sequences  INTEGER NOT NULL,
    jacks      INTEGER NOT NULL,
    PRIMARY KEY (guild_id, user_id)
) WITHOUT ROWID;

CREATE INDEX games_active ON games (id) WHERE status = 'active';
CREATE INDEX lobbies_open ON lobbies (guild_id) WHERE closed_at IS NULL;

CREATE TABLE chores (
    name     TEXT PRIMARY KEY,
    done_at  REAL NOT NULL
) WITHOUT ROWID;
"""

# 9: each server's own settings (bot/store/guild_settings.py): a JSON value by (server, name),
# who changed it last and when. Deleted with the server's other data when the bot leaves it.
_V9 = """
CREATE TABLE guild_settings (
    guild_id    INTEGER NOT NULL,
    name        TEXT NOT NULL,
    value       TEXT NOT NULL,
    changed_by  INTEGER NOT NULL,
    changed_at  REAL NOT NULL,
    PRIMARY KEY (guild_id, name)
) WITHOUT ROWID;
"""

# 10: a table that cannot be used (its thread locked by a moderator, or the bot removed from a
# private thread): the code Discord refused the bot with, on the game, so that every process of
# a cluster refuses the changes its players ask for while it lasts (bot/services/pauses.py).
_V10 = """
ALTER TABLE games ADD COLUMN paused INTEGER;
"""

# 11: members away from their games (bot/store/away_schema.py).
# 12: the seeks of ``/sequence find`` (bot/store/seeks_schema.py).

#: Every migration, in order: (version, sql). Append only.
MIGRATIONS: tuple[tuple[int, str], ...] = (
    (1, _V1),
    (2, _V2),
    (3, _V3),
    (4, _V4),
    (5, _V5),
    (6, _V6),
    (7, _V7),
    (8, _V8),
    (9, _V9),
    (10, _V10),
    (11, SQLITE_V11),
    (12, seeks_schema.SQLITE),
    (13, season_schema.SQLITE),
)

__all__ = ["MIGRATIONS"]
