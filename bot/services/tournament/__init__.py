"""Tournaments: pure pairing and standings, a snapshot model, and the service (no Discord)."""

from bot.table.tournament import DEFAULT_SHOW_UP, TournamentSettings

from .model import FORMAT_NAMES, Snapshot
from .service import CheckIn, Correction, Progress, TournamentService, require_organiser
from .standings import ELIMINATION, FORMATS, ROUND_ROBIN, SWISS, TIEBREAK_NAMES

__all__ = [
    "DEFAULT_SHOW_UP",
    "ELIMINATION",
    "FORMATS",
    "FORMAT_NAMES",
    "ROUND_ROBIN",
    "SWISS",
    "TIEBREAK_NAMES",
    "CheckIn",
    "Correction",
    "Progress",
    "Snapshot",
    "TournamentService",
    "TournamentSettings",
    "require_organiser",
]
