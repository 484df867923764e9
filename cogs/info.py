"""Looking at a game: ``/sequence board``, ``/sequence status`` and ``/sequence rules``."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.app import SequenceBot
from bot.game import card_label
from bot.services.draws import COOLDOWN_TURNS
from bot.services.lobbies import lobby_options
from bot.services.rulings import RULING_RULE
from bot.table.away import entry_of
from bot.table.options import TableOptions, describe_house_rules, format_duration, own_or_bot

from .base import SequenceCog, works_in_dms
from .common.describe import counted, scoreline, seat_label, team_label
from .common.replies import reply, reply_lines
from .common.server_options import new_table_option_words, table_option_words
from .common.table import public_board_file
from .common.table_threads import TRYING_AGAIN

if TYPE_CHECKING:
    from bot.services.server_settings import ServerConfig
    from bot.store.games.records import GameRecord

#: What a /sequence board says once a move made while it was drawn and posted outdates it.
MOVED_ON = "the game moved on as this board was posted: the board of that move shows it."

RULES_TEXT = """\
**Sequence in one minute**
• Play a card from your hand, then put a chip on one of the two spaces showing that card.
• **Two-eyed jacks** (J♦ J♣) are wild: a chip on any open space. **One-eyed jacks** (J♥ J♠) remove \
an opponent's chip that is not in a finished sequence.
• A **sequence** is 5 chips in a row, column or diagonal; the corners count for everyone. Two \
sequences of a team may share one space.
• **Win**: 2 sequences with 2 teams, 1 with 3 teams (convoy: 3).
• A **dead card** (both spaces covered) can be turned in once a turn for a new one, then you \
play on (convoy: that is your whole turn).
• **No table talk**: coaching a teammate costs every member of the team a card (a player with \
no teammate left in the game cannot be called, nor one whose teammates are all computers).
Use the **Your hand** button under the board, or `/sequence hand`, to play privately."""

#: How a game is drawn: the engine's two rules (our choices where the source rules are silent)
#: and draw by agreement. ``{timeout}`` and ``{cooldown}`` are filled in by :func:`draw_rules`.
DRAW_RULES = """\
**Draws**
• **Endless play** (house rule, on by default): the deck reshuffled a second time with no new \
sequence since the deal or the last one ends the game as a draw. Convoy never reshuffles: once \
the deck and all hands are empty, the most convoys wins (a tie draws).
• **Stalemate** (our choice; the printed rules are silent): every player still in passes in a \
row: a draw (convoy: the most convoys wins, a tie draws).
• **By agreement**: `/sequence draw`; every other team must accept (one player each). It lapses \
when the game moves on or after {timeout}; after a decline, wait {cooldown} of your team's \
turns."""


def draw_rules(timeout: int) -> str:
    """How a game is drawn, with the configured life of a draw offer."""
    return DRAW_RULES.format(timeout=format_duration(timeout), cooldown=COOLDOWN_TURNS)


def ruling_rule(timeout: int) -> str:
    """Who rules on a table-talk call, with the configured time after which a call stands."""
    if timeout > 0:
        return RULING_RULE.format(fallback=f"stands after {format_duration(timeout)}")
    return RULING_RULE.format(fallback="waits for a moderator")


class Info(SequenceCog):
    """The board, the state of the game and the rules, on demand."""

    @app_commands.command(name="board", description="Post the current board again")
    async def board(self, interaction: discord.Interaction[SequenceBot]) -> None:
        with self.bot.limits.counting(interaction, "board"):  # refusals: free
            live = self.bot.games.for_channel(interaction.channel_id or 0)
        if self.bot.table.blocked_code(live) is not None:  # a moderator unlocked it, say
            await self.bot.table.thread_reopened(live.channel_id)
            await reply(interaction, TRYING_AGAIN)
            return
        # Bind the game now: a move may be made while this board is drawn and posted.
        record = dataclasses.replace(live, game=live.game)
        shown = len(record.game.moves)
        await interaction.response.defer(thinking=True)  # drawing the board takes a while
        file = await public_board_file(record)
        content = await self.bot.table.board_line(record)
        kwargs: dict[str, Any] = {}
        view = self.bot.table.board_view(record)
        if view is not None:
            kwargs["view"] = view
        await interaction.followup.send(
            content,
            embed=self.bot.table.board_embed(record, None),
            file=file,
            allowed_mentions=discord.AllowedMentions.none(),
            **kwargs,
        )
        message = await interaction.original_response()
        if live.game is not record.game:  # the board of that move is the newest: not this
            posted = dataclasses.replace(record, board_message_id=message.id)
            await self.bot.table.retire_board(posted, MOVED_ON)
            return
        replaced = dataclasses.replace(live)  # the board this one takes over from
        await self.bot.games.remember_board(live, message.id, shown)
        await self.bot.table.retire_board(replaced, None)

    @app_commands.command(name="status", description="Seats, turn, deck, discards and sequences")
    async def status(self, interaction: discord.Interaction[SequenceBot]) -> None:
        with self.bot.limits.counting(interaction, "status"):  # refusals: free
            record = self.bot.games.for_channel(interaction.channel_id or 0)
        game = record.game
        lines = [f"**Game #{record.id}** · {game.settings.preset} · {scoreline(record)}"]
        if not game.is_over():
            lines.append(_plain_turn(record))
            waited = await self.bot.table.waiting_for(record)
            if waited is not None:
                lines.append(f"⏳ Waiting {format_duration(waited)} for this move.")
            deadline = await self.bot.table.deadline_text(record)
            if deadline:
                lines.append(deadline.strip())
        for seat in range(len(record.seats)):
            pile = game.discards[seat]
            last = card_label(pile[-1]) if pile else "—"
            flags = []
            if game.out[seat]:
                flags.append("left")
            if game.owed_forfeits[seat]:
                flags.append(f"owes {counted(game.owed_forfeits[seat], 'forfeit')}")
            away = entry_of(record.options, seat)
            if away is not None and not game.out[seat]:
                cover = "a computer plays for them" if away.by_computer else "clock paused"
                flags.append(f"🏖️ away until <t:{int(away.until)}:f>, {cover}")
            extra = f" ({', '.join(flags)})" if flags else ""
            lines.append(
                f"{team_label(game.team_of(seat))} {seat_label(record, seat)}: "
                f"{counted(len(game.hands[seat]), 'card')}, last discard {last}{extra}"
            )
        rules = describe_house_rules(record.options)
        if rules:
            lines.append("House rules: " + "; ".join(rules))
        lines.append("⚙️ Options: " + "; ".join(table_option_words(record.options)))
        await reply(interaction, "\n".join(lines))

    @works_in_dms
    @app_commands.command(name="rules", description="The rules of Sequence in one minute")
    async def rules(self, interaction: discord.Interaction[SequenceBot]) -> None:
        settings = self.bot.settings
        record = self.bot.games.find_in_channel(interaction.channel_id or 0)
        # The timeouts in force: this table's, else this server's for new tables, else the bot's.
        config = None  # the server's settings, read once for the timeouts and the options
        if record is not None:
            options = record.options
        elif interaction.guild_id is not None:
            config = await self.bot.server_settings.of(interaction.guild_id)
            options = TableOptions.from_dict(config.table_defaults.values)
        else:
            options = TableOptions()
        ruling = own_or_bot(options.table_talk_ruling_timeout, settings.table_talk_ruling_timeout)
        text = RULES_TEXT + "\n" + ruling_rule(ruling)
        draws = draw_rules(own_or_bot(options.draw_offer_timeout, settings.draw_offer_timeout))
        if record is not None:
            rules = describe_house_rules(record.options)
            if rules:
                draws += "\n**House rules at this table**: " + "; ".join(rules)
        shown = await self._options_here(interaction, record, config)
        # one message holds 2,000 characters: the draws and the table's rules, then the
        # options, follow when they do not fit
        await reply_lines(interaction, [text, draws, *filter(None, [shown])])

    async def _options_here(
        self,
        interaction: discord.Interaction[SequenceBot],
        record: GameRecord | None,
        config: ServerConfig | None,
    ) -> str:
        """The options a server may set, as in force here (the table's in a channel with a
        game or a lobby, else a new table's in this server: ``config``; nothing in a DM),
        those of this server marked."""
        if record is not None:
            return "**Options at this table**: " + "; ".join(table_option_words(record.options))
        if config is None:
            return ""
        lobby = await self.bot.db.lobbies.get_for_channel(interaction.channel_id or 0)
        if lobby is not None:
            words = table_option_words(lobby_options(lobby))
            return "**Options at this table**: " + "; ".join(words)
        words = new_table_option_words(config.views)
        return "**Options of a new table here**: " + "; ".join(words)


def _plain_turn(record: GameRecord) -> str:
    game = record.game
    return f"➡️ {seat_label(record, game.turn)}'s turn ({team_label(game.team_of(game.turn))})."


async def setup(bot: SequenceBot) -> None:
    """Load the cog."""
    await bot.add_cog(Info(bot))
