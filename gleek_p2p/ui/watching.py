"""``gleek watch`` on the table screen: the public table, live, with no hand of its own.

A watcher's screen is a seat's screen (``HumanPlayer``) that never decides:
it is fed every event as the watcher's observer table takes it
(``follow``), so the panes, the narration, the hand summaries and the past
hands are the players' own, drawn from nobody's seat. Every hand shows as
backs with its count; what is played, shown and declared appears as it is
signed. ``q`` stops watching at once (nobody is waiting on a watcher).
"""

from __future__ import annotations

from collections.abc import Sequence

from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from gleek_p2p.base.i18n import N_, _
from gleek_p2p.rules import Event
from gleek_p2p.session.watch import WatchResult
from gleek_p2p.table.session import Table
from gleek_p2p.tools.report import handover_sentence, verdict_lines

from .app import HumanPlayer, end_lines

__all__ = ["WATCH_HELP", "WatcherScreen", "watch_end_lines"]

WATCH_HELP = (
    N_("v             the session's past hands and the running totals"),
    N_("i             who is at the table, with each player's key"),
    N_("r             the rules of the game, in short"),
    N_("?             this help             q          stop watching"),
    "",
    N_("You are watching: every hand shows face down (??) with its count, and what the "
       "players bid, show, declare and play appears as they sign it. Each event is "
       "verified as it arrives; the log kept is printed when you leave."),
)


class WatcherScreen(HumanPlayer):
    """The table screen of a watcher: follows an observer ``Table``, decides nothing."""

    help_lines = WATCH_HELP
    confirm_leave = False

    def __init__(self, *, input: Input | None = None, output: Output | None = None,
                 color: bool | None = None) -> None:
        super().__init__(input=input, output=output, color=color)
        self.screen.scene.title = _("Gleek, watching")
        self.screen.scene.public = True
        self._changes = 0
        """The seats' signed hand-overs and retakes told so far."""

    def follow(self, table: Table, applied: Sequence[Event]) -> None:
        """One more event taken by the watcher's table (``watch``'s ``on_event``)."""
        self.update(table, applied, None)
        # A seat handed to a bot (or taken back) changes nothing in the game, so the
        # narration never tells it: the watcher reads it from the signed event.
        for change in table.seat_changes[self._changes:]:
            self.screen.add_log(handover_sentence(change, self.names), "class:note")
        self._changes = len(table.seat_changes)

    def _on_key(self, key: str) -> None:
        if key == "v":
            self.show_history()
        elif key == "i":
            self.show_seats()

    def _leave(self) -> None:
        self.quit_requested.set()
        self.screen.close()

    def _leave_question(self) -> str:
        return _("Stop watching?")

    def _bot_finishes(self, choose: bool) -> bool:
        return False  # a watcher has no seat to hand over

    def _status_text(self) -> str:
        if self.finished:
            return _("the session is over")
        if self._waiting is None:
            return _("connecting…") if self._state is None else ""
        what, _since = self._waiting
        return _("watching: {what}").format(what=what)

    def _end_of(self, result: object, error: str | None) -> list[tuple[str, str]]:
        if isinstance(result, WatchResult) and result.table is not None:
            return watch_end_lines(result, error)
        return super()._end_of(result, error)


def watch_end_lines(result: WatchResult, error: str | None = None) -> list[tuple[str, str]]:
    """The watcher's end box: why it ended, what the log proves, the totals, where it is."""
    assert result.table is not None
    lines: list[tuple[str, str]] = []
    if result.reason:
        lines.append(("class:error", result.reason))
    report = result.report
    if report is not None and report.roster is not None:
        style = "class:prompt" if report.fair else "class:error"
        lines.extend((style, line.strip()) for line in verdict_lines(report))
    return lines + end_lines(result.table, None, result.path, error)
