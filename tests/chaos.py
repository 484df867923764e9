"""A seeded random soak of the whole bot through SimCord: what no scripted test thought of.

:class:`Soak` plays short sessions on random tables (2 to 12 seats, 2 or 3 teams, classic or
convoy, house options, computers of each level, time limits and time-out policies) and, at each
step, has a random member do a random thing, legal or not: any ``/sequence`` or ``/tournament``
command with plausible or hostile arguments, a click on any button or a choice in any menu of
any message they can see (old boards, old panels, old prompts, DMs), a call of table talk on a
chat line. Now and then time passes (reminders, time-outs, expiries), the bot restarts, or the
next request to Discord fails (4xx, 5xx, 429). Often the player to act makes a legal move, so
games get somewhere; now and then a tournament opens, signs up a few entrants and starts, and
the players of its matches check in, so that matches are played in their threads.

After each step :meth:`Soak.check` looks for what a player or an admin would call wrong and
returns it as :class:`Finding` values (it asserts nothing itself):

* an interaction left unanswered, or answered with the bot's apology (``SORRY``);
* an exception the bot raised, or an ERROR logged; a hand in any log line;
* a hand (three cards or more, as the panel writes it) or the hand image where someone other
  than its owner can see it;
* a game whose snapshot differs from a replay of its move log, or whose record in memory
  differs from the store's; an open lobby beside an active game;
* a board of a game with live buttons that is not the game's newest, or a newest board that
  shows another turn than the game's (checked when Discord refused nothing in that step);
* a game that does not end when its players only play legal moves (:meth:`Soak.play_out`).

``tests/test_e2e_chaos.py`` runs a fixed seed for a bounded number of steps; ``bench/chaos.py``
runs many seeds for as long as asked.
"""

from __future__ import annotations

import asyncio
import logging
import random
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import discord
import simcord
from simcord.results import ResponseMessage

from bot.game import player_view
from bot.game.ai import choose_move
from bot.game.board import space_name
from bot.game.cards import ALL_CARDS
from bot.game.moves import Move
from cogs.common.describe import turn_line
from cogs.common.replies import SORRY
from cogs.common.table import QUIET
from cogs.hand.panel import hand_line

from .e2e_driver import components, seat_to_act
from .helpers.tournament import anyone_may_organise

#: Members of the server (the first one moderates: Manage Channels and Manage Messages).
NAMES = ["mod", "ann", "ben", "cat", "dan", "eve", "fay", "gus", "hal", "ivy", "jo", "kim"]
SIZES = (2, 3, 4, 6, 8, 9, 10, 12)
LEVELS = ("easy", "medium", "hard")
#: Seconds time may jump by (a reminder is 10 minutes at the least, a lobby lasts a day).
JUMPS = (1, 30, 61, 300, 601, 3601, 43201, 86401)
BOARD_TITLE = re.compile(r"Sequence · game #(\d+) · move (\d+)")
MENTION = re.compile(r"<@(\d+)>")
HOSTILE = ["", " ", "x" * 120, "🂡", "<@1>", "@everyone", "10", "J", "ZZ", "-1", "A0", "K11", "💥"]
#: Requests the bot makes to Discord, for an injected failure.
FAULT_PATHS = [
    ("POST", "/interactions/*/callback"),
    ("POST", "/channels/*/messages"),
    ("PATCH", "/channels/*/messages/*"),
    ("PATCH", "/webhooks/*/*/messages/*"),
    ("POST", "/webhooks/*/*"),
    ("*", "*"),
]
FAULT_STATUSES = (400, 403, 404, 429, 500, 502, 503)
#: What a step whose request to Discord was made to fail may show without a defect.
EXPECTED_UNDER_FAULT = frozenset({"unanswered", "sorry", "exception", "error-log"})


@dataclass(frozen=True)
class Finding:
    """One thing found wrong after a step."""

    seed: int
    step: int
    kind: str
    detail: str
    action: str
    #: Whether a failure of Discord was injected in that step (some findings then are expected).
    faulted: bool

    @property
    def expected(self) -> bool:
        """A failure injected into a request to Discord, shown as such: the interaction was not
        answered, or answered with the apology, and the error logged. (What the store holds, a
        hand's privacy and the boards are held to account even then.)"""
        return self.faulted and self.kind in EXPECTED_UNDER_FAULT

    def __str__(self) -> str:
        fault = " [fault injected]" if self.faulted else ""
        return (
            f"seed {self.seed} step {self.step} {self.kind}{fault}: {self.detail} <- {self.action}"
        )


class LogCapture(logging.Handler):
    """Every log record, formatted, from the moment it is installed."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def __enter__(self) -> LogCapture:
        root = logging.getLogger()
        self._level = root.level
        root.addHandler(self)
        root.setLevel(logging.DEBUG)
        return self

    def __exit__(self, *exc: object) -> None:
        root = logging.getLogger()
        root.removeHandler(self)
        root.setLevel(self._level)


@dataclass
class Soak:
    """A random session player over one SimCord environment.

    ``make_bot`` builds a fresh bot over the same database (a restart); ``levels`` the computer
    levels it seats (the hard level's result depends on the machine's speed when its cap cuts
    its thinking short, so a repeatable run leaves it out).
    """

    env: Any
    make_bot: Callable[[], Any]
    seed: int
    logs: LogCapture
    levels: tuple[str, ...] = LEVELS
    rng: random.Random = field(init=False)
    findings: list[Finding] = field(default_factory=list)
    step_number: int = 0
    #: Called with each step's number and action before it is checked (a long run's trace).
    trace: Callable[[int, str], None] | None = None

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self._seen: dict[tuple[int, int], tuple[Any, ...]] = {}
        self._log_cursor = len(self.logs.records)
        self._error_cursor = 0
        self._hands: dict[tuple[int, int], tuple[int, list[str]]] = {}
        self._action = ""
        self._faulted = False
        self._results: list[Any] = []
        #: Old boards a failure injected into Discord's edit left with their buttons.
        self._excused: set[int] = set()
        #: Per game, its newest board when a failure injected into Discord left it behind, and
        #: the move count then: excused until a move that a board shows.
        self._behind: dict[int, tuple[int, int]] = {}

    # ------------------------------------------------------------------ the world
    def setup(self) -> None:
        """A server with two channels and its members; the first member moderates."""
        env = self.env
        self.guild = env.create_guild("Chaos Club")
        anyone_may_organise(env, self.guild)  # anyone may try /tournament-admin
        self.channels = [self.guild.create_text_channel(n) for n in ("table-a", "table-b")]
        self.users = [env.create_user(name) for name in NAMES]
        moderators = self.guild.create_role(
            "Moderators",
            permissions=discord.Permissions(manage_channels=True, manage_messages=True),
        )
        self.members = [
            self.guild.add_member(user, roles=[moderators] if number == 0 else [])
            for number, user in enumerate(self.users)
        ]
        self._error_cursor = env.error_cursor
        self.on_virtual_time(env.bot)

    def on_virtual_time(self, bot: Any) -> Any:
        """``bot`` with its timers' sleeps declared to SimCord as waits for time to pass.

        SimCord (3.2.1) also arms each sleep on the wall clock: a settle whose deadline lies
        past that moment waits for it, lets it fire, and leaves the work it wakes only the rest of
        its own deadline. A long run then times out in a settle with the bot doing nothing wrong
        (a 1-minute turn clock under a 60 s settle does so at once). Declared, a sleep ends only
        when the soak advances time; what a timer then does is settled as before.
        """
        env = self.env

        async def sleep(seconds: float) -> None:
            await env.external_wait(asyncio.sleep(seconds), reason="a timer waits for time")

        bot.scheduler._sleep = sleep
        return bot

    @property
    def bot(self) -> Any:
        return self.env.bot

    def places(self) -> list[Any]:
        """The channels and the threads in them (tournament matches play in threads)."""
        return [*self.channels, *(t for c in self.channels for t in c.threads)]

    def member(self, user_id: int) -> Any | None:
        return next((m for m in self.members if m.id == user_id), None)

    def place_of(self, channel_id: int) -> Any | None:
        return next((p for p in self.places() if p.id == channel_id), None)

    # ------------------------------------------------------------------ running
    async def run(self, steps: int, *, play_out_every: int = 0) -> list[Finding]:
        """``steps`` random steps, each checked; every ``play_out_every`` steps (0: never) the
        active games are played out with legal moves only."""
        for number in range(steps):
            self.step_number = number
            await self.step()
            if self.trace is not None:
                self.trace(number, self._action)
            await self.check()
            if play_out_every and (number + 1) % play_out_every == 0:
                await self.play_out()
        return self.findings

    async def step(self) -> None:
        """One random action, by a random member."""
        self._results = []
        self._faulted = False
        rng = self.rng
        games = self.live_games()
        kinds: list[tuple[str, int]] = [
            ("move", 40 if games else 0),
            ("table", 25 if not games else 3),
            ("tournament", 4),
            ("slash", 20),
            ("click", 22),
            ("select", 8),
            ("talk", 3),
            ("time", 6),
            ("restart", 1),
            ("fault", 3),
        ]
        kind = rng.choices([k for k, _ in kinds], [w for _, w in kinds])[0]
        if kind == "fault":
            method, path = rng.choice(FAULT_PATHS)
            status = rng.choice(FAULT_STATUSES)
            self.env.inject_error(method, path, status=status, message="injected by the soak")
            self._faulted = True
            kind = rng.choice(["move", "slash", "click", "time"])
            self._action = f"fault {status} on {method} {path}; "
        else:
            self._action = ""
        await getattr(self, f"do_{kind}")()
        self.env.backend.faults.clear()  # an injected failure lasts one step at most

    def note(self, text: str) -> None:
        self._action += text

    async def act(self, what: str, call: Awaitable[Any]) -> Any:
        """Run one actor verb; a verb a real user could not do (SetupError) is a no-op."""
        self.note(what)
        try:
            result = await call
        except simcord.SetupError as error:
            self.note(f" (not possible: {error})")
            return None
        self._results.append((what, result))
        return result

    def live_games(self) -> list[Any]:
        return [r for r in self.bot.games.records.values() if not r.game.is_over()]

    # ------------------------------------------------------------------ actions
    async def do_move(self) -> None:
        games = self.live_games()
        if games:
            await self.legal_move(self.rng.choice(games))

    async def legal_move(self, record: Any) -> bool:
        """The seat to act makes a legal move as a person does (False: a computer's turn)."""
        seat = seat_to_act(record)
        if record.seats[seat].is_computer:
            self.note(f"wait for the computer of game {record.id}")
            await self.env.settle()
            return False
        actor = self.member(record.seats[seat].user_id)
        place = self.place_of(record.channel_id)
        if actor is None or place is None:
            return False
        move = choose_move(player_view(record.game, seat), "medium", self.rng)
        await self.make(actor, place, record, move)
        return True

    async def make(self, actor: Any, place: Any, record: Any, move: Move) -> None:
        """A move through ``/sequence play`` (and the choice of five) or the panel."""
        game_id = record.id
        if move.kind == "play":
            result = await self.act(
                f"{actor.name}: /sequence play {move.card} {space_name(move.space or 0)}",
                actor.slash(
                    place, "sequence play", card=move.card, space=space_name(move.space or 0)
                ),
            )
            if result is None or result.response is None:
                return
            fives = [
                c
                for c in components(result.response)
                if c.get("custom_id", "").startswith("seq:five")
            ]
            if fives:
                await self.act(
                    "; choose five", actor.click(result.response, custom_id=fives[0]["custom_id"])
                )
            return
        panel = await self.act(f"{actor.name}: /sequence hand", actor.slash(place, "sequence hand"))
        if panel is None or panel.response is None:
            return
        ids = [c.get("custom_id", "") for c in components(panel.response)]

        def find(prefix: str) -> str | None:
            return next((i for i in ids if i.startswith(prefix)), None)

        if move.kind == "dead":
            card_menu = find(f"seq:card:{game_id}:")
            if card_menu:
                await self.act(
                    f"; dead {move.card}",
                    actor.select(panel.response, [move.card], custom_id=card_menu),
                )
                dead = next(
                    (
                        c["custom_id"]
                        for c in components(panel.response)
                        if c.get("custom_id", "").startswith(f"seq:dead:{game_id}:")
                    ),
                    None,
                )
                if dead:
                    await self.act("; turn in", actor.click(panel.response, custom_id=dead))
        elif move.kind == "pass" and find(f"seq:pass:{game_id}:"):
            await self.act(
                "; pass", actor.click(panel.response, custom_id=find(f"seq:pass:{game_id}:"))
            )
        elif move.kind == "forfeit" and find(f"seq:forfeit:{game_id}"):
            await self.act(
                f"; forfeit {move.card}",
                actor.select(panel.response, [move.card], custom_id=f"seq:forfeit:{game_id}"),
            )
        elif move.kind == "draw" and find(f"seq:draw:{game_id}"):
            await self.act("; draw", actor.click(panel.response, custom_id=f"seq:draw:{game_id}"))

    async def do_table(self) -> None:
        """Open a lobby on a random table somewhere free, seat people and computers, and most
        often start it."""
        rng = self.rng
        place = rng.choice(self.channels)
        size = rng.choice(SIZES)
        humans = rng.randint(1, min(size, 6))
        people = rng.sample(self.members, humans)
        host = people[0]
        options: dict[str, Any] = {}
        if rng.random() < 0.3:
            options["preset"] = "convoy"
        if rng.random() < 0.3:
            options["teams"] = rng.choice([0, 2, 3])
        for flag in ("bot_picks_five", "manual_draw", "small_hands", "tabletalk_stands", "hints"):
            if rng.random() < 0.15:
                options[flag] = True
        for flag in ("endless_guard", "rated"):
            if rng.random() < 0.1:
                options[flag] = False
        if rng.random() < 0.15:
            options["sequences_to_win"] = rng.randint(1, 4)
        if rng.random() < 0.4:
            options["time_limit"] = rng.choice(["1m", "2m", "10m", "1h", "0", "soon", "3w"])
            options["on_timeout"] = rng.choice(["skip", "computer", "remove"])
        if rng.random() < 0.3:
            options["reminder"] = rng.choice(["10m", "1h", "none", "5s"])
        self.bot.lobbies.new_seed = lambda: rng.randrange(1 << 30)
        opened = await self.act(
            f"table {size} seats in #{place.name} by {host.name} {options}; ",
            host.slash(place, "sequence new", **options),
        )
        if opened is None or opened.response is None or opened.ephemeral:
            return
        lobby = opened.response
        for person in people[1:]:
            await self.act(f"{person.name} joins; ", person.click(lobby, label="Join"))
        for _ in range(size - humans):
            level = rng.choice(self.levels)
            team = rng.choice([None, None, 0, 1, 2])
            args = {"level": level} | ({} if team is None else {"team": team})
            await self.act(f"addbot {args}; ", host.slash(place, "sequence addbot", **args))
        if rng.random() < 0.85:
            await self.act("start", host.click(lobby, label="Start"))

    async def do_tournament(self) -> None:
        """Most often, the players of the matches waiting in their threads check in (the game
        starts); else a tournament opens in a channel, 2 to 4 entrants (members, or teams of
        two) sign up, and most often it starts."""
        rng = self.rng
        waiting = self.check_ins()
        if waiting and rng.random() < 0.8:
            await self.check_in(waiting)
            return
        place = rng.choice(self.channels)
        organiser = rng.choice(self.members)
        team_size = rng.choice([1, 1, 2])
        args: dict[str, Any] = {
            "name": "Cup",
            "format": rng.choice(["swiss", "round_robin", "elimination"]),
            "team_size": team_size,
        }
        if rng.random() < 0.3:
            args["time_limit"] = rng.choice(["1m", "10m"])
        if rng.random() < 0.3:
            args["show_up"] = rng.choice(["1m", "15m"])
        opened = await self.act(
            f"tournament {args} in #{place.name} by {organiser.name}; ",
            organiser.slash(place, "tournament-admin create", **args),
        )
        if opened is None or opened.response is None or opened.ephemeral:
            return
        people = rng.sample(self.members, team_size * rng.randint(2, 4))
        for first in range(0, len(people), team_size):
            who, *partners = people[first : first + team_size]
            if partners:
                await self.act(
                    f"{who.name} joins with {partners[0].name}; ",
                    who.slash(place, "tournament join", partner=partners[0]),
                )
            else:
                await self.act(f"{who.name} joins; ", who.click(opened.response, label="Join"))
        if rng.random() < 0.85:
            await self.act("start; ", organiser.slash(place, "tournament-admin start"))
            await self.check_in(self.check_ins())

    def check_ins(self) -> list[tuple[Any, Any, str]]:
        """(player, match message, custom id) for each player a match message waits for: its
        first line names the sides, its "Here:" line who checked in."""
        backend = self.env.backend
        out = []
        for place in self.places():
            for message in list(backend.messages.get(place.id, {}).values()):
                ids = [
                    c["custom_id"]
                    for c in _walk(message.components)
                    if c.get("custom_id", "").startswith("tour:here:") and not c.get("disabled")
                ]
                if not ids:
                    continue
                first, *rest = (message.content or "").split("\n")
                here = " ".join(line for line in rest if line.startswith("Here:"))
                for user_id in MENTION.findall(first):
                    player = self.member(int(user_id))
                    if player is not None and f"<@{user_id}>" not in here:
                        out.append((player, message, ids[0]))
        return out

    async def check_in(self, waiting: list[tuple[Any, Any, str]]) -> None:
        for who, message, custom_id in waiting:
            await self.act(
                f"{who.name} is here ({custom_id}); ",
                who.click(ResponseMessage(self.env, message), custom_id=custom_id),
            )

    def random_member(self) -> Any:
        """Mostly someone seated in a live game, sometimes anyone."""
        seated = [
            m
            for r in self.live_games()
            for s in r.seats
            if (m := self.member(s.user_id)) is not None
        ]
        if seated and self.rng.random() < 0.7:
            return self.rng.choice(seated)
        return self.rng.choice(self.members)

    def slash_args(self, command: str) -> dict[str, Any] | None:
        """Plausible or hostile arguments for ``command`` (None: not this time)."""
        rng = self.rng
        games = self.live_games()
        record = rng.choice(games) if games else None
        if command == "sequence play":
            card = rng.choice(ALL_CARDS) if rng.random() < 0.8 else rng.choice(HOSTILE)
            if record is not None and rng.random() < 0.5:
                hand = record.game.hands[rng.randrange(len(record.seats))]
                card = rng.choice(hand) if hand else card
            space = space_name(rng.randrange(100)) if rng.random() < 0.8 else rng.choice(HOSTILE)
            return {"card": card, "space": space}
        if command == "sequence kick":
            pick = rng.random()
            if pick < 0.4:
                return {"player": rng.choice(self.members)}
            if pick < 0.8:
                return {"computer": rng.choice(["Ada", "1", "bot", *HOSTILE[:4]])}
            return {} if pick < 0.9 else {"player": rng.choice(self.members), "computer": "Ada"}
        if command == "sequence team":
            return {"player": rng.choice(self.members), "team": rng.randint(0, 2)}
        if command == "sequence addbot":
            args: dict[str, Any] = {"level": rng.choice(self.levels)}
            if rng.random() < 0.5:
                args["team"] = rng.randint(0, 2)
            return args
        if command == "sequence tabletalk":
            return {"team": rng.randint(0, 2)}
        if command == "sequence-me notify":
            return {"setting": rng.choice(["on", "off"])}
        if command in ("sequence stats", "sequence history"):
            return {"player": rng.choice(self.members)} if rng.random() < 0.5 else {}
        if command == "sequence leaderboard":
            return {"page": rng.choice([1, 2, 0, -5, 10**6])} if rng.random() < 0.6 else {}
        if command == "sequence replay":
            game = record.id if record else 1
            return {"game": rng.choice([game, game - 1, 0, -3, 10**9, 2**40])}
        if command == "tournament-admin create":
            return {
                "name": rng.choice(["Cup", "x" * 60, "<@&1> cup", "🏆"]),
                "format": rng.choice(["swiss", "round_robin", "elimination"]),
                "team_size": rng.choice([1, 1, 2]),
                **({"time_limit": rng.choice(["2m", "nope"])} if rng.random() < 0.3 else {}),
                **({"show_up": rng.choice(["1m", "15m", "0"])} if rng.random() < 0.3 else {}),
            }
        if command == "tournament join":
            return {"partner": rng.choice(self.members)} if rng.random() < 0.3 else {}
        if command == "tournament-admin report":
            args = {"match": rng.randint(0, 12)}
            if rng.random() < 0.5:
                args["winner"] = rng.choice(self.members)
            elif rng.random() < 0.5:
                args["draw"] = True
            return args
        if command == "tournament-admin drop":
            return {"player": rng.choice(self.members)}
        if command == "sequence new":
            return {"teams": rng.choice([0, 2, 3])} if rng.random() < 0.5 else {}
        return {}

    COMMANDS = (
        "sequence new", "sequence join", "sequence leave", "sequence start", "sequence kick",
        "sequence team", "sequence addbot", "sequence hand", "sequence play", "sequence board",
        "sequence status", "sequence rules", "sequence tabletalk", "sequence resign",
        "sequence cancel", "sequence hint", "sequence-me notify", "sequence mygames",
        "sequence undo", "sequence draw", "sequence stats", "sequence leaderboard",
        "sequence history", "sequence replay", "tournament-admin create", "tournament join",
        "tournament leave", "tournament-admin start", "tournament-admin report",
        "tournament-admin drop", "tournament-admin end", "tournament standings",
    )  # fmt: skip

    async def do_slash(self) -> None:
        rng = self.rng
        command = rng.choice(self.COMMANDS)
        args = self.slash_args(command) or {}
        who = self.random_member()
        place = rng.choice(self.places())
        shown = {k: getattr(v, "name", v) for k, v in args.items()}
        await self.act(
            f"{who.name} in #{place.name}: /{command} {shown}", who.slash(place, command, **args)
        )

    def visible(self, kinds: tuple[int, ...]) -> list[tuple[Any, Any, dict[str, Any]]]:
        """(member or user, message, component) for every enabled component of ``kinds`` that
        someone can see."""
        backend = self.env.backend
        out = []
        for place in self.places():
            for message in list(backend.messages.get(place.id, {}).values()):
                items = [c for c in _walk(message.components) if c.get("type") in kinds]
                if not items:
                    continue
                viewers = self.members
                if message.is_ephemeral:
                    viewers = [m for m in self.members if message.visible_to(m.id)]
                for item in items:
                    if not item.get("disabled"):
                        out.extend((v, message, item) for v in viewers)
        for user in self.users:
            for message in _dm_messages(backend, user.id):
                for item in _walk(message.components):
                    if item.get("type") in kinds and not item.get("disabled"):
                        out.append((user, message, item))
        return out

    async def do_click(self) -> None:
        choices = self.visible((2,))
        if not choices:
            return
        # The newest messages matter most; old ones still get clicked.
        who, message, item = self.rng.choice(choices[-40:] if self.rng.random() < 0.6 else choices)
        custom_id = item.get("custom_id")
        if not custom_id:
            return
        await self.act(
            f"{who.name} clicks {item.get('label')!r} ({custom_id}) on message {message.id}",
            who.click(ResponseMessage(self.env, message), custom_id=custom_id),
        )

    async def do_select(self) -> None:
        choices = self.visible((3,))
        if not choices:
            return
        who, message, item = self.rng.choice(choices)
        values = [o["value"] for o in item.get("options", [])]
        if not values:
            return
        value = self.rng.choice(values)
        await self.act(
            f"{who.name} picks {value!r} in {item.get('custom_id')} on message {message.id}",
            who.select(
                ResponseMessage(self.env, message), [value], custom_id=item.get("custom_id")
            ),
        )

    async def do_talk(self) -> None:
        rng = self.rng
        games = self.live_games()
        place = self.place_of(rng.choice(games).channel_id) if games else rng.choice(self.channels)
        if place is None:
            return
        speaker, caller = self.random_member(), self.random_member()
        self.note(f"{speaker.name} hints in #{place.name}; ")
        try:
            hint = await speaker.send(place, "play the seven of spades!")
        except simcord.SetupError:
            return
        await self.act(
            f"{caller.name} reports table talk",
            caller.context_menu(place, "Report table talk", hint),
        )

    async def do_time(self) -> None:
        seconds = self.rng.choice(JUMPS)
        self.note(f"time +{seconds}s")
        await self.env.advance_time(seconds)

    async def do_restart(self) -> None:
        self.note("restart")
        await self.bot.close()  # the old process is gone (its store's thread too)
        await self.env.restart_bot(self.on_virtual_time(self.make_bot()))

    # ------------------------------------------------------------------ liveness
    async def play_out(self, max_moves: int = 800) -> None:
        """Every live game is played on with legal moves only; each must end, unless its host
        turned the endless-play guard off in a classic game (then nothing promises an end: a
        quarter of ``max_moves`` is played and checked)."""
        for record in self.live_games():
            settings = record.game.settings
            ends = settings.endless_play_guard or settings.preset != "classic"
            for _ in range(max_moves if ends else max_moves // 4):
                self._action = f"play out game {record.id}: "
                record = self.bot.games.records.get(record.id, record)
                if record.game.is_over() or record.id not in self.bot.games.records:
                    break
                before = len(record.game.moves)
                self._results = []
                self._faulted = False
                moved = await self.legal_move(record)
                if not moved and len(record.game.moves) == before:  # a computer waits: time
                    await self.env.advance_time(3601)
                await self.check()
            else:
                if ends:
                    self.find("no-end", f"game {record.id} did not end in {max_moves} legal moves")

    # ------------------------------------------------------------------ invariants
    def find(self, kind: str, detail: str) -> None:
        self.findings.append(
            Finding(self.seed, self.step_number, kind, detail, self._action, self._faulted)
        )

    async def check(self) -> None:
        """Every invariant, after a step."""
        self._remember_hands()
        for what, result in self._results:
            if not result.acknowledged and result.modal is None:
                self.find("unanswered", what)
        for error in self.env.errors_since(self._error_cursor):
            self.find("exception", f"{type(error).__name__}: {error}")
        self._error_cursor = self.env.error_cursor
        self._check_logs()
        self._check_messages()
        await self._check_store()
        self._check_boards()

    def _remember_hands(self) -> None:
        for record in self.bot.games.records.values():
            for seat, hand in enumerate(record.game.hands):
                if not record.seats[seat].is_computer and len(hand) >= 3:
                    self._hands[(record.id, seat)] = (record.seats[seat].user_id, list(hand))

    def _check_logs(self) -> None:
        new = self.logs.records[self._log_cursor :]
        self._log_cursor = len(self.logs.records)
        lines = [hand_line(hand) for _, hand in self._hands.values()]
        for record in new:
            text = record.getMessage()
            if record.levelno >= logging.ERROR:
                self.find(
                    "error-log", f"{record.name}: {text} {record.exc_info and record.exc_info[1]!r}"
                )
            if any(line in text for line in lines):
                self.find("hand-in-log", text)

    def _check_messages(self) -> None:
        backend = self.env.backend
        for channel_id, messages in list(backend.messages.items()):
            channel = backend.channels.get(channel_id)
            for message in list(messages.values()):
                key = (channel_id, message.id)
                signature = (
                    message.content,
                    repr(message.embeds),
                    repr(message.attachments),
                    repr(message.components),
                )
                if self._seen.get(key) == signature:
                    continue
                self._seen[key] = signature
                if message.author_id != self.bot.user.id:
                    continue
                text = _text_of(message)
                if SORRY in text:
                    self.find("sorry", f"message {message.id}: {message.content[:80]!r}")
                if channel is not None and channel.type == 1:  # a DM
                    viewers = set(channel.recipient_ids)
                elif message.is_ephemeral:
                    user = ((message.interaction_metadata or {}).get("user") or {}).get("id")
                    viewers = {int(user)} if user else set()
                else:
                    viewers = None  # everyone
                for (game_id, seat), (owner, hand) in self._hands.items():
                    if hand_line(hand) in text and viewers != {owner}:
                        self.find(
                            "hand-leak", f"game {game_id} seat {seat} in message {message.id}"
                        )
                if viewers is None and any(
                    a.get("filename") == "hand.png" for a in message.attachments
                ):
                    self.find("hand-leak", f"hand image in public message {message.id}")

    async def _check_store(self) -> None:
        db, games = self.bot.db, self.bot.games
        for record in list(games.records.values()):
            try:
                if not await db.games.verify(record.id):
                    self.find("replay", f"game {record.id}: its snapshot differs from its log")
                stored = await db.games.load(record.id)
            except Exception as error:
                self.find("store", f"game {record.id}: {type(error).__name__}: {error}")
                continue
            if stored.game.moves != record.game.moves or stored.status != record.status:
                self.find(
                    "memory",
                    f"game {record.id}: memory {len(record.game.moves)} moves {record.status}, "
                    f"store {len(stored.game.moves)} moves {stored.status}",
                )
        lobbies = await db.lobbies.list_all()
        active = {r.channel_id for r in games.records.values() if r.status == "active"}
        for lobby in lobbies:
            if lobby.channel_id in active:
                self.find(
                    "lobby-and-game", f"lobby {lobby.id} open beside a game in {lobby.channel_id}"
                )
        stored_active = await db.games.active()
        if {r.id for r in stored_active} != {
            r.id for r in games.records.values() if r.status == "active"
        }:
            self.find(
                "memory",
                f"active in store {sorted(r.id for r in stored_active)}, in memory "
                f"{sorted(r.id for r in games.records.values() if r.status == 'active')}",
            )

    def _check_boards(self) -> None:
        backend = self.env.backend
        for record in list(self.bot.games.records.values()):
            boards = []
            for message in backend.messages.get(record.channel_id, {}).values():
                for embed in message.embeds:
                    match = BOARD_TITLE.fullmatch(embed.get("title") or "")
                    if match and int(match[1]) == record.id:
                        boards.append((message.id, int(match[2]), message))
            if not boards:
                continue
            boards.sort()
            live = [
                m.id
                for _, _, m in boards[:-1]
                if m.id not in self._excused
                and any(not c.get("disabled") for c in _walk(m.components))
            ]
            if live and self._faulted:  # Discord refused to take its buttons off: so be it
                self._excused.update(live)
            elif live:
                self.find("boards", f"game {record.id}: older boards {live} have buttons")
            if record.game.is_over():
                continue
            _, shown, newest = boards[-1]
            moves = record.game.moves
            if shown > len(moves) or any(m.kind not in QUIET for m in moves[shown:]):
                wrong = f"newest board shows move {shown} of {len(moves)}"
            elif not newest.content.startswith(turn_line(record).split(" First forfeit")[0]):
                # (a table-talk penalty changes no chip and posts no board: the panel says it)
                wrong = f"newest board says {newest.content[:80]!r}"
            else:
                continue
            if self._faulted:  # Discord refused a board: the next one shows the game again
                self._behind[record.id] = (newest.id, len(moves))
                continue
            refused, count = self._behind.get(record.id, (None, 0))
            if (
                refused != newest.id
                or len(moves) < count  # undone since
                or any(m.kind not in QUIET for m in moves[count:])
            ):
                self.find("boards", f"game {record.id}: {wrong}")


def _walk(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for item in rows or []:
        out.append(item)
        out.extend(_walk(item.get("components", [])))
    return out


def _dm_messages(backend: Any, user_id: int) -> list[Any]:
    out = []
    for channel in backend.channels.values():
        if channel.type == 1 and user_id in channel.recipient_ids:
            out.extend(backend.messages.get(channel.id, {}).values())
    return out


def _text_of(message: Any) -> str:
    """Everything a message shows in words: content, embeds, alt texts, menu options."""
    parts = [message.content]
    for embed in message.embeds:
        parts += [embed.get("title") or "", embed.get("description") or ""]
        parts += [f"{f.get('name')} {f.get('value')}" for f in embed.get("fields", [])]
        parts.append((embed.get("footer") or {}).get("text") or "")
    parts += [a.get("description") or "" for a in message.attachments]
    for item in _walk(message.components):
        parts += [f"{o.get('label')} {o.get('description')}" for o in item.get("options", [])]
    return "\n".join(parts)
