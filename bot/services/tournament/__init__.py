"""Tournaments: pure pairing and standings, a snapshot model, and the service (no Discord)."""

from .model import DEFAULT_SHOW_UP, FORMAT_NAMES, Snapshot, TournamentSettings
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
