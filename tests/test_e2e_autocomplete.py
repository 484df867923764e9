"""``/sequence play`` autocomplete: only the player's own cards and their legal spaces."""

from __future__ import annotations

from bot.game import card_label, space_name

from .e2e_helpers import make_table, open_and_start, seat_actor


async def test_card_and_space_autocomplete_offer_only_what_is_legal(simcord_env):
    table = await make_table(simcord_env, ["alice", "bob", "outsider"])
    alice, bob, outsider = table.players
    record = await open_and_start(
        table.__class__(simcord_env, table.guild, table.channel, [alice, bob])
    )
    game = record.game
    seat = game.turn
    mover = seat_actor(table, record, seat)
    cards = await mover.autocomplete(table.channel, "sequence play", "card", "")
    assert sorted(c["value"] for c in cards) == sorted(set(game.hands[seat]))
    card = next(c for c in game.hands[seat] if c[0] != "J" and game.targets(seat, c))
    named = next(c for c in cards if c["value"] == card)["name"]
    assert named.startswith(card_label(card))
    spaces = await mover.autocomplete(table.channel, "sequence play", "space", "", card=card)
    assert sorted(c["value"] for c in spaces) == sorted(
        space_name(s) for s in game.targets(seat, card)
    )
    assert await outsider.autocomplete(table.channel, "sequence play", "card", "") == []
