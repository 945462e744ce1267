"""What ``gleek verify`` and ``gleek replay`` found, worded from codes, never from English.

A violation's ``reason`` is the table layer's English sentence: it stays in
the log's JSON and is shown only quoted, as the program's detail. The
verdict line says what was broken from the violation's stable code
(``ViolationCode``) in the reader's language; where a log that checks out
stops is said from what the table waits for (its stage and the kind of event
it expects), not from ``Expectation.what``.
"""

from __future__ import annotations

from gleek_p2p.base.i18n import N_, _
from gleek_p2p.base.text import one_line
from gleek_p2p.base.violation_words import VIOLATION_WORDS, violation_words
from gleek_p2p.table import events as ev
from gleek_p2p.table.session import Stage
from gleek_p2p.table.verify import VerifyReport
from gleek_p2p.tools.seat_words import seat_labels

__all__ = ["AWAITED", "VIOLATION_WORDS", "awaited", "detail_words", "stop_words",
           "violation_words"]


def detail_words(reason: str) -> str:
    """The table layer's English reason, quoted as the program's detail (shown inert,
    on one line): the evidence's own words, never the verdict."""
    return _("(the program's detail: “{detail}”)").format(detail=one_line(reason))


AWAITED = {
    ev.ROSTER: N_("the roster"),
    ev.CUT_COMMIT: N_("a commitment for the cut"),
    ev.CUT_REVEAL: N_("the cut"),
    ev.COMMIT: N_("the shuffle (a commitment)"),
    ev.SHUFFLE: N_("the shuffle (mixing the deck)"),
    ev.LOCK: N_("the shuffle (locking the cards)"),
    ev.SEED: N_("the seed of the hand"),
}
"""What the table waits for, by the kind of event it expects (a move and keys are said
apart, from the state): the words of ``gleek verify`` and of the table's status line."""

_KEYS_AWAITED = {
    Stage.DEAL_KEYS: N_("the keys of the deal"),
    Stage.PLAY: N_("the keys of the talon"),
    Stage.UNPLAYED: N_("the keys of the cards left unplayed"),
}
"""Which keys the table waits for, by its stage: the deal's, the talon's (in play, its
only keys), or those of the cards never played that the hand's audit opens."""


def awaited(kind: str, stage: Stage) -> str | None:
    """What the table waits for (untranslated: pass it to ``_``) when it expects an
    event of ``kind`` at ``stage``; None for a move (its words come from the game's
    phase) and for a kind without words. ``gleek verify`` and the status line both
    say it from here."""
    if kind == ev.KEYS:
        return _KEYS_AWAITED.get(stage)
    return AWAITED.get(kind)


def stop_words(report: VerifyReport) -> str:
    """Where ``report``'s log stops, for one that checks out but ends before the session
    does, in the chosen language: "it stops waiting for Anne (the keys of the deal)",
    from the table's stage and the kind of event it expects."""
    table = report.table
    exp = None if table is None else table.expected()
    if table is None or exp is None:
        return _("it stops before the end")
    names = seat_labels(table.roster)
    kind = exp.kinds[0] if exp.kinds else ""
    words = N_("a move") if kind == ev.ACT else awaited(kind, table.stage)
    name = one_line(names[exp.seat]) if 0 <= exp.seat < len(names) else \
        _("seat {seat}").format(seat=exp.seat)
    if words is None:
        return _("it stops waiting for {name}").format(name=name)
    return _("it stops waiting for {name} ({what})").format(name=name, what=_(words))
