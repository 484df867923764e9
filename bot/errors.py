"""The one error the Discord layer shows to a user as it is (ephemerally).

It lives at the bottom of ``bot`` so that every layer can raise it: the table's options
(:mod:`bot.table`) validate with it, below the store; :mod:`bot.services.errors` names the same
class.
"""


class UserError(Exception):
    """Bad input or a refused action: the message is for the user, and nothing changed."""
