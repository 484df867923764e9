"""The offline demo: the real bot and cogs on SimCord's in-memory Discord, one complete game.

A host opens a lobby with ``/sequence new``, seats computer players with ``/sequence addbot``
and presses **Start**. The computers move on their own; on the host's turns the host opens
**Your hand** under the board and plays with the card select and the space buttons, choosing as a
medium computer player would from the host's own view. The channel's boards, an animated replay
and a readable transcript are written to a folder.

Its length is one script's: the demo's game, its transcript and its replay are written by the
same run; the running bot never calls it.
"""

from __future__ import annotations

import random
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from bot.app import create_bot
from bot.config import Settings
from bot.game import player_view
from bot.game.ai import LEVELS, accepts_draw, choose_move
from bot.game.board import SIZE
from bot.game.cards import full_deck, is_jack
from bot.game.moves import DEAD, PASS, PLAY, Move
from bot.game.settings import TEAM_NAMES
from bot.services.draws import open_offer
from bot.services.events import MoveCommitted
from bot.store.games.records import GameRecord
from render.replay import render_replay_gif

from .demo_transcript import board_name, channel_transcript

#: Seats at the demo table, host included (teams are equal: 2, 3, 4 or 6 players work).
PLAYER_COUNTS = (2, 3, 4, 6)
HOST_NAME = "alice"
#: How the transcript names the bot (SimCord's bot user is called TestBot).
BOT_NAME = "Sequence bot"
#: How the host chooses (from its own view): deterministic for a given seed.
HOST_LEVEL = "medium"
MAX_HOST_ACTIONS = 1000
REPLAY_COMMAND = "sequence replay"
DECK_SIZE = len(full_deck())
#: Seconds the demo waits for the bot beyond its computers' thinking, after each click.
SETTLE_MARGIN = 30.0

#: ``progress(moves, fraction, status)``: called after every committed move.
Progress = Callable[[int, float, str], None]


class DemoError(RuntimeError):
    """The demo could not finish its game (a bug: the message says where it stopped)."""


@dataclass(frozen=True)
class DemoOptions:
    """What the demo plays and where it writes."""

    out: Path = Path("demo-output")
    seed: int = 2026
    players: int = 4
    level: str = "medium"
    budget_ms: int = 2000


@dataclass
class DemoResult:
    """What happened, for the summary."""

    out: Path
    game_id: int
    winner: str
    moves: int
    plays: int
    seconds: float
    files: list[Path] = field(default_factory=list)

    def summary(self) -> str:
        """A few lines for the console."""
        boards = sum(1 for f in self.files if f.name.startswith("board-"))
        return (
            f"{self.winner} after {self.moves} moves ({self.plays} cards played) "
            f"in {self.seconds:.1f} s.\n"
            f"Wrote {boards} board images, replay.gif and transcript.txt to {self.out}/"
        )


def settle_timeout(players: int, budget_ms: int) -> float:
    """How long SimCord waits for the bot to finish what a click started: the computers'
    turns that follow, each up to the hard level's time cap, and a margin (SimCord's default,
    5 s, is shorter than three hard computers at four or six players)."""
    return (players - 1) * budget_ms / 1000 + SETTLE_MARGIN


def check_options(options: DemoOptions) -> None:
    """Raise ``ValueError`` with a clear message for options the demo cannot play."""
    if options.players not in PLAYER_COUNTS:
        counts = ", ".join(map(str, PLAYER_COUNTS))
        raise ValueError(f"--players must be one of {counts} (you and the computers).")
    if options.level not in LEVELS:
        raise ValueError(f"--level must be one of {', '.join(LEVELS)}.")


async def run_demo(options: DemoOptions, progress: Progress | None = None) -> DemoResult:
    """Play one complete game in SimCord and write its files to ``options.out``."""
    import simcord  # only the offline modes need it

    check_options(options)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="sequence-demo-") as tmp:
        settings = Settings(
            database_path=Path(tmp) / "demo.db",
            computer_move_delay=0.0,
            computer_budget_ms=options.budget_ms,
        )
        bot = create_bot(settings)
        wait = settle_timeout(options.players, options.budget_ms)
        async with simcord.run(bot, settle_timeout=wait) as env:
            try:
                table = await _open_table(env, options, progress)
                await _play(env, table, options.seed)
                record = await bot.db.games.load(table.game_id)
                files = await _write(table, record, options.out)
            finally:
                await bot.close()
    game = record.game
    plays = sum(1 for move in game.moves if move.kind == PLAY)
    return DemoResult(
        out=options.out,
        game_id=record.id,
        winner=winner_text(record),
        moves=len(game.moves),
        plays=plays,
        seconds=time.perf_counter() - started,
        files=files,
    )


# --------------------------------------------------------------------------- the table
@dataclass
class _Table:
    env: Any
    channel: Any
    host: Any
    game_id: int
    names: dict[int, str]


async def _open_table(env: Any, options: DemoOptions, progress: Progress | None) -> _Table:
    """A server, #sequence, the host; a lobby with computers, started with the Start button."""
    env.bot.lobbies.new_seed = lambda: options.seed
    guild = env.create_guild("Sequence Club")
    channel = guild.create_text_channel("sequence")
    host = guild.add_member(env.create_user(HOST_NAME))
    if progress is not None:
        _report_moves(env.bot, channel.id, progress)
    opened = await host.slash(channel, "sequence new")
    _expect(opened, "opening the lobby")
    for _ in range(options.players - 1):
        _expect(
            await host.slash(channel, "sequence addbot", level=options.level), "adding a computer"
        )
    _expect(await host.click(opened.response, label="Start"), "starting the game")
    record = env.bot.games.find_in_channel(channel.id)
    if record is None:
        raise DemoError("The game did not start.")
    names = {env.bot.user.id: BOT_NAME, host.id: host.name}
    names.update({seat.user_id: seat.name for seat in record.seats})
    return _Table(env, channel, host, record.id, names)


def _report_moves(bot: Any, channel_id: int, progress: Progress) -> None:
    """Call ``progress`` after every committed move in the channel (a bot event listener)."""

    async def on_move(event: MoveCommitted) -> None:
        record = replace(event.record, game=event.outcome.game)
        if record.channel_id == channel_id:
            progress(len(record.game.moves), deck_progress(record), progress_text(record))

    bot.bus.subscribe(MoveCommitted, on_move)


async def _play(env: Any, table: _Table, seed: int) -> None:
    """Let the computers move; make the host's moves through the hand panel, to the end."""
    games = env.bot.games
    for _ in range(MAX_HOST_ACTIONS):
        await env.settle()
        record: GameRecord | None = games.records.get(table.game_id)
        if record is None or record.game.is_over():
            return
        game = record.game
        seat = next(i for i, s in enumerate(record.seats) if s.user_id == table.host.id)
        if await _answer_draw_offer(table, record, seat):
            continue
        if game.turn != seat:
            raise DemoError(f"The computer players stopped at move {len(game.moves)}.")
        rng = random.Random(f"demo:{seed}:{len(game.moves)}")
        move = choose_move(player_view(game, seat), HOST_LEVEL, rng)
        await _host_move(table, record, move)
    raise DemoError(f"The game did not end within {MAX_HOST_ACTIONS} host moves.")


# --------------------------------------------------------------------------- the host's clicks
async def _answer_draw_offer(table: _Table, record: GameRecord, seat: int) -> bool:
    """A computer team's draw offer waits for the host's team: the host answers it with the
    offer message's buttons, as a computer player of their team would (True: answered)."""
    offer = open_offer(record.votes)
    game = record.game
    if offer is None or game.team_of(seat) in {game.team_of(s) for s in offer.seats}:
        return False
    message = next(
        (
            m
            for m in reversed(table.channel.history())
            if "offers a **draw**" in (m.content or "") and m.components
        ),
        None,
    )
    if message is None:
        raise DemoError("The draw offer's message with its buttons is missing.")
    label = "Accept the draw" if accepts_draw(player_view(game, seat)) else "Decline"
    _expect(await table.host.click(message, label=label), "answering the draw offer")
    return True


async def _host_move(table: _Table, record: GameRecord, move: Move) -> None:
    """Make ``move`` as a player would: Your hand, then the panel's selects and buttons."""
    host, channel = table.host, table.channel
    board = next((m for m in channel.history() if m.id == record.board_message_id), None)
    if board is None:
        raise DemoError("The board message with the Your hand button is missing.")
    panel = _expect(await host.click(board, label="Your hand"), "opening the hand").response
    if move.kind == PASS:
        await _click(host, panel, "pass")
        return
    card = move.card or ""
    panel = await _choose(host, panel, "card", card)
    if move.kind == DEAD:
        await _click(host, panel, "dead", card)
        return
    if move.kind != PLAY or move.space is None:
        raise DemoError(f"The demo host cannot make a {move.kind} move.")
    space = move.space
    if is_jack(card):
        panel = await _choose(host, panel, "row", str(space // SIZE))
        panel = await _choose(host, panel, "space", str(space))
    panel = await _click(host, panel, "go", card, str(space))
    if _find(panel, "five") is not None:
        options = record.game.sequence_options(Move.play(move.seat, card, space))
        index = options.index(move.five) if move.five in options else 0
        await _click(host, panel, "five", card, str(space), str(index))


def _components(message: Any) -> Iterator[dict[str, Any]]:
    for row in getattr(message, "components", None) or []:
        yield from row.get("components", [])


def _find(message: Any, kind: str, *args: str) -> dict[str, Any] | None:
    """The component ``seq:<kind>:<game>:...`` whose id ends with ``args``."""
    for item in _components(message):
        parts = str(item.get("custom_id", "")).split(":")
        if len(parts) > 1 and parts[1] == kind and (not args or tuple(parts[-len(args) :]) == args):
            return item
    return None


async def _choose(host: Any, panel: Any, kind: str, value: str) -> Any:
    item = _find(panel, kind)
    if item is None or value not in {o["value"] for o in item.get("options", [])}:
        raise DemoError(f"No {kind} select offering {value!r} in the hand panel:\n{panel.content}")
    result = await host.select(panel, [value], custom_id=item["custom_id"])
    return _expect(result, f"choosing the {kind} {value}").response


async def _click(host: Any, panel: Any, kind: str, *args: str) -> Any:
    item = _find(panel, kind, *args)
    if item is None:
        raise DemoError(f"No {kind} button for {args} in the hand panel:\n{panel.content}")
    result = await host.click(panel, custom_id=item["custom_id"])
    return _expect(result, f"pressing {item.get('label')!r}").response


def _expect(result: Any, doing: str) -> Any:
    """The interaction's result, if the bot answered it without an error."""
    response = getattr(result, "response", None)
    if not result.acknowledged or response is None:
        raise DemoError(f"The bot did not answer {doing}.")
    if response.content.startswith("⚠️"):
        raise DemoError(f"The bot refused {doing}: {response.content}")
    return result


# --------------------------------------------------------------------------- progress and words
def deck_progress(record: GameRecord) -> float:
    """How much of the first draw deck has been drawn, from 0 to 1 (1 once the game is over).

    It only grows: the deck only shrinks until it is used up, and after a reshuffle (the game
    is then past one whole deck) it stays at 1.
    """
    game = record.game
    if game.is_over() or game.reshuffles:
        return 1.0
    dealt = DECK_SIZE - game.settings.players * game.settings.hand_size
    return min(1.0, (dealt - len(game.deck)) / dealt) if dealt > 0 else 1.0


def progress_text(record: GameRecord) -> str:
    """``58 cards left in the deck · Blue leads 1/2`` (what the progress bar shows beside it)."""
    game = record.game
    left = len(game.deck)
    deck = f"{left} card{'s' if left != 1 else ''} left in the deck"
    if game.reshuffles:
        deck += " (reshuffled)"
    return f"{deck} · {leader_text(record)}"


def leader_text(record: GameRecord) -> str:
    """``Blue leads 1/2``, ``Blue and Green 1/2 each`` or ``no sequence yet``."""
    game = record.game
    needed = game.settings.sequences_to_win
    counts = [game.sequence_count(team) for team in range(game.settings.teams)]
    best = max(counts)
    if best == 0:
        return "no sequence yet"
    leaders = [TEAM_NAMES[team] for team, count in enumerate(counts) if count == best]
    if len(leaders) == 1:
        return f"{leaders[0]} leads {best}/{needed}"
    return f"{' and '.join(leaders)} {best}/{needed} each"


def winner_text(record: GameRecord) -> str:
    """``Blue wins (alice, Babbage (medium bot))`` or ``A draw``."""
    game = record.game
    if game.winner is None:
        return "A draw" if game.is_over() else "No result"
    members = [record.seats[s].name for s in game.settings.seats_of(game.winner)]
    return f"{TEAM_NAMES[game.winner]} wins ({', '.join(members)})"


# --------------------------------------------------------------------------- the files
async def _write(table: _Table, record: GameRecord, out: Path) -> list[Path]:
    """``replay.gif``, the board images and ``transcript.txt`` in ``out`` (old boards removed)."""
    boards_dir = out / "boards"
    boards_dir.mkdir(parents=True, exist_ok=True)
    for old in boards_dir.glob("board-*.png"):
        old.unlink()
    gif = out / "replay.gif"
    gif.write_bytes(await _replay_gif(table, record))
    files: list[Path] = []
    history = table.channel.history()
    taken: set[str] = set()
    for message in history:
        for attachment in message.attachments:
            if attachment.filename != "board.png":
                continue
            name = board_name(message, len(taken), taken)
            path = boards_dir / name
            path.write_bytes(await attachment.read())
            files.append(path)
    transcript = out / "transcript.txt"
    transcript.write_text(channel_transcript(history, table.names, table.channel.name), "utf-8")
    return [*files, gif, transcript]


async def _replay_gif(table: _Table, record: GameRecord) -> bytes:
    """The host asks for ``/sequence replay``; without that command, the GIF is drawn here."""
    if REPLAY_COMMAND in table.host.available_commands(table.channel):
        result = await table.host.slash(table.channel, REPLAY_COMMAND, game=record.id)
        response = result.response
        if response is not None and response.attachments:
            return await response.attachments[0].read()
    game = record.game
    names = [seat.name for seat in record.seats]
    return render_replay_gif(game.settings, game.seed, game.moves, names)


__all__ = [
    "DemoError",
    "DemoOptions",
    "DemoResult",
    "channel_transcript",
    "deck_progress",
    "run_demo",
]
