"""The one error the Discord layer shows to a user as it is (ephemerally)."""


class UserError(Exception):
    """Bad input or a refused action: the message is for the user, and nothing changed."""
