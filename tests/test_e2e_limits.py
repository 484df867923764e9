"""Cooldowns and caps through Discord: what one person or one channel may post, and what one
person or one server may have open at once. Time is SimCord's virtual clock."""

from __future__ import annotations

import asyncio
import os
import re
import sys
import threading
from typing import Any

import pytest
from simcord.builders import ChannelHandle

from bot.app import create_bot
from bot.config import Settings
from bot.game.ai import NoMoveError
from bot.game.ai import hint as suggest_move
from bot.services import computers
from bot.services.lobbies import Person
from bot.services.stats import ReplayInput
from cogs.hand import panel
from tests.helpers.tournament import announced, anyone_may_organise, started_cup

from .conftest import make_settings
from .e2e_helpers import make_table, open_and_start, seat_actor

WAIT = re.compile(r"try again in ((?:\d+ (?:days?|h|min|s) ?)+)\.")
UNITS = {"day": 86400, "days": 86400, "h": 3600, "min": 60, "s": 1}
#: The threads of asyncio's default executor, where boards and hands are drawn.
DEFAULT_THREADS = min(32, (os.cpu_count() or 1) + 4)


@pytest.fixture
def bot_settings(tmp_path) -> Settings:
    """Small limits, so that a test shows each one being reached."""
    return make_settings(
        tmp_path,
        user_rate_limit=(2, 30),
        channel_rate_limit=(3, 30),
        create_rate_limit=(3, 600),
        max_lobbies_per_user=2,
        max_lobbies_per_server=3,
        max_games_per_user=2,
        max_tournaments_per_user=1,
        max_tournaments_per_server=2,
    )


def waited(result: Any) -> int:
    """The seconds an ephemeral "try again in 9 min 58 s" answer asks to wait."""
    assert result.ephemeral, result.response.content
    found = WAIT.search(result.response.content)
    assert found, result.response.content
    parts = found.group(1).split()
    return sum(int(n) * UNITS[unit] for n, unit in zip(parts[::2], parts[1::2], strict=True))


# ---------------------------------------------------------------------- cooldowns
async def test_a_spectator_cannot_post_the_board_over_and_over(simcord_env) -> None:
    table = await make_table(simcord_env, ["alice", "bob", "watcher"])
    alice, bob, watcher = table.players
    table.players = [alice, bob]
    await open_and_start(table)
    channel = table.channel
    for _ in range(2):
        posted = await watcher.slash(channel, "sequence board")
        assert not posted.ephemeral and posted.response.attachments
    before = len(channel.history())
    refused = await watcher.slash(channel, "sequence board")
    wait = waited(refused)
    assert 0 < wait <= 30 and refused.response.content.startswith("⚠️ You used that too often")
    assert not refused.response.attachments
    assert len(channel.history()) == before  # nothing was posted

    # another person still may, until the channel's own limit (3 in 30 s) is spent
    assert not (await alice.slash(channel, "sequence board")).ephemeral
    busy = await bob.slash(channel, "sequence board")
    assert waited(busy) <= 30 and "in this channel" in busy.response.content

    # the limit lifts once the time has passed
    await simcord_env.advance_time(wait)
    again = await watcher.slash(channel, "sequence board")
    assert not again.ephemeral and again.response.attachments


async def test_status_has_its_own_cooldown(simcord_env) -> None:
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, _ = table.players
    await open_and_start(table)
    for _ in range(2):
        shown = await alice.slash(table.channel, "sequence status")
        assert "Game #" in shown.response.content
    assert waited(await alice.slash(table.channel, "sequence status")) <= 30
    # the board is another command: its own count
    assert not (await alice.slash(table.channel, "sequence board")).ephemeral


async def test_a_player_cannot_call_table_talk_over_and_over(simcord_env) -> None:
    table = await make_table(simcord_env, ["alice", "bob", "carol", "dave"])
    alice = table.players[0]
    await open_and_start(table)
    reports: list[Any] = []
    for _ in range(2):
        called = await alice.slash(table.channel, "sequence tabletalk", team=1)
        assert not called.ephemeral and "calls **table talk**" in called.response.content
        reports.append(called)
        # one call on a team at a time: she withdraws it, and may call again
        withdrawn = await alice.click(called.response, label="Withdraw (caller)")
        assert withdrawn.acknowledged and not withdrawn.ephemeral, withdrawn.response.content
    before = len(table.channel.history())
    refused = await alice.slash(table.channel, "sequence tabletalk", team=1)
    assert waited(refused) <= 30
    assert len(table.channel.history()) == before
    record = table.game()
    assert len(await simcord_env.bot.db.tabletalk.for_game(record.id)) == 2


async def test_refused_commands_do_not_spend_the_channels_uses(simcord_env) -> None:
    """Two members who do not play spam table-talk calls and draw offers, each refused: the
    players may still call table talk and offer a draw (the channel allows 3 in 30 s)."""
    table = await make_table(simcord_env, ["alice", "bob", "carol", "dave", "mal", "eve"])
    alice, bob, carol, dave, mal, eve = table.players
    table.players = [alice, bob, carol, dave]
    await open_and_start(table)
    channel = table.channel
    for outsider in (mal, eve):
        for _ in range(2):
            call = await outsider.slash(channel, "sequence tabletalk", team=1)
            assert "Only players of this game" in call.response.content, call.response.content
            offer = await outsider.slash(channel, "sequence draw")
            assert "not playing in this game" in offer.response.content, offer.response.content
    before = len(channel.history())
    called = await alice.slash(channel, "sequence tabletalk", team=1)
    assert not called.ephemeral and "calls **table talk**" in called.response.content
    offered = await bob.slash(channel, "sequence draw")
    assert not offered.ephemeral, offered.response.content
    assert len(channel.history()) == before + 2


async def test_a_player_cannot_ask_for_hints_over_and_over(simcord_env, monkeypatch) -> None:
    """Each hint is a computer player's search (up to COMPUTER_BUDGET_MS of CPU): it is limited
    like a drawn image, and the player's own hand and move are not."""
    thinks: list[int] = []

    def think(*args: Any, **kwargs: Any) -> Any:
        thinks.append(1)
        return suggest_move(*args, **kwargs)

    cog = simcord_env.bot.get_cog("Computers")
    monkeypatch.setattr(sys.modules[type(cog).__module__], "suggest_move", think)
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table, hints=True)
    mover = seat_actor(table, record, record.game.turn)
    for _ in range(2):
        hint = await mover.slash(table.channel, "sequence hint")
        assert hint.response.content.startswith("💡"), hint.response.content
    assert waited(await mover.slash(table.channel, "sequence hint")) <= 30
    assert len(thinks) == 2
    hand = await mover.slash(table.channel, "sequence hand")
    assert hand.ephemeral and "too often" not in hand.response.content
    assert hand.response.components


async def test_opening_lobbies_is_limited_per_person(simcord_env) -> None:
    table = await make_table(simcord_env, ["alice"])
    (alice,) = table.players
    for _ in range(3):
        opened = await alice.slash(table.channel, "sequence new")
        assert not opened.ephemeral
        assert not (await alice.slash(table.channel, "sequence cancel")).ephemeral
    refused = await alice.slash(table.channel, "sequence new")
    wait = waited(refused)
    assert 570 <= wait <= 600
    assert await simcord_env.bot.db.lobbies.get_for_channel(table.channel.id) is None
    await simcord_env.advance_time(wait)
    assert not (await alice.slash(table.channel, "sequence new")).ephemeral


async def test_creating_tournaments_is_limited_per_person(simcord_env) -> None:
    table = await make_table(simcord_env, ["ann"])
    anyone_may_organise(simcord_env, table.guild)
    (ann,) = table.players
    for number in range(3):
        created = await ann.slash(
            table.channel, "tournament-admin create", name=f"Cup {number}", format="round_robin"
        )
        assert not created.ephemeral, created.response.content
        assert announced(table.channel, await ann.slash(table.channel, "tournament-admin end"))
    refused = await ann.slash(
        table.channel, "tournament-admin create", name="Cup 4", format="round_robin"
    )
    assert waited(refused) == 600 and "try again in 10 min." in refused.response.content
    assert len(await simcord_env.bot.db.tournaments.in_channel(table.channel.id)) == 3


async def test_a_refused_tournament_creation_counts_nothing(simcord_env) -> None:
    table = await make_table(simcord_env, ["ann"])
    anyone_may_organise(simcord_env, table.guild)
    (ann,) = table.players
    for mistake in ({"show_up": "abc"}, {"time_limit": "5x"}, {"show_up": "30s"}, {"name": " "}):
        refused = await ann.slash(
            table.channel,
            "tournament-admin create",
            **({"name": "Cup", "format": "swiss"} | mistake),
        )
        assert refused.ephemeral and "too often" not in refused.response.content
    created = await ann.slash(table.channel, "tournament-admin create", name="Cup", format="swiss")
    assert not created.ephemeral, created.response.content


async def test_a_refused_lobby_counts_nothing(simcord_env) -> None:
    table = await make_table(simcord_env, ["alice"])
    (alice,) = table.players
    assert not (await alice.slash(table.channel, "sequence new")).ephemeral
    for _ in range(3):  # the channel already has a lobby: refused, and not counted
        busy = await alice.slash(table.channel, "sequence new")
        assert busy.ephemeral and "too often" not in busy.response.content, busy.response.content
    assert not (await alice.slash(table.channel, "sequence cancel")).ephemeral
    for _ in range(2):
        assert not (await alice.slash(table.channel, "sequence new")).ephemeral
        assert not (await alice.slash(table.channel, "sequence cancel")).ephemeral
    assert waited(await alice.slash(table.channel, "sequence new"))  # the fourth lobby


# ---------------------------------------------------------------------- caps
async def test_one_person_hosts_at_most_two_lobbies_and_a_server_holds_three(simcord_env) -> None:
    env = simcord_env
    guild = env.create_guild("Club")
    rooms = [guild.create_text_channel(f"room-{n}") for n in range(5)]
    alice, bob = (guild.add_member(env.create_user(name)) for name in ("alice", "bob"))
    for room in rooms[:2]:
        assert not (await alice.slash(room, "sequence new")).ephemeral
    third = await alice.slash(rooms[2], "sequence new")
    assert third.ephemeral and "You already host 2 open lobbies" in third.response.content
    assert await env.bot.db.lobbies.get_for_channel(rooms[2].id) is None

    assert not (await bob.slash(rooms[2], "sequence new")).ephemeral
    full = await bob.slash(rooms[3], "sequence new")
    assert full.ephemeral and "This server has 3 open lobbies" in full.response.content

    # another server has its own count
    other = env.create_guild("Elsewhere")
    room = other.create_text_channel("general")
    carol = other.add_member(env.create_user("carol"))
    assert not (await carol.slash(room, "sequence new")).ephemeral

    # a cancelled lobby frees its place
    await alice.slash(rooms[0], "sequence cancel")
    assert not (await bob.slash(rooms[3], "sequence new")).ephemeral


async def test_a_lobby_whose_channel_or_thread_is_deleted_no_longer_counts(simcord_env) -> None:
    """alice's two lobbies are in a channel and a thread that a moderator deletes: nobody can
    join, start or cancel them there any more, so they close, and free her places (and bob's
    seat) at once instead of a day later."""
    env = simcord_env
    guild = env.create_guild("Club")
    rooms = [guild.create_text_channel(f"room-{n}") for n in range(3)]
    alice, bob = (guild.add_member(env.create_user(name)) for name in ("alice", "bob"))
    thread = env.backend.create_thread(rooms[1].id, "side table", alice.id)
    places = [rooms[0], ChannelHandle(env, guild, thread)]
    for place in places:
        assert not (await alice.slash(place, "sequence new")).ephemeral
        assert (await bob.slash(place, "sequence join")).response.content == "bob joined."
    for place in places:
        env.backend.delete_channel(place.id)
    await env.settle()
    assert await env.bot.db.lobbies.hosted_by(alice.id) == 0
    assert await env.bot.db.lobbies.seating(bob.id) == 0
    assert not (await alice.slash(rooms[2], "sequence new")).ephemeral
    assert (await bob.slash(rooms[2], "sequence join")).response.content == "bob joined."


async def test_one_person_plays_at_most_two_games_at_once(simcord_env) -> None:
    env = simcord_env
    guild = env.create_guild("Club")
    rooms = [guild.create_text_channel(f"room-{n}") for n in range(4)]
    alice, bob, carol = (guild.add_member(env.create_user(n)) for n in ("alice", "bob", "carol"))
    env.bot.lobbies.new_seed = lambda: 1
    # alice plays one game, and sits in a second lobby
    await bob.slash(rooms[0], "sequence new")
    lobby_message = rooms[0].last_message
    assert (await alice.click(lobby_message, label="Join")).acknowledged
    assert (await bob.click(lobby_message, label="Start")).acknowledged
    assert env.bot.games.find_in_channel(rooms[0].id) is not None
    await carol.slash(rooms[1], "sequence new")
    assert (await alice.slash(rooms[1], "sequence join")).response.content == "alice joined."

    # a third is refused, by the button, the command or a lobby of her own
    await carol.slash(rooms[1], "sequence leave")  # (carol's lobby stays with alice hosting)
    await bob.slash(rooms[2], "sequence new")
    refused = await alice.click(rooms[2].last_message, label="Join")
    assert refused.ephemeral and "already in 2 games or lobbies" in refused.response.content
    lobby = await env.bot.db.lobbies.get_for_channel(rooms[2].id)
    assert [seat.user_id for seat in lobby.seats] == [bob.id]
    refused = await alice.slash(rooms[2], "sequence join")
    assert refused.ephemeral and "already in 2 games" in refused.response.content
    refused = await alice.slash(rooms[3], "sequence new")
    assert refused.ephemeral and "already in 2 games" in refused.response.content
    assert await env.bot.db.lobbies.get_for_channel(rooms[3].id) is None

    # leaving a lobby frees a place
    left = await alice.slash(rooms[1], "sequence leave")
    assert "closed" in left.response.content
    assert (await alice.slash(rooms[2], "sequence join")).response.content == "alice joined."


async def test_a_game_one_has_left_no_longer_counts_as_one_of_theirs(simcord_env) -> None:
    """In a three-team game, alice's team resigns and the others play on: the game is no
    longer hers, neither in /sequence mygames nor against her cap of games."""
    table = await make_table(simcord_env, ["alice", "bob", "carol"])
    alice, bob, carol = table.players
    record = await open_and_start(table)
    await alice.slash(table.channel, "sequence resign")
    assert not record.game.is_over()
    mine = await alice.slash(table.channel, "sequence mygames")
    assert f"Game #{record.id}" not in mine.response.content
    assert "not in any active game" in mine.response.content
    rooms = [table.guild.create_text_channel(f"room-{n}") for n in range(2)]
    for host, room in zip((bob, carol), rooms, strict=True):
        await host.slash(room, "sequence new")
        joined = await alice.click(room.last_message, label="Join")
        assert not joined.ephemeral, joined.response.content  # her two places are free


async def test_tournaments_per_person_and_per_server(simcord_env) -> None:
    env = simcord_env
    guild = env.create_guild("Club")
    anyone_may_organise(env, guild)
    halls = [guild.create_text_channel(f"hall-{n}") for n in range(3)]
    ann, ben, cat = (guild.add_member(env.create_user(n)) for n in ("ann", "ben", "cat"))
    created = await ann.slash(halls[0], "tournament-admin create", name="Spring", format="swiss")
    assert not created.ephemeral
    second = await ann.slash(halls[1], "tournament-admin create", name="Summer", format="swiss")
    assert second.ephemeral and "You already run 1 open tournament" in second.response.content
    assert await env.bot.db.tournaments.open_in_channel(halls[1].id) is None
    assert not (
        await ben.slash(halls[1], "tournament-admin create", name="B", format="swiss")
    ).ephemeral
    full = await cat.slash(halls[2], "tournament-admin create", name="C", format="swiss")
    assert full.ephemeral and "This server has 2 open tournaments" in full.response.content
    # once ann's has ended, cat may open one
    await ann.slash(halls[0], "tournament-admin end")
    assert not (
        await cat.slash(halls[2], "tournament-admin create", name="C", format="swiss")
    ).ephemeral


async def test_a_tournament_whose_channel_is_deleted_no_longer_counts(simcord_env) -> None:
    """ann's tournament is open for sign-up in a channel a moderator deletes: nobody could join,
    start or end it any more (its commands work in its channel), so it ends, and ann may open
    another (her cap is 1), instead of never again."""
    env = simcord_env
    guild = env.create_guild("Club")
    anyone_may_organise(env, guild)
    halls = [guild.create_text_channel(f"hall-{n}") for n in range(2)]
    ann = guild.add_member(env.create_user("ann"))
    assert not (
        await ann.slash(halls[0], "tournament-admin create", name="A", format="swiss")
    ).ephemeral
    env.backend.delete_channel(halls[0].id)
    await env.settle()
    assert await env.bot.db.tournaments.open_in_channel(halls[0].id) is None
    again = await ann.slash(halls[1], "tournament-admin create", name="B", format="swiss")
    assert not again.ephemeral, again.response.content


async def test_a_tournament_takes_no_more_entrants_than_its_organiser_set(simcord_env) -> None:
    """ann caps her cup at 2: the card says so, a third player who presses Join is told it is
    full and is not entered; once one withdraws, the place is free again."""
    env = simcord_env
    guild = env.create_guild("Club")
    anyone_may_organise(env, guild)
    hall = guild.create_text_channel("hall")
    names = ("ann", "ben", "cat", "dan")
    ann, ben, cat, dan = (guild.add_member(env.create_user(n)) for n in names)
    created = await ann.slash(
        hall, "tournament-admin create", name="Cup", format="swiss", max_entrants=2
    )
    assert not created.ephemeral

    def entrants_field() -> str:
        card = next(m for m in hall.history() if m.id == created.response.id)
        return next(f.name for f in card.embeds[0].fields if f.name.startswith("Entrants"))

    assert entrants_field() == "Entrants (0 of 2)"
    for person in (ben, cat):
        await person.click(created.response, label="Join")
    full = await dan.click(created.response, label="Join")
    assert full.ephemeral
    assert full.response.content.endswith("This tournament is full: it takes 2 entrants.")
    tournament = await env.bot.db.tournaments.open_in_channel(hall.id)
    entrants = await env.bot.db.tournaments.entrants(tournament.id)
    assert [e.user_ids for e in entrants] == [[ben.id], [cat.id]]
    assert entrants_field() == "Entrants (2 of 2)"
    await ben.slash(hall, "tournament leave")
    joined = await dan.slash(hall, "tournament join")
    assert joined.response.content == "✅ dan signed up."
    assert entrants_field() == "Entrants (2 of 2)"


async def test_the_bots_entrant_cap_bounds_every_tournament(simcord_env, bot_settings) -> None:
    """The bot takes at most 4 entrants a tournament (MAX_TOURNAMENT_ENTRANTS): asking for 5 is
    refused and opens nothing; a cup without a cap of its own takes the bot's."""
    env = simcord_env
    await env.bot.close()
    await env.restart_bot(create_bot(bot_settings.with_overrides(max_tournament_entrants=4)))
    guild = env.create_guild("Club")
    anyone_may_organise(env, guild)
    hall = guild.create_text_channel("hall")
    ann = guild.add_member(env.create_user("ann"))
    asked = await ann.slash(
        hall, "tournament-admin create", name="Cup", format="swiss", max_entrants=5
    )
    assert asked.ephemeral
    assert asked.response.content.endswith("A tournament on this bot has at most 4 entrants.")
    assert await env.bot.db.tournaments.open_in_channel(hall.id) is None
    created = await ann.slash(hall, "tournament-admin create", name="Cup", format="swiss")
    card = next(m for m in hall.history() if m.id == created.response.id)
    assert any(f.name == "Entrants (0 of 4)" for f in card.embeds[0].fields)


async def test_two_players_who_join_for_the_last_place_at_once(simcord_env) -> None:
    """One place is left and two sign up together: exactly one is entered, the other is told
    the tournament is full."""
    env = simcord_env
    guild = env.create_guild("Club")
    anyone_may_organise(env, guild)
    hall = guild.create_text_channel("hall")
    ann = guild.add_member(env.create_user("ann"))
    await ann.slash(hall, "tournament-admin create", name="Cup", format="swiss", max_entrants=2)
    bot = env.bot
    tournament = await bot.db.tournaments.open_in_channel(hall.id)
    await bot.tournament_service.join(tournament.id, Person(1, "one"), [])
    results = await asyncio.gather(
        bot.tournament_service.join(tournament.id, Person(2, "two"), []),
        bot.tournament_service.join(tournament.id, Person(3, "three"), []),
        return_exceptions=True,
    )
    refused = [r for r in results if isinstance(r, Exception)]
    assert len(refused) == 1 and str(refused[0]) == "This tournament is full: it takes 2 entrants."
    assert len(await bot.db.tournaments.entrants(tournament.id)) == 2


# ---------------------------------------------------------------------- replay cache
def count_renders(bot: Any) -> list[int]:
    """Wrap the real replay renderer of the bot's stats cog; returns the list it appends to."""
    cache = bot.get_cog("Stats").replays
    real, renders = cache.render, []

    def counting(settings: Any, seed: int, moves: Any, names: Any) -> bytes:
        renders.append(len(moves))
        return real(settings, seed, moves, names)

    cache.render = counting
    return renders


async def test_a_finished_games_replay_is_rendered_once(simcord_env, bot_settings) -> None:
    env = simcord_env
    table = await make_table(env, ["alice", "bob", "carol"])
    alice, bob, carol = table.players
    table.players = [alice, bob]
    record = await open_and_start(table, seed=3)
    assert not (await bob.slash(table.channel, "sequence resign")).ephemeral
    renders = count_renders(env.bot)

    first = await alice.slash(table.channel, "sequence replay", game=record.id)
    second = await carol.slash(table.channel, "sequence replay", game=record.id)
    gifs = [await r.response.attachments[0].read() for r in (first, second)]
    assert gifs[0].startswith(b"GIF89a") and gifs[0] == gifs[1]
    assert renders == [len(record.game.moves)]  # drawn once, for its final move count
    kept = bot_settings.database_path.parent / "replays"
    (file,) = kept.glob(f"game-{record.id}-{len(record.game.moves)}-*.gif")  # + what it shows
    assert file.read_bytes() == gifs[0]

    # kept on disk: a restarted bot draws it no more
    await env.bot.close()
    await env.restart_bot(create_bot(bot_settings))
    renders = count_renders(env.bot)
    again = await bob.slash(table.channel, "sequence replay", game=record.id)
    assert await again.response.attachments[0].read() == gifs[0]
    assert renders == []


def hand_drawn_meanwhile(monkeypatch: Any) -> tuple[threading.Event, list[bool]]:
    """A player's hand image that sets the event once drawn, and a list where slow work that
    waits for it (as long as a long game's replay takes) notes whether the hand was drawn
    meanwhile (False: it was still waiting behind that work)."""
    drawn, seen = threading.Event(), []
    real = panel.render_hand

    def render_hand(*args: Any) -> Any:
        image = real(*args)
        drawn.set()
        return image

    monkeypatch.setattr(panel, "render_hand", render_hand)
    return drawn, seen


async def test_a_burst_of_replays_does_not_hold_up_the_players_hands(
    simcord_env, monkeypatch
) -> None:
    """A replay of a long game takes seconds to draw. A burst of them (as many as asyncio's
    default executor has threads) took every thread that draws the boards and hands, so a
    player clicking "Your hand" in any other game waited behind them, past Discord's 3 s."""
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table)
    drawn, seen = hand_drawn_meanwhile(monkeypatch)

    def long_replay(*args: Any) -> bytes:
        seen.append(drawn.wait(timeout=10))
        return b"GIF89a"

    replays = simcord_env.bot.get_cog("Stats").replays
    replays.render = long_replay
    found = [
        ReplayInput(1000 + n, record.game.settings, 1, [], ["alice", "bob"])
        for n in range(DEFAULT_THREADS)
    ]
    *gifs, hand = await asyncio.gather(
        *(replays.gif(one) for one in found),
        panel.build_hand_panel(record, record.game.turn, with_image=True),
    )
    assert hand.image is not None and gifs == [b"GIF89a"] * len(found)
    assert seen == [True] * len(found)  # the hand was drawn while the replays were


async def test_a_burst_of_computer_searches_does_not_hold_up_the_players_hands(
    simcord_env, monkeypatch
) -> None:
    """Each computer move (a computer seat's, or a timed-out player's taken over) is a search
    of up to COMPUTER_BUDGET_MS. A burst of them (as many as asyncio's default executor has
    threads: twenty at once held the event loop for up to a second in all) took every thread
    that draws the boards and hands, so "Your hand" in any other game waited behind them."""
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table)
    drawn, seen = hand_drawn_meanwhile(monkeypatch)

    def long_search(*args: Any, **kwargs: Any) -> Any:
        seen.append(drawn.wait(timeout=10))
        raise NoMoveError("nothing to do")

    monkeypatch.setattr(computers, "choose_move", long_search)
    seat = record.game.turn
    *moved, hand = await asyncio.gather(
        *(simcord_env.bot.computers.move_for(record.id, seat) for _ in range(DEFAULT_THREADS)),
        panel.build_hand_panel(record, seat, with_image=True),
    )
    assert hand.image is not None and moved == [False] * DEFAULT_THREADS
    assert seen == [True] * DEFAULT_THREADS  # the hand was drawn while they thought


async def test_a_hint_thinks_where_the_computer_players_do(simcord_env, monkeypatch) -> None:
    """A hint is the same search, on the same worker thread (not where boards and hands are
    drawn): a burst of hints queues there behind the computer players' moves."""
    threads: list[str] = []

    def think(*args: Any, **kwargs: Any) -> Any:
        threads.append(threading.current_thread().name)
        return suggest_move(*args, **kwargs)

    cog = simcord_env.bot.get_cog("Computers")
    monkeypatch.setattr(sys.modules[type(cog).__module__], "suggest_move", think)
    table = await make_table(simcord_env, ["alice", "bob"])
    record = await open_and_start(table, hints=True)
    hint = await seat_actor(table, record, record.game.turn).slash(table.channel, "sequence hint")
    assert hint.response.content.startswith("💡"), hint.response.content
    assert len(threads) == 1 and threads[0].startswith("sequence-thinking")


async def test_tournament_match_lobbies_do_not_fill_the_servers_or_a_hosts_caps(
    simcord_env,
) -> None:
    """A round of four matches opens four match lobbies, one more than the server's cap of
    three open lobbies: members could no longer open a casual lobby (told to "join one", which
    nobody may), and a player hosting a match lobby had one fewer of their own. The tournament
    seats its matches itself; only the lobbies people open count."""
    env = simcord_env
    guild = env.create_guild("Club")
    cup, members = await started_cup(env, [f"p{n}" for n in range(8)], guild=guild)
    hosts = {
        lobby.host_id
        for lobby in [await env.bot.db.lobbies.get_for_channel(t.id) for t in cup.threads]
        if lobby is not None
    }
    assert len(hosts) == 4  # four match lobbies are open
    host = next(m for m in members if m.id in hosts)
    others = [m for m in members if m is not host]
    rooms = [guild.create_text_channel(f"room{n}") for n in range(4)]
    for room, who in zip(rooms, [host, *others[:2]], strict=False):
        opened = await who.slash(room, "sequence new")
        assert not opened.ephemeral, opened.response.content
    assert await env.bot.db.lobbies.hosted_by(host.id) == 1  # theirs, not the match's
    full = await others[2].slash(rooms[3], "sequence new")  # the server's own three are open
    assert full.ephemeral and "This server has 3 open lobbies" in full.response.content
