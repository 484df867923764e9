"""The stand-in ids and labels of members who asked to be forgotten (``/sequence-me forget-me``).

A forgotten member's Discord id is replaced, in every row that held it, by a pseudonymous id
drawn at random from :data:`LOW` .. :data:`HIGH`: a positive number (people have positive ids,
computer players negative ones, so ratings and totals treat it as a person) far below any real
Discord id (a snowflake counts milliseconds since 2015 shifted left by 22 bits: every account
has an id above 2**32). Nothing links it to the member: it is random, not derived from their id.
Wherever the bot would mention a player, it shows the pseudonym's label instead.

>>> is_pseudonym(0x4F2A91C0), label(0x4F2A91C0)
(True, 'Player 4f2a91c0')
>>> is_pseudonym(80351110224678912), is_pseudonym(-1)
(False, False)
"""

from __future__ import annotations

import secrets

#: The pseudonyms' range (inclusive): eight hexadecimal digits, so every label is as long.
LOW = 0x1000_0000
HIGH = 0xFFFF_FFFF


def is_pseudonym(user_id: int) -> bool:
    """True for a forgotten member's stand-in id."""
    return LOW <= user_id <= HIGH


def label(user_id: int) -> str:
    """The name a forgotten member's stand-in id is shown by: ``"Player 4f2a91c0"``."""
    return f"Player {user_id:08x}"


def draw() -> int:
    """A fresh pseudonym, at random (the caller makes sure it is not in use)."""
    return LOW + secrets.randbelow(HIGH - LOW + 1)


def person(user_id: int) -> str:
    """How a message names a person by id: a mention, or a forgotten member's label."""
    return label(user_id) if is_pseudonym(user_id) else f"<@{user_id}>"
