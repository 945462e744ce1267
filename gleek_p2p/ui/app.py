"""The person at the console as a ``Player``, and running the screen beside a session.

Use::

    player = HumanPlayer()
    player.note("Bob joined (key ab:cd:...)")        # any time, even before start
    try:
        result = await player.run_alongside(play_session(..., player=player))
        # or, with a bare runner: await run_with_ui(runner, player, log_path=...)
    except UserQuit:
        ...                             # tell the others with a Bye

``run_with_ui`` runs the application and the runner side by side; at the end
it shows the totals and the verdict and waits for a key. The person may
leave at any time with ``q`` (confirmed): ``run_with_ui`` then stops the
runner and raises ``UserQuit``.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from prompt_toolkit.application import Application
from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from gleek_p2p.base.errors import GleekError
from gleek_p2p.base.i18n import N_, _, ngettext
from gleek_p2p.base.os_words import os_error_words
from gleek_p2p.base.text import printable
from gleek_p2p.base.violation_words import violation_words
from gleek_p2p.log.keys import fingerprint
from gleek_p2p.rules import (
    Deal,
    Discard,
    Event,
    Phase,
    State,
    apply,
    new_session,
    session_winner,
)
from gleek_p2p.session.abort_words import abort_reason
from gleek_p2p.session.lobby_status import LobbyStatus
from gleek_p2p.session.notes import Severity, kind_of, severity_of
from gleek_p2p.session.peer import Outcome, SessionRunner
from gleek_p2p.table import events as ev
from gleek_p2p.table.session import Decision, Expectation, Stage, Table
from gleek_p2p.tools.report import handover_sentence
from gleek_p2p.tools.seat_words import seat_labels
from gleek_p2p.tools.verdict_words import awaited

from .choices import Chooser, made_at_once
from .narrate import narrate
from .render import Fragments, phase_words
from .screen import Panel, TableScreen
from .summary import history_lines, summary_lines
from .words import Namer, pence

__all__ = ["HELP", "HumanPlayer", "UserQuit", "end_lines", "run_with_ui"]


def _stderr(text: str) -> None:
    print(printable(text), file=sys.stderr, flush=True)

T = TypeVar("T")

HELP = (
    N_("←/→ (or ↑/↓)  move between the cards or choices you may pick"),
    N_("Enter         play the card or make the choice (a typed amount first)"),
    N_("Space         mark or unmark a card to discard; Enter confirms them"),
    N_("0-9           type a bid or a raise on the ruff; Esc clears it"),
    N_("s h d c       jump to a suit (cards, trump); p pass, k Kiss, n done/no:"
       " then Enter"),
    N_("v             the session's past hands and the running totals"),
    N_("i             who is at the table, with each player's key"),
    N_("Home/End      first/last choice     Backspace  undo a typed digit"),
    N_("r             the rules of the game, in short"),
    N_("?             this help             q          leave the table"),
    "",
    N_("Hand rows: the cards (♥ ♦ red), what each is worth in the tricks, then ^ under "
       "the cursor and · under every card you may pick. Amounts are pence; ½ is a "
       "halfpenny. ▶ marks whose turn it is."),
)


class UserQuit(GleekError):
    """The person at the screen chose to leave the table."""

    def __init__(self) -> None:
        super().__init__("you left the table")


class HumanPlayer:
    """A ``Player`` whose decisions come from the keyboard of a full-screen table.

    ``names`` is optional (the roster's names replace it once a table is
    seen); ``input``/``output`` default to the terminal (tests pass a pipe
    input and a ``DummyOutput``); ``color`` None follows NO_COLOR.
    """

    help_lines: Sequence[str] = HELP
    """The help box's lines (a watcher's screen has its own keys)."""
    confirm_leave = True
    """Whether ``q`` asks first (leaving a seat ends the session; a watcher loses nothing)."""

    def __init__(
        self,
        *,
        names: Sequence[str] | None = None,
        input: Input | None = None,
        output: Output | None = None,
        color: bool | None = None,
    ) -> None:
        self.screen = TableScreen(
            self._on_key,
            self.help_lines,
            on_leave=self._leave,
            leave_question=self._leave_question,
            on_hand_over=self._bot_finishes,
            status=self._status_text,
            confirm_leave=self.confirm_leave,
            input=input,
            output=output,
            color=color,
        )
        self.quit_requested = asyncio.Event()
        self.seat: int | None = None
        self.names: tuple[str, ...] = tuple(names or ())
        self.log_path: Path | str | None = None
        """Shown in the end box when the session result does not carry one."""
        self._table: Table | None = None
        self.finished = False
        self._state: State | None = None
        self._future: asyncio.Future[Event] | None = None
        self._chooser: Chooser | None = None
        self._legal: Sequence[Event] = ()
        self._waiting: tuple[str, float] | None = None
        self._task: asyncio.Task[None] | None = None
        self._queued: list[Event] = []
        self._discard_line: int | None = None
        """The log line telling the discards so far, while they go on."""
        self.lobby: list[tuple[str, str]] = []
        self.past_hands: list[State] = []
        """The state at the end of each finished hand, for the summaries."""
        self.runner: SessionRunner | None = None
        """The session's runner, once it runs (``attach_runner``): a bot may finish
        the seat through it."""
        self._watcher: asyncio.Future[None] | None = None
        self.bot_plays = asyncio.Event()
        """Set once a bot plays the seat: the screen closes, the session goes on."""
        self.say: Callable[[str], None] = _stderr
        """Where the words go once the screen is closed (a bot plays the seat)."""

    @property
    def app(self) -> Application[None]:
        """The prompt_toolkit ``Application``."""
        return self.screen.app

    @property
    def table(self) -> Table | None:
        """The session's table as last seen (its totals outlive the screen)."""
        return self._table

    @property
    def deciding(self) -> bool:
        """Whether a decision is waiting for a key."""
        return self._future is not None and not self._future.done()

    @property
    def chooser(self) -> Chooser | None:
        """The decision on screen, if any."""
        return self._chooser

    # ------------------------------------------------------------ running

    def start(self) -> asyncio.Task[None]:
        """Start the application (once) and return its task."""
        if self._task is None:
            self._task = asyncio.ensure_future(self.screen.app.run_async())
        return self._task

    async def run_alongside(self, work: Awaitable[T]) -> T:
        """Run ``work`` (the session) with the screen until the person closes the end box.

        ``work`` returns an ``Outcome`` or anything with ``outcome``,
        ``log_path`` and ``table`` attributes (the shell's session result);
        the end box shows how it ended. Raises ``UserQuit`` if the person
        left first (``work`` is cancelled), and re-raises an error of
        ``work`` after showing it in words.
        """
        app_task = self.start()
        work_task = asyncio.ensure_future(work)
        quit_task = asyncio.ensure_future(self.quit_requested.wait())
        bot_task = asyncio.ensure_future(self.bot_plays.wait())
        try:
            await asyncio.wait({app_task, work_task, quit_task, bot_task},
                               return_when=asyncio.FIRST_COMPLETED)
            if bot_task.done() and not quit_task.done() and not work_task.done():
                # The seat is the bot's: the screen closes, the session goes on headless.
                self.screen.close()
                await self.closed()
                self.say(_("A bot plays your seat from now on, with your key; it prints a "
                           "line per hand. Ctrl-C stops it (the seat stays yours: run the "
                           "same command again to take it back)."))
                result: T = await work_task
                return result
            if work_task.done() and not _quit_error(work_task):
                error = work_task.exception()
                if error is None:
                    result = work_task.result()
                    self.show_end(self._end_of(result, None))
                    await self.closed()
                    return result
                if isinstance(error, GleekError | OSError):
                    # An OSError's own text is the system's English: worded by its number.
                    said = os_error_words(error) if isinstance(error, OSError) else str(error)
                    self.show_end(self._end_of(None, said))
                    await self.closed()
                raise error
            if app_task.done() and not quit_task.done():
                app_task.result()  # the application itself failed: raise its error
            raise UserQuit()
        finally:
            if self._watcher is not None:
                self._watcher.cancel()
            for task in (work_task, quit_task, bot_task):
                task.cancel()
            await asyncio.gather(work_task, quit_task, bot_task, return_exceptions=True)
            self.screen.close()
            await self.closed()

    def _end_of(self, result: object, error: str | None) -> list[tuple[str, str]]:
        outcome = result if isinstance(result, Outcome) else getattr(result, "outcome", None)
        table = getattr(result, "table", None) or self._table
        log_path = getattr(result, "log_path", None) or self.log_path
        if table is None:
            text = error or (outcome.reason if isinstance(outcome, Outcome) else "")
            return [("class:error" if error else "",
                     _("The session stopped: {reason}").format(reason=text))]
        return end_lines(table, outcome if isinstance(outcome, Outcome) else None,
                         log_path, error)

    async def closed(self) -> None:
        """Wait until the application has ended."""
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    def note(self, text: str, error: bool = False) -> None:
        """A sentence for the log pane (network news, errors).

        Shown as an error if ``error`` or if the note says it is bad news
        (``notes.Note``); never judged from its words, which are translated.
        """
        bad = error or severity_of(text) is Severity.BAD_NEWS
        kind = kind_of(text)  # noise (a stranger's) keeps one updating line per kind
        text = text[:1].upper() + text[1:]
        self.screen.add_log(text, "class:error" if bad else "class:note",
                            kind if kind.noise else None)

    def show_lobby(self, status: LobbyStatus) -> None:
        """Who is at the table: shown until the first deal, kept for later on the scene.

        The lobby calls this on every change; ``i`` shows the seats and keys at any time.
        """
        self.lobby = [(p.name, p.fingerprint) for p in (status.me, *status.peers)]
        self.screen.scene.lobby = status
        self.screen.refresh()

    def show_end(self, lines: Sequence[tuple[str, str]]) -> None:
        """Show the end-of-session box; the next key closes the screen."""
        self.finished = True
        self._waiting = None
        self.screen.show_end(lines)

    # ------------------------------------------------------------ Player

    async def decide(self, table: Table, decision: Decision) -> Event:
        """Wait for the person to pick one of ``decision.legal``.

        After the person chose to leave this waits until ``run_alongside``
        cancels the session (so it ends as a departure, not as an error).
        """
        if self.quit_requested.is_set():
            await asyncio.get_running_loop().create_future()
        if self._queued:
            event = self._queued.pop(0)
            if event in decision.legal:
                return event
            self._queued.clear()  # the table moved on: ask again
        self.update(table, (), None)
        forced = made_at_once(decision.legal)
        if forced is not None:
            # Nothing to choose ("no claim", "done declaring", the one suit to
            # show): it is made at once. A forced card is still played by hand.
            return forced
        state = table.state
        assert state is not None
        self._chooser = Chooser(decision.legal, state, decision.seat)
        self._future = asyncio.get_running_loop().create_future()
        self._legal = decision.legal
        self.screen.scene.chooser = self._chooser
        self.screen.refresh()
        try:
            return await self._future
        finally:
            self._future = None
            self._chooser = None
            self.screen.scene.chooser = None
            self.screen.refresh()

    def update(self, table: Table, applied: Sequence[Event], note: str | None) -> None:
        """Narrate what changed, refresh the panes and the waiting line."""
        if self._table is not table:
            self._table = table
            self._state = None
            self.seat = table.seat
            self.names = seat_labels(table.roster)
        if note:
            self.note(note)
        if table.finished and self._future is not None and not self._future.done():
            # Another seat left (or aborted) while the person was choosing: the
            # screen must not say "your turn" on. Any answer ends the wait; the
            # runner drops it, the table being finished.
            self._future.set_result(self._legal[0])
        self._ingest(table, applied)
        scene = self.screen.scene
        scene.state = self._state
        scene.names = self.names
        scene.viewer = self.seat
        exp = table.expected()
        if exp is None or table.finished:
            self._waiting = None
        elif exp.seat != self.seat:
            what = _("waiting for {name}: {what}").format(name=self.names[exp.seat],
                                                          what=_expected(exp, self._state,
                                                                         table.stage))
            if self._waiting is None or self._waiting[0] != what:
                self._waiting = (what, time.monotonic())
        else:
            what = _expected(exp, self._state, table.stage)
            self._waiting = (_("your turn: {what}").format(what=what)
                             if exp.kinds == (ev.ACT,)
                             else _("sending {what}").format(what=what), time.monotonic())
        self.screen.refresh()

    # ------------------------------------------------------------ internals

    def _ingest(self, table: Table, applied: Sequence[Event]) -> None:
        """Narrate each applied event from the state before it to the state after it."""
        target = table.state
        if target is None:
            return
        s = self._state or new_session(table.roster.variant, table.roster.hands)
        for event in applied:
            try:
                after = apply(s, event)
            except GleekError:
                break  # Out of step (should not happen): resynchronise below.
            text = narrate(event, s, after, self.names, self.seat)
            if isinstance(event, Discard) and text and self._discard_line is not None \
                    and self._discard_line == len(self.screen.log) - 1:
                # The talon's discards in one line, told again as each card goes
                # (seven lines would push everything else out of the log).
                self.screen.log[-1] = ("", text)
                self.screen.refresh()
            else:
                self._tell(text)
            self._discard_line = (len(self.screen.log) - 1
                                  if isinstance(event, Discard) and text else None)
            if after.phase in _OVER and s.phase not in _OVER:
                self._hand_over(after)
            s = after
        if s.hand_no != target.hand_no and target.hand_no >= 0:
            # The next deal follows the seeds without being listed as applied.
            self._tell(narrate(Deal(), s, target, self.names, self.seat))
        self._state = target

    def _hand_over(self, state: State) -> None:
        """Keep the finished hand and show its summary until a key is pressed."""
        self.past_hands.append(state)
        self.show_summary(len(self.past_hands) - 1)

    def show_summary(self, index: int) -> None:
        """Open the summary of past hand ``index``; v opens every hand and the totals."""
        state = self.past_hands[index]

        def key(k: str) -> bool:
            if k == "v":
                self.show_history(index)
                return True
            return False

        self.screen.show_panel(Panel(
            _("Hand {number} is over (any key: close, v: all hands)").format(
                number=state.ledgers[-1].hand + 1),
            lambda width: summary_lines(state, self.names, self.seat, width), key))

    def show_history(self, selected: int | None = None) -> None:
        """Open the list of past hands with the running totals chart."""
        cursor = [len(self.past_hands) - 1 if selected is None else selected]

        def key(k: str) -> bool:
            if k in ("up", "left"):
                cursor[0] = max(0, cursor[0] - 1)
                return True
            if k in ("down", "right", "tab"):
                cursor[0] = min(len(self.past_hands) - 1, cursor[0] + 1)
                return True
            if k == "enter" and self.past_hands:
                self.show_summary(cursor[0])
                return True
            return False

        self.screen.show_panel(Panel(
            _("Past hands"),
            lambda width: history_lines(self.past_hands, self.names, self.seat, width,
                                        cursor[0]), key))

    def show_seats(self) -> None:
        """A panel with every seat's name and key fingerprint (or who is connected so far)."""
        def draw(width: int) -> list[Fragments]:
            table = self._table
            if table is not None:
                rows = [(_("seat {seat}: {name}").format(
                            seat=seat, name=_("{name} (you)").format(name=name)
                            if seat == self.seat else name),
                         fingerprint(public))
                        for seat, (name, public) in enumerate(
                            zip(table.roster.names, table.roster.publics, strict=True))]
            else:
                rows = list(self.lobby)
            if not rows:
                return [[("", _("Nobody is connected yet."))]]
            lines: list[Fragments] = [[("class:prompt", _("Compare these keys with the other"
                                                          " players (by voice, not by chat)."))]]
            lines += [[("", f"{who:<28}"), ("class:total", _("key {fingerprint}").format(
                fingerprint=key))] for who, key in rows]
            return lines

        self.screen.show_panel(Panel(_("Who is at the table (any key: close)"), draw))

    def _tell(self, text: str | None) -> None:
        if text:
            self.screen.add_log(text)

    def _status_text(self) -> str:
        if self.finished:
            return _("the session is over")
        if self._chooser is not None:
            return _("your turn")
        if self._waiting is None:
            return forming_words(self.screen.scene.lobby) if self._state is None else ""
        what, since = self._waiting
        waited = int(time.monotonic() - since)
        return f"{what} ({waited} s)" if waited >= 2 else what

    def _on_key(self, key: str) -> None:
        if key == "v":
            self.show_history()
            return
        if key == "i":
            self.show_seats()
            return
        chooser = self._chooser
        if chooser is None or self._future is None or self._future.done():
            text = _("The key {key} does nothing now: it is not your turn.").format(key=key)
            if len(key) == 1 and key.isprintable() and not self.finished \
                    and self.screen.log[-1:] != [("class:hint", text)]:
                self.screen.add_log(text, "class:hint")
            return
        events = chooser.press(key)
        if events:
            # A confirmed discard commits several cards: the next decisions
            # take them from this queue without asking again.
            self._queued = list(events[1:])
            self._future.set_result(events[0])

    def _leave(self) -> None:
        # The pending decision is left as it is: ``run_alongside`` cancels the
        # session, which then says goodbye as a player who left on purpose
        # (failing the decision instead would end it as an ordinary error).
        self.quit_requested.set()
        if self.finished:
            self.screen.close()

    def attach_runner(self, runner: SessionRunner) -> None:
        """The session's runner (``play_session`` calls this): a bot may finish the seat,
        asked with ``q`` then ``b``, or on its own (``--bot-after``)."""
        self.runner = runner

        async def watch() -> None:
            await runner.handed_over.wait()
            self.bot_plays.set()

        self._watcher = asyncio.ensure_future(watch())

    def _bot_finishes(self, choose: bool) -> bool:
        """Whether a bot may finish the seat now; with ``choose``, hand it over."""
        runner = self.runner
        offered = (runner is not None and runner.successor is not None and not self.finished
                   and self._state is not None and not runner.handed_over.is_set()
                   and not runner.table.finished)
        if choose and offered:
            assert runner is not None
            return runner.hand_over()
        return offered

    def _leave_question(self) -> str:
        if self.finished or self._state is None:
            return _("Leave?")
        if self._bot_finishes(False):
            return _("Leave the table? The others will be told and the session ends; or a "
                     "bot finishes your seat and the session goes on.")
        return _("Leave the table? The others will be told and the session ends.")


_OVER = (Phase.HAND_OVER, Phase.SESSION_OVER)

def _expected(exp: Expectation, state: State | None, stage: Stage) -> str:
    """What the table waits for, in the chosen language, from the kind of event it expects
    and its stage (the keys of the deal, of the talon, of the unplayed cards), never from
    its English words."""
    kind = exp.kinds[0] if exp.kinds else ""
    if kind == ev.ACT and state is not None:
        return _("a move ({phase})").format(phase=phase_words(state))
    words = N_("a move") if kind == ev.ACT else awaited(kind, stage)
    return _(words) if words else exp.what


def forming_words(lobby: LobbyStatus | None) -> str:
    """The status line before the first deal: what the table waits for, as the lobby knows it.

    A forming table is not "connecting": it waits for players to take the seats
    still free (the count the lobby pane's head gives), then for them to agree on
    the seating, then starts the session; only with no word from the lobby yet is
    the peer connecting.
    """
    if lobby is None:
        return _("connecting…")
    if lobby.formed:
        return _("seated: starting the session…")
    if lobby.missing:
        return ngettext("waiting for {n} more player to take a seat",
                        "waiting for {n} more players to take a seat",
                        lobby.missing).format(n=lobby.missing)
    return _("every player is here: agreeing on the seats…")


def end_lines(
    table: Table, outcome: Outcome | None, log_path: Path | str | None = None,
    error: str | None = None,
) -> list[tuple[str, str]]:
    """The end box: how the session ended, the totals, the verdict and where the log is."""
    names = seat_labels(table.roster)
    who = Namer(names, table.seat)
    lines: list[tuple[str, str]] = []
    if error:
        lines.append(("class:error", _("The session stopped: {reason}").format(reason=error)))
    elif outcome is not None and outcome.finished:
        lines.append(("class:prompt", _("The session is over.")))
    elif outcome is not None:
        lines.append(("class:error", _("The session ended early: {reason}.").format(
            reason=outcome.reason)))
    state = table.hands[-1].state if table.hands else table.state
    if state is not None and state.ledgers:
        hands = len(state.ledgers)
        lines.append(("", ngettext("Totals after {n} hand, in pence:",
                                   "Totals after {n} hands, in pence:", hands).format(n=hands)))
        for seat, total in enumerate(state.totals):
            lines.append(("class:total", f"  {who.short(seat, 20):<20} {pence(total, True):>8}"))
        best = session_winner(state)
        lines.append(("", "  " + (_("A tie for first place.") if best is None
                                  else who.act(best, N_("You win the session."),
                                               N_("{name} wins the session.")))))
    verdict = table.verdict
    if verdict is not None and verdict.left is not None:
        # A signed leave: a fact in every log, nobody to blame.
        lines.append(("class:prompt", who.act(verdict.left, N_("You left the table."),
                                               N_("{name} left the table."))))
    elif verdict is not None:
        # Worded from the abort's code, the signer's claim all the same: gleek verify
        # says what the log proves.
        said = who.act(verdict.signer, N_("You ended the session: {reason}"),
                       N_("{name} ended the session: {reason}"),
                       reason=abort_reason(verdict, names))
        lines.append(("class:error", said))
    # Each a signed fact of the log: who handed their seat to a bot, from where.
    lines.extend(("", handover_sentence(h, names)) for h in table.seat_changes)
    if table.audit_failure is not None:
        failure = table.audit_failure
        # Its reason is the English evidence of the log: the screen words its code.
        lines.append(("class:error", who.act(
            failure.seat,
            N_("A hand audit failed: your seat broke the protocol - {what} (violation "
               "{code})."),
            N_("A hand audit failed: {name} broke the protocol - {what} (violation "
               "{code})."),
            what=violation_words(failure.code), code=failure.code.value)))
    if verdict is None and table.audit_failure is None and outcome is not None \
            and outcome.finished:
        lines.append(("", _("Every hand was audited: the deals were fair.")))
    if log_path is not None:
        lines.append(("", _("The log, to check any time with gleek verify (its path is printed"
                            " again when you leave):")))
        lines.append(("class:path", str(log_path)))
    return lines


async def run_with_ui(
    runner: SessionRunner, player: HumanPlayer, *, log_path: Path | str | None = None
) -> Outcome:
    """Run ``runner`` and the screen together until the person closes the end box.

    Returns the runner's outcome. Raises ``UserQuit`` if the person left
    before the end (the runner is stopped first), and re-raises a
    ``GleekError``/``OSError`` from the runner after showing it on screen.
    """
    player.log_path = log_path
    return await player.run_alongside(runner.run())


def _quit_error(task: asyncio.Future[Any]) -> bool:
    return task.cancelled() or isinstance(task.exception(), UserQuit)
