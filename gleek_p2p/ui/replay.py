"""``gleek replay FILE [--seat N]``: step through a finished session, forward and back.

The log is verified once: the verifier's table hands out the engine events
of every record it takes, and the audits yield every hand's cards. The
replay applies those events to a full-knowledge state, revealing every card of a
hand at its deal, so each step has the exact state after it. A seat's view
is that state masked down to what the seat could see (``seat_view``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from gleek_p2p.base.errors import GleekError
from gleek_p2p.base.i18n import N_, _
from gleek_p2p.base.terminal import put
from gleek_p2p.base.text import printable
from gleek_p2p.log.store import LogError, read_log_file
from gleek_p2p.rules import (
    Cut,
    Deal,
    Discard,
    Event,
    Reveal,
    State,
    apply,
    new_session,
    seat_view,
)
from gleek_p2p.table.roster import Roster
from gleek_p2p.table.verify import Judgement, VerifyReport, verify_records
from gleek_p2p.tools.report import (
    LOG_FAULT_WORDS,
    claim_sentence,
    ending_sentence,
    handover_sentence,
    unreadable_words,
    violation_sentence,
)
from gleek_p2p.tools.seat_words import seat_labels
from gleek_p2p.tools.verdict_words import stop_words

from .narrate import narrate
from .screen import TableScreen

__all__ = ["Replay", "Step", "mask_state", "run_replay"]

REPLAY_HELP = (
    N_("←/→ (or ↑/↓)   one event back / forward"),
    N_("PgUp/PgDn      previous / next hand"),
    N_("Home/End       the start / the end of the session"),
    N_("v              change the view: all cards, then each seat in turn"),
    N_("a or 0-2       all cards, or seat 0, 1, 2's view"),
    N_("r              the rules of the game, in short"),
    N_("?              this help           q   leave the replay"),
)


class NotALog(GleekError):
    """Records ``gleek verify`` cannot read as a session (``report`` says why, as codes)."""

    def __init__(self, report: VerifyReport) -> None:
        super().__init__(report.error or "not a session log")
        self.report = report


@dataclass(frozen=True)
class Step:
    """One engine event of the session and the full-knowledge states around it."""

    record: int
    """Index in the log of the record that caused it."""
    event: Event
    before: State
    after: State


def mask_state(state: State, seat: int) -> State:
    """``state`` with every card ``seat`` could not see replaced by -1 (unknown)."""
    view = seat_view(state, seat)
    visible = set(view.shown)
    for pairs in (view.hand, view.talon, view.discards):
        visible.update(x for x, c in pairs if c is not None)
    cards = tuple(c if x in visible else -1 for x, c in enumerate(state.cards))
    where = [-1] * len(state.where)
    for x, c in enumerate(cards):
        if c >= 0:
            where[c] = x
    return state._replace(cards=cards, where=tuple(where))


class Replay:
    """The steps of a session log, and narration for any viewpoint."""

    def __init__(self, roster: Roster, steps: list[Step], report: VerifyReport) -> None:
        self.roster = roster
        self.names = seat_labels(roster)
        """Every seat's name, two seats of one name told apart as the report tells them."""
        self.steps = steps
        self.report = report
        self._said: dict[tuple[int | None, int], str | None] = {}
        self._masked: dict[tuple[int, int, bool], State] = {}

    @classmethod
    def load(cls, records: Sequence[bytes]) -> Replay:
        """Verify ``records`` and rebuild every step; ``GleekError`` if it is not a log.

        The log is checked once: the verifier's table hands over the engine
        events of every record it takes (up to where the log breaks), and the
        steps are built from them once the audits have opened every hand's cards.
        """
        taken: list[tuple[int, list[Event], State | None]] = []
        report = verify_records(
            records, taken=lambda index, events, state: taken.append((index, events, state)))
        if not report.readable or report.roster is None:
            raise NotALog(report)
        roster = report.roster
        cards = {h.number: h.cards for h in report.hands}
        steps: list[Step] = []
        full: State | None = None
        hand = -1
        for index, applied, now in taken:
            for event in applied:
                if isinstance(event, Deal):
                    continue  # deals are taken from the hand number below
                if isinstance(event, Cut):
                    full = new_session(roster.variant, roster.hands)
                    after = apply(full, event)
                    steps.append(Step(index, event, full, after))
                    full = after
                    continue
                if full is None:
                    continue
                if isinstance(event, Reveal):
                    full = apply(full, event)
                    continue
                after = apply(full, event)
                steps.append(Step(index, event, full, after))
                full = after
            while full is not None and now is not None and now.hand_no > hand:
                hand += 1
                after = apply(full, Deal())
                for slot, card in sorted(cards.get(hand, {}).items()):
                    after = apply(after, Reveal(slot, card))
                steps.append(Step(index, Deal(), full, after))
                full = after
        return cls(roster, steps, report)

    def state(self, i: int, viewer: int | None, before: bool = False) -> State:
        """The state after (or before) step ``i`` as ``viewer`` saw it (None: all cards)."""
        step = self.steps[i]
        full = step.before if before else step.after
        if viewer is None:
            return full
        key = (i, viewer, before)
        got = self._masked.get(key)
        if got is None:
            got = self._masked[key] = mask_state(full, viewer)
        return got

    def said(self, i: int, viewer: int | None) -> str | None:
        """Step ``i`` in words, for ``viewer``."""
        key = (viewer, i)
        if key not in self._said:
            step = self.steps[i]
            # Every seat by its name: the reader of a replay is none of them.
            self._said[key] = narrate(step.event, self.state(i, viewer, True),
                                      self.state(i, viewer), self.names, None)
        return self._said[key]

    def hand_starts(self) -> list[int]:
        """The step index of every deal."""
        return [i for i, s in enumerate(self.steps) if isinstance(s.event, Deal)]

    def verdict(self) -> list[str]:
        """What the verification found, in sentences (with each signed hand-over)."""
        return [*self._verdict(), *(handover_sentence(h, self.names)
                                    for h in self.report.seat_changes)]

    def _verdict(self) -> list[str]:
        report = self.report
        names = self.names
        if report.fair:
            ended = [] if report.ending is None else [ending_sentence(report.ending, names)]
            return [_("The log verifies: every deal was fair and every move legal."), *ended]
        if report.incomplete:
            return [_("The log is incomplete: every event checks out, but {stopped}.").format(
                stopped=stop_words(report))]
        return [*(violation_sentence(v, names) for v in report.violations),
                *(claim_sentence(c, names) for c in report.claims)] or [
            _("The log does not verify.")]

    def transcript(self, viewer: int | None) -> list[str]:
        """Every step in words (the replay without a terminal)."""
        lines = list(self.verdict())
        lines.extend(t for i in range(len(self.steps))
                     if not self.discard_goes_on(i) and (t := self.said(i, viewer)))
        return lines

    def discard_goes_on(self, i: int, last: int | None = None) -> bool:
        """Whether step ``i`` is a discard the next step (up to ``last``) continues.

        A run of discards is one line: its last sentence tells them all, as the
        live table's log says it."""
        steps = self.steps
        end = len(steps) - 1 if last is None else last
        return (i < end and isinstance(steps[i].event, Discard)
                and isinstance(steps[i + 1].event, Discard))


class ReplayScreen:
    """The replay on the table screen: a cursor over the steps."""

    def __init__(self, replay: Replay, viewer: int | None = None, *,
                 input: Input | None = None, output: Output | None = None,
                 color: bool | None = None) -> None:
        self.replay = replay
        self.viewer = viewer
        self.index = 0
        self.screen = TableScreen(
            self.press, REPLAY_HELP,
            on_leave=lambda: self.screen.close(),
            leave_question=lambda: _("Leave the replay?"),
            status=self._status, confirm_leave=False,
            input=input, output=output, color=color,
        )
        self.screen.scene.title = _("Gleek replay")
        self.screen.scene.named = True
        self.show()

    def _status(self) -> str:
        n = len(self.replay.steps)
        names = self.replay.names
        view = (_("all cards") if self.viewer is None
                else _("{name}'s view").format(name=names[self.viewer]))
        judgement = self.replay.report.judgement
        fair = (_("log fair") if judgement is Judgement.FAIR
                else _("log stopped") if judgement is Judgement.STOPPED else _("log NOT fair"))
        return _("step {number}/{steps} · {view} (v) · {fair} · ←→ PgUp PgDn").format(
            number=self.index + 1, steps=n, view=view, fair=fair)

    def show(self) -> None:
        """Put the current step on the screen."""
        scene = self.screen.scene
        replay = self.replay
        scene.names = replay.names
        scene.viewer = self.viewer
        if not replay.steps:
            scene.status = _("The log holds no move.")
            self.screen.log = [("class:note", t) for t in replay.verdict()]
            return
        scene.state = replay.state(self.index, self.viewer)
        said = replay.said(self.index, self.viewer)
        scene.status = f"▶ {said}" if said else ""
        start = max(0, self.index - 40)
        log = [("class:note", t) for t in replay.verdict()] if start == 0 else []
        # A run of discards is one line: the last one shown tells them all.
        log += [("", t) for i in range(start, self.index + 1)
                if not replay.discard_goes_on(i, self.index)
                and (t := replay.said(i, self.viewer))]
        self.screen.log = log
        self.screen.refresh()

    def press(self, key: str) -> None:
        """Step, jump or change the view."""
        last = len(self.replay.steps) - 1
        starts = self.replay.hand_starts()
        if key in ("right", "down", " "):
            self.index = min(last, self.index + 1)
        elif key in ("left", "up"):
            self.index = max(0, self.index - 1)
        elif key == "home":
            self.index = 0
        elif key == "end":
            self.index = max(0, last)
        elif key == "pagedown":
            later = [i for i in starts if i > self.index]
            self.index = later[0] if later else max(0, last)
        elif key == "pageup":
            earlier = [i for i in starts if i < self.index]
            self.index = earlier[-1] if earlier else 0
        elif key in ("v", "V"):
            seats = self.replay.roster.seats
            self.viewer = 0 if self.viewer is None else (
                None if self.viewer + 1 >= seats else self.viewer + 1)
        elif key in ("a", "A"):
            self.viewer = None
        elif key.isdigit() and int(key) < self.replay.roster.seats:
            self.viewer = int(key)
        self.show()


def run_replay(args: argparse.Namespace) -> int:
    """``gleek replay FILE [--seat N]``; without a terminal, print the transcript."""
    path = Path(args.file)
    if not path.exists():
        print("gleek: " + _("no such file: {file}").format(file=path), file=sys.stderr)
        return 2
    try:
        records = read_log_file(path)[0]  # a torn tail is left out, as gleek verify does
        replay = Replay.load(records)
    except (LogError, NotALog) as exc:
        # The error's own text is English, for logs: the screen words its code.
        why = (_(LOG_FAULT_WORDS[exc.fault]) if isinstance(exc, LogError)
               else unreadable_words(exc.report))
        print("gleek: " + _("{file} is not a readable session log: {why}").format(
            file=path, why=why), file=sys.stderr)
        return 2
    seat: int | None = args.seat
    if seat is not None and not 0 <= seat < replay.roster.seats:
        print("gleek: " + _("no seat {seat}; this table has seats 0 to {last}").format(
            seat=seat, last=replay.roster.seats - 1),
              file=sys.stderr)
        return 2
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        put("\n".join(printable(line) for line in replay.transcript(seat)))
        return 0
    ReplayScreen(replay, seat).screen.app.run()
    return 0
