"""What the demo writes of its channel: the transcript a reader would see, the boards' names."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import discord

_MOVE_IN_TITLE = re.compile(r"move (\d+)")


def board_name(message: Any, index: int, taken: set[str]) -> str:
    """``board-012.png`` for the board posted after move 12 (unique within the folder)."""
    title = message.embeds[0].title if message.embeds else None
    found = _MOVE_IN_TITLE.search(title or "")
    number = int(found.group(1)) if found else index
    name, suffix = f"board-{number:03d}.png", 1
    while name in taken:
        suffix += 1
        name = f"board-{number:03d}-{suffix}.png"
    taken.add(name)
    return name


_MENTION = re.compile(r"<@!?(-?\d+)>")


def channel_transcript(messages: list[Any], names: dict[int, str], channel: str | None) -> str:
    """The channel as a reader would see it: author, text, embeds, files and buttons."""

    def plain(text: str) -> str:
        return _MENTION.sub(lambda m: "@" + names.get(int(m.group(1)), m.group(1)), text)

    lines = [
        f"#{channel} · {len(messages)} messages (replies only one player could see are left out)",
        "",
    ]
    for message in messages:
        author = names.get(message.author.id, message.author.name)
        lines.append(f"{author}{_context(message, names)}:")
        lines.extend(f"  {plain(line)}" for line in message.content.splitlines())
        for embed in message.embeds:
            lines.extend(_embed_lines(embed, plain))
        lines.extend(f"  [file: {a.filename}]" for a in message.attachments)
        labels = [
            getattr(item, "label", None) or getattr(item, "placeholder", None)
            for row in message.components
            for item in getattr(row, "children", [])
        ]
        if any(labels):
            lines.append("  " + " ".join(f"[{label}]" for label in labels if label))
        lines.append("")
    return "\n".join(lines)


def _context(message: Any, names: dict[int, str]) -> str:
    """`` (answering alice's command)`` for a reply to an interaction, else nothing."""
    meta = getattr(message, "interaction_metadata", None)
    if meta is None or meta.user is None:
        return ""
    who = names.get(meta.user.id, meta.user.name)
    kind = "command" if meta.type == discord.InteractionType.application_command else "click"
    return f" (answering {who}'s {kind})"


def _embed_lines(embed: Any, plain: Callable[[str], str]) -> list[str]:
    lines = []
    if embed.title:
        lines.append(f"  | {plain(embed.title)}")
    for text in (embed.description or "").splitlines():
        lines.append(f"  | {plain(text)}")
    for embed_field in embed.fields:
        value = plain(str(embed_field.value)).replace("\n", ", ")
        lines.append(f"  | {embed_field.name}: {value}")
    if embed.footer and embed.footer.text:
        lines.append(f"  | {plain(embed.footer.text)}")
    return lines
