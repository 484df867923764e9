"""A cluster: two bots, each in its own SimCord environment with its own shards (0 and 1 of 2),
on one real PostgreSQL. They play in their own guilds at once and nothing crosses over; a move
made from a DM on shard 0's process (which does not own the game) is made once, announced once
by the owner, and the next turn runs; the same move sent to both at once commits once."""

from __future__ import annotations

import asyncio
import random
import re
import signal
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import asyncpg
import discord
import pytest
from simcord.backend.models import Overwrite
from simcord.builders import ChannelHandle
from simcord.enums import ChannelType, OverwriteType

from bot.app import create_bot
from bot.game import Move, player_view, space_name
from bot.game.ai import choose_move
from bot.game.cards import is_jack
from bot.game.moves import PLAY
from bot.services.games import RACE_LOST, STALE
from bot.store.errors import StoreError
from bot.store.location import open_database
from bot.store.postgres import COUNT_LOCK, SHARD_LOCK
from bot.store.shards import shard_of

from .cluster_harness import Node, eventually, same_person
from .conftest import make_settings
from .e2e_driver import custom_ids, make_move, play_to_the_end
from .e2e_helpers import Table, open_and_start, seat_actor
from .engine_helpers import playable
from .helpers.tournament import anyone_may_organise


@pytest.fixture
def pg_url(pg_database_url: str) -> str:
    """Several processes at once: a database of their own (their shards' advisory locks and
    their ``NOTIFY`` channels are per database)."""
    return pg_database_url


@pytest.fixture
async def nodes(pg_url: str, tmp_path: Path) -> AsyncIterator[tuple[Node, Node]]:
    """Process 0 (shard 0 of 2: DMs reach it) and process 1 (shard 1 of 2)."""
    started: list[Node] = []
    try:
        for shard in (0, 1):
            settings = make_settings(
                tmp_path, database_url=pg_url, shard_count=2, shard_ids=(shard,)
            )
            started.append(await Node(settings).start())
        yield started[0], started[1]
    finally:
        for node in started:
            await node.stop()


async def table_on(node: Node, shard: int, names: list[str]) -> Table:
    """A guild on ``shard`` with a #sequence channel and its members, in ``node``'s Discord."""

    async def build(env: Any) -> Table:
        # The environments share nothing: a clock apart, their channels get other ids.
        await env.advance_time(1 + shard)
        guild = env.create_guild(f"Club {shard}", shard_id=shard)
        channel = guild.create_text_channel("sequence")
        players = [guild.add_member(env.create_user(name)) for name in names]
        return Table(env, guild, channel, players)

    return await node.run(build)


def boards(table: Table) -> list[Any]:
    return [m for m in table.channel.history() if m.attachments]


def posted_to(env: Any) -> set[int]:
    """The channels a bot posted messages to."""
    found = set()
    for request in env.http_requests:
        match = re.fullmatch(r"/channels/(\d+)/messages", str(request.path))
        if request.method == "POST" and match:
            found.add(int(match.group(1)))
    return found


@pytest.mark.slow
async def test_two_processes_play_their_own_guilds_at_once(nodes) -> None:
    zero, one = nodes
    t0 = await table_on(zero, 0, ["ann", "abe"])
    t1 = await table_on(one, 1, ["bea", "bob"])
    r0, r1 = await asyncio.gather(
        zero.run(lambda env: open_and_start(t0, seed=3)),
        one.run(lambda env: open_and_start(t1, seed=4)),
    )
    assert set(zero.bot.games.records) == {r0.id} and set(one.bot.games.records) == {r1.id}
    await asyncio.gather(
        zero.run(lambda env: play_to_the_end(t0, r0, seed=1)),
        one.run(lambda env: play_to_the_end(t1, r1, seed=2)),
    )
    db = one.bot.db
    for table, record in ((t0, r0), (t1, r1)):
        stored = await one.run(lambda env, r=record: db.games.load(r.id))
        assert stored.status == "finished" and stored.game.moves == record.game.moves
        assert await one.run(lambda env, r=record: db.results.get(r.id)) is not None
        assert len(boards(table)) >= len(record.game.moves)  # a board per move, nothing lost
    dms = {c for env in (zero.env, one.env) for c in posted_to(env)} - {
        t0.channel.id,
        t1.channel.id,
    }
    assert posted_to(zero.env) <= {t0.channel.id, *dms}  # never in the other's guild
    assert posted_to(one.env) <= {t1.channel.id, *dms}


async def turn_dm_on(node: Node, record: Any, mover: Any) -> Any:
    """The turn DM of ``record`` sent by ``node``, a process that does not serve the game, to
    the player to move (``mover``, as the other process's Discord knows them): that person in
    ``node``'s Discord."""

    async def same_dm(env: Any) -> Any:
        person = same_person(env, mover.id, mover.name)
        foreign = await env.bot.games.fetch(record.id)
        text = f"🎲 Your turn in Sequence game #{record.id}"
        turns = env.bot.get_cog("Turns")
        await turns.direct_message(foreign, foreign.game.turn, text, panel_game=foreign.game)
        return person

    return await node.run(same_dm)


async def dm_game_on_one(zero: Node, one: Node) -> tuple[Table, Any, Any, Any]:
    """A game on process 1's guild; the player to move has turn DMs on. Returns the table, the
    record, that player in process 1's Discord and the same person in process 0's, whose DM
    holds the same panel (Discord routes a click on a DM to shard 0's process)."""
    table = await table_on(one, 1, ["bea", "bob"])

    async def start(env: Any) -> Any:
        for player in table.players:
            await player.slash(table.channel, "sequence-me notify", setting="on")
        return await open_and_start(table, seed=5)

    record = await one.run(start)
    mover = seat_actor(table, record, record.game.turn)
    sent_by_owner = mover.user.dm_channel.last_message
    assert "Your turn" in sent_by_owner.content and sent_by_owner.attachments

    person = await turn_dm_on(zero, record, mover)
    assert custom_ids(person.dm_channel.last_message) == custom_ids(sent_by_owner)
    return table, record, mover, person


async def choose_on_dm(zero: Node, person: Any, game_id: int, card: str, space: int) -> str:
    """Choose ``card`` on the DM panel in process 0's Discord; the Play button's custom id."""

    async def choose(env: Any) -> str:
        panel = person.dm_channel.last_message
        select = next(i for i in custom_ids(panel) if i.startswith(f"seq:card:{game_id}:"))
        await person.select(panel, [card], custom_id=select)
        panel = person.dm_channel.last_message
        return next(
            i
            for i in custom_ids(panel)
            if i.startswith(f"seq:go:{game_id}:") and i.endswith(f":{card}:{space}")
        )

    return await zero.run(choose)


async def test_a_move_from_a_dm_on_the_other_process(nodes) -> None:
    zero, one = nodes
    table, record, mover, person = await dm_game_on_one(zero, one)
    _, card, space = playable(record.game)
    before = len(boards(table))
    go = await choose_on_dm(zero, person, record.id, card, space)
    answer = await zero.run(lambda env: person.click(person.dm_channel.last_message, custom_id=go))
    assert answer.acknowledged and "Done" in person.dm_channel.last_message.content
    assert zero.bot.games.records == {}  # process 0 made it, and serves nothing of guild 1
    assert posted_to(zero.env) == {person.dm_channel.id}  # no board from process 0
    # The owner hears of it, reloads the game, posts the board and runs the next turn.
    await eventually(one, lambda env: len(record.game.moves) == 1 and len(boards(table)) > before)
    assert [(m.kind, m.card, m.space) for m in record.game.moves] == [("play", card, space)]
    nxt = seat_actor(table, record, record.game.turn)
    assert nxt is not mover
    await eventually(one, lambda env: "Your turn" in (nxt.user.dm_channel.last_message.content))
    # heard live: nothing of it is left undelivered in the outbox (no second DM at a restart)
    await one.run(lambda env: env.bot.bus.idle())
    assert await one.run(lambda env: env.bot.db.outbox.undelivered(record.id)) == []
    log = await one.run(lambda env: env.bot.db.games.log(record.id))
    assert [(e.number, e.move.card) for e in log] == [(0, card)]  # made once
    await asyncio.sleep(0.3)
    await eventually(one, lambda env: True)
    assert len(boards(table)) == before + 1  # announced once
    # The next turn runs on the owner: its player moves in the channel as usual.
    _, card2, space2 = playable(record.game)
    await one.run(
        lambda env: nxt.slash(table.channel, "sequence play", card=card2, space=space_name(space2))
    )
    assert len(record.game.moves) == 2 and len(boards(table)) == before + 2


async def test_the_same_move_on_both_processes_at_once_commits_once(nodes) -> None:
    zero, one = nodes
    table, record, mover, person = await dm_game_on_one(zero, one)
    _, card, space = playable(record.game)
    before = len(boards(table))
    go = await choose_on_dm(zero, person, record.id, card, space)
    from_dm, from_server = await asyncio.gather(
        zero.run(lambda env: person.click(person.dm_channel.last_message, custom_id=go)),
        one.run(
            lambda env: mover.slash(
                table.channel, "sequence play", card=card, space=space_name(space)
            )
        ),
    )
    await eventually(one, lambda env: len(boards(table)) > before)
    log = await one.run(lambda env: env.bot.db.games.log(record.id))
    assert [(e.number, e.move.card, e.move.space) for e in log] == [(0, card, space)]
    answers = [
        *(m.content for m in [from_dm.response, *from_dm.followups] if m is not None),
        *(m.content for m in [from_server.response, *from_server.followups] if m is not None),
    ]
    refused = [a for a in answers if RACE_LOST in a or STALE in a or "earlier turn" in a]
    made = [a for a in answers if "Done" in a]
    assert len(refused) == 1 and len(made) == 1, answers  # the loser is told
    await asyncio.sleep(0.3)
    await eventually(one, lambda env: True)
    assert len(boards(table)) == before + 1 and len(record.game.moves) == 1


ROOT = Path(__file__).resolve().parent.parent


async def node_process(url: str, shard: int, seed: int) -> tuple[Any, list[str]]:
    """Start ``tests.cluster_node`` (the bot on ``shard``) as a process; its output lines."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.cluster_node",
        url,
        str(shard),
        str(seed),
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
    )
    lines: list[str] = []

    async def read() -> None:
        assert proc.stdout is not None
        while line := await proc.stdout.readline():
            if line.endswith(b"\n"):
                lines.append(line.decode().strip())

    proc.reader = asyncio.create_task(read())  # type: ignore[attr-defined]
    return proc, lines


async def wait_for(lines: list[str], predicate: Any, seconds: float = 60.0) -> None:
    async with asyncio.timeout(seconds):
        while not any(predicate(line) for line in lines):
            await asyncio.sleep(0.02)


@pytest.mark.slow
async def test_a_killed_process_resumes_its_own_games_and_the_other_plays_on(
    pg_url: str, tmp_path: Path
) -> None:
    settings = make_settings(tmp_path, database_url=pg_url, shard_count=2, shard_ids=(0,))
    zero = await Node(settings).start()
    try:
        t0 = await table_on(zero, 0, ["ann", "abe"])
        r0 = await zero.run(lambda env: open_and_start(t0, seed=3))
        proc, lines = await node_process(pg_url, 1, 7)
        await wait_for(lines, lambda line: line.startswith("m ") and int(line.split()[2]) >= 4)
        proc.kill()  # SIGKILL, mid-game
        await proc.wait()
        await proc.reader
        assert proc.returncode == -signal.SIGKILL and not any(x.startswith("f") for x in lines)
        game_id = int(lines[0].split()[1])
        acked = max(int(x.split()[2]) for x in lines if x.startswith("m ")) + 1
        # Process 0 plays its own game on, to the end, while process 1 is down.
        await zero.run(lambda env: play_to_the_end(t0, r0, seed=1))
        assert r0.game.is_over() and game_id not in zero.bot.games.records
        # Process 1 restarts: it resumes its game (every acknowledged move kept) and ends it.
        proc, lines = await node_process(pg_url, 1, 8)
        await wait_for(lines, lambda line: line.startswith("f "), seconds=180)
        assert await proc.wait() == 0
        kind, resumed, moves = lines[0].split()
        assert kind == "r" and int(resumed) == game_id and int(moves) >= acked
        stored = await zero.run(lambda env: env.bot.db.games.load(game_id))
        assert stored.status == "finished" and stored.game.is_over()
        assert await zero.run(lambda env: env.bot.db.results.get(game_id)) is not None
        log = await zero.run(lambda env: env.bot.db.games.log(game_id))
        live = [e for e in log if e.undone_at is None]
        assert [e.number for e in live] == list(range(len(stored.game.moves)))
    finally:
        await zero.stop()


@pytest.mark.slow
async def test_a_game_won_from_a_dm_while_its_owner_is_down_is_announced_at_its_restart(
    nodes, pg_url: str, tmp_path: Path
) -> None:
    """The winning move is made from a DM on process 0 while process 1, which owns the game,
    is down: the owner no longer serves a finished game, yet at its restart it posts the final
    board (process 0 keeps it for it, in the move's transaction), once."""
    zero, one = nodes
    table, record, _, _ = await dm_game_on_one(zero, one)
    rng = random.Random(3)

    def wins(game: Any, move: Move) -> bool:
        after = game.copy()
        after.push(move)
        return after.is_over()

    async def to_the_winning_move(env: Any) -> Move:
        while True:
            game = record.game
            for move in game.legal_moves:
                if move.kind == PLAY and not is_jack(move.card) and wins(game, move):
                    return move
            move = choose_move(player_view(game, game.turn), "easy", rng)
            if wins(game, move):
                move = next(m for m in game.legal_moves if not wins(game, m))
            await make_move(table, record, game.turn, move)

    final = await one.run(to_the_winning_move)
    seat = record.game.turn
    winner = record.seats[seat]

    async def dm_panel(env: Any) -> Any:
        person = same_person(env, winner.user_id, winner.name)
        foreign = await env.bot.games.fetch(record.id)
        await env.bot.get_cog("Turns").direct_message(
            foreign, seat, "turn", panel_game=foreign.game
        )
        return person

    person = await zero.run(dm_panel)
    before = len(boards(table))
    await one.run(lambda env: env.bot.close())  # the owner is down
    go = await choose_on_dm(zero, person, record.id, final.card or "", final.space or 0)
    await zero.run(lambda env: person.click(person.dm_channel.last_message, custom_id=go))
    assert "Done" in person.dm_channel.last_message.content
    assert len(boards(table)) == before
    settings = make_settings(tmp_path, database_url=pg_url, shard_count=2, shard_ids=(1,))
    await one.run(lambda env: env.restart_bot(create_bot(settings)))
    await eventually(one, lambda env: len(boards(table)) > before)
    await asyncio.sleep(0.3)
    await eventually(one, lambda env: True)
    assert len(boards(table)) == before + 1
    assert "wins" in boards(table)[-1].content
    async def held(env: Any) -> list[Any]:
        return env.bot.bus.holding(record.id)

    kept = await one.run(held)
    assert kept == []


async def test_a_restart_ends_no_table_of_another_process(nodes, pg_url: str, tmp_path: Path):
    """At READY a process ends the tables of servers that removed the bot while it was down,
    judged by its own guilds: those of its own shards only. Process 0 restarts; process 1's
    game, lobby and tournament (a guild process 0 never sees) go on."""
    zero, one = nodes
    table = await table_on(one, 1, ["bea", "bob", "cal"])

    async def open_tables(env: Any) -> Any:
        record = await open_and_start(Table(env, table.guild, table.channel, table.players[:2]))
        room = table.guild.create_text_channel("lobby")
        await table.players[2].slash(room, "sequence new")
        hall = table.guild.create_text_channel("hall")
        anyone_may_organise(env, table.guild)
        await table.players[2].slash(hall, "tournament-admin create", name="A", format="swiss")
        return record, room.id, hall.id

    record, room, hall = await one.run(open_tables)
    settings = make_settings(tmp_path, database_url=pg_url, shard_count=2, shard_ids=(0,))

    async def restart(env: Any) -> None:
        await env.bot.close()
        await env.restart_bot(create_bot(settings))
        await env.settle()

    await zero.run(restart)
    db = zero.bot.db
    assert (await zero.run(lambda env: db.games.load(record.id))).status == "active"
    assert await zero.run(lambda env: db.lobbies.get_for_channel(room)) is not None
    assert await zero.run(lambda env: db.tournaments.open_in_channel(hall)) is not None


async def test_a_turn_begun_from_a_dm_while_its_owner_is_down_is_announced_at_its_restart(
    nodes, pg_url: str, tmp_path: Path
) -> None:
    """A move is made from a DM on process 0 while process 1, which owns the game, is down:
    at its restart the owner posts the board, and the next player, who asked for turn DMs,
    gets theirs, once (before, the turn's DM was never sent)."""
    zero, one = nodes
    table, record, mover, person = await dm_game_on_one(zero, one)
    seat, card, space = playable(record.game)
    nxt = seat_actor(table, record, (seat + 1) % len(record.seats))
    assert nxt is not mover

    def turn_dms() -> int:
        return sum("Your turn" in m.content for m in nxt.user.dm_channel.history())

    before = turn_dms()
    await one.run(lambda env: env.bot.close())  # the owner is down
    go = await choose_on_dm(zero, person, record.id, card, space)
    await zero.run(lambda env: person.click(person.dm_channel.last_message, custom_id=go))
    assert "Done" in person.dm_channel.last_message.content
    settings = make_settings(tmp_path, database_url=pg_url, shard_count=2, shard_ids=(1,))
    await one.run(lambda env: env.restart_bot(create_bot(settings)))
    await eventually(one, lambda env: turn_dms() > before)
    await asyncio.sleep(0.3)
    await eventually(one, lambda env: True)
    assert turn_dms() == before + 1
    await one.run(lambda env: env.bot.bus.idle())
    assert await one.run(lambda env: env.bot.db.outbox.undelivered(record.id)) == []


async def test_a_process_on_a_shard_another_runs_is_refused_at_start(nodes, pg_url, tmp_path):
    """SHARD_IDS overlapping by mistake, a SHARD_COUNT changed on one process only, or a
    second single process on the cluster's database: each would load, time and post the same
    games twice. The process starting last stops at once, with one line saying why, before it
    loads anything; the running ones play on."""
    _, one = nodes
    t1 = await table_on(one, 1, ["bea", "bob"])
    record = await one.run(lambda env: open_and_start(t1, seed=4))
    for count, ids, words in (
        (2, (1,), "shard 1 already runs in another process"),
        (2, (0, 1), "shards 0 and 1 already run in another process"),
        (3, (2,), "Another process runs with SHARD_COUNT=2"),
        (None, None, "Another process runs with SHARD_COUNT=2"),
    ):
        settings = make_settings(tmp_path, database_url=pg_url, shard_count=count, shard_ids=ids)
        with pytest.raises(StoreError) as refused:
            await Node(settings).start()
        assert words in str(refused.value) and "\n" not in str(refused.value)
    await one.run(lambda env: play_to_the_end(t1, record, seed=2))
    assert record.game.is_over() and len(boards(t1)) >= len(record.game.moves)


async def test_a_process_whose_shards_were_taken_while_it_was_disconnected_stops(nodes, pg_url):
    """Process 1's connection to the database drops (a network blip), and before it is back
    another process takes shard 1 (an admin started a replacement, say). Process 1 tried to
    claim its shards again every 30 s for ever while it went on serving them: two processes
    timed and posted the same games. Now it stops, saying why (``sequence-bot run`` prints it
    and exits with a failure); process 0 plays on."""
    zero, one = nodes
    replacement = await asyncpg.connect(pg_url)
    try:
        await replacement.execute(
            "SELECT pg_terminate_backend($1)", one.bot.db._listener.get_server_pid()
        )
        await replacement.execute("SELECT pg_advisory_lock_shared($1, 2)", COUNT_LOCK)
        async with asyncio.timeout(5):  # the dropped session's locks go as it ends
            while not await replacement.fetchval(
                "SELECT pg_try_advisory_lock($1, 1)", SHARD_LOCK
            ):
                await asyncio.sleep(0.01)
        async with asyncio.timeout(15):  # it reconnects after a pause of 1 s
            while not one.bot.is_closed():
                await asyncio.sleep(0.05)
    finally:
        await replacement.close()
    assert "shard 1 already runs in another process" in str(one.bot.stopped_because)
    assert zero.bot.stopped_because is None and not zero.bot.is_closed()


def the_same_discord(settings: Any, tables: list[Table]) -> Callable[[Any], Awaitable[None]]:
    """A new process's Discord holds the servers of ``tables`` (one Discord for every process;
    in tests, each node has its own): each server of its shards again, with a channel in which
    its games, in the store, now are. Else, at READY, the bot would end the games of servers
    it is not in."""
    count = settings.shard_count or 1
    mine = set(settings.shard_ids or range(count))

    async def build(env: Any) -> None:
        db = await open_database(settings.database_location())
        try:
            used = set(await db.read(_channels))
            for table in tables:
                shard = shard_of(table.guild.id, count)
                if shard not in mine:
                    continue
                guild = env.create_guild(table.guild.name, id=table.guild.id, shard_id=shard)
                channel = guild.create_text_channel("sequence")
                while channel.id in used:  # each node's Discord numbers its channels afresh
                    channel = guild.create_text_channel("sequence")
                used.add(channel.id)
                await db.run(_move_channel, table.channel.id, channel.id)
        finally:
            await db.close()

    return build


async def _channels(conn: Any) -> list[int]:
    return [row[0] for row in await conn.fetchall("SELECT channel_id FROM games")]


async def _move_channel(conn: Any, old: int, new: int) -> None:
    await conn.execute("UPDATE games SET channel_id = ? WHERE channel_id = ?", (new, old))


async def test_after_a_reshard_every_active_game_has_exactly_one_owner(
    nodes, pg_url, tmp_path
) -> None:
    """Games in guilds on each shard of 2; every process stopped, SHARD_COUNT raised to 3 and
    split over two processes (0-1 and 2): each active game is served by the process that runs
    its guild's new shard, and by no other."""
    zero, one = nodes
    tables = [await table_on(zero, 0, [f"a{i}", f"b{i}"]) for i in range(3)]
    tables += [await table_on(one, 1, [f"c{i}", f"d{i}"]) for i in range(3)]
    ids = {}
    for table in tables:
        node = zero if table.guild.id >> 22 & 1 == 0 else one
        record = await node.run(lambda env, t=table: open_and_start(t, seed=7))
        ids[record.id] = table.guild.id
    await zero.stop()
    await one.stop()
    started = []
    try:
        for shards in ((0, 1), (2,)):
            settings = make_settings(tmp_path, database_url=pg_url, shard_count=3, shard_ids=shards)
            started.append(await Node(settings).start(the_same_discord(settings, tables)))
        served = [set(node.bot.games.records) for node in started]
        assert served[0] | served[1] == set(ids) and not served[0] & served[1]
        for game_id, guild_id in ids.items():
            assert game_id in served[shard_of(guild_id, 3) // 2]
    finally:
        for node in started:
            await node.stop()


async def test_a_second_bot_on_the_same_sqlite_file_is_refused_at_start(tmp_path) -> None:
    """Scaling by starting another process on the same SQLite file would serve every game
    twice: the second bot stops at start, saying the file is another bot's and that several
    processes need PostgreSQL; once the first stops, a bot starts on the file and resumes."""
    settings = make_settings(tmp_path)
    first = await Node(settings).start()
    try:
        table = await table_on(first, 0, ["ann", "abe"])
        record = await first.run(lambda env: open_and_start(table, seed=3))
        with pytest.raises(StoreError) as refused:
            await Node(settings).start()
        assert str(refused.value) == (
            f"Another bot runs on the database {settings.database_path}: one bot per SQLite "
            "file (several processes need PostgreSQL, see the README)."
        )
        assert first.bot.games.records.keys() == {record.id}
    finally:
        await first.stop()
    second = await Node(settings).start(the_same_discord(settings, [table]))
    try:
        assert second.bot.games.records.keys() == {record.id}
    finally:
        await second.stop()


async def test_mygames_in_a_dm_names_the_server_of_a_game_another_process_serves(nodes) -> None:
    """``/sequence mygames`` in a DM reaches process 0; the game is process 1's (its guild is on
    shard 1, which process 0's gateway never shows it). The listing still names the server, as
    it does for process 0's own (two servers' channels may share a name). Before, nothing."""
    zero, one = nodes
    table, record, _mover, person = await dm_game_on_one(zero, one)

    async def mygames(env: Any) -> str:
        # One Discord seen by both processes: the guild is there, on a shard process 0 does
        # not run (so its gateway never sends it; its REST API answers for it).
        env.create_guild(table.guild.name, id=table.guild.id, shard_id=1)
        assert env.bot.get_guild(table.guild.id) is None
        answer = await person.slash("sequence mygames")
        assert answer.ephemeral
        return str(answer.response.content)

    listing = await zero.run(mygames)
    assert f"Game #{record.id} in <#{table.channel.id}> (on **Club 1**)" in listing, listing


#: Discord's error code of a locked thread.
LOCKED = 160005


async def dm_game_in_a_locked_thread_on_one(zero: Node, one: Node) -> tuple[Table, Any, Any, Any]:
    """A game in a private thread of process 1's guild (the bot without Manage Threads there);
    the player to move has its DM panel in process 0's Discord too. A moderator then locks the
    thread: process 1 (the owner) hears it and pauses the table. Returns the table (the
    thread), the record, that player in process 1's Discord and the same person in process 0's."""
    channel_table = await table_on(one, 1, ["bea", "bob"])

    async def start(env: Any) -> tuple[Table, Any]:
        deny = discord.PermissionOverwrite(manage_threads=False).pair()[1].value
        overwrite = Overwrite(env.bot.user.id, OverwriteType.MEMBER, allow=0, deny=deny)
        env.backend.set_overwrite(channel_table.channel.id, overwrite)
        host = channel_table.players[0]
        made = env.backend.create_thread(
            channel_table.channel.id, "game", host.id, type=ChannelType.PRIVATE_THREAD
        )
        for member in [p.id for p in channel_table.players[1:]] + [env.bot.user.id]:
            env.backend.add_thread_member(made.id, member)
        thread = ChannelHandle(env, channel_table.guild, made)
        table = Table(env, channel_table.guild, thread, channel_table.players)
        for player in table.players:
            await player.slash(channel_table.channel, "sequence-me notify", setting="on")
        return table, await open_and_start(table, seed=5)

    table, record = await one.run(start)
    mover = seat_actor(table, record, record.game.turn)

    person = await turn_dm_on(zero, record, mover)

    async def lock(env: Any) -> None:
        for method in ("POST", "PATCH"):  # Discord refuses the bot every post there
            env.inject_error(
                method,
                f"/channels/{table.channel.id}/messages*",
                status=403,
                code=LOCKED,
                times=None,
            )
        env.backend.edit_channel(table.channel.id, {}, thread_metadata={"locked": True})
        await env.settle()

    await one.run(lock)
    return table, record, mover, person


async def test_a_move_from_a_dm_on_the_other_process_at_a_locked_table_is_refused(nodes) -> None:
    """The pause was the owner's memory only: a move made from the turn DM's panel, which
    Discord hands to process 0 (not the game's owner), was saved and answered "✅ Done." at a
    table whose thread a moderator had locked. Now the owner stores the pause, and process 0
    refuses the move with the owner's own sentence (why, and what a moderator can do); nothing
    is saved. Unlocked, the owner clears it, and the same move from the DM is made."""
    zero, one = nodes
    table, record, mover, person = await dm_game_in_a_locked_thread_on_one(zero, one)
    db = one.bot.db
    _, card, space = playable(record.game)
    go = await choose_on_dm(zero, person, record.id, card, space)
    answer = await zero.run(lambda env: person.click(person.dm_channel.last_message, custom_id=go))
    owners = await one.run(
        lambda env: mover.slash(table.channel, "sequence play", card=card, space=space_name(space))
    )
    assert answer.ephemeral and owners.ephemeral
    text = answer.response.content
    assert "Done" not in text
    assert (
        text
        == owners.response.content
        == (
            f"⚠️ Game #{record.id} is paused: its thread <#{table.channel.id}> is locked, so I "
            "cannot post the board there. A moderator can unlock the thread: the game then carries "
            "on where it stopped (`/sequence board` there tries again at once). Nothing was "
            "played; your cards are kept."
        )
    )
    assert await one.run(lambda env: db.games.log(record.id)) == []  # nothing saved
    assert record.game.moves == [] and zero.bot.games.records == {}
    assert (await one.run(lambda env: db.games.load(record.id))).paused == LOCKED

    async def unlock(env: Any) -> None:
        env.backend.faults.clear()
        env.backend.edit_channel(table.channel.id, {}, thread_metadata={"locked": False})

    await one.run(unlock)
    await eventually(one, lambda env: record.paused is None)
    assert (await one.run(lambda env: db.games.load(record.id))).paused is None
    go = await choose_on_dm(zero, person, record.id, card, space)
    answer = await zero.run(lambda env: person.click(person.dm_channel.last_message, custom_id=go))
    assert "Done" in person.dm_channel.last_message.content
    await eventually(one, lambda env: len(record.game.moves) == 1)


async def test_a_server_setting_changed_in_one_process_is_in_force_in_the_other_at_once(
    nodes,
) -> None:
    """Issue #38: a server's settings are read from the store on each use (nothing caches
    them), so a change committed by one process is in force in the other at once, without a
    notification. Discord sends a server's commands to the process of its shard only, so the
    change made on process 0 is the service call its ``/sequence-admin set`` makes."""
    zero, one = nodes
    table = await table_on(one, 1, ["bea", "bob"])
    bea = table.players[0]

    async def admin_of(env: Any) -> Any:
        admins = table.guild.create_role(
            "Admins", permissions=discord.Permissions(manage_guild=True)
        )
        return table.guild.add_member(env.create_user("admin"), roles=[admins])

    admin = await one.run(admin_of)
    changed = await one.run(
        lambda env: admin.slash(
            table.channel, "sequence-admin set", setting="time_limit", value="2h"
        )
    )
    assert "**time_limit** for new tables: none → 2 h." in changed.response.content
    seen = await zero.run(lambda env: env.bot.server_settings.table_defaults(table.guild.id))
    assert seen.values["turn_time_limit"] == 7200 and "turn_time_limit" in seen.own

    change = await zero.run(
        lambda env: env.bot.server_settings.set(table.guild.id, "rated", "no", admin.id)
    )
    assert (change.before, change.after) == (True, False)
    opened = await one.run(lambda env: bea.slash(table.channel, "sequence new"))
    rules = next(f.value for f in opened.response.embeds[0].fields if f.name == "Rules")
    assert rules.endswith("\n⚙️ This server's defaults: time limit 2 h, rated no"), rules
    lobby = await one.run(lambda env: env.bot.db.lobbies.get_for_channel(table.channel.id))
    assert lobby.options.turn_time_limit == 7200 and not lobby.options.rated
    shown = await one.run(lambda env: admin.slash(table.channel, "sequence-admin settings"))
    assert "`rated`: **no** (this server)" in shown.response.content
