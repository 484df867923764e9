"""Table talk through Discord: the call, the decision, and every member's forfeit."""

from __future__ import annotations

import asyncio

import discord
import pytest

from bot.app import create_bot
from bot.config import Settings
from bot.game import card_label
from bot.services.errors import UserError
from bot.services.games import seat_of

from .e2e_driver import find_component, open_hand
from .e2e_helpers import four_player_game, make_table, open_and_start, seat_actor


@pytest.fixture
def bot_settings(settings_on_each_backend: Settings) -> Settings:
    """Every test here runs twice: on SQLite and on PostgreSQL (conftest's store backends)."""
    return settings_on_each_backend


def members(table, record, team):
    game = record.game
    return [seat_actor(table, record, s) for s in game.settings.seats_of(team)]


async def test_table_talk_from_the_call_to_every_forfeit(simcord_env):
    table, record = await four_player_game(simcord_env)
    game = record.game
    host = table.players[0]
    offenders = game.team_of(game.turn)  # the team about to move is caught coaching
    caller = members(table, record, 1 - offenders)[0]
    call = await caller.slash(table.channel, "sequence tabletalk", team=offenders)
    assert not call.ephemeral and "table talk" in call.response.content
    sizes = {s: len(game.hands[s]) for s in game.settings.seats_of(offenders)}
    # nobody but the host or a moderator decides
    bystander = next(p for p in members(table, record, 1 - offenders) if p.id != host.id)
    refused = await bystander.click(call.response, label="Uphold")
    refusal = "Only the host or a moderator who is not accused"
    assert refused.ephemeral and refusal in refused.response.content
    upheld = await host.click(call.response, label="Uphold")
    assert upheld.acknowledged and "upheld" in call.response.content
    notice = table.channel.last_message
    assert "forfeits one card" in notice.content
    assert all(record.game.owed_forfeits[s] == 1 for s in sizes)
    # the player to move cannot play before forfeiting
    mover = seat_actor(table, record, game.turn)
    card = next(c for c in game.hands[game.turn] if game.targets(game.turn, c))
    blocked = await mover.slash(table.channel, "sequence play", card=card, space="A2")
    assert blocked.ephemeral and "forfeit" in blocked.response.content
    for seat in sizes:
        player = seat_actor(table, record, seat)
        chooser = await player.click(notice, label="Forfeit a card")
        assert chooser.ephemeral
        choice = game.hands[seat][0]
        await player.select(chooser.response, [choice], custom_id=f"seq:forfeit:{record.id}")
        assert f"forfeited {card_label(choice)}" in chooser.response.content
        assert len(record.game.hands[seat]) == sizes[seat] - 1  # no replacement is drawn
        assert record.game.discards[seat][-1] == choice
    assert not any(record.game.owed_forfeits)
    again = await seat_actor(table, record, next(iter(sizes))).click(notice, label="Forfeit a card")
    assert again.ephemeral and "owe no card" in again.response.content


async def test_a_penalty_pings_only_the_penalised_team_with_what_each_owes(simcord_env):
    """Calls that stand at once on each team in turn: each penalty's notice pings only the
    penalised team (the other team's members, who still owe their card, were told already), and
    a team called again before forfeiting is told how many cards each member owes."""
    table = await make_table(simcord_env, ["alice", "bob", "carol", "dave"])
    record = await open_and_start(table, tabletalk_stands=True)
    blue, green = (members(table, record, team) for team in (0, 1))
    await green[0].slash(table.channel, "sequence tabletalk", team=0)
    assert all(f"<@{p.id}>" in table.channel.last_message.content for p in blue)
    await blue[0].slash(table.channel, "sequence tabletalk", team=1)
    notice = table.channel.last_message.content
    assert all(f"<@{p.id}>" in notice for p in green), notice
    assert not any(f"<@{p.id}>" in notice for p in blue), notice
    assert "forfeits one card" in notice
    await green[1].slash(table.channel, "sequence tabletalk", team=0)
    notice = table.channel.last_message.content
    assert record.game.owed_forfeits[seat_of(record, blue[0].id)] == 2
    assert all(f"<@{p.id}> (2 cards)" in notice for p in blue), notice
    assert not any(f"<@{p.id}>" in notice for p in green), notice


async def test_a_penalty_notice_asks_only_the_people_to_forfeit(simcord_env):
    """A team of two people and a computer is penalised: the notice told the computer, by
    name, to press "Forfeit a card", which it never does (it forfeits by itself). Now it
    addresses the people only; the computer forfeits all the same."""
    table = await make_table(simcord_env, ["alice", "bob", "carol", "dave"])
    alice, bob, carol, dave = table.players
    options = {"tabletalk_stands": True, "teams": 2}
    lobby = (await alice.slash(table.channel, "sequence new", **options)).response
    for person, team in ((bob, 0), (carol, 1), (dave, 1)):
        await person.click(lobby, label="Join")
        await alice.slash(table.channel, "sequence team", player=person, team=team)
    for team in (0, 1):
        await alice.slash(table.channel, "sequence addbot", level="easy", team=team)
    table.bot.lobbies.new_seed = lambda: 1
    started = await alice.click(lobby, label="Start")
    record = table.game()
    assert record is not None, started.response.content
    computer = next(
        s for s in record.game.settings.seats_of(0) if record.seats[s].is_computer
    )
    await carol.slash(table.channel, "sequence tabletalk", team=0)
    notice = table.channel.last_message
    assert notice.content.startswith(f"🤐 <@{alice.id}>, <@{bob.id}>: each of you forfeits")
    assert record.seats[computer].name not in notice.content, notice.content
    await simcord_env.advance_time(60)
    assert record.game.owed_forfeits[computer] == 0  # it forfeited by itself


async def test_report_a_message_and_a_moderator_dismisses_it(simcord_env):
    table, record = await four_player_game(simcord_env)
    game = record.game
    mods = table.guild.create_role("Mods", permissions=discord.Permissions(manage_messages=True))
    moderator = table.guild.add_member(simcord_env.create_user("mod"), roles=[mods])
    coach = seat_actor(table, record, 0)
    reporter = seat_actor(table, record, 1)
    hint = await coach.send(table.channel, "psst, play your jack on E5!")
    call = await reporter.context_menu(table.channel, "Report table talk", hint)
    assert not call.ephemeral and "table talk" in call.response.content
    own = await coach.context_menu(table.channel, "Report table talk", hint)
    assert own.ephemeral and "your own team" in own.response.content
    dismissed = await moderator.click(call.response, label="Dismiss")
    assert dismissed.acknowledged and "dismissed" in call.response.content
    assert not any(game.owed_forfeits)
    assert not call.response.components  # the buttons are gone once decided


async def test_a_call_that_stands_by_itself_and_outsiders_cannot_call(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob", "carol", "dave", "outsider"])
    *players, outsider = table.players
    alice, bob = players[:2]
    record = await open_and_start(
        table.__class__(simcord_env, table.guild, table.channel, players),
        tabletalk_stands=True,
    )
    game = record.game
    nope = await outsider.slash(table.channel, "sequence tabletalk", team=0)
    assert nope.ephemeral and "Only players" in nope.response.content
    bob_seat = seat_of(record, bob.id)
    bob_team = game.team_of(bob_seat)
    call = await alice.slash(table.channel, "sequence tabletalk", team=bob_team)
    assert not call.ephemeral
    assert [record.game.owed_forfeits[s] for s in game.settings.seats_of(bob_team)] == [1, 1]
    panel = await open_hand(table, bob)
    assert "forfeit" in panel.content
    card = record.game.hands[bob_seat][-1]
    await bob.select(panel, [card], custom_id=find_component(panel, "seq:forfeit:")["custom_id"])
    assert record.game.owed_forfeits[bob_seat] == 0


async def test_one_coaching_is_called_once_and_punished_once(simcord_env):
    """Both opponents report the same coaching message: the second call is refused while the
    first waits for its ruling, so each offender forfeits one card, not two."""
    table, record = await four_player_game(simcord_env)
    game = record.game
    host = table.players[0]
    offenders = 1 - game.team_of(seat_of(record, host.id))
    coach, _ = members(table, record, offenders)
    first, second = members(table, record, 1 - offenders)
    hint = await coach.send(table.channel, "play your jack on E5!")
    call = await first.context_menu(table.channel, "Report table talk", hint)
    assert not call.ephemeral
    again = await second.context_menu(table.channel, "Report table talk", hint)
    assert again.ephemeral and "already waiting for a ruling" in again.response.content
    await host.click(call.response, label="Uphold")
    owed = [record.game.owed_forfeits[s] for s in game.settings.seats_of(offenders)]
    assert owed == [1, 1]
    later = await second.slash(table.channel, "sequence tabletalk", team=offenders)
    assert not later.ephemeral  # once ruled on, the team may be called again


async def test_two_calls_on_one_team_at_once_make_one_call(simcord_env):
    """Two calls in flight together (the service's own calls): one is made, one refused."""
    table, record = await four_player_game(simcord_env)
    bot = table.bot
    callers = [p.id for p in members(table, record, 0)]
    results = await asyncio.gather(
        *(bot.tabletalk.report(table.channel.id, caller, 1) for caller in callers),
        return_exceptions=True,
    )
    refused = [r for r in results if isinstance(r, Exception)]
    assert len(refused) == 1 and isinstance(refused[0], UserError)
    assert "already waiting for a ruling" in str(refused[0])
    assert len(await bot.db.tabletalk.pending(record.id)) == 1


async def test_a_call_discord_refused_to_show_does_not_block_the_next(simcord_env):
    """A call nobody saw (Discord refused its message) is withdrawn: the team may be called."""
    table, record = await four_player_game(simcord_env)
    caller = members(table, record, 0)[0]
    simcord_env.inject_error("POST", "/interactions/*/callback", status=500)
    await caller.slash(table.channel, "sequence tabletalk", team=1)
    assert len(simcord_env.errors) == 1  # the refused answer, logged by the error handler
    assert not await table.bot.db.tabletalk.pending(record.id)
    again = await caller.slash(table.channel, "sequence tabletalk", team=1)
    assert not again.ephemeral and "calls **table talk**" in again.response.content


async def test_a_player_whose_team_resigned_cannot_call(simcord_env):
    """With three teams, a team that resigned is out: its player calls no table talk (as they
    offer no draw), so nobody out of the game brings a penalty on those still playing."""
    table = await make_table(simcord_env, ["alice", "bob", "carol"])
    record = await open_and_start(table)
    _, bob, carol = table.players
    await bob.slash(table.channel, "sequence resign")
    assert not record.game.is_over()
    team = record.game.team_of(seat_of(record, carol.id))
    call = await bob.slash(table.channel, "sequence tabletalk", team=team)
    assert call.ephemeral and "no longer in this game" in call.response.content
    assert not await table.bot.db.tabletalk.pending(record.id)


async def test_nobody_alone_at_the_table_can_be_called(simcord_env):
    """Table talk is a teammate's hint: in a 1v1, or in a 2v2 once the accused player's
    teammate has left the game, the call (by command or on a message) is refused, ephemerally,
    and nothing is stored. It was taken: in a 1v1 against the host only a moderator may rule,
    so it stood by itself after TABLE_TALK_RULING_TIMEOUT (and the host could uphold their own
    call), and the opponent lost a card for nothing."""
    table = await make_table(simcord_env, ["alice", "bob", "carol", "dave"])
    alice, bob, _, _ = table.players

    async def refused_both_ways(caller, accused) -> None:
        record = table.game()
        team = record.game.team_of(seat_of(record, accused.id))
        said = await accused.send(table.channel, "good luck!")
        before = len(table.channel.history())
        by_command = await caller.slash(table.channel, "sequence tabletalk", team=team)
        by_message = await caller.context_menu(table.channel, "Report table talk", said)
        for refused in (by_command, by_message):
            assert refused.ephemeral, refused.response.content
            assert "has no teammate at the table" in refused.response.content
        assert len(table.channel.history()) == before  # no call was posted
        assert not await table.bot.db.tabletalk.for_game(record.id)
        assert not any(record.game.owed_forfeits)

    one_on_one = table.__class__(simcord_env, table.guild, table.channel, [alice, bob])
    record = await open_and_start(one_on_one)
    await refused_both_ways(bob, alice)  # the host accused: only a moderator could rule
    await simcord_env.advance_time(table.bot.settings.table_talk_ruling_timeout + 5)
    assert not any(record.game.owed_forfeits)  # nothing stands later either
    rules = (await bob.slash(table.channel, "sequence rules")).response.content
    assert "a player with no teammate left in the game cannot be called" in rules, rules
    await alice.slash(table.channel, "sequence cancel")

    record = await open_and_start(table, time_limit="1h", on_timeout="remove")
    gone = record.game.turn
    await simcord_env.advance_time(3600 + 1)  # the player to move is removed: out of the game
    assert record.game.out[gone] and not record.game.is_over()
    left = seat_actor(table, record, (gone + 2) % 4)  # the teammate still playing
    await refused_both_ways(seat_actor(table, record, (gone + 1) % 4), left)


async def test_no_call_on_a_team_with_fewer_than_two_people(simcord_env):
    """A computer player never talks: it gives no hint and reads none. A call on a team of
    computers, or on a person whose teammates are all computers, was taken, and with the
    house rule "calls stand" every member forfeited a card at once for talk that cannot
    happen. It is refused now, ephemerally, and nothing is stored."""
    table = await make_table(simcord_env, ["alice", "bob", "carol"])
    alice, bob, carol = table.players
    lobby = (await alice.slash(table.channel, "sequence new", tabletalk_stands=True)).response
    for person in (bob, carol):
        await person.click(lobby, label="Join")
        await alice.slash(table.channel, "sequence team", player=person, team=1)
    await alice.slash(table.channel, "sequence addbot", level="easy", team=0)
    await alice.click(lobby, label="Start")
    record = table.game()
    alone = record.game.team_of(seat_of(record, alice.id))  # alice and a computer
    said = await alice.send(table.channel, "good luck!")
    by_command = await bob.slash(table.channel, "sequence tabletalk", team=alone)
    by_message = await carol.context_menu(table.channel, "Report table talk", said)
    for refused in (by_command, by_message):
        assert refused.ephemeral, refused.response.content
        assert "never gives or takes a hint" in refused.response.content
    assert not await table.bot.db.tabletalk.for_game(record.id)
    assert not any(record.game.owed_forfeits)
    called = await alice.slash(table.channel, "sequence tabletalk", team=1 - alone)
    assert not called.ephemeral  # bob and carol may coach each other: the call stands
    owed = [record.game.owed_forfeits[s] for s in record.game.settings.seats_of(1 - alone)]
    assert owed == [1, 1]
    await alice.slash(table.channel, "sequence cancel")

    lobby = (await alice.slash(table.channel, "sequence new", tabletalk_stands=True)).response
    await bob.click(lobby, label="Join")
    await alice.slash(table.channel, "sequence team", player=bob, team=0)
    for _ in range(2):
        await alice.slash(table.channel, "sequence addbot", level="easy", team=1)
    await alice.click(lobby, label="Start")
    record = table.game()
    refused = await bob.slash(table.channel, "sequence tabletalk", team=1)  # two computers
    assert refused.ephemeral and "never gives or takes a hint" in refused.response.content
    assert not await table.bot.db.tabletalk.for_game(record.id)
    assert not any(record.game.owed_forfeits)


async def test_a_standing_call_discord_refused_to_show_does_not_block_the_next(simcord_env):
    """With the house rule "calls stand", a call whose message Discord refused is withdrawn
    too: it was never upheld, nobody could see it, and the team may be called again."""
    table = await make_table(simcord_env, ["alice", "bob", "carol", "dave"])
    alice, bob, _, _ = table.players
    record = await open_and_start(table, tabletalk_stands=True)
    bob_team = record.game.team_of(seat_of(record, bob.id))
    simcord_env.inject_error("POST", "/interactions/*/callback", status=500)
    await alice.slash(table.channel, "sequence tabletalk", team=bob_team)
    assert len(simcord_env.errors) == 1  # the refused answer, logged by the error handler
    assert not await table.bot.db.tabletalk.pending(record.id)
    assert not any(record.game.owed_forfeits)
    again = await alice.slash(table.channel, "sequence tabletalk", team=bob_team)
    assert not again.ephemeral and "calls **table talk**" in again.response.content
    owed = [record.game.owed_forfeits[s] for s in record.game.settings.seats_of(bob_team)]
    assert owed == [1, 1]


async def test_a_ruling_discord_refused_to_show_still_closes_the_call(simcord_env):
    """Discord refuses the answer to Uphold: the ruling is saved, so the call's message says
    so and loses its buttons, rather than showing the call still waiting for ever."""
    table, record = await four_player_game(simcord_env)
    host = table.players[0]
    offenders = 1 - record.game.team_of(seat_of(record, host.id))
    caller = members(table, record, 1 - offenders)[0]
    call = await caller.slash(table.channel, "sequence tabletalk", team=offenders)
    simcord_env.inject_error("POST", "/interactions/*/callback", status=500)
    ruled = await host.click(call.response, label="Uphold")
    assert ruled.ephemeral and "was **upheld" in ruled.response.content  # not "try again"
    assert "was **upheld" in call.response.content and not call.response.components
    assert sum(record.game.owed_forfeits) == 2  # upheld once
    assert "forfeits one card" in table.channel.last_message.content


async def test_a_call_still_waiting_when_the_game_ends_says_so_and_loses_its_buttons(
    simcord_env, bot_settings, monkeypatch
):
    """A call nobody ruled on when the game ended (the accused team resigned; a cancel, with
    the bot stopped before it could close the call): its message no longer asks who rules,
    its buttons are gone, and the call is no longer pending."""
    table = await make_table(simcord_env, ["alice", "bob", "carol", "dave"])
    alice, bob, _, dave = table.players

    async def bobs_team_resigns() -> None:
        for player in (bob, dave):  # a team resigns once all its players have voted
            await player.slash(table.channel, "sequence resign")

    async def call_then(end) -> discord.Message:
        record = await open_and_start(table)
        bob_team = record.game.team_of(seat_of(record, bob.id))
        call = (await alice.slash(table.channel, "sequence tabletalk", team=bob_team)).response
        assert "Who rules" in call.content and call.components
        await end()
        await simcord_env.settle()
        await simcord_env.bot.bus.idle()
        return next(m for m in table.channel.history() if m.id == call.id)

    shown = await call_then(bobs_team_resigns)
    assert "Who rules" not in shown.content and "the game ended" in shown.content
    assert not shown.components
    assert not await table.bot.db.tabletalk.pending()
    with monkeypatch.context() as stopped:  # the bot stops before it closes the call
        stopped.setattr(table.bot.tabletalk, "close_unruled", lambda game_id: _nothing())
        shown = await call_then(lambda: alice.slash(table.channel, "sequence cancel"))
    assert "Who rules" in shown.content and len(await table.bot.db.tabletalk.pending()) == 1
    await simcord_env.bot.close()
    await simcord_env.restart_bot(create_bot(bot_settings))
    shown = next(m for m in table.channel.history() if m.id == shown.id)
    assert "Who rules" not in shown.content and "the game is over" in shown.content
    assert not shown.components
    assert not await simcord_env.bot.db.tabletalk.pending()


async def _nothing() -> list:
    return []
