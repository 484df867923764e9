"""*I'm here* as players really press it: twice, or when Discord refuses the answer."""

from __future__ import annotations

from tests.helpers.tournament import game_in, match_message, snapshot, started_cup, thread_of

#: What a press that crossed the one that began the game is told.
BEGUN = "✅ You're here, and the game has begun: it is played in this thread."


async def test_a_second_im_here_as_the_game_begins_says_it_has_begun(simcord_env, monkeypatch):
    """ben presses *I'm here* twice: the second press is checked in before the first one
    begins the game, and reaches the lobby after it (SimCord runs one press at a time, so the
    service answers the second press as it answered the first, and Discord refuses to take
    the button off meanwhile). Before, the second press answered "The lobby of this match is
    closed: ask the organiser." about a game that had begun."""
    env = simcord_env
    channel, (ann, ben) = await started_cup(env, ["ann", "ben"], show_up="1h")
    (match,) = (await snapshot(env.bot, channel)).round_matches(1)
    thread = thread_of(channel, match)
    env.inject_error("PATCH", f"/channels/{thread.id}/messages/*", status=500, times=None)
    await ann.click(match_message(channel, match), label="I'm here")
    service = env.bot.tournament_service
    check_in, answers = service.check_in, []

    async def checked_in_before_the_game_began(match_id: int, user_id: int):
        if not answers:
            answers.append(await check_in(match_id, user_id))
        return answers[0]

    monkeypatch.setattr(service, "check_in", checked_in_before_the_game_began)
    first = await ben.click(match_message(channel, match), label="I'm here")
    assert first.acknowledged and not first.ephemeral, first.response.content
    record = game_in(env.bot, match)
    second = await ben.click(match_message(channel, match), label="I'm here")
    (said,) = second.followups  # the match message updated, and then:
    assert said.ephemeral and said.content == BEGUN, said.content
    assert game_in(env.bot, match).id == record.id  # one game, still on
    assert not record.game.is_over()


async def test_a_check_in_discord_refused_to_show_is_shown_and_said(simcord_env):
    """Discord refuses the answer to ann's *I'm here* (a 500): she is checked in, the match
    message lists her (edited directly), and she reads that, not "Something went wrong"."""
    env = simcord_env
    channel, (ann, _) = await started_cup(env, ["ann", "ben"], show_up="1h")
    (match,) = (await snapshot(env.bot, channel)).round_matches(1)
    env.inject_error("POST", "/interactions/*/callback", status=500)
    pressed = await ann.click(match_message(channel, match), label="I'm here")
    shown = match_message(channel, match).content
    assert shown.endswith(f"Here: <@{ann.id}>"), shown
    assert pressed.ephemeral and pressed.response.content == shown
    (match,) = (await snapshot(env.bot, channel)).round_matches(1)
    assert ann.id in match.checkins
    assert env.bot.games.find_in_channel(thread_of(channel, match).id) is None


async def test_a_player_who_left_the_match_lobby_sits_down_again_with_im_here(simcord_env):
    """ben presses Leave on the match's lobby, then *I'm here*. Before, everyone was here and
    no game began (a match lobby cannot be filled otherwise), and at the show-up time the
    match stayed pending with nobody told. Now *I'm here* seats him on his side again."""
    env = simcord_env
    channel, (ann, ben) = await started_cup(env, ["ann", "ben"], show_up="1h")
    (match,) = (await snapshot(env.bot, channel)).round_matches(1)
    thread = thread_of(channel, match)
    lobby = next(m for m in thread.history() if m.id != match.message_id and m.components)
    await ben.click(lobby, label="Leave")
    await ann.click(match_message(channel, match), label="I'm here")
    await ben.click(match_message(channel, match), label="I'm here")
    record = game_in(env.bot, match)
    assert sorted(seat.user_id for seat in record.seats) == sorted([ann.id, ben.id])
    (started,) = (await snapshot(env.bot, channel)).round_matches(1)
    assert started.status == "playing" and started.game_id == record.id
