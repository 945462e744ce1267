"""``gleek results``: the evening's scores, from the session logs.

Every log is verified first (the same replay as ``gleek verify``); only a
session whose verdict is fair counts. Players are told apart by their key
(shown as a fingerprint), never by the names they typed, which may change
from one table to the next or be borrowed by someone else. Pure: it takes
verify reports and returns numbers, text or a JSON-ready dict.

A session counts at most once, however many copies of its log are given
(the three seats' logs, a copied file): logs are told apart by session id.
It counts only if every seat of its roster signed an event in it: the roster
is seat 0's word alone, so a log a seat never signed in proves nothing about
who sat there or under which name (anyone can write other players' public
keys into a roster of their own and leave at once).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from itertools import accumulate
from pathlib import Path
from typing import Any

from gleek_p2p.base.i18n import _, ngettext, pgettext
from gleek_p2p.base.seat_names import distinct_names
from gleek_p2p.base.text import display_width, pad, printable
from gleek_p2p.log.keys import fingerprint
from gleek_p2p.rules.money import pence
from gleek_p2p.table.verify import Judgement, VerifyReport
from gleek_p2p.tools.report import chart


@dataclass(frozen=True)
class SessionResult:
    """One log of the evening: whether it counts and, if so, what each seat won."""

    path: Path
    counted: bool
    why_not: str
    """Why a session is left out of the totals (empty when it counts)."""
    session_id: bytes = b""
    """The session the log is of (empty for an unreadable log)."""
    publics: tuple[bytes, ...] = ()
    names: tuple[str, ...] = ()
    hands: int = 0
    totals: tuple[int, ...] = ()
    winner: int | None = None
    """The seat with the highest total of a complete session, when one seat has it alone."""
    unfair: bool = False
    """``gleek verify`` proved a seat's violation in this log (a damaged copy, which
    blames no seat, says nothing about the session)."""


@dataclass
class PlayerResult:
    """One player (one key) over every session that counts."""

    public: bytes
    names: list[str] = field(default_factory=list)
    sessions: int = 0
    hands: int = 0
    total: int = 0
    """Halfpence."""
    wins: int = 0

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public)


@dataclass(frozen=True)
class Evening:
    """Every session read, in order, and the players' standings from those that count."""

    sessions: tuple[SessionResult, ...]
    players: tuple[PlayerResult, ...]
    """Best total first; ties by key so the order never depends on the files' order."""
    running: tuple[tuple[int, ...], ...]
    """After each counted session, every player's running total (``players`` order)."""


def session_result(path: Path, report: VerifyReport) -> SessionResult:
    """What one verified log adds to the evening."""
    if not report.readable or report.roster is None:
        return SessionResult(path, False, _("not a readable session log"))
    roster = report.roster
    sid = roster.session_id
    # A session ended early by a player's signed leave is fair: its hands count.
    if report.judgement is Judgement.STOPPED:
        # Nothing proven either way: left out, and nobody is said to have cheated.
        why = (_("incomplete: the log stops before the session's end") if report.incomplete
               else _("stopped on a claim the log cannot prove; nobody is blamed"))
        return SessionResult(path, False, why, sid, roster.publics, roster.names)
    if not report.fair:
        return SessionResult(path, False, _("not fair: gleek verify found a violation"),
                             sid, roster.publics, roster.names,
                             unfair=any(v.seat is not None for v in report.violations))
    signers = {e.seat for e in report.table.envelopes} if report.table is not None else set()
    if len(signers) < roster.seats:
        # Only seat 0 signs the roster: a player who signed nothing here never
        # agreed to sit at this table, nor to the name it gives them.
        return SessionResult(path, False, _("a player never signed an event in it: the "
                                            "roster is one seat's word"),
                             sid, roster.publics, roster.names)
    totals = report.hands[-1].state.totals if report.hands else (0,) * roster.seats
    best = max(totals)
    winner = (totals.index(best) if report.complete and totals.count(best) == 1
              else None)
    return SessionResult(path, True, "", sid, roster.publics, roster.names,
                         len(report.hands), tuple(totals), winner)


def once_per_session(results: Sequence[SessionResult]) -> tuple[SessionResult, ...]:
    """The results with each session counted once: of several logs of one session
    that count, the one with the most audited hands (the first of them on a tie);
    the others are left out, saying which log counts instead. A session that
    one of its logs proves a seat's violation in counts in none of them.

    Fair logs of one session differ only where a ``leave`` or an abort crossed
    another event, after which one of them stops: the longer holds every hand
    of the shorter (two different hands would need a seat to sign two events
    at one position, which ``gleek verify`` finds in either log)."""
    best: dict[bytes, SessionResult] = {}
    unfair = {r.session_id: r for r in results if r.unfair}
    for result in results:
        if result.counted and result.session_id not in unfair:
            kept = best.get(result.session_id)
            if kept is None or result.hands > kept.hands:
                best[result.session_id] = result
    out = []
    for result in results:
        proof = unfair.get(result.session_id)
        if result.counted and proof is not None:
            result = replace(result, counted=False, why_not=_(
                "not fair: gleek verify found a violation in {file}, a log of the same "
                "session").format(file=proof.path.name))
        kept = best.get(result.session_id)
        if result.counted and kept is not None and kept is not result:
            result = replace(result, counted=False, why_not=_(
                "the same session as {file}, counted once").format(file=kept.path.name))
        out.append(result)
    return tuple(out)


def evening(results: Sequence[SessionResult]) -> Evening:
    """Add up the sessions that count, in the order given (oldest first); a session
    given in several logs counts once (``once_per_session``)."""
    results = once_per_session(results)
    players: dict[bytes, PlayerResult] = {}
    counted = [r for r in results if r.counted]
    for result in counted:
        for seat, public in enumerate(result.publics):
            player = players.setdefault(public, PlayerResult(public))
            if result.names[seat] not in player.names:
                player.names.append(result.names[seat])
            player.sessions += 1
            player.hands += result.hands
            player.total += result.totals[seat]
            player.wins += result.winner == seat
    order = sorted(players.values(), key=lambda p: (-p.total, p.public))
    index = {p.public: i for i, p in enumerate(order)}
    steps = []
    for result in counted:
        step = [0] * len(order)
        for seat, public in enumerate(result.publics):
            step[index[public]] = result.totals[seat]
        steps.append(tuple(step))
    running = tuple(accumulate(steps, lambda a, b: tuple(x + y for x, y in
                                                          zip(a, b, strict=True))))
    return Evening(tuple(results), tuple(order), running)


def _label(player: PlayerResult) -> str:
    # Names are a peer's words: shown inert.
    return printable(" / ".join(player.names))


def text_results(night: Evening) -> str:
    """The evening for a person: standings, then the sessions left out, then a chart."""
    counted = sum(1 for s in night.sessions if s.counted)
    out = [_("{sessions} read, {counted} counted.").format(
        sessions=ngettext("{n} session", "{n} sessions", len(night.sessions)).format(
            n=len(night.sessions)),
        counted=counted)]
    # Two players may have used one name: each then carries a piece of its key, as
    # in gleek verify's report (the chart's legend has no key column beside it).
    labels = distinct_names([_label(p) for p in night.players],
                            [p.fingerprint for p in night.players])
    if night.players:
        head = [pgettext("column", "player"), pgettext("column", "key"),
                pgettext("column", "sessions"), pgettext("column", "hands"),
                pgettext("column", "pence"), pgettext("column", "wins")]
        rows = [[label, p.fingerprint, str(p.sessions), str(p.hands),
                 pence(p.total, True, leading_zero=True), str(p.wins)]
                for label, p in zip(labels, night.players, strict=True)]
        widths = [max(display_width(row[i]) for row in [head, *rows])
                  for i in range(len(head))]

        def line(cells: list[str]) -> str:
            # Names and keys read left to right, numbers line up on the right; by the
            # columns each takes on a terminal (a wide letter takes two).
            return "  ".join(pad(c, w, right=i >= 2)
                             for i, (c, w) in enumerate(zip(cells, widths, strict=True)))

        out.append("")
        out.extend(line(row).rstrip() for row in [head, *rows])
    left_out = [s for s in night.sessions if not s.counted]
    if left_out:
        out.append("")
        out.append(_("Left out of the totals:"))
        out.extend("  " + _("{file}: {why}").format(file=s.path.name, why=s.why_not)
                   for s in left_out)
    if night.running:
        out.append("")
        out.append(_("Running totals after each session (pence):"))
        out.extend(chart(night.running, labels, per_session=True))
    return "\n".join(out)


def json_results(night: Evening) -> dict[str, Any]:
    """The evening for a program; amounts in halfpence."""
    return {
        "unit": "halfpence",
        "sessions": [
            {"file": str(s.path), "counted": s.counted, "why_not": s.why_not or None,
             "players": [fingerprint(p) for p in s.publics], "names": list(s.names),
             "hands": s.hands, "totals": list(s.totals), "winner": s.winner}
            for s in night.sessions
        ],
        "players": [
            {"fingerprint": p.fingerprint, "names": p.names, "sessions": p.sessions,
             "hands": p.hands, "total": p.total, "wins": p.wins}
            for p in night.players
        ],
        "running": [list(step) for step in night.running],
    }
