"""Game settings: player count, teams, the two presets and every house option of RULES.md."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any, Literal

Preset = Literal["classic", "convoy"]

PRESETS: tuple[str, ...] = ("classic", "convoy")
ALLOWED_PLAYER_COUNTS: dict[str, tuple[int, ...]] = {
    "classic": (2, 3, 4, 6, 8, 9, 10, 12),
    "convoy": (2, 4, 6, 8),
}
MAX_PLAYERS = 12
#: Team names by team number (team = seat % teams), as RULES.md colours the chips.
TEAM_NAMES: tuple[str, ...] = ("Blue", "Green", "Red")

#: Cards dealt to each player in the classic game, by player count.
CLASSIC_HAND_SIZES: dict[int, int] = {2: 7, 3: 6, 4: 6, 6: 5, 8: 4, 9: 4, 10: 3, 12: 3}
CONVOY_HAND_SIZE = 5
#: House option: 10 or 12 players get 2 cards each, as one write-up has it.
SMALL_HAND_SIZE = 2
#: The engine's rules revision, recorded in the settings of every new game. 1: the rules before
#: the stalemate and manual-draw fixes of 2026-11-26 (``bot/game/revision1.py`` says what
#: differs); 2: with them. A game keeps the revision it was started under, so its log replays as
#: it was played.
RULES_REVISION = 2


class SettingsError(ValueError):
    """Settings that no game can be played with; the message says why, for a player."""


def default_team_count(players: int) -> int:
    """Automatic teams: 3 for 3, 6 and 9 players (one sequence wins), otherwise 2."""
    return 3 if players in (3, 6, 9) else 2


@dataclass(frozen=True, slots=True)
class GameSettings:
    """Everything that fixes the rules of one game. Build it with :meth:`create`."""

    players: int
    teams: int
    preset: Preset = "classic"
    hand_size: int = 7
    sequences_to_win: int = 2
    #: House option: when a line of 6+ forms, the engine (not the mover) picks the five.
    engine_chooses_five: bool = False
    #: House option: a player must draw by hand and loses the draw if the next player draws first.
    manual_draw: bool = False
    #: House option: 2 cards each (not 3) with 10 or 12 players.
    small_hands: bool = False
    #: House option, on by default: the endless-play guard. A classic game is drawn when the
    #: deck is reshuffled a second time with no new sequence since the deal or the last one.
    #: Stored settings without this field are of games from before it: they load with it off.
    endless_play_guard: bool = True
    #: The rules revision the game was started under (:data:`RULES_REVISION`): the engine plays
    #: every game by its own. Stored settings without this field are of games from before it:
    #: they load as revision 1.
    rules: int = RULES_REVISION

    @classmethod
    def create(
        cls,
        players: int,
        teams: int | None = None,
        preset: str = "classic",
        *,
        sequences_to_win: int | None = None,
        engine_chooses_five: bool = False,
        manual_draw: bool = False,
        small_hands: bool = False,
        endless_play_guard: bool = True,
        rules: int = RULES_REVISION,
    ) -> GameSettings:
        """Validate and build settings; raise :class:`SettingsError` with a clear reason."""
        if preset not in PRESETS:
            raise SettingsError(f"Unknown preset {preset!r}: choose classic or convoy.")
        allowed = ALLOWED_PLAYER_COUNTS[preset]
        if players not in allowed:
            counts = ", ".join(map(str, allowed))
            raise SettingsError(
                f"{preset.capitalize()} Sequence cannot be played with {players} "
                f"player{'s' if players != 1 else ''}: "
                f"it takes {counts} players."
            )
        if teams is None:
            teams = default_team_count(players)
        if teams not in (2, 3):
            raise SettingsError("Sequence is played by 2 or 3 teams.")
        if players % teams:
            raise SettingsError(
                f"{players} players cannot form {teams} equal teams: "
                f"choose {'3' if teams == 2 else '2'} teams or another player count."
            )
        if players <= 3 and players != teams:
            raise SettingsError(f"{players} players play individually: that is {players} teams.")
        if preset == "convoy":
            hand_size = CONVOY_HAND_SIZE
            default_needed = 3
        else:
            hand_size = CLASSIC_HAND_SIZES[players]
            if small_hands and players >= 10:
                hand_size = SMALL_HAND_SIZE
            default_needed = 2 if teams == 2 else 1
        if sequences_to_win is None:
            sequences_to_win = default_needed
        if not 1 <= sequences_to_win <= 4:
            raise SettingsError("Sequences to win must be a number from 1 to 4.")
        if type(rules) is not int or not 1 <= rules <= RULES_REVISION:
            raise SettingsError(f"Unknown rules revision {rules!r}.")
        return cls(
            players=players,
            teams=teams,
            preset=preset,  # type: ignore[arg-type]
            hand_size=hand_size,
            sequences_to_win=sequences_to_win,
            engine_chooses_five=engine_chooses_five,
            manual_draw=manual_draw,
            small_hands=small_hands,
            endless_play_guard=endless_play_guard,
            rules=rules,
        )

    @property
    def convoy(self) -> bool:
        """True for the convoy variant."""
        return self.preset == "convoy"

    def team_of(self, seat: int) -> int:
        """Seats alternate teams: A B A B ... or A B C A B C ..."""
        return seat % self.teams

    def seats_of(self, team: int) -> list[int]:
        """The seats of one team, in play order."""
        return list(range(team, self.players, self.teams))

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-compatible data."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameSettings:
        """Rebuild settings saved by :meth:`to_dict`, validating them again.

        Settings saved before the endless-play guard existed load with the guard off, and those
        saved before rules revisions as revision 1, so an old game replays exactly as it was
        played. Equal data gives the one shared (frozen) value.
        """
        try:
            key = tuple(sorted(data.items()))
            cached = _LOADED.get(key)
        except TypeError:  # unhashable junk: validated (and refused) below
            key, cached = None, None
        if cached is not None:
            return cached
        known = {f for f in cls.__dataclass_fields__}
        unknown = set(data) - known
        if unknown:
            raise SettingsError(f"Unknown setting(s): {', '.join(sorted(unknown))}.")
        settings = cls(**{"endless_play_guard": False, "rules": 1, **data})
        check = GameSettings.create(
            settings.players,
            settings.teams,
            settings.preset,
            sequences_to_win=settings.sequences_to_win,
            engine_chooses_five=settings.engine_chooses_five,
            manual_draw=settings.manual_draw,
            small_hands=settings.small_hands,
            endless_play_guard=settings.endless_play_guard,
            rules=settings.rules,
        )
        result = replace(check, hand_size=settings.hand_size)
        if key is not None and len(_LOADED) < 1024:
            _LOADED[key] = result
        return result


#: Settings already loaded, by their sorted items: a handful of distinct values in practice.
_LOADED: dict[tuple[tuple[str, Any], ...], GameSettings] = {}
