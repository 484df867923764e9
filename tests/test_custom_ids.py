"""Custom ids are written once: every component's id matches its own template and rebuilds it."""

from __future__ import annotations

import pytest

from cogs.common.custom_ids import CustomId
from cogs.hand import components


def test_a_format_gives_the_template_and_the_text():
    five = CustomId("seq:five:{game}:{turn}:{card:card}:{space}:{index}")
    text = five(game=3, turn=40, card="TD", space=99, index=1)
    assert text == "seq:five:3:40:TD:99:1"
    assert five.parse(text) == {"game": 3, "turn": 40, "card": "TD", "space": 99, "index": 1}
    assert five.parse("seq:five:3:40:10D:99:1") is None
    assert five.parse("seq:five:3:40:TD:99:1:extra") is None
    with pytest.raises(ValueError):
        five(game=3, turn=40, card="10D", space=99, index=1)
    vote = CustomId("seq:undo:{game}:{answer:agree|refuse}")
    assert vote.parse("seq:undo:5:refuse") == {"game": 5, "answer": "refuse"}
    assert vote.parse("seq:undo:5:maybe") is None


@pytest.mark.parametrize(
    "item",
    [
        components.PlayButton(12),
        components.CardSelect(12, 7),
        components.RowSelect(12, 7, "JS"),
        components.SpaceSelect(12, 7, "JD"),
        components.GoButton(12, 7, "7H", 54),
        components.FiveButton(12, 7, "QC", 8, 1),
        components.DeadButton(12, 7, "AS"),
        components.PassButton(12, 7),
        components.BackButton(12, 7),
        components.DrawButton(12),
        components.ForfeitSelect(12),
    ],
    ids=lambda item: type(item).__name__,
)
async def test_every_hand_component_is_rebuilt_from_its_own_id(item):
    match = type(item).__discord_ui_compiled_template__.fullmatch(item.custom_id)
    assert match is not None
    rebuilt = await type(item).from_custom_id(None, None, match)
    assert rebuilt.custom_id == item.custom_id
    for name in ("game", "revision", "card", "space", "index"):
        assert getattr(rebuilt, name, None) == getattr(item, name, None)
