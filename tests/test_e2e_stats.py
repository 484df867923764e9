"""Results, ratings, leaderboard, history and replays through Discord."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from bot.game.cards import is_jack
from bot.game.moves import PLAY
from bot.game.view import public_view
from bot.services import stats as stats_service
from bot.services.ratings import DEFAULT_MU
from cogs.common.describe import team_label
from render.encode import to_palette
from render.replay import _caption, frame

from .e2e_driver import components, play_to_the_end
from .e2e_helpers import make_table, open_and_start, play_one, seat_actor
from .store_util import create_game


def field(embed, name: str) -> str:
    return next(f.value for f in embed.fields if f.name == name)


async def test_stats_keep_a_bounded_number_of_games_in_memory(simcord_env, monkeypatch) -> None:
    """Every game anyone's /sequence stats counted stayed in the bot's memory for as long as
    it ran (its tallies: the sequences and jacks of each player), so a bot running for weeks
    kept one entry per finished game ever looked up, growing without end. It then kept the
    most recently asked for (``KEEP_TALLIES``, 3 here) and counted the others again if asked.
    Now the tallies are stored with each result (issue #37): the stats service keeps nothing
    per game at all, and answers the same."""
    monkeypatch.setattr(stats_service, "KEEP_TALLIES", 3, raising=False)
    stats = simcord_env.bot.get_cog("Stats").stats
    first = None
    for number in range(6):
        table = await make_table(simcord_env, [f"ann{number}", f"ben{number}"])
        ann, ben = table.players
        await open_and_start(table, seed=number)
        await ben.slash(table.channel, "sequence resign")
        shown = await ann.slash(table.channel, "sequence stats")
        assert field(shown.response.embeds[0], "Games").startswith("**1** (1 won · 0 lost")
        assert set(vars(stats)) == {"db", "ratings"}  # nothing kept per game (was: <= 3)
        first = first or table
    ann = first.players[0]
    again = await ann.slash(first.channel, "sequence stats")  # counted again: the same answer
    assert field(again.response.embeds[0], "Games").startswith("**1** (1 won · 0 lost")
    assert set(vars(stats)) == {"db", "ratings"}


async def test_rated_game_moves_ratings_and_unrated_does_not(simcord_env) -> None:
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    bot = table.bot
    guild = table.guild.id

    record = await open_and_start(table, seed=5, sequences_to_win=1)
    assert record.options.rated is True
    await play_to_the_end(table, record)
    game = record.game
    winner_seat = game.settings.seats_of(game.winner)[0]
    winner = alice if record.seats[winner_seat].user_id == alice.id else bob
    loser = bob if winner is alice else alice

    book = await bot.ratings.book(guild)
    won, lost = book.rating(winner.id), book.rating(loser.id)
    assert won.mu > DEFAULT_MU > lost.mu  # both sides moved, the right way
    assert won.ordinal > 0 > lost.ordinal

    # what /sequence stats shows matches the game: sequences made and jacks played
    shown = await winner.slash(table.channel, "sequence stats")
    assert not shown.ephemeral
    embed = shown.response.embeds[0]
    assert field(embed, "Games").startswith("**1** (1 won · 0 lost")
    assert field(embed, "Sequences made") == str(game.sequence_count(game.winner))
    jacks = sum(
        1
        for move in game.moves
        if move.kind == PLAY and move.seat == winner_seat and is_jack(move.card or "")
    )
    assert field(embed, "Jacks played") == str(jacks)
    assert f"{won.ordinal:.1f} (μ {won.mu:.1f}" in field(embed, "Rating")
    assert "#1 here" in field(embed, "Rating")
    theirs = await winner.slash(table.channel, "sequence stats", player=loser.user)
    assert "#2 here" in field(theirs.response.embeds[0], "Rating")
    assert "▼" in field(theirs.response.embeds[0], "Trend")

    # an unrated (casual) game: the loser resigns; ratings stay exactly as they were
    casual = await open_and_start(table, seed=6, rated=False)
    assert casual.options.rated is False
    resigned = await loser.slash(table.channel, "sequence resign")
    assert not resigned.ephemeral
    assert casual.game.is_over()
    book = await bot.ratings.book(guild)
    assert book.rating(winner.id) == won and book.rating(loser.id) == lost
    results = await bot.db.results.for_guild(guild)
    assert [r.rated for r in results] == [True, False]
    embed = (await loser.slash(table.channel, "sequence stats")).response.embeds[0]
    assert field(embed, "Games").startswith("**2** (0 won · 2 lost")
    assert "1 rated game" in field(embed, "Rating") and "game(s)" not in field(embed, "Rating")

    # history: newest first, with the rating change of the rated game
    history = await loser.slash(table.channel, "sequence history")
    assert history.ephemeral
    lines = history.response.embeds[0].description.splitlines()
    assert lines[0].startswith(f"`#{casual.id}`") and "❌ Lost" in lines[0]
    assert lines[0].endswith("unrated")
    assert lines[1].startswith(f"`#{record.id}`") and "❌ Lost" in lines[1]
    assert f"rated {lost.ordinal:+.1f}" in lines[1]

    # leaderboard: the winner first
    board = await alice.slash(table.channel, "sequence leaderboard")
    rows = board.response.embeds[0].description.splitlines()
    assert rows[0].startswith(f"**1.** <@{winner.id}>") and rows[1].startswith(
        f"**2.** <@{loser.id}>"
    )
    assert all(button["disabled"] for button in components(board.response))

    # replay: an animated GIF of the whole game
    replay = await bob.slash(table.channel, "sequence replay", game=record.id)
    assert not replay.ephemeral
    attachment = replay.response.attachments[0]
    assert attachment.filename == f"sequence-{record.id}.gif"
    assert (await attachment.read()).startswith(b"GIF89a")
    assert f"Replay of game #{record.id}" in replay.response.content


async def test_replay_refusals(simcord_env) -> None:
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, _ = table.players
    record = await open_and_start(table)
    active = await alice.slash(table.channel, "sequence replay", game=record.id)
    assert active.ephemeral and "still being played" in active.response.content
    missing = await alice.slash(table.channel, "sequence replay", game=999)
    assert missing.ephemeral and "no game #999" in missing.response.content
    other = simcord_env.create_guild("Elsewhere")
    elsewhere = other.create_text_channel("general")
    carol = other.add_member(simcord_env.create_user("carol"))
    await table.bot.games.cancel(record.id)
    refused = await carol.slash(elsewhere, "sequence replay", game=record.id)
    assert refused.ephemeral and "in this server" in refused.response.content


@pytest.mark.parametrize("players", [12])
async def test_leaderboard_pages(simcord_env, players: int) -> None:
    table = await make_table(simcord_env, ["alice"])
    (alice,) = table.players
    db = table.bot.db
    # twelve rated results: player 1000+n beat player 2000+n (today: within the leaderboard's
    # activity window)
    today = table.bot.clock()
    for n in range(players):
        game = await create_game(db, channel_id=500 + n, guild_id=table.guild.id)
        await db.results.record(
            game.id, table.guild.id, [[1000 + n], [2000 + n]], 0, True, {}, now=today + n
        )
    first = await alice.slash(table.channel, "sequence leaderboard")
    embed = first.response.embeds[0]
    assert len(embed.description.splitlines()) == 10
    assert embed.footer.text.startswith("Page 1 of 3")
    prev, nxt = components(first.response)
    assert prev["disabled"] and not nxt["disabled"]
    second = await alice.click(first.response, label="Next ▶")
    assert second.acknowledged
    page = second.response.embeds[0]
    assert page.footer.text.startswith("Page 2 of 3")
    # the twelve winners share 1st place, the twelve losers 13th; page 2 starts at the 11th
    assert page.description.splitlines()[0].startswith("**1.** <@1010> ")
    last = await alice.slash(table.channel, "sequence leaderboard", page=9)
    assert last.response.embeds[0].footer.text.startswith("Page 3 of 3")
    rows = last.response.embeds[0].description.splitlines()
    assert [row.split(" ·")[0] for row in rows] == [f"**13.** <@{2008 + n}>" for n in range(4)]


def last_frame(data: bytes):
    """The final picture of a replay GIF, in RGB."""
    gif = Image.open(io.BytesIO(data))
    gif.seek(gif.n_frames - 1)
    return gif.convert("RGB")


@pytest.mark.parametrize("ending", ["resign", "draw"])
async def test_a_replay_ends_on_the_result_when_no_card_ended_the_game(simcord_env, ending):
    """A game that ended by a resignation or an agreed draw: the replay's held last frame says
    so (who won, or that the table agreed a draw), not just the last card played."""
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    record = await open_and_start(table, rated=False)
    for _ in range(2):
        await play_one(table, record)
    if ending == "resign":
        await bob.slash(table.channel, "sequence resign")
    else:
        offer = await alice.slash(table.channel, "sequence draw")
        await bob.click(offer.response, label="Accept the draw")
    game = record.game
    assert game.is_over()
    result = "wins (" if ending == "resign" else "The game is a draw. Drawn by agreement."
    assert result in table.channel.last_message.attachments[0].description  # the final board
    replay = await bob.slash(table.channel, "sequence replay", game=record.id)
    alt = replay.response.attachments[0].description  # alt text for a screen reader
    assert alt.startswith(f"Animated replay of Sequence game #{record.id}: ")
    assert "after each of its 2 plays" in alt and "alice" in alt and "bob" in alt
    assert alt.endswith("won. Green resigned." if ending == "resign" else "Drawn by agreement.")
    shown = last_frame(await replay.response.attachments[0].read())
    names = [seat.name for seat in record.seats]
    end = to_palette(frame(public_view(game), names, 2, 2)).convert("RGB")
    assert shown.tobytes() == end.tobytes()
    caption = _caption(public_view(game), names, 2, 2)[1]
    assert ("wins" in caption) if ending == "resign" else ("agree" in caption)


async def test_a_team_that_resigned_loses_the_game_the_others_then_draw(simcord_env):
    """Three teams: Bob resigns, Alice and Carol play on and agree a draw. Bob lost (his
    record, his history and his rating say so); only the two who stayed share the draw."""
    table = await make_table(simcord_env, ["alice", "bob", "carol"])
    alice, bob, carol = table.players
    record = await open_and_start(table)
    await bob.slash(table.channel, "sequence resign")
    offer = await alice.slash(table.channel, "sequence draw")
    await carol.click(offer.response, label="Accept the draw")
    assert record.game.is_over() and record.game.winner is None

    embed = (await bob.slash(table.channel, "sequence stats")).response.embeds[0]
    assert field(embed, "Games") == "**1** (0 won · 1 lost)"
    line = (await bob.slash(table.channel, "sequence history")).response.embeds[0].description
    assert "❌ Lost" in line
    game = record.game
    teams = {
        p.id: game.team_of(next(i for i, s in enumerate(record.seats) if s.user_id == p.id))
        for p in (alice, carol)
    }
    alice_team, carol_team = (team_label(teams[p.id]) for p in (alice, carol))
    vs = sorted([f"{alice_team} (<@{alice.id}>)", f"{carol_team} (<@{carol.id}>)"])
    assert f"vs {vs[0]} and {vs[1]}" in line or f"vs {vs[1]} and {vs[0]}" in line, line
    embed = (await carol.slash(table.channel, "sequence stats")).response.embeds[0]
    assert field(embed, "Games") == "**1** (0 won · 0 lost · 1 drawn)"
    book = await table.bot.ratings.book(table.guild.id)
    assert book.rating(bob.id).mu < DEFAULT_MU < book.rating(alice.id).mu
    assert book.rating(alice.id) == book.rating(carol.id)


async def test_the_replay_of_a_one_move_game_counts_one_move(simcord_env):
    """Bob resigns before anyone plays: the replay says "1 move", not "1 moves"."""
    table = await make_table(simcord_env, ["alice", "bob"])
    alice, bob = table.players
    record = await open_and_start(table, rated=False)
    await bob.slash(table.channel, "sequence resign")
    replay = await alice.slash(table.channel, "sequence replay", game=record.id)
    assert replay.response.content == f"🎞️ Replay of game #{record.id} (1 move)"


async def test_partners_with_the_same_rating_share_their_place(simcord_env):
    """A rated 2v2 game: both winners have the same rating, and so do both losers. The
    leaderboard and /sequence stats ranked them 1, 2, 3 and 4 (by Discord id); partners with
    the same rating now share a place: 1, 1, 3, 3."""
    table = await make_table(simcord_env, ["alice", "bob", "carol", "dave"])
    record = await open_and_start(table)
    settings = record.game.settings
    winners, losers = (
        [seat_actor(table, record, seat) for seat in settings.seats_of(team)] for team in (0, 1)
    )
    for loser in losers:
        await loser.slash(table.channel, "sequence resign")
    assert record.game.winner == 0
    book = await table.bot.ratings.book(table.guild.id)
    assert book.rating(winners[0].id) == book.rating(winners[1].id)
    assert book.rating(losers[0].id) == book.rating(losers[1].id)

    board = await winners[0].slash(table.channel, "sequence leaderboard")
    rows = board.response.embeds[0].description.splitlines()
    assert [row.split()[0] for row in rows] == ["**1.**", "**1.**", "**3.**", "**3.**"]
    for player, place in [(p, 1) for p in winners] + [(p, 3) for p in losers]:
        embed = (await player.slash(table.channel, "sequence stats")).response.embeds[0]
        assert f"#{place} here" in field(embed, "Rating"), field(embed, "Rating")


async def test_history_names_the_computer_players(simcord_env):
    """alice and a computer lost to two computers: her history showed each computer as a
    bare 🤖, with no name or level. Now each is named as the lobby and the boards name it."""
    table = await make_table(simcord_env, ["alice"])
    (alice,) = table.players
    lobby = (await alice.slash(table.channel, "sequence new")).response
    for team in (0, 1, 1):
        await alice.slash(table.channel, "sequence addbot", level="easy", team=team)
    await alice.click(lobby, label="Start")
    record = table.game()
    await alice.slash(table.channel, "sequence resign")
    assert record.game.is_over()
    names = {seat.user_id: seat.name for seat in record.seats if seat.is_computer}
    partner, *others = (
        f"🤖 {names[record.seats[s].user_id]}"
        for team in (0, 1)
        for s in record.game.settings.seats_of(team)
        if record.seats[s].is_computer
    )
    line = (await alice.slash(table.channel, "sequence history")).response.embeds[0].description
    assert f"with {partner} vs {', '.join(others)} · unrated" in line, line
