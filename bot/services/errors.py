"""The one error the Discord layer shows to a user as it is (ephemerally): :class:`UserError`,
defined in :mod:`bot.errors` (below the store, which the table's options need) and named here
for the services and cogs."""

from bot.errors import UserError

__all__ = ["UserError"]
