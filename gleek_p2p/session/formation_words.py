"""Table formation's news in the person's words: why a Reveal was not taken, why we start over.

``net/formation.py`` says what went wrong with a ``FormationFault`` and the
Hello of the peer at fault; its messages are English, for the logs. This
module words them in the chosen language. Nothing here decides anything.
"""

from __future__ import annotations

from gleek_p2p.base.errors import ProtocolError
from gleek_p2p.base.i18n import N_, _
from gleek_p2p.log.keys import fingerprint
from gleek_p2p.net.formation import FormationError, FormationFault, StartOver
from gleek_p2p.net.messages import Hello

__all__ = ["FAULT_WORDS", "fault_words", "formation_words"]

FAULT_WORDS = {
    FormationFault.NOT_ADMITTED: N_("{who} cannot join: the table is full"),
    FormationFault.BAD_SIGNATURE: N_("the signature of {who}'s Reveal does not verify"),
    FormationFault.BAD_NONCE: N_("{who} revealed a nonce that does not open its commitment"),
    FormationFault.BAD_PEER_LIST: N_("{who} sent a list of players that is not this table's"),
    FormationFault.NOT_LISTED: N_("{who} sent a list of players without itself or without "
                                  "you"),
    FormationFault.DIFFERENT_TABLE: N_("{who} formed another table"),
    FormationFault.NO_HELLOS: N_("{who} sent a Reveal without the Hellos it saw"),
    FormationFault.BAD_EVIDENCE: N_("{who} sent a Reveal whose evidence does not verify"),
    FormationFault.NEW_COMMITMENT: N_("{who} came back with a new commitment (it restarted)"),
    FormationFault.EQUIVOCATED: N_("{who} told the players different things"),
}
"""A formation fault in a sentence about the peer at fault (``{who}``)."""


def _who(peer: Hello | None) -> str:
    if peer is None:
        return _("a peer")
    return _("{name} (key {key})").format(name=peer.name, key=fingerprint(peer.public))


def fault_words(fault: FormationFault | None, peer: Hello | None) -> str:
    """One formation fault in the chosen language."""
    if fault is None or fault is FormationFault.NO_ATTEMPT_LEFT:
        return _("the formation failed")
    return _(FAULT_WORDS[fault]).format(who=_who(peer))


def formation_words(exc: ProtocolError) -> str:
    """What a formation error or start-over says to the person here, never its English.

    A ``StartOver`` or ``FormationError`` without a fault carries the
    words its caller (the shell) gave, already in the person's language.
    """
    if isinstance(exc, FormationError):
        if exc.fault is FormationFault.NO_ATTEMPT_LEFT:
            cause = fault_words(exc.cause, exc.peer) if exc.cause is not None else exc.why
            return _("{reason}, and no formation attempt is left").format(reason=cause)
        return fault_words(exc.fault, exc.peer)
    if isinstance(exc, StartOver):
        return exc.message if exc.fault is None else fault_words(exc.fault, exc.peer)
    return _("the formation failed")
