"""Who may rule on a table-talk call: every branch of the rule in ``bot.services.rulings``."""

from __future__ import annotations

import pytest

from bot.services.rulings import (
    Call,
    call_stands,
    describe_eligible,
    eligible,
    may_rule,
    may_withdraw,
    stands_at,
)

BLUE, GREEN, RED = 0, 1, 2
TWO = (BLUE, GREEN)
THREE = (BLUE, GREEN, RED)


def rule(call: Call, team: int | None, *, mod: bool = False, host: bool = False) -> tuple:
    verdict = may_rule(call, team, actor_moderates=mod, actor_is_host=host)
    return verdict.allowed, verdict.reason


# ---------------------------------------------------------------- nobody on the accused team
@pytest.mark.parametrize("mod", [False, True])
@pytest.mark.parametrize("host", [False, True])
def test_nobody_on_the_accused_team_may_rule_not_even_a_moderator_or_the_host(mod, host):
    call = Call(accused=GREEN, caller=BLUE, host_team=GREEN, teams=TWO)
    allowed, reason = rule(call, GREEN, mod=mod, host=host)
    assert not allowed
    assert reason == "Nobody may rule on a call against their own team."


# ---------------------------------------------------------------- 1. a moderator not accused
def test_a_moderator_who_is_not_accused_may_rule():
    call = Call(accused=GREEN, caller=BLUE, host_team=GREEN, teams=TWO)
    assert rule(call, None, mod=True)[0]  # a moderator watching
    assert rule(call, BLUE, mod=True)[0]  # a moderator who plays, not accused


# ---------------------------------------------------------------- 2. the host, if not accused
def test_the_host_may_rule_when_the_hosts_team_is_not_accused():
    call = Call(accused=GREEN, caller=BLUE, host_team=BLUE, teams=TWO)
    assert rule(call, BLUE, host=True) == (True, "")
    who = eligible(call)
    assert who.host and not who.stands_after_timeout and who.teams == ()


def test_a_host_who_does_not_play_may_rule():
    call = Call(accused=GREEN, caller=BLUE, host_team=None, teams=TWO)
    assert rule(call, None, host=True)[0]


def test_while_the_host_may_rule_other_players_may_not():
    call = Call(accused=GREEN, caller=BLUE, host_team=BLUE, teams=THREE)
    allowed, reason = rule(call, RED)
    assert not allowed
    assert reason == "Only the host or a moderator who is not accused may rule on this call."
    assert not rule(call, BLUE)[0]  # the caller's partner is not the host
    assert not rule(call, None)[0]  # a spectator


# ---------------------------------------------------------------- 3. a neutral team's player
def test_a_player_of_a_team_neither_calling_nor_accused_may_rule_when_the_host_is_accused():
    call = Call(accused=GREEN, caller=BLUE, host_team=GREEN, teams=THREE)
    assert rule(call, RED) == (True, "")
    allowed, reason = rule(call, BLUE)  # the caller's team has a stake
    assert not allowed
    assert "a player of Red" in reason and "the host" not in reason
    who = eligible(call)
    assert who.teams == (RED,) and not who.host
    assert not who.stands_after_timeout


def test_a_team_out_of_the_game_is_not_neutral():
    call = Call(accused=GREEN, caller=BLUE, host_team=GREEN, teams=TWO)  # Red has left
    assert not rule(call, RED)[0]


# ---------------------------------------------------------------- 4. the call stands in time
def test_with_nobody_to_rule_the_call_stands_after_the_timeout_unless_withdrawn():
    call = Call(accused=GREEN, caller=BLUE, host_team=GREEN, teams=TWO)
    who = eligible(call)
    assert who.stands_after_timeout and not who.host and who.teams == ()
    allowed, reason = rule(call, BLUE)
    assert not allowed
    assert reason == "Only a moderator who is not accused may rule on this call."
    assert stands_at(call, called_at=1000.0, timeout=600) == 1600.0
    assert not call_stands(call, 1000.0, 1599.0, 600, withdrawn=False)
    assert call_stands(call, 1000.0, 1600.0, 600, withdrawn=False)
    assert not call_stands(call, 1000.0, 9999.0, 600, withdrawn=True)


def test_a_timeout_of_zero_means_the_call_waits_for_a_moderator():
    call = Call(accused=GREEN, caller=BLUE, host_team=GREEN, teams=TWO)
    assert stands_at(call, 1000.0, 0) is None
    assert not call_stands(call, 1000.0, 10**9, 0, withdrawn=False)


def test_a_call_that_someone_may_rule_on_never_stands_by_itself():
    for call in (
        Call(accused=GREEN, caller=BLUE, host_team=BLUE, teams=TWO),  # the host rules
        Call(accused=GREEN, caller=BLUE, host_team=GREEN, teams=THREE),  # Red rules
    ):
        assert stands_at(call, 1000.0, 600) is None
        assert not call_stands(call, 1000.0, 10**9, 600, withdrawn=False)


# ---------------------------------------------------------------- withdrawing and wording
def test_only_the_caller_may_withdraw_a_call():
    assert may_withdraw(caller_id=7, actor_id=7).allowed
    refused = may_withdraw(caller_id=7, actor_id=8)
    assert not refused.allowed and "made the call" in refused.reason


def test_who_may_rule_in_words():
    both = eligible(Call(accused=GREEN, caller=BLUE, host_team=BLUE, teams=TWO))
    assert describe_eligible(both) == "the host or a moderator who is not accused"
    neutral = eligible(Call(accused=RED, caller=BLUE, host_team=RED, teams=THREE))
    assert describe_eligible(neutral, lambda t: f"team {t}") == (
        "a player of team 1 or a moderator who is not accused"
    )


def test_the_rules_text_follows_the_timeout_setting():
    from cogs.info import ruling_rule

    assert "the call stands after 1 h unless the caller withdraws it" in ruling_rule(3600)
    assert "the call waits for a moderator unless the caller withdraws it" in ruling_rule(0)
