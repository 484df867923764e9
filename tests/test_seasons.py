"""Seasons (issue #41 items 1 and 2): the window arithmetic of a plan (unit and ``hypothesis``
tests), and, on both backends, the season ratings kept as results are recorded equal to their
recomputation from each window's results, with and without uncertainty growth, before and after
the plan changes; ``sequence-bot standings`` checks them."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.cli.standings import check_standings
from bot.seasons import (
    MONTHLY,
    QUARTERLY,
    PlanError,
    check_new_dates,
    next_end,
    read_plan,
    season_at,
    season_before,
    season_named,
    seasons_begun,
)
from bot.skill import DEFAULT_SIGMA, Rating, grown
from bot.store.location import open_database
from bot.store.rebuild import stored_problems
from bot.store.replay import StoredResult
from bot.store.seasons import RatingRules, replay_seasons

from .store_util import create_game
from .test_standings import GUILD, random_results, record_all

DAY = 86_400.0
#: 2026-01-01 .. 2030-01-01 (UTC).
TIMES = st.floats(min_value=1_767_225_600.0, max_value=1_893_456_000.0)
DATES = st.lists(
    st.dates(datetime(2026, 1, 1).date(), datetime(2029, 12, 31).date()),
    min_size=1,
    max_size=8,
    unique=True,
)


def stamp(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp()


def plans() -> st.SearchStrategy:
    dated = DATES.map(lambda days: tuple(sorted(day.isoformat() for day in days)))
    return st.one_of(st.just(MONTHLY), st.just(QUARTERLY), dated)


@given(plans(), TIMES)
def test_a_time_falls_in_one_season_whose_neighbours_touch_it(plan, when):
    season = season_at(plan, when)
    if season is None:  # before the first start date
        assert isinstance(plan, tuple) and when < stamp(plan[0])
        return
    assert season.holds(when)
    assert season_named(plan, season.name) == season
    assert season_named(plan, season.name.lower()) == season
    before = season_before(plan, season)
    if before is not None:
        assert before.end == season.start and before.holds(season.start - 1)
    if season.end is not None:
        after = season_at(plan, season.end)
        assert after is not None and after.start == season.end and not season.holds(season.end)
    assert seasons_begun(plan, when, 3)[0] == season


@given(plans(), TIMES)
def test_the_next_end_is_the_first_end_after_now(plan, when):
    coming = next_end(plan, when)
    if coming is None:
        assert isinstance(plan, tuple)
        assert len(plan) == 1 or stamp(plan[-1]) <= when
        return
    assert coming.end is not None and coming.end > when
    current = season_at(plan, when)
    assert current is None or current == coming or current.end is None


def test_months_and_quarters_are_named_by_their_window():
    jan = season_at(MONTHLY, stamp("2027-01-31T23:59:59"))
    assert jan is not None and jan.name == "2027-01" and jan.end == stamp("2027-02-01")
    q4 = season_at(QUARTERLY, stamp("2027-12-31T12:00:00"))
    assert q4 is not None and q4.name == "2027-Q4" and q4.end == stamp("2028-01-01")
    dated = ("2027-01-01", "2027-04-01")
    assert season_at(dated, stamp("2026-12-31")) is None
    last = season_at(dated, stamp("2030-01-01"))
    assert last is not None and last.name == "2027-04-01" and last.end is None
    assert season_named(MONTHLY, "2027-13") is None and season_named(QUARTERLY, "2027-01") is None


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("weekly", "is not a date"),
        ("2027-02-30", "is not a date"),
        ("2027-01-01, 2027-1-5", "is not a date"),
        ("2027-01-01, 2027-04-01, 2027-01-01", "given twice"),
    ],
)
def test_a_plan_that_cannot_be_read_is_refused_saying_why(text, why):
    with pytest.raises(PlanError, match=why):
        read_plan(text)


def test_a_new_start_date_in_the_past_is_refused_but_one_kept_is_not():
    now = stamp("2027-03-15T10:00:00")
    with pytest.raises(PlanError, match="2027-03-01 is in the past"):
        check_new_dates(("2027-03-01", "2027-06-01"), None, now)
    check_new_dates(("2027-03-01", "2027-06-01"), ["2027-03-01"], now)  # already in force
    check_new_dates(("2027-03-15",), None, now)  # today is not past
    check_new_dates(MONTHLY, None, now)


@given(
    st.floats(min_value=0.5, max_value=8.4),
    st.floats(min_value=0, max_value=5000),
    st.integers(min_value=1, max_value=3650),
)
def test_uncertainty_grows_with_time_away_up_to_a_newcomers(sigma, days, full):
    rating = Rating(30.0, sigma)
    aged = grown(rating, days, full)
    assert aged.mu == 30.0 and rating.sigma <= aged.sigma <= max(DEFAULT_SIGMA, sigma)
    assert grown(rating, days, 0) == rating
    assert grown(rating, days + 10, full).sigma >= aged.sigma


@given(st.integers(min_value=0, max_value=2**31), st.sampled_from([0, 30]))
def test_each_season_starts_everyone_fresh(seed, time_away):
    """A season's replay is the replay of its window's results alone, from newcomers."""
    rng = random.Random(seed)
    made = random_results(rng, 12)
    start = stamp("2027-01-20")
    results = [
        StoredResult(
            n, n + 1, r["teams"], r["winner"], r["rated"], {"left": r["left"]}, start + n * 5 * DAY
        )
        for n, r in enumerate(made)
    ]
    seasons = replay_seasons(results, RatingRules(MONTHLY, time_away))
    for name, rows in seasons.items():
        window = [r for r in results if season_at(MONTHLY, r.finished_at).name == name]
        alone = replay_seasons(window, RatingRules(MONTHLY, time_away))
        assert alone == {name: rows}
        assert sum(games for *_, games, _ in rows) >= 2 * sum(r.rated for r in window)


async def season_rows(db, guild: int) -> dict:
    return {
        (season, user): (round(mu, 9), round(sigma, 9), games)
        for season, user, mu, sigma, games in await db.read(
            lambda conn: conn.fetchall(
                "SELECT season, user_id, mu, sigma, games FROM season_ratings WHERE guild_id = ?",
                (guild,),
            )
        )
    }


@pytest.mark.parametrize("time_away", [0, 45])
async def test_stored_season_ratings_equal_their_recomputation_and_follow_the_plan(
    store_location: str | Path, time_away: int
) -> None:
    db = await open_database(store_location)
    try:
        await db.season_ends.replan(GUILD, "season_plan", MONTHLY, 1, stamp("2027-01-01"))
        if time_away:
            await db.season_ends.replan(
                GUILD, "rating_time_away", time_away, 1, stamp("2027-01-01")
            )
        rng = random.Random(41)
        made = random_results(rng, 40)
        start = stamp("2027-01-03")
        times = [start + n * 3.7 * DAY for n in range(len(made))]  # about five months
        await record_all(db, made, times)
        assert await db.read(stored_problems, GUILD) == []
        monthly = await season_rows(db, GUILD)
        assert {season for season, _ in monthly} >= {"2027-01", "2027-02", "2027-03", "2027-04"}
        # a season leaderboard is its own: January's board is January's results alone
        jan = await db.seasons.board(GUILD, "2027-01", 0, 10)
        january = [
            StoredResult(n, n, r["teams"], r["winner"], r["rated"], {"left": r["left"]}, at)
            for n, (r, at) in enumerate(zip(made, times, strict=True))
            if at < stamp("2027-02-01")
        ]
        replayed = replay_seasons(january, RatingRules(MONTHLY, time_away))["2027-01"]
        by_user = {user: rating for user, rating, *_ in replayed}
        assert {row.user_id: row.rating for row in jan} == by_user
        assert [row.rating.ordinal for row in jan] == sorted(
            (r.ordinal for r in by_user.values()), reverse=True
        )

        # a new plan: the season ratings are those of the new windows, computed again
        await db.season_ends.replan(GUILD, "season_plan", QUARTERLY, 1, stamp("2027-02-01"))
        assert await db.read(stored_problems, GUILD) == []
        quarterly = await season_rows(db, GUILD)
        assert {season for season, _ in quarterly} == {"2027-Q1", "2027-Q2"}
        # back to monthly: the same numbers as before, exactly
        await db.season_ends.replan(GUILD, "season_plan", MONTHLY, 1, stamp("2027-02-01"))
        assert await season_rows(db, GUILD) == monthly
        # no plan: no season ratings; the all-time ones stay
        all_time = await db.standings.board(GUILD, 0, 50)
        await db.season_ends.replan(GUILD, "season_plan", None, 1, stamp("2027-02-01"), remove=True)
        assert await season_rows(db, GUILD) == {}
        assert await db.standings.board(GUILD, 0, 50) == all_time
    finally:
        await db.close()
    servers, problems = await check_standings(store_location, rebuild=False)
    assert (servers, problems) == (1, [])


async def test_the_check_finds_a_season_rating_that_differs(store_location: str | Path) -> None:
    db = await open_database(store_location)
    try:
        await db.season_ends.replan(GUILD, "season_plan", QUARTERLY, 1, stamp("2027-01-01"))
        made = random_results(random.Random(7), 10)
        await record_all(db, made, [stamp("2027-01-05") + n * DAY for n in range(10)])
        await db.run(
            lambda conn: conn.execute(
                "UPDATE season_ratings SET mu = mu + 1 WHERE guild_id = ? AND user_id = "
                "(SELECT min(user_id) FROM season_ratings WHERE guild_id = ?)",
                (GUILD, GUILD),
            )
        )
        problems = await db.read(stored_problems, GUILD)
        assert len(problems) == 1 and "season 2027-Q1" in problems[0]
    finally:
        await db.close()
    servers, problems = await check_standings(store_location, rebuild=True)
    assert (servers, problems) == (1, [])


async def test_time_away_grows_the_uncertainty_and_a_change_recomputes(
    store_location: str | Path,
) -> None:
    db = await open_database(store_location)
    try:
        start = stamp("2027-01-01")
        made = [
            {"teams": [[1], [2]], "winner": 0, "left": [], "tallies": {}, "rated": True},
            {"teams": [[1], [3]], "winner": 0, "left": [], "tallies": {}, "rated": True},
        ]
        await record_all(db, made, [start, start + 200 * DAY])  # player 1: 200 days away
        steady = await db.standings.rating(GUILD, 1)
        await db.season_ends.replan(GUILD, "rating_time_away", 100, 1, start + 201 * DAY)
        grown_back = await db.standings.rating(GUILD, 1)
        assert steady is not None and grown_back is not None
        assert grown_back[1] == steady[1] == 2
        assert grown_back[0].sigma > steady[0].sigma  # less sure after time away
        assert await db.read(stored_problems, GUILD) == []
        await db.season_ends.replan(GUILD, "rating_time_away", None, 1, start, remove=True)
        assert await db.standings.rating(GUILD, 1) == steady  # off again: as before
    finally:
        await db.close()


async def test_a_result_recorded_while_a_new_plan_is_replayed_is_in_its_ratings(
    store_location: str | Path,
) -> None:
    """A new plan's season ratings are replayed before its transaction: a result recorded in
    between (forced here, as the plan's replay reads the settings) makes it replay again."""
    db = await open_database(store_location)
    try:
        made = random_results(random.Random(3), 12)
        start = stamp("2027-01-02")
        await record_all(db, made[:10], [start + n * DAY for n in range(10)])
        settings_read = db.guild_settings.all

        async def a_result_meanwhile(guild_id: int):
            settings_read_now = await settings_read(guild_id)
            db.guild_settings.all = settings_read  # once
            game = await create_game(db, channel_id=5000, guild_id=GUILD)
            await db.results.record(game.id, GUILD, [[1], [2]], 0, True, {}, now=start + 11 * DAY)
            return settings_read_now

        db.guild_settings.all = a_result_meanwhile
        await db.season_ends.replan(GUILD, "season_plan", MONTHLY, 1, start)
        assert db.guild_settings.all is settings_read  # the interleaving happened
        rows = await season_rows(db, GUILD)
        assert sum(games for (_, user), (*_, games) in rows.items() if user in (1, 2)) >= 2
        assert await db.read(stored_problems, GUILD) == []
    finally:
        await db.close()


async def test_a_season_end_writes_its_podium_step_once_with_the_next_timer(
    store_location: str | Path,
) -> None:
    db = await open_database(store_location)
    try:
        await db.season_ends.replan(GUILD, "season_plan", MONTHLY, 1, stamp("2027-01-01"))
        made = random_results(random.Random(3), 6)
        await record_all(db, made, [stamp("2027-01-05") + n * DAY for n in range(6)])
        (january,) = await db.season_ends.waiting()
        assert (january.season, january.state) == ("2027-01", "timer")
        assert not await db.season_ends.fire(january.id, january.ends_at - 1)  # not due
        assert await db.season_ends.fire(january.id, january.ends_at + 1)
        assert not await db.season_ends.fire(january.id, january.ends_at + 2)  # once
        (step,) = await db.outbox.undelivered_season_steps()
        assert (step.season_end_id, step.guild_id, step.season) == (january.id, GUILD, "2027-01")
        board = await db.seasons.board(GUILD, "2027-01", 0, 3)
        assert [row["user_id"] for row in step.payload["top"]] == [row.user_id for row in board]
        assert [(e.season, e.state) for e in await db.season_ends.waiting()] == [
            ("2027-02", "timer")
        ]
        await db.outbox.mark({step.id: frozenset()}, january.ends_at + 3)
        assert await db.outbox.undelivered_season_steps() == []
        assert await db.outbox.prune(january.ends_at + 4, keep=1) == 0  # the newest is kept
        assert await db.outbox.prune(january.ends_at + 4, keep=0) == 1
    finally:
        await db.close()
