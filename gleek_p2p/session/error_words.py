"""Why a peer's message was not taken, in the person's words: from the error's code.

A ``ProtocolError``'s or ``Cheating``'s message is English, for the logs and
the signed abort; the screen says what kind of error it was and its stable
``ViolationCode`` (``chain.out-of-order``: the same in every language, listed
in ``protocol/violations.md``), never the English detail.
"""

from __future__ import annotations

from gleek_p2p.base.errors import Cheating, GleekError, IllegalMove, ProtocolError
from gleek_p2p.base.i18n import _

__all__ = ["rejection_words"]


def rejection_words(exc: GleekError) -> str:
    """A few words on why a message was rejected, in the chosen language."""
    code = getattr(exc, "code", None)
    if isinstance(exc, Cheating):
        return _("it breaks the protocol (violation {code})").format(code=exc.code.value)
    if isinstance(exc, IllegalMove):
        return _("a move the rules do not allow")
    if isinstance(exc, ProtocolError) and code is not None:
        return _("it breaks the protocol (violation {code})").format(code=code.value)
    if isinstance(exc, ProtocolError):
        return _("it does not fit the protocol")
    return _("it could not be taken")
