from tests.helpers.tournament import game_in, match_message, snapshot, started_cup


async def test_double_click(simcord_env):
    env = simcord_env
    channel, (ann, ben) = await started_cup(env, ["ann", "ben"], show_up="1h")
    (match,) = (await snapshot(env.bot, channel)).round_matches(1)
    message = match_message(channel, match)
    await ann.click(message, label="I'm here")
    a = await ben.click(message, label="I'm here")
    b = await ben.click(message, label="I'm here")
    for r in (a, b):
        print("RESULT", r.acknowledged, r.ephemeral, r.response and r.response.content)
    print(game_in(env.bot, match).id)
