"""What a seek's change causes, in the outbox: a match's table to open (:data:`MATCHED`), or a
seek's end to tell its seeker (:data:`ENDED`), written in the change's transaction as a seek's
step (:meth:`~bot.store.outbox.Outbox.add_seek_step`). The table's opening (or the seekers'
return to the queue) marks its step done in its own transaction; a step a crash or a restart
left undone is read back (:func:`undelivered`) and done then. Doing a step is at least once: a
match whose seeks sit at a table already is done, and an end may be told twice.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.store.base import Store
    from bot.store.seeks import SeekRecord

#: The kinds of a seek's step.
MATCHED, ENDED = "SeekMatched", "SeekEnded"


@dataclass(frozen=True)
class Match:
    """Seekers to seat at one table (``computers``: seats a computer fills), in play order;
    ``channel_id``: where the last of them asked; ``step``: its step in the outbox."""

    guild_id: int
    seeks: tuple[SeekRecord, ...]
    channel_id: int
    computers: int = 0
    step: int | None = None

    @property
    def players(self) -> int:
        """The table's size."""
        return len(self.seeks) + self.computers


@dataclass(frozen=True)
class SeekEnd:
    """A seek whose wait ran out (``expired``, or ``offered`` a computer opponent), to tell its
    seeker; ``step``: its step in the outbox."""

    seek: SeekRecord
    step: int


async def record_match(db: Store, match: Match, now: float) -> Match:
    """In the match's transaction: its step (the table to open); the match with it."""
    payload = {
        "seeks": [seek.id for seek in match.seeks],
        "channel_id": match.channel_id,
        "computers": match.computers,
    }
    step = await db.outbox.add_seek_step(match.seeks[-1].id, MATCHED, payload, now)
    return replace(match, step=step)


async def record_end(db: Store, seek: SeekRecord, now: float) -> SeekEnd:
    """In the end's transaction: its step (the seeker to tell)."""
    step = await db.outbox.add_seek_step(seek.id, ENDED, {"status": seek.status}, now)
    return SeekEnd(seek, step)


async def step_done(db: Store, step: int | None, now: float) -> None:
    """Mark a seek's step done (in the transaction that did it, if one is open)."""
    if step is not None:
        await db.outbox.mark({step: frozenset()}, now)


async def undelivered(db: Store) -> list[Match | SeekEnd]:
    """The seeks' steps of this process's shards still to do, oldest first."""
    found: list[Match | SeekEnd] = []
    for row in await db.outbox.undelivered_seek_steps():
        if row.kind == ENDED:
            seek = await db.seeks.get(row.seek_id)
            if seek is not None:
                found.append(SeekEnd(replace(seek, status=str(row.payload["status"])), row.id))
            continue
        seeks = [await db.seeks.get(int(seek_id)) for seek_id in row.payload["seeks"]]
        present = tuple(seek for seek in seeks if seek is not None)
        if present:
            channel = int(row.payload["channel_id"])
            computers = int(row.payload.get("computers", 0))
            found.append(Match(present[0].guild_id, present, channel, computers, row.id))
    return found
