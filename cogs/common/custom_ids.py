"""A component's custom id, written once: the regex discord.py matches and the text we send.

A format names its fields in braces, with a type after a colon (``int`` when none is given)::

    >>> GO = CustomId("seq:go:{game}:{turn}:{card:card}:{space}")
    >>> GO(game=7, turn=12, card="JH", space=43)
    'seq:go:7:12:JH:43'
    >>> GO.parse("seq:go:7:12:JH:43")
    {'game': 7, 'turn': 12, 'card': 'JH', 'space': 43}
    >>> CustomId("seq:undo:{game}:{answer:agree|refuse}").template.pattern
    'seq:undo:(?P<game>\\\\d+):(?P<answer>agree|refuse)'

Types: ``int`` (digits, read back as an int), ``card`` (a card code like ``7S``), ``season``
(a season's name like ``2027-Q1``), or a choice of
words separated by ``|`` (read back as the word).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, ClassVar

import discord

#: The template of an abstract base: it matches no custom id.
NEVER = re.compile(r"(?!)")

FIELD = re.compile(r"\{(?P<name>[a-z_]+)(?::(?P<kind>[^}]+))?\}")

#: A field type: its pattern and how its text is read back.
KINDS: dict[str, tuple[str, Callable[[str], Any]]] = {
    "int": (r"\d+", int),
    "card": (r"[0-9TJQKA][SHDC]", str),
    "season": (r"\d{4}-(?:Q[1-4]|\d{2})(?:-\d{2})?", str),
}


class CustomId:
    """One custom-id format: :attr:`template` to match it, a call to write it."""

    def __init__(self, fmt: str) -> None:
        self.format = fmt
        self.readers: dict[str, Callable[[str], Any]] = {}
        parts = []
        end = 0
        for field in FIELD.finditer(fmt):
            kind = field["kind"] or "int"
            if kind in KINDS:
                pattern, read = KINDS[kind]
            else:
                pattern, read = "|".join(re.escape(word) for word in kind.split("|")), str
            parts += [re.escape(fmt[end : field.start()]), f"(?P<{field['name']}>{pattern})"]
            self.readers[field["name"]] = read
            end = field.end()
        parts.append(re.escape(fmt[end:]))
        self.template = re.compile("".join(parts))

    def __call__(self, **values: Any) -> str:
        """The custom id with these values (a value its field cannot hold is a bug: ValueError)."""
        text = FIELD.sub(lambda field: str(values[field["name"]]), self.format)
        if not self.template.fullmatch(text):
            raise ValueError(f"{values!r} do not fit the custom id {self.format!r}")
        return text

    def values(self, match: re.Match[str]) -> dict[str, Any]:
        """The fields of a matched custom id, each read back as its type."""
        return {name: read(match[name]) for name, read in self.readers.items()}

    def parse(self, text: str) -> dict[str, Any] | None:
        """The fields of ``text``, or None if it is not of this format."""
        match = self.template.fullmatch(text)
        return None if match is None else self.values(match)


class Templated:
    """Mixin for a :class:`discord.ui.DynamicItem` whose custom id is declared once, in its class
    line: ``class X(Templated, DynamicItem[Button], custom_id="seq:x:{game}")``.

    The class gets that format as :attr:`ids` (write the id with ``self.ids(game=...)``), and is
    rebuilt from a matching id by calling it with the id's fields as keyword arguments.
    """

    ids: ClassVar[CustomId]

    def __init_subclass__(cls, *, custom_id: str | None = None, **kwargs: Any) -> None:
        if custom_id is not None:
            cls.ids = CustomId(custom_id)
            kwargs["template"] = cls.ids.template
        elif "template" not in kwargs and issubclass(cls, discord.ui.DynamicItem):
            # A base shared by several buttons has no id of its own and is never registered.
            kwargs["template"] = NEVER
        super().__init_subclass__(**kwargs)

    @classmethod
    async def from_custom_id(cls, interaction: Any, item: Any, match: re.Match[str]) -> Any:
        """Rebuild the item from its custom id (its fields are the constructor's arguments)."""
        return cls(**cls.ids.values(match))
