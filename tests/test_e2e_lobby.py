"""Lobbies through Discord: opening, joining, teams, computers, starting and refusals."""

from __future__ import annotations

import pytest
from simcord.builders import ChannelHandle

from bot.cli.commands import tree_commands

from .e2e_helpers import Table, make_table, open_and_start

NAMES = [f"player{n}" for n in range(14)]


async def test_lobby_buttons_seat_alternating_teams(simcord_env):
    table = await make_table(simcord_env, NAMES[:4])
    record = await open_and_start(table)
    seats = [seat.user_id for seat in record.seats]
    players = [p.id for p in table.players]
    # joining order alice, b, c, d is spread over teams A B A B and seated alternately
    assert seats == players
    assert [record.game.team_of(s) for s in range(4)] == [0, 1, 0, 1]
    assert record.game.settings.hand_size == 6


async def test_switch_team_and_unequal_teams_are_refused(simcord_env):
    table = await make_table(simcord_env, NAMES[:4])
    host, bob, carol, dave = table.players
    lobby = (await host.slash(table.channel, "sequence new")).response
    for player in (bob, carol, dave):
        await player.click(lobby, label="Join")
    switched = await bob.click(lobby, label="Switch team")  # bob: Green -> Blue (3 v 1)
    assert switched.acknowledged
    refused = await host.click(lobby, label="Start")
    assert refused.ephemeral and "unequal" in refused.response.content
    assert table.game() is None
    await carol.click(lobby, label="Switch team")  # carol: Blue -> Green (2 v 2)
    await host.click(lobby, label="Start")
    record = table.game()
    teams = {seat.user_id: record.game.team_of(i) for i, seat in enumerate(record.seats)}
    assert teams[host.id] == teams[bob.id] != teams[carol.id] == teams[dave.id]


@pytest.mark.parametrize("count", [5, 7])
async def test_start_refuses_5_and_7_players(simcord_env, count: int):
    table = await make_table(simcord_env, NAMES[:count])
    host, *others = table.players
    lobby = (await host.slash(table.channel, "sequence new")).response
    for player in others:
        await player.click(lobby, label="Join")
    refused = await host.click(lobby, label="Start")
    assert refused.ephemeral
    assert f"cannot be played with {count} players" in refused.response.content
    assert table.game() is None


async def test_full_lobby_and_double_join_are_refused(simcord_env):
    table = await make_table(simcord_env, NAMES[:13])
    host, *others = table.players
    lobby = (await host.slash(table.channel, "sequence new")).response
    for player in others[:11]:
        assert not (await player.click(lobby, label="Join")).ephemeral
    full = await others[11].click(lobby, label="Join")
    assert full.ephemeral and "full" in full.response.content
    again = await others[0].slash(table.channel, "sequence join")
    assert again.ephemeral and "already in this lobby" in again.response.content


async def test_only_the_host_starts_and_a_moderator_can_cancel(simcord_env):
    import discord

    table = await make_table(simcord_env, NAMES[:2])
    host, bob = table.players
    mods = table.guild.create_role("Mods", permissions=discord.Permissions(manage_channels=True))
    moderator = table.guild.add_member(simcord_env.create_user("mod"), roles=[mods])
    lobby = (await host.slash(table.channel, "sequence new")).response
    await bob.click(lobby, label="Join")
    refused = await bob.click(lobby, label="Start")
    assert refused.ephemeral and "Only the host" in refused.response.content
    refused = await bob.slash(table.channel, "sequence cancel")
    assert refused.ephemeral and "Only the host" in refused.response.content
    cancelled = await moderator.slash(table.channel, "sequence cancel")
    assert not cancelled.ephemeral and "cancelled" in cancelled.response.content
    again = await bob.slash(table.channel, "sequence join")
    assert again.ephemeral and "no open lobby" in again.response.content


async def test_malformed_settings_get_a_clear_answer(simcord_env):
    table = await make_table(simcord_env, NAMES[:1])
    (host,) = table.players
    bad = await host.slash(table.channel, "sequence new", time_limit="soon")
    assert bad.ephemeral and "is not a duration" in bad.response.content
    bad = await host.slash(table.channel, "sequence new", time_limit="5s")
    assert bad.ephemeral and "at least 1 minute" in bad.response.content
    bad = await host.slash(table.channel, "sequence new", hints=True, rated=True, teams=3)
    assert not bad.ephemeral  # hints make the game unrated, which is allowed
    second = await host.slash(table.channel, "sequence new")
    assert second.ephemeral and "already open" in second.response.content


async def test_computer_players_fill_seats_and_play(simcord_env):
    table = await make_table(simcord_env, NAMES[:1])
    (host,) = table.players
    lobby = (await host.slash(table.channel, "sequence new")).response
    added = await host.select(
        lobby, ["easy"], custom_id=lobby.components[1]["components"][0]["custom_id"]
    )
    assert added.acknowledged
    result = await host.slash(table.channel, "sequence addbot", level="hard")
    assert result.ephemeral and "joined" in result.response.content
    result = await host.slash(table.channel, "sequence addbot", level="medium")
    table.bot.lobbies.new_seed = lambda: 3
    start = await host.click(lobby, label="Start")
    assert start.acknowledged
    record = table.game()
    assert len(record.seats) == 4
    assert record.options.rated is False  # games with computers are never rated
    # the computers play their turns by themselves until it is the host's turn
    await simcord_env.settle()
    assert record.seats[record.game.turn].user_id == host.id or record.game.is_over()


async def test_the_computer_levels_are_named_as_they_play(simcord_env):
    """The lobby's "Add a computer player" menu and /sequence addbot's level choices name each
    level as it plays: easy is a beginner that completes a sequence whenever it can and often
    blocks (tests/test_ai_levels.py), not the "random moves" they promised."""
    table = await make_table(simcord_env, NAMES[:1])
    lobby = (await table.players[0].slash(table.channel, "sequence new")).response
    menu = lobby.components[1]["components"][0]
    (addbot,) = [c for c in tree_commands(simcord_env.bot.tree) if c.name == "sequence addbot"]
    (level,) = [o for o in addbot.options if o.name == "level"]
    assert [o["label"] for o in menu["options"]] == list(level.choices)
    (easy,) = [label for label in level.choices if label.startswith("Easy")]
    assert "random" not in easy.lower() and "beginner" in easy, easy


async def test_a_lobby_in_a_thread_and_one_game_per_channel(simcord_env):
    table = await make_table(simcord_env, NAMES[:3])
    alice, bob, carol = table.players
    thread = simcord_env.backend.create_thread(table.channel.id, "sequence", alice.id)
    in_thread = Table(
        simcord_env, table.guild, ChannelHandle(simcord_env, table.guild, thread), [alice, bob]
    )
    record = await open_and_start(in_thread)
    assert record is not None and record.channel_id == thread.id
    assert in_thread.channel.last_message.attachments[0].filename.endswith(".png")
    busy = await carol.slash(in_thread.channel, "sequence new")
    assert busy.ephemeral and "one game per channel" in busy.response.content
    late = await carol.slash(in_thread.channel, "sequence join")
    assert late.ephemeral and "A game is being played here" in late.response.content
    # the thread's game leaves its parent channel free
    assert not (await carol.slash(table.channel, "sequence new")).ephemeral


async def test_a_game_command_in_a_lobby_that_has_not_started_points_to_start(simcord_env):
    """Before Start, /sequence hand (or board, status...) finds no game: its answer must not
    tell the players to open a lobby with /sequence new, which the lobby open there refuses,
    but that the game begins when the host presses Start."""
    table = await make_table(simcord_env, NAMES[:2])
    alice, bob = table.players
    lobby = (await alice.slash(table.channel, "sequence new")).response
    await bob.click(lobby, label="Join")
    for command in ("sequence hand", "sequence board", "sequence status"):
        early = await bob.slash(table.channel, command)
        assert early.ephemeral and "open a lobby with" not in early.response.content, command
        assert "presses **Start**" in early.response.content, early.response.content
    as_told = await bob.slash(table.channel, "sequence new")
    assert as_told.ephemeral and "A lobby is already open here" in as_told.response.content


async def test_a_convoy_game_needs_the_three_sequences_the_option_names(simcord_env):
    """/sequence new's sequences_to_win says what a game needs when the host leaves it out:
    2 with two teams, 1 with three, and 3 in convoy (not 2, as it said)."""
    table = await make_table(simcord_env, NAMES[:2])
    record = await open_and_start(table, preset="convoy")
    assert record.game.settings.sequences_to_win == 3
    (new,) = [c for c in tree_commands(simcord_env.bot.tree) if c.name == "sequence new"]
    (option,) = [o for o in new.options if o.name == "sequences_to_win"]
    assert "convoy: 3" in option.description, option.description


async def test_the_words_at_the_table_read_right(simcord_env):
    """Plurals, the play order as played, and no "in 0 s" for a game that took no time."""
    from .e2e_helpers import open_and_start, seat_actor

    table = await make_table(simcord_env, ["alice", "bob"])
    lobby = (await table.players[0].slash(table.channel, "sequence new")).response
    rules = next(f for f in lobby.embeds[0].fields if f.name == "Rules")
    assert rules.value.startswith("1 player,") and "(s)" not in rules.value
    await table.players[0].click(lobby, label="Cancel")
    record = await open_and_start(table)
    begins = next(m for m in table.channel.history() if "The game begins" in m.content)
    first = record.seats[record.game.turn].name
    assert begins.content.split("Play order: ")[1].startswith(f"**{first}**")
    loser = seat_actor(table, record, record.game.turn)
    await loser.slash(table.channel, "sequence resign")
    result = table.channel.last_message.content
    assert "cards played." in result or "card played." in result
    assert " in 0 s" not in result


@pytest.mark.parametrize(
    ("policy", "words"),
    [
        ("skip", "then the turn is skipped"),
        ("computer", "then a computer moves for the player"),
        ("remove", "then the player is removed (their team plays on; with nobody left, it is out)"),
    ],
)
async def test_the_house_rules_are_told_in_words(simcord_env, policy, words):
    """The lobby's rules and /sequence status said "1 h per turn, then remove" (the option's
    stored value, not a sentence) and "1 sequence(s) to win": they say what happens in words."""
    table = await make_table(simcord_env, NAMES[:2])
    options = {"time_limit": "1h", "on_timeout": policy, "sequences_to_win": 1}
    lobby = (await table.players[0].slash(table.channel, "sequence new", **options)).response
    rules = next(f for f in lobby.embeds[0].fields if f.name == "Rules").value
    assert f"1 h per turn, {words}" in rules and "1 sequence to win" in rules, rules
    await table.players[0].click(lobby, label="Cancel")
    await open_and_start(table, **options)
    status = (await table.players[1].slash(table.channel, "sequence status")).response.content
    assert f"1 h per turn, {words}" in status and "1 sequence to win" in status, status


async def test_the_last_player_leaving_by_command_closes_the_lobby_message(simcord_env):
    """``/sequence leave`` by the last person closes the lobby: its message says so and keeps
    no buttons, as when the lobby is left with the button or cancelled."""
    table = await make_table(simcord_env, NAMES[:1])
    (host,) = table.players
    lobby = (await host.slash(table.channel, "sequence new")).response
    await host.slash(table.channel, "sequence addbot", level="easy")
    left = await host.slash(table.channel, "sequence leave")
    assert left.ephemeral and "the lobby is closed" in left.response.content
    message = next(m for m in table.channel.history() if m.id == lobby.id)
    assert "closed" in message.content
    assert not message.embeds and not message.components


def shown_teams(table, message_id: int) -> dict[str, set[str]]:
    """The names the lobby message lists under each team."""
    message = next(m for m in table.channel.history() if m.id == message_id)
    return {
        field.name.split()[-1]: set(field.value.split("\n")) - {"—"}
        for field in message.embeds[0].fields
        if field.name != "Rules"
    }


async def test_a_team_the_table_no_longer_has_is_shown_where_the_player_sits(simcord_env):
    """A Red player at a table that shrinks to two teams is listed on the team the game would
    seat them in, and Switch team moves the clicker (and nobody else) to the other team."""
    table = await make_table(simcord_env, ["alice", "bob", "carol", "dave"])
    alice, bob, carol, dave = table.players
    lobby = (await alice.slash(table.channel, "sequence new")).response
    for player in (bob, carol):
        await player.click(lobby, label="Join")
    await carol.click(lobby, label="Switch team")  # three teams: carol Red -> Blue
    await bob.click(lobby, label="Switch team")  # bob Green -> Red
    await dave.click(lobby, label="Join")  # four players: two teams, and no Red any more
    before = shown_teams(table, lobby.id)
    assert set(before) == {"Blue", "Green"}
    await bob.click(lobby, label="Switch team")
    after = shown_teams(table, lobby.id)
    old = next(team for team, names in before.items() if "bob" in names)
    new = next(team for team, names in after.items() if "bob" in names)
    assert old != new
    assert {team: names - {"bob"} for team, names in before.items()} == {
        team: names - {"bob"} for team, names in after.items()
    }


async def test_a_computer_is_not_seated_on_a_team_the_table_does_not_have(simcord_env):
    table = await make_table(simcord_env, NAMES[:1])
    (host,) = table.players
    lobby = (await host.slash(table.channel, "sequence new")).response
    refused = await host.slash(table.channel, "sequence addbot", level="easy", team=2)
    assert refused.ephemeral and "no such team" in refused.response.content
    lobby_record = await table.bot.db.lobbies.get_for_channel(table.channel.id)
    assert len(lobby_record.seats) == 1
    await host.slash(table.channel, "sequence addbot", level="easy", team=1)
    # with three seats there are three teams: a computer may sit on Red
    added = await host.slash(table.channel, "sequence addbot", level="easy", team=2)
    assert "joined" in added.response.content
    assert shown_teams(table, lobby.id)["Red"] == {"🤖 Babbage (easy bot)"}


@pytest.mark.parametrize(
    ("preset", "counts"),
    [("classic", "2, 3, 4, 6, 8, 9, 10 or 12 players"), ("convoy", "2, 4, 6 or 8 players")],
)
async def test_the_lobby_names_the_player_counts_of_its_preset(simcord_env, preset, counts):
    table = await make_table(simcord_env, NAMES[:1])
    opened = await table.players[0].slash(table.channel, "sequence new", preset=preset)
    assert counts in opened.response.embeds[0].description


async def test_a_lobby_discord_refused_to_show_does_not_block_the_channel(simcord_env):
    """Discord refuses the lobby message of ``/sequence new``: nobody could see the lobby or
    press Join, so it is not kept, and trying again (as the apology says) opens it."""
    table = await make_table(simcord_env, NAMES[:2])
    host, bob = table.players
    simcord_env.inject_error("POST", "/interactions/*/callback", status=500)
    await host.slash(table.channel, "sequence new")
    assert len(simcord_env.errors) == 1  # the refused answer, logged by the error handler
    assert await table.bot.db.lobbies.get_for_channel(table.channel.id) is None
    again = await host.slash(table.channel, "sequence new")
    assert not again.ephemeral and again.response.embeds[0].title.startswith("Sequence lobby")
    assert (await bob.click(again.response, label="Join")).acknowledged


async def test_a_start_whose_answer_discord_refuses_still_closes_the_lobby_message(simcord_env):
    """The game starts even when Discord refuses the answer to the Start click: the lobby
    message still announces it (cut, dealer, play order) and keeps no lobby buttons."""
    table = await make_table(simcord_env, NAMES[:2])
    host, bob = table.players
    lobby = (await host.slash(table.channel, "sequence new")).response
    await bob.click(lobby, label="Join")
    simcord_env.inject_error("POST", "/interactions/*/callback", status=500)
    await host.click(lobby, label="Start")
    assert table.game() is not None
    message = next(m for m in table.channel.history() if m.id == lobby.id)
    assert "The game begins" in message.content and "Play order" in message.content
    assert not message.embeds and not message.components


@pytest.mark.parametrize(("label", "said"), [("Cancel", "cancelled"), ("Leave", "closed")])
async def test_a_close_whose_answer_discord_refuses_still_closes_the_lobby_message(
    simcord_env, label, said
):
    """The lobby is closed (the host cancels it, or its last player leaves) even when Discord
    refuses the answer to the click: its message still says so and keeps no lobby buttons,
    rather than inviting clicks on a lobby that is gone; the clicker is told."""
    table = await make_table(simcord_env, NAMES[:1])
    (host,) = table.players
    lobby = (await host.slash(table.channel, "sequence new")).response
    simcord_env.inject_error("POST", "/interactions/*/callback", status=500)
    answer = await host.click(lobby, label=label)
    assert await table.bot.db.lobbies.get_for_channel(table.channel.id) is None
    message = next(m for m in table.channel.history() if m.id == lobby.id)
    assert said in message.content and not message.embeds and not message.components
    assert said in answer.response.content


async def test_a_tie_for_the_lowest_cut_card_is_shown_with_its_re_cut(simcord_env):
    """With many players two often cut the same lowest rank (seed 1: two 2s among 12): the
    start message must not just say that one of them "cut the lowest card", which the other
    did too: it says the dealer tied for it and won the re-cut."""
    table = await make_table(simcord_env, NAMES[:12])
    record = await open_and_start(table, seed=1)
    game = record.game
    lowest = game.cut[game.dealer][0]
    tied = [s for s, card in enumerate(game.cut) if card[0] == lowest]
    assert len(tied) == 2 and game.dealer in tied  # the premise: seed 1 ties at 12 players
    begins = next(m for m in table.channel.history() if "The game begins" in m.content).content
    dealer = record.seats[game.dealer].name
    assert f"{dealer} tied for the lowest card, won the re-cut and deals " in begins, begins
    assert "cut the lowest card" not in begins, begins


async def test_every_computer_at_a_full_table_has_a_name_of_its_own(simcord_env):
    """A person and eleven computers of one level: the names go round the list of eight, and
    two computers called the same could not be told apart on the board or in the kick list."""
    table = await make_table(simcord_env, NAMES[:1])
    (host,) = table.players
    await host.slash(table.channel, "sequence new")
    for _ in range(11):
        await host.slash(table.channel, "sequence addbot", level="easy")
    lobby = await table.bot.db.lobbies.get_for_channel(table.channel.id)
    names = [seat.name for seat in lobby.seats]
    assert len(names) == 12 and len(set(names)) == 12, names
    choices = await host.autocomplete(table.channel, "sequence kick", "computer", "Ada")
    assert len(choices) == 2 and choices[0]["name"] != choices[1]["name"], choices
    kicked = await host.slash(table.channel, "sequence kick", computer=choices[1]["name"])
    assert kicked.ephemeral and "was removed" in kicked.response.content, kicked.response.content


async def test_the_lobby_says_a_game_with_a_computer_is_unrated(simcord_env):
    """A game with a computer player is never rated, yet the lobby's rules did not say
    "unrated" (only /sequence status did, once the game had begun): the host started what
    the card showed as a rated game. The card says it while a computer is seated."""
    table = await make_table(simcord_env, NAMES[:2])
    host, guest = table.players
    lobby = (await host.slash(table.channel, "sequence new")).response
    await guest.click(lobby, label="Join")

    def rules() -> str:
        message = next(m for m in table.channel.history() if m.id == lobby.id)
        return next(f for f in message.embeds[0].fields if f.name == "Rules").value

    assert "unrated" not in rules()
    await host.slash(table.channel, "sequence addbot", level="easy")
    assert "unrated" in rules(), rules()
    await host.slash(table.channel, "sequence kick", computer="Ada")
    assert "unrated" not in rules(), rules()
    await host.slash(table.channel, "sequence addbot", level="easy")
    await host.click(lobby, label="Start")
    status = (await guest.slash(table.channel, "sequence status")).response.content
    assert "unrated" in status and table.game().options.rated is False


async def test_the_host_moves_a_computer_to_another_team(simcord_env):
    """/sequence team took only a member: to move a computer player the host had to kick it
    and seat a new one. Now the host picks the computer from the list (or types its name),
    as /sequence kick does; naming both a player and a computer, or neither, is refused."""
    table = await make_table(simcord_env, NAMES[:2])
    host, guest = table.players
    lobby = (await host.slash(table.channel, "sequence new")).response
    await guest.click(lobby, label="Join")
    await host.slash(table.channel, "sequence addbot", level="easy", team=0)
    choices = await host.autocomplete(table.channel, "sequence team", "computer", "ad")
    assert [c["name"] for c in choices] == ["Ada (easy bot)"], choices
    moved = await host.slash(table.channel, "sequence team", computer=choices[0]["value"], team=1)
    assert moved.ephemeral and moved.response.content == "Ada (easy bot) now plays for 🟢 Green."
    seated = await table.bot.db.lobbies.get_for_channel(table.channel.id)
    assert next(s.team for s in seated.seats if s.is_computer) == 1
    shown = next(m for m in table.channel.history() if m.id == lobby.id).embeds[0]
    assert "Ada (easy bot)" in next(f.value for f in shown.fields if f.name == "🟢 Green")
    by_guest = await guest.slash(table.channel, "sequence team", computer="Ada", team=0)
    assert by_guest.ephemeral and "Only the host" in by_guest.response.content
    for named in ({"player": guest, "computer": "Ada"}, {}):
        refused = await host.slash(table.channel, "sequence team", team=0, **named)
        assert refused.ephemeral and "Name one player, or one computer" in refused.response.content
    assert await table.bot.db.lobbies.get_for_channel(table.channel.id) == seated
