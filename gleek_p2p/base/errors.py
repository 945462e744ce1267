"""The typed errors every layer raises.

They live outside the layers because all of them share them: the rules engine
raises ``IllegalMove``, the deck protocol ``Cheating``, the log and the table
``ProtocolError``. Every message is a sentence a player can read as it is;
what a program acts on is the error's ``code`` (a ``ViolationCode``), never
its words.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gleek_p2p.base.violation_codes import ViolationCode


class GleekError(Exception):
    """Base class: something a user can be told in one sentence."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class IllegalMove(GleekError):
    """A move the rules do not allow now; the state is left untouched."""

    def __init__(self, message: str, seat: int | None = None) -> None:
        super().__init__(message)
        self.seat = seat


class ProtocolError(GleekError):
    """Input that does not fit the protocol (malformed, out of order, bad encoding).

    ``code`` says which rule of the protocol it breaks; every raise in the
    rules, deck and table layers gives one (the transport's own errors, never
    a violation by a seat, may leave it ``None``).
    """

    def __init__(self, message: str, code: ViolationCode | None = None) -> None:
        super().__init__(message)
        self.code = code


class Cheating(GleekError):
    """Proof that a seat broke the protocol or the rules.

    ``evidence`` holds the messages (or their encodings) that prove it, so
    anyone can check the verdict without trusting the reporter.
    """

    def __init__(
        self, seat: int, reason: str, evidence: Sequence[Any] = (), *, code: ViolationCode
    ) -> None:
        super().__init__(f"seat {seat} cheated: {reason}")
        self.seat = seat
        self.reason = reason
        self.evidence = tuple(evidence)
        self.code = code


__all__ = ["Cheating", "GleekError", "IllegalMove", "ProtocolError", "ViolationCode"]
