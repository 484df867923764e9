"""Loading games: each rebuilt from its snapshot, checked against its move log, and repaired.

One query reads the games a condition selects, with their snapshots and the number of live
moves of each. A snapshot that holds its log and as many moves as the log stands alone (decoded
lazily: :mod:`..snapshots`); any other game is rebuilt from its move rows, and a snapshot found
wrong is written again from the log.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from bot.game import Game, GameSettings, Move
from bot.table.options import TableOptions

from ..codec import loads
from ..errors import CorruptGameError
from ..move_rows import move_dicts
from ..seats import seats_from_json
from ..snapshots import decode, has_log, kept_snapshot_text, notations, stored_game
from ..upgrades import upgrade_state
from ..votes import select_for
from .records import GameRecord

if TYPE_CHECKING:
    from ..connection import Connection

log = logging.getLogger(__name__)

_GAME_COLUMNS = (
    "g.id, g.guild_id, g.channel_id, g.settings, g.seed, g.seats, g.options, g.status, "
    "g.board_message_id, g.lobby_message_id, g.created_at, g.finished_at, s.move_count, s.state, "
    "g.board_move_count"
)


#: The number of live moves of game ``g``, from the index of live move numbers alone (``number
#: >= 0`` always holds; it steers SQLite to that index, which holds every column asked).
_LIVE_COUNT = (
    "SELECT count(*) FROM moves m WHERE m.game_id = g.id AND m.undone_at IS NULL AND m.number >= 0"
)
#: The number of moves ever logged for game ``g``, undone ones included (from an index alone).
_LOGGED_COUNT = "SELECT count(*) FROM moves m WHERE m.game_id = g.id"
#: Which games to load (a condition on ``games g``); each is served by an index.
BY_ID = "g.id = ?"
ACTIVE_GAMES = "g.status = 'active'"
ACTIVE_IN_CHANNEL = "g.channel_id = ? AND g.status = 'active'"
ACTIVE_SEATED = "g.status = 'active' AND g.seats LIKE ? AND g.guild_id = coalesce(?, g.guild_id)"


async def load_games(
    conn: Connection,
    where: str,
    params: tuple[Any, ...],
    verify: bool,
    strict: bool,
    *,
    lazy: bool = False,
    upgrade: bool = False,
    paused: bool = True,
) -> list[tuple[GameRecord, bool]]:
    """Load the games ``where`` selects: (record, snapshot_ok) each.

    One query reads the games with their snapshots and the number of live moves of each: a
    snapshot that holds its log and as many moves as the log stands alone (``lazy``: decoded on
    first use, see :mod:`..snapshots`). Only the other games (an old snapshot, one behind its log,
    ``verify``) read their move rows, and are rebuilt from them. The cost grows with the games
    loaded, never with the history of finished games. With ``upgrade``, a snapshot written
    before snapshots held their log is written again with it (once: the next load is quick).
    ``paused`` False: the schema has no ``games.paused`` yet (a migration before the 10th
    reads games: they load as not paused).
    """
    # ``where`` is one of this module's conditions; values go in ``params``.
    pause = "g.paused" if paused else "NULL"
    rows = await conn.fetchall(
        f"SELECT {_GAME_COLUMNS}, ({_LIVE_COUNT}), ({_LOGGED_COUNT}), {pause} FROM games g "
        f"LEFT JOIN snapshots s ON s.game_id = g.id WHERE {where} ORDER BY g.id",
        params,
    )
    if not rows:
        return []
    games: dict[int, Game] = {}
    if not verify:
        for row in rows:
            game = _from_snapshot(row, lazy)
            if game is not None:
                games[row[0]] = game
    texts = await live_move_texts(conn, where, params, [r[0] for r in rows if r[0] not in games])
    votes = await select_for(conn, where, params)
    loaded: list[tuple[GameRecord, bool]] = []
    for row in rows:
        game_id = row[0]
        snapshot_ok = True
        game = games.get(game_id)
        try:
            if game is None:
                if row[13] is None:
                    raise CorruptGameError(f"Game {game_id} has no snapshot.")
                game, snapshot_ok = rebuild(
                    game_id, row[3], row[4], row[12], row[13], texts[game_id], verify
                )
        except CorruptGameError:
            if strict:
                raise
            log.exception("Game %s cannot be loaded; it is left out.", game_id)
            continue
        if not snapshot_ok or (upgrade and game_id not in games and _can_hold_log(row, game)):
            await _repair(conn, game_id, game)
        record = GameRecord(
            game_id,
            row[1],
            row[2],
            seats_from_json(loads(row[5])),
            TableOptions.from_dict(loads(row[6])),
            row[7],
            row[8],
            row[9],
            row[10],
            row[11],
            game,
            votes.get(game_id, {}),
            row[14],
            taken_back=row[16] - row[15],
            paused=row[17],
        )
        loaded.append((record, snapshot_ok))
    return loaded


def _from_snapshot(row: tuple[Any, ...], lazy: bool) -> Game | None:
    """The game of a row whose snapshot stands alone (it holds its log, as long as the live
    log), or None: that game is rebuilt from its move rows."""
    count, text, live = row[12], row[13], row[15]
    if text is None or count != live or not has_log(text):
        return None
    try:
        settings, seed = GameSettings.from_dict(loads(row[3])), loads(row[4])
        if lazy:
            game = stored_game(settings, seed, count, text)
            if game is not None:
                return game
        return decode(settings, seed, count, text)
    except Exception:  # unreadable: rebuilt from the log (which says why)
        return None


def _can_hold_log(row: tuple[Any, ...], game: Game) -> bool:
    """True for an old snapshot (no log) whose game's log can be written into it (a game that
    is over keeps none: :func:`kept_snapshot_text`)."""
    return not has_log(row[13]) and not game.is_over() and notations(game.moves) is not None


#: Games whose move rows are read by listing their ids (more: by the loading condition).
_BY_IDS = 500


async def live_move_texts(
    conn: Connection, where: str, params: tuple[Any, ...], ids: list[int]
) -> dict[int, list[str]]:
    """The live moves (JSON texts, in order) of the games ``ids`` among those ``where`` selects."""
    texts: dict[int, list[str]] = {game_id: [] for game_id in ids}
    if not ids:
        return texts
    if len(ids) > _BY_IDS:
        batches = [(f"(SELECT g.id FROM games g WHERE {where})", params)]
    else:
        batches = [("(" + ", ".join("?" * len(ids)) + ")", tuple(ids))]
    for which, args in batches:
        for game_id, text in await conn.fetchall(
            "SELECT m.game_id, m.move FROM moves m WHERE m.undone_at IS NULL AND m.game_id IN "
            f"{which} ORDER BY m.game_id, m.number",
            args,
        ):
            if game_id in texts:
                texts[game_id].append(text)
    return texts


def from_snapshot(
    settings: dict[str, Any], seed: Any, moves: list[dict[str, Any]], state_text: str
) -> Game:
    """The game as its stored snapshot holds it, in any layout (see :mod:`..upgrades`; a log
    the snapshot holds is left out: the moves given are the log)."""
    state = loads(state_text)
    if isinstance(state, dict):
        state.pop("log", None)
        upgrade_state(state, lambda: replay(settings, seed, moves))
    return Game.from_dict({"settings": settings, "seed": seed, "moves": moves, "state": state})


def replay(settings: dict[str, Any], seed: Any, moves: list[dict[str, Any]]) -> Game:
    """The game its stored settings, seed and live moves make, played again."""
    return Game.replay(GameSettings.from_dict(settings), seed, [Move.from_dict(m) for m in moves])


def rebuild(
    game_id: int,
    settings_text: str,
    seed_text: str,
    count: int,
    state_text: str,
    move_texts: list[str],
    verify: bool,
) -> tuple[Game, bool]:
    """(game, snapshot_ok): from the snapshot when it agrees with the log, else by replay."""
    settings, seed = loads(settings_text), loads(seed_text)
    moves = move_dicts(move_texts)
    game: Game | None = None
    if count != len(moves):
        log.warning(
            "Game %s: the snapshot is at move %s but the log has %s moves; replaying the log.",
            game_id,
            count,
            len(moves),
        )
    else:
        try:
            game = from_snapshot(settings, seed, moves, state_text)
        except Exception:
            log.warning("Game %s: the snapshot cannot be read; replaying the log.", game_id)
    if game is not None and not verify:
        return game, True
    try:
        replayed = replay(settings, seed, moves)
    except Exception as error:
        raise CorruptGameError(
            f"Game {game_id}: its move log cannot be replayed ({error})."
        ) from error
    if game is not None:
        if game == replayed and (not has_log(state_text) or _log_agrees(state_text, game)):
            return game, True
        log.warning("Game %s: the snapshot differs from the replayed log; using the log.", game_id)
    return replayed, False


def _log_agrees(state_text: str, game: Game) -> bool:
    """True when the log a snapshot holds is the game's."""
    try:
        return decode(game.settings, game.seed, len(game.moves), state_text).moves == game.moves
    except Exception:
        return False


async def _repair(conn: Connection, game_id: int, game: Game) -> None:
    """Store the replayed state as the snapshot, unless the log moved on meanwhile."""
    await conn.execute(
        "UPDATE snapshots SET move_count = ?, state = ? WHERE game_id = ? AND ? = "
        "(SELECT count(*) FROM moves WHERE game_id = ? AND undone_at IS NULL)",
        (len(game.moves), kept_snapshot_text(game), game_id, len(game.moves), game_id),
    )
