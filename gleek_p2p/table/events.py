"""The kinds of signed event in a session log and their bodies.

A log is: one ``roster`` (seat 0), the cut draw (``cut-commit`` then
``cut-reveal`` from every seat), then for every hand the deck set-up
(``commit``, ``shuffle``, ``lock``), ``keys`` (deal keys, then talon keys),
``act`` (every decision of a player, with the keys of any card it shows) and
finally ``seed`` from every seat. A seat whose own card does not open signs
``dispute`` (the seeds are then revealed at once and the audit names the
culprit); ``abort`` may end a session at any point, and so may ``leave``: a
seat's own signed word that its player left the table (no blame, no claim).
``handover`` is a seat's own signed word that a bot plays it from there on, and
``retake`` that its person plays it again; neither changes anything in the game
nor ends anything.
Bodies are canonical lists; the envelope (layer 3) carries the seat.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gleek_p2p.base.errors import ProtocolError, ViolationCode
from gleek_p2p.deck import Commit, Keys, LockPass, SeedReveal, ShufflePass, message_from_wire
from gleek_p2p.rules import Event, event_from_wire, event_to_wire

ROSTER = "roster"
CUT_COMMIT = "cut-commit"
CUT_REVEAL = "cut-reveal"
COMMIT = "commit"
SHUFFLE = "shuffle"
LOCK = "lock"
KEYS = "keys"
ACT = "act"
SEED = "seed"
DISPUTE = "dispute"
ABORT = "abort"
LEAVE = "leave"
HANDOVER = "handover"
RETAKE = "retake"
KINDS = (ROSTER, CUT_COMMIT, CUT_REVEAL, COMMIT, SHUFFLE, LOCK, KEYS, ACT, SEED, DISPUTE, ABORT,
         LEAVE, HANDOVER, RETAKE)
OUT_OF_TURN = (DISPUTE, ABORT, LEAVE)
"""Kinds any seat may sign whoever's turn it is: all three stop the hand."""

MAX_REASON = 300
MAX_EVIDENCE = 8
MAX_EVIDENCE_ITEM = 1 << 16

DeckMessage = Commit | ShufflePass | LockPass | Keys | SeedReveal
_DECK_KIND: dict[type[Any], str] = {
    Commit: COMMIT,
    ShufflePass: SHUFFLE,
    LockPass: LOCK,
    Keys: KEYS,
    SeedReveal: SEED,
}


def deck_body(message: DeckMessage) -> list[Any]:
    return [message.to_wire()]


def deck_from_body(kind: str, seat: int, body: list[Any]) -> DeckMessage:
    """Decode a deck message and check it is the kind and seat its envelope says."""
    if len(body) != 1 or not isinstance(body[0], list):
        raise ProtocolError(f"a {kind} event must hold one deck message",
                            code=ViolationCode.FORM_DECK_MESSAGE)
    message = message_from_wire(body[0])
    if _DECK_KIND.get(type(message)) != kind:
        raise ProtocolError(f"a {kind} event holds a deck message of another kind",
                            code=ViolationCode.FORM_DECK_MESSAGE)
    if message.seat != seat:
        raise ProtocolError(f"a {kind} event signed by seat {seat} speaks for seat {message.seat}",
                            code=ViolationCode.FORM_DECK_MESSAGE)
    return message


@dataclass(frozen=True)
class Act:
    """A player's decision, with its own keys for any card the decision shows."""

    action: Event
    keys: Keys | None

    def to_body(self) -> list[Any]:
        return [event_to_wire(self.action), [] if self.keys is None else self.keys.to_wire()]

    @classmethod
    def from_body(cls, seat: int, body: list[Any]) -> Act:
        if len(body) != 2 or not isinstance(body[0], list) or not isinstance(body[1], list):
            raise ProtocolError("an act event must hold an action and a key list",
                                code=ViolationCode.FORM_ACT)
        action = event_from_wire(body[0])
        if getattr(action, "seat", None) != seat:
            raise ProtocolError(f"an act signed by seat {seat} is not that seat's action",
                                code=ViolationCode.FORM_ACT)
        keys = None
        if body[1]:
            message = message_from_wire(body[1])
            if not isinstance(message, Keys) or message.seat != seat:
                raise ProtocolError("the keys of an act must be the actor's own keys",
                                    code=ViolationCode.DECK_ACT_KEYS)
            keys = message
        return cls(action, keys)


LOCAL_FAILURE = "local-failure"
"""An abort's cause: the signer's own peer failed (a bug, a disk error); nobody is blamed."""
LEFT = "left"
"""An abort's cause: another seat signed a ``leave`` at a position this log already
holds with another event (the two crossed); the leave is the abort's first evidence.
Nobody is blamed."""
TIMEOUT = "timeout"
"""An abort's cause: the blamed seat, the one this log waits for at the abort's
position, signed nothing in time (a claim: nothing in a log can prove it)."""
LEAVE_UNLOGGED = "leave-unlogged"
"""An abort's cause: the seat in the body's fifth item sent its signed ``Leave`` on
the link, but its ``leave`` event never reached the signer. Nobody is blamed."""
FORKED = "forked"
"""An abort's cause: the first evidence item is another seat's abort, signed at a
position this log already holds with another event. Nobody is blamed."""
PEER_FAILED = "peer-failed"
"""An abort's cause: as ``forked``, and that other abort is of cause
``local-failure`` (the other seat's peer failed). Nobody is blamed."""
ABORT_CAUSES = (LOCAL_FAILURE, LEFT, TIMEOUT, LEAVE_UNLOGGED, FORKED, PEER_FAILED)
"""The abort causes this version knows. An abort may instead carry a violation's
code (``ViolationCode``, always with a dot) when it blames a seat for that
breach; any other well-formed code is a later version's, taken as the signer's
words (SPEC.md 4.4)."""
BLAMING_NOBODY = frozenset({LOCAL_FAILURE, LEFT, LEAVE_UNLOGGED, FORKED, PEER_FAILED})
"""The causes whose abort blames nobody (``blamed`` is -1)."""
ABOUT_A_SEAT = frozenset({LEAVE_UNLOGGED})
"""The causes whose body has a fifth item: the seat the cause is about."""
VIOLATION_CODES = frozenset(code.value for code in ViolationCode)
MAX_CODE = 40
"""The longest code an abort may carry (its characters: a-z, 0-9, '.', '-')."""
_CODE_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789.-")


def known_code(cause: str | None) -> bool:
    """Whether this version words ``cause`` itself (an abort cause or a violation code)."""
    return cause is not None and (cause in ABORT_CAUSES or cause in VIOLATION_CODES)


def _well_formed_code(cause: object) -> bool:
    return (isinstance(cause, str) and 0 < len(cause) <= MAX_CODE
            and set(cause) <= _CODE_CHARS)


def leave_body(body: list[Any]) -> None:
    """Check a ``leave`` event's body: it is empty (the envelope says who and where)."""
    if body != []:
        raise ProtocolError("a leave event holds nothing", code=ViolationCode.FORM_EVENT)


MAX_BOT_NAME = 24
"""The longest strategy name a ``handover`` may carry (its characters: a-z, 0-9, '-')."""
_BOT_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")


def handover_body(body: list[Any]) -> str:
    """Check a ``handover`` event's body and return the bot's name: one short word
    (a strategy name, for people; no rule depends on it)."""
    if (len(body) != 1 or not isinstance(body[0], str)
            or not 0 < len(body[0]) <= MAX_BOT_NAME or not set(body[0]) <= _BOT_NAME_CHARS):
        raise ProtocolError(f"a handover event holds one bot name of 1 to {MAX_BOT_NAME} "
                            "characters (a-z, 0-9, '-')", code=ViolationCode.FORM_EVENT)
    return str(body[0])


def retake_body(body: list[Any]) -> None:
    """Check a ``retake`` event's body: it is empty (the envelope says who and where)."""
    if body != []:
        raise ProtocolError("a retake event holds nothing", code=ViolationCode.FORM_EVENT)


@dataclass(frozen=True)
class Abort:
    """The end of a session before its time: who is blamed, why, and the proof.

    ``cause`` is the abort's typed code (an abort cause, or a violation's code
    when it blames a seat for a breach): every screen words the end from it in
    the reader's language, and behaviour depends on it, never on ``reason``,
    which is the signer's own words (English from this program), kept in the
    log for people reading it raw and for older versions. It is absent from
    the body when None, so an abort without one encodes as it always did.
    ``about`` is the seat a cause such as ``leave-unlogged`` is about (a fifth
    item, present only then).
    """

    blamed: int | None
    reason: str
    evidence: tuple[bytes, ...] = ()
    cause: str | None = None
    about: int | None = None

    def to_body(self) -> list[Any]:
        body: list[Any] = [-1 if self.blamed is None else self.blamed, self.reason,
                           list(self.evidence)]
        if self.cause is None:
            return body
        body.append(self.cause)
        return body if self.about is None else [*body, self.about]

    @classmethod
    def from_body(cls, body: list[Any]) -> Abort:
        """Check an abort's body: its form, and what its code says of whom it blames.

        An unknown but well-formed code is taken (a later version's: its
        screens show the reason as the signer's words); a code that is not a
        short word, or one this version knows with the wrong blame or fifth
        item, is ``form.abort``. Whether a code fits the log is the table's
        and ``gleek verify``'s to say, never a reason to refuse the abort.
        """
        if not isinstance(body, list) or len(body) not in (3, 4, 5):
            raise ProtocolError("an abort event is malformed",
                                code=ViolationCode.FORM_ABORT)
        blamed, reason, evidence = body[:3]
        cause = body[3] if len(body) >= 4 else None
        about = body[4] if len(body) == 5 else None
        if not (
            isinstance(blamed, int)
            and blamed >= -1  # -1 is nobody (protocol/events.json); a seat is checked by the table
            and isinstance(reason, str)
            and isinstance(evidence, list)
            and len(reason) <= MAX_REASON
            and len(evidence) <= MAX_EVIDENCE
            and all(isinstance(e, bytes) and len(e) <= MAX_EVIDENCE_ITEM for e in evidence)
            and (len(body) == 3 or _well_formed_code(cause))  # a fourth item is a code
            and (about is None or (isinstance(about, int) and about >= 0))
        ):
            raise ProtocolError("an abort event is malformed", code=ViolationCode.FORM_ABORT)
        if cause in BLAMING_NOBODY and blamed >= 0:
            raise ProtocolError(f"an abort for {cause} blames nobody",
                                code=ViolationCode.FORM_ABORT)
        if (cause == TIMEOUT or cause in VIOLATION_CODES) and blamed < 0:
            raise ProtocolError(f"an abort for {cause} blames a seat",
                                code=ViolationCode.FORM_ABORT)
        if known_code(cause) and (about is not None) != (cause in ABOUT_A_SEAT):
            raise ProtocolError(f"an abort for {cause} names a seat as its fifth item "
                                f"only if its cause is one of {sorted(ABOUT_A_SEAT)}",
                                code=ViolationCode.FORM_ABORT)
        return cls(None if blamed < 0 else blamed, reason, tuple(evidence), cause, about)


def digest_body(body: list[Any], what: str, size: int = 32) -> bytes:
    if len(body) != 1 or not isinstance(body[0], bytes) or len(body[0]) != size:
        raise ProtocolError(f"a {what} event must hold {size} bytes", code=ViolationCode.FORM_EVENT)
    return body[0]
