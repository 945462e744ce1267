"""``gleek results``: the evening's scores, from the session logs.

Every log is verified first (the same replay as ``gleek verify``); only a
session whose verdict is fair counts. Players are told apart by their key
(shown as a fingerprint), never by the names they typed, which may change
from one table to the next or be borrowed by someone else. Pure: it takes
verify reports and returns numbers, text or a JSON-ready dict.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from pathlib import Path
from typing import Any

from gleek_p2p.base.i18n import _, ngettext, pgettext
from gleek_p2p.base.text import printable
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
    publics: tuple[bytes, ...] = ()
    names: tuple[str, ...] = ()
    hands: int = 0
    totals: tuple[int, ...] = ()
    winner: int | None = None
    """The seat with the highest total of a complete session, when one seat has it alone."""


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
    # A session ended early by a player's signed leave is fair: its hands count.
    if report.judgement is Judgement.STOPPED:
        # Nothing proven either way: left out, and nobody is said to have cheated.
        why = (_("incomplete: the log stops before the session's end") if report.incomplete
               else _("stopped on a claim the log cannot prove; nobody is blamed"))
        return SessionResult(path, False, why, roster.publics, roster.names)
    if not report.fair:
        return SessionResult(path, False, _("not fair: gleek verify found a violation"),
                             roster.publics, roster.names)
    totals = report.hands[-1].state.totals if report.hands else (0,) * roster.seats
    best = max(totals)
    winner = (totals.index(best) if report.complete and totals.count(best) == 1
              else None)
    return SessionResult(path, True, "", roster.publics, roster.names, len(report.hands),
                         tuple(totals), winner)


def evening(results: Sequence[SessionResult]) -> Evening:
    """Add up the sessions that count, in the order given (oldest first)."""
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
    if night.players:
        head = [pgettext("column", "player"), pgettext("column", "key"),
                pgettext("column", "sessions"), pgettext("column", "hands"),
                pgettext("column", "pence"), pgettext("column", "wins")]
        rows = [[_label(p), p.fingerprint, str(p.sessions), str(p.hands),
                 pence(p.total, True, leading_zero=True), str(p.wins)] for p in night.players]
        widths = [max(len(row[i]) for row in [head, *rows]) for i in range(len(head))]

        def line(cells: list[str]) -> str:
            # Names and keys read left to right, numbers line up on the right.
            return "  ".join(c.ljust(w) if i < 2 else c.rjust(w)
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
        out.extend(chart(night.running, [_label(p) for p in night.players],
                         per_session=True))
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
