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
ABORT_CAUSES = (LOCAL_FAILURE, LEFT)


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

    ``cause`` types the reason where behaviour depends on it (the reason is
    words for people); it is absent from the body when None, so an abort
    without one encodes as it always did.
    """

    blamed: int | None
    reason: str
    evidence: tuple[bytes, ...] = ()
    cause: str | None = None

    def to_body(self) -> list[Any]:
        body = [-1 if self.blamed is None else self.blamed, self.reason, list(self.evidence)]
        return body if self.cause is None else [*body, self.cause]

    @classmethod
    def from_body(cls, body: list[Any]) -> Abort:
        if not isinstance(body, list) or len(body) not in (3, 4):
            raise ProtocolError("an abort event is malformed",
                                code=ViolationCode.FORM_ABORT)
        blamed, reason, evidence = body[:3]
        cause = body[3] if len(body) == 4 else None
        if not (
            isinstance(blamed, int)
            and blamed >= -1  # -1 is nobody (protocol/events.json); a seat is checked by the table
            and isinstance(reason, str)
            and isinstance(evidence, list)
            and len(reason) <= MAX_REASON
            and len(evidence) <= MAX_EVIDENCE
            and all(isinstance(e, bytes) and len(e) <= MAX_EVIDENCE_ITEM for e in evidence)
            and (cause is None or cause in ABORT_CAUSES)
        ):
            raise ProtocolError("an abort event is malformed", code=ViolationCode.FORM_ABORT)
        if cause in ABORT_CAUSES and blamed >= 0:
            raise ProtocolError(f"an abort for {cause} blames nobody",
                                code=ViolationCode.FORM_ABORT)
        return cls(None if blamed < 0 else blamed, reason, tuple(evidence), cause)


def digest_body(body: list[Any], what: str, size: int = 32) -> bytes:
    if len(body) != 1 or not isinstance(body[0], bytes) or len(body[0]) != size:
        raise ProtocolError(f"a {what} event must hold {size} bytes", code=ViolationCode.FORM_EVENT)
    return body[0]
