"""A yes-or-no answer button on a question about one moment of a game (an undo request, a draw
offer): its custom id names the game, the move count the question was asked at, and the answer."""

from __future__ import annotations

from typing import ClassVar

import discord

from .answering import Answering
from .custom_ids import Templated


class AnswerButton(Answering, Templated, discord.ui.DynamicItem[discord.ui.Button]):
    """One answer; a subclass gives its ``custom_id`` format (fields ``game_id``, ``count`` and
    ``answer``), its :attr:`YES` word and its two :attr:`LABELS`."""

    #: The answer that agrees.
    YES: ClassVar[str]
    #: The labels of the agreeing (green) and the other (red) answer.
    LABELS: ClassVar[tuple[str, str]]

    def __init__(self, game_id: int, count: int, answer: str) -> None:
        self.game_id, self.count, self.answer = game_id, count, answer
        yes, no = self.LABELS
        super().__init__(
            discord.ui.Button(
                label=yes if self.agrees else no,
                style=discord.ButtonStyle.success if self.agrees else discord.ButtonStyle.danger,
                custom_id=self.ids(game_id=game_id, count=count, answer=answer),
            )
        )

    @property
    def agrees(self) -> bool:
        """True for the answer that agrees."""
        return self.answer == self.YES
