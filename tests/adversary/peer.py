"""A cheating seat for the real peer shell: a table that signs lies.

Plugged into a ``SessionRunner`` in place of an honest ``Table``, it lets a
scenario's ``tamper`` replace any event this seat signs, and accepts its
own lies into its own log, as a cheater would.
"""

from __future__ import annotations

from typing import Any

from gleek_p2p.errors import GleekError
from gleek_p2p.log.envelope import Envelope
from gleek_p2p.rules import Event

from .forge import LiarTable, Tamper


class CheatingTable(LiarTable):
    """A seat's table whose every signed event passes through ``tamper``."""

    def __init__(self, *args: Any, tamper: Tamper, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tamper = tamper
        self.cheated = False

    def auto_event(self) -> Envelope | None:
        envelope = super().auto_event()
        if envelope is not None and not self.cheated:
            replaced = self.tamper(self, envelope, len(self.envelopes))
            if replaced is not None:
                self.cheated = True
                return replaced
        return envelope

    def act(self, action: Event) -> Envelope:
        if not self.cheated:
            replaced = self.tamper(self, None, len(self.envelopes))
            if replaced is not None:
                self.cheated = True
                return replaced
        return super().act(action)

    def receive(self, envelope: Envelope, encoded: bytes | None = None) -> list[Event]:
        try:
            return super().receive(envelope, encoded)
        except GleekError:
            if envelope.seat != self.seat or envelope.seq != len(self.envelopes):
                raise
            # Its own lie: keep it in its log as it was sent.
            self._append(envelope, encoded)
            return []
