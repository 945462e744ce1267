"""Why a peer's message was not taken, in the person's words: from the error's code.

A ``ProtocolError``'s or ``Cheating``'s message is English, for the logs and
the signed abort; the screen says what was wrong from its stable
``ViolationCode`` (``base/violation_words.py``), then the code itself
(``chain.out-of-order``: the same in every language, listed in
``protocol/violations.md``), never the English detail.
"""

from __future__ import annotations

from gleek_p2p.base.errors import Cheating, GleekError, IllegalMove, ProtocolError, ViolationCode
from gleek_p2p.base.i18n import _
from gleek_p2p.base.violation_words import violation_words

__all__ = ["rejection_words"]


def _breaks(code: ViolationCode) -> str:
    return _("it breaks the protocol - {what} (violation {code})").format(
        what=violation_words(code), code=code.value)


def rejection_words(exc: GleekError) -> str:
    """A few words on why a message was rejected, in the chosen language."""
    code = getattr(exc, "code", None)
    if isinstance(exc, Cheating):
        return _breaks(exc.code)
    if isinstance(exc, IllegalMove):
        return _("a move the rules do not allow")
    if isinstance(exc, ProtocolError) and code is not None:
        return _breaks(code)
    if isinstance(exc, ProtocolError):
        return _("it does not fit the protocol")
    return _("it could not be taken")
