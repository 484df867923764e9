"""Who may create a server's tournaments, and run them besides each one's creator (issue #38).

- Manage Server, or the server's organiser role (``/sequence-admin set organiser_role``): run
  any tournament of the server (start, report, drop, end), so that it may have more than one
  organiser; when the role is set, only they may create tournaments.
- Its moderators (:func:`~cogs.common.permissions.is_moderator`: the moderator role, Manage
  Channels, Manage Messages or Manage Server) may also end (cancel) any of them.

A role deleted since it was set is ignored. Discord decides who sees ``/tournament-admin`` at
all (Manage Server, unless the server's Integrations page hands it to others): this is the
bot's own rule, checked within that.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import discord

from bot.services.server_settings import ServerRoles
from bot.services.tournament import require_organiser
from bot.store.tournaments.records import TournamentRecord

from ..base import server_id
from ..common.permissions import has_role, is_moderator, live_role, require_role
from ..common.replies import can_manage

if TYPE_CHECKING:
    from bot.app import SequenceBot

#: The setting that names the organisers' role.
ORGANISER_SETTING = "organiser_role"


@dataclass(frozen=True)
class Authority:
    """Whether the member acting may run any tournament of the server for one kind of step,
    and who may, in words (for a refusal)."""

    any_tournament: bool
    others: tuple[str, ...]
    changed_by: str

    def require(self, tournament: TournamentRecord, actor_id: int, action: str) -> None:
        """Refuse ``action`` unless the actor created ``tournament`` or may run any."""
        require_organiser(
            tournament, actor_id, self.any_tournament, action, self.others, self.changed_by
        )


async def authority(
    bot: SequenceBot, interaction: discord.Interaction, *, ending: bool = False
) -> Authority:
    """What the member acting may do to the server's tournaments; ``ending``: to end one
    (which its moderators may too)."""
    roles = await bot.server_settings.roles(server_id(interaction))
    organisers = live_role(interaction.guild, roles.organiser)
    allowed = can_manage(interaction, "manage_guild") or (
        organisers is not None and has_role(interaction, organisers)
    )
    held = [organisers]
    settings = f"`/sequence-admin set {ORGANISER_SETTING}`"
    permissions = "Manage Server"
    if ending:
        allowed = allowed or is_moderator(interaction, roles)
        held.append(live_role(interaction.guild, roles.moderator))
        settings += " or `/sequence-admin set moderator_role`"
        permissions = "Manage Server, Manage Channels or Manage Messages"
    mentions = [role.mention for role in held if role is not None]
    others = (f"members with the {' or '.join(mentions)} role",) if mentions else ()
    return Authority(
        allowed,
        (*others, f"someone with {permissions}"),
        f"A server admin can change that with {settings}.",
    )


def require_may_create(interaction: discord.Interaction, roles: ServerRoles) -> None:
    """With an organiser role set, only its members (or Manage Server) create tournaments."""
    require_role(interaction, roles.organiser, "create tournaments", ORGANISER_SETTING)
