"""The ledger pane: this hand's running ledger per phase and the session totals."""

from __future__ import annotations

from collections.abc import Sequence

from gleek_p2p.base.i18n import pgettext
from gleek_p2p.rules import PHASE_NAMES, Phase, running_ledger

from ..words import pence as _pence
from .scene import TABLE_ROWS, Fragments, Scene, _pad, clip

LEDGER_WIDTH = 28
"""The ledger pane's narrowest width (at 80 columns); a wider terminal gives it more."""
_LEDGER_LABEL = 8
_TABLE_NEEDS = 51
"""Columns the table pane needs before the ledger may take more than its narrowest."""


def ledger_width(names: Sequence[str], width: int) -> int:
    """How wide the ledger pane is at a terminal ``width``: enough for whole names if room."""
    n = max(1, len(names))
    longest = max((len(name) for name in names), default=5)
    wanted = _LEDGER_LABEL + n * (max(longest, 6) + 1)
    return max(LEDGER_WIDTH, min(wanted, width - _TABLE_NEEDS - 1))


def ledger_pane(scene: Scene, width: int) -> list[Fragments]:
    """This hand's running ledger per phase and the session totals, in pence."""
    s = scene.state
    who = scene.who
    n = len(scene.names)
    label_w = 8 if width > LEDGER_WIDTH else 7
    col = max(4, (width - label_w) // max(1, n))
    head = pgettext("ledger", "pence").ljust(label_w) + "".join(
        who.short(i, col - 1).rjust(col) for i in range(n))
    lines: list[Fragments] = [clip([("class:label", head)], width)]
    if s is None:
        return _pad(lines, TABLE_ROWS)
    ledger = running_ledger(s)
    labels = {"tiddy": pgettext("ledger", "Tiddy"), "auction": pgettext("ledger", "auction"),
              "ruff": pgettext("ledger", "ruff"), "combinations": pgettext("ledger", "combos"),
              "tricks": pgettext("ledger", "tricks")}
    for phase in PHASE_NAMES:
        row = ledger.phases[phase] if ledger is not None else (0,) * n
        text = labels[phase].ljust(label_w) + "".join(_pence(v).rjust(col) for v in row)
        lines.append(clip([("", text)], width))
    net = ledger.net if ledger is not None else (0,) * n
    lines.append(clip([("class:label", pgettext("ledger", "hand").ljust(label_w)),
                       ("", "".join(_pence(v, True).rjust(col) for v in net))], width))
    # Finished hands are in the totals already; add the hand being played.
    live = s.phase not in (Phase.HAND_OVER, Phase.SESSION_OVER) and ledger is not None
    totals = [t + (net[i] if live else 0) for i, t in enumerate(s.totals)]
    lines.append(clip([("class:label", pgettext("ledger", "session").ljust(label_w)),
                       ("class:total", "".join(_pence(v, True).rjust(col) for v in totals))],
                      width))
    return _pad(lines, TABLE_ROWS)
