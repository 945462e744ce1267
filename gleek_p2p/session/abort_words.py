"""Why a session ended early, in the reader's language: from the abort's code.

An abort's ``reason`` is the signer's own words (English from this program),
signed into the log for people reading it raw and for older versions. Every
screen (the end box, the peer's last line, ``gleek verify``, the replay, a
watcher) words the end from the abort's typed code instead (``Abort.cause``:
an abort cause or a violation's code), and from what the log shows of it
(``Verdict.about``, ``Verdict.fits``). An abort without a code (older logs),
with a code this version does not know (a later version's), or with a code
that does not fit the log (its signer's unproven claim) is shown with its
reason quoted as the signer's words, never as ours.
"""

from __future__ import annotations

from collections.abc import Sequence

from gleek_p2p.base.errors import ViolationCode
from gleek_p2p.base.i18n import N_, _
from gleek_p2p.base.text import one_line
from gleek_p2p.base.violation_words import broke_the_protocol
from gleek_p2p.table import events as ev
from gleek_p2p.table.session import Verdict

__all__ = ["abort_reason", "code_words", "signer_words"]

_WORDS = {
    ev.LOCAL_FAILURE: N_("{name}'s peer failed (an internal error); nobody is to blame"),
    ev.LEFT: N_("{name} left the table"),
    ev.TIMEOUT: N_("{name} did not send their next event in time"),
    ev.LEAVE_UNLOGGED: N_("{name} left the table (their signed Leave came over the link, "
                          "but no leave event reached the log)"),
    ev.FORKED: N_("{name} ended the session where this log holds another event; nothing "
                  "can be proven here"),
    ev.PEER_FAILED: N_("{name}'s peer failed and ended the session where this log holds "
                       "another event; nobody is to blame"),
}


def _name(names: Sequence[str], seat: int) -> str:
    if 0 <= seat < len(names):
        return one_line(names[seat])
    return _("seat {seat}").format(seat=seat)


def code_words(cause: str, about: int, names: Sequence[str]) -> str | None:
    """What a known code says about seat ``about``, as a phrase in the chosen language
    (set after "… ended the session: " or "… says: "); None for a code this
    version does not know."""
    name = _name(names, about)
    words = _WORDS.get(cause)
    if words is not None:
        return _(words).format(name=name)
    if cause in ev.VIOLATION_CODES:
        # What the seat did, in the reader's words; the code only as a detail.
        return broke_the_protocol(name, ViolationCode(cause))
    return None


def signer_words(reason: str) -> str:
    """An abort's reason set inside our sentence as its signer's words: quoted, on one
    line, every control character made visible (it may be anything)."""
    return _("“{words}” (the signer's own words)").format(words=one_line(reason))


def abort_reason(verdict: Verdict, names: Sequence[str]) -> str:
    """Why the abort ``verdict`` says the session ended, in the chosen language.

    From its code when this version knows it and it fits the log; else its
    reason quoted as the signer's words, with a word on its code.
    """
    cause = verdict.cause
    if cause is None:
        return signer_words(verdict.reason)
    # The code is a short word of a-z, 0-9, '.', '-' (Abort.from_body): safe to show.
    if not ev.known_code(cause):
        return _("“{words}” (the signer's own words; this version does not know their "
                 "code, {code})").format(words=one_line(verdict.reason), code=cause)
    words = None if not verdict.fits or verdict.about is None \
        else code_words(cause, verdict.about, names)
    if words is None:
        return _("“{words}” (the signer's own words; their code, {code}, does not fit "
                 "the log)").format(words=one_line(verdict.reason), code=cause)
    return words
