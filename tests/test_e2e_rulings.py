"""Who rules on a table-talk call, through Discord: never the accused team; the caller may
withdraw; a call nobody may rule on stands by itself after TABLE_TALK_RULING_TIMEOUT."""

from __future__ import annotations

from .e2e_helpers import make_table, open_and_start, seat_actor

TIMEOUT = 600  # the default TABLE_TALK_RULING_TIMEOUT


def team_of_user(record, user_id):
    seat = next(i for i, s in enumerate(record.seats) if s.user_id == user_id)
    return record.game.team_of(seat)


def players_of(table, record, team):
    return [seat_actor(table, record, s) for s in record.game.settings.seats_of(team)]


async def call_on_the_hosts_team(table, record):
    host = table.players[0]
    accused = team_of_user(record, host.id)
    caller = next(p for p in table.players if team_of_user(record, p.id) not in (accused,))
    call = await caller.slash(table.channel, "sequence tabletalk", team=accused)
    return host, caller, accused, call


async def test_the_host_cannot_rule_on_their_own_team_and_the_call_then_stands(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob", "carol", "dave"])
    record = await open_and_start(table)
    host, _caller, accused, call = await call_on_the_hosts_team(table, record)
    assert "Who rules: a moderator who is not accused." in call.response.content
    assert "stands" in call.response.content
    refused = await host.click(call.response, label="Uphold")
    assert refused.ephemeral and "against their own team" in refused.response.content
    teammate = next(p for p in players_of(table, record, accused) if p.id != host.id)
    also = await teammate.click(call.response, label="Dismiss")
    assert also.ephemeral and "against their own team" in also.response.content
    assert not any(record.game.owed_forfeits)
    await simcord_env.advance_time(TIMEOUT - 5)
    assert not any(record.game.owed_forfeits)
    await simcord_env.advance_time(10)
    owed = [record.game.owed_forfeits[s] for s in record.game.settings.seats_of(accused)]
    assert owed == [1, 1]
    assert "stands" in call.response.content


async def test_the_call_says_plainly_that_the_host_may_rule(simcord_env):
    """With the host free to rule, the call said "Who rules: a member with Manage Messages who
    is not accused or the host.", which reads as "not the host"; the host rules first now."""
    table = await make_table(simcord_env, ["alice", "bob", "carol", "dave"])
    record = await open_and_start(table)
    host = table.players[0]
    accused = 1 - team_of_user(record, host.id)
    caller = next(p for p in players_of(table, record, 1 - accused) if p.id != host.id)
    call = await caller.slash(table.channel, "sequence tabletalk", team=accused)
    who = "the host or a moderator who is not accused"
    assert f"Who rules: {who}." in call.response.content, call.response.content
    refused = await caller.click(call.response, label="Uphold")
    assert refused.ephemeral
    assert refused.response.content == f"⚠️ Only {who} may rule on this call."
    upheld = await host.click(call.response, label="Uphold")
    assert upheld.acknowledged and "upheld" in call.response.content


async def test_the_caller_withdraws_and_nothing_stands(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob", "carol", "dave"])
    record = await open_and_start(table)
    host, caller, _accused, call = await call_on_the_hosts_team(table, record)
    not_theirs = await host.click(call.response, label="Withdraw (caller)")
    assert not_theirs.ephemeral and "Only the player who made the call" in (
        not_theirs.response.content
    )
    withdrawn = await caller.click(call.response, label="Withdraw (caller)")
    assert withdrawn.acknowledged and "withdrawn" in call.response.content
    await simcord_env.advance_time(TIMEOUT + 5)
    assert not any(record.game.owed_forfeits)


async def test_with_three_teams_a_neutral_player_rules_on_the_hosts_team(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob", "carol", "dave", "erin", "frank"])
    record = await open_and_start(table)
    host, caller, accused, call = await call_on_the_hosts_team(table, record)
    caller_team = team_of_user(record, caller.id)
    neutral = next(
        p for p in table.players if team_of_user(record, p.id) not in (accused, caller_team)
    )
    assert "a player of" in call.response.content
    refused = await host.click(call.response, label="Uphold")
    assert refused.ephemeral
    upheld = await neutral.click(call.response, label="Uphold")
    assert upheld.acknowledged and "upheld" in call.response.content
    owed = [record.game.owed_forfeits[s] for s in record.game.settings.seats_of(accused)]
    assert owed == [1, 1]


async def test_a_computer_team_is_no_neutral_and_the_call_then_stands(simcord_env):
    """Three teams of two, the third all computers: it cannot rule on a call against the
    host's team (the host and carol), so nobody but a moderator can, and the call stands
    after the timeout."""
    table = await make_table(simcord_env, ["alice", "bob", "carol"])
    alice, bob, carol = table.players
    lobby = (await alice.slash(table.channel, "sequence new", teams=3)).response
    for person, team in ((bob, 1), (carol, 0)):
        await person.click(lobby, label="Join")
        await alice.slash(table.channel, "sequence team", player=person, team=team)
    for team in (1, 2, 2):
        await alice.slash(table.channel, "sequence addbot", level="easy", team=team)
    await alice.click(lobby, label="Start")
    record = table.game()
    accused = team_of_user(record, alice.id)
    seats = record.game.settings.seats_of
    assert not any(record.seats[s].is_computer for s in seats(accused))
    assert all(record.seats[s].is_computer for s in seats(2))  # the neutral team
    call = await bob.slash(table.channel, "sequence tabletalk", team=accused)
    assert "Who rules: a moderator who is not accused." in call.response.content
    assert "stands" in call.response.content
    await simcord_env.advance_time(TIMEOUT + 5)
    assert record.game.owed_forfeits[record.game.settings.seats_of(accused)[0]] == 1
    assert "stands" in call.response.content
