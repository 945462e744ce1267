"""Sans-IO: when is "the table is full" believable? (time passed in as ``now``)

A forming peer that gives up on a refusal hands its seat to whoever sent
it, so a refusal must be worth more than its cost to forge. ``FullTables``
takes only *proven* ``TABLE_FULL`` refusals: signed over the handshake by
the refuser's identity (handshake.py), so each names the key that refused
this very connection. One proven refusal is still one key's word, and keys
cost nothing: the verdict needs ``WITNESSES`` distinct keys that each sit
at, and name, the same table (the same sorted seat keys, ours not among
them). A formed table has every seat but ours, so a real extra player
reaches two of them (the first refusal says where the others listen). And
a peer still forming with someone outside that table is not alone: it
keeps forming whatever the refusals say.

Memory is bounded: the latest refusal of at most ``memory`` keys, each
forgotten after ``max_age`` seconds.
"""

from __future__ import annotations

import collections
from collections.abc import Iterable
from dataclasses import dataclass

from .messages import Hello, Refuse, RefuseCode

__all__ = ["WITNESSES", "FullTable", "FullTables", "Witness"]

WITNESSES = 2
"""Distinct seated keys that must refuse us, naming one table, before we believe it."""

Address = tuple[str, int]


@dataclass(frozen=True)
class Witness:
    """A proven refusal: who refused (its authenticated Hello), where, and what it said."""

    peer: Hello
    refusal: Refuse
    address: Address | None
    heard: float


@dataclass(frozen=True)
class FullTable:
    """A table that formed without us, as its witnesses (first heard first) told it."""

    seated: tuple[bytes, ...]
    witnesses: tuple[Witness, ...]


class FullTables:
    """The proven ``TABLE_FULL`` refusals heard while forming, and the verdict they make."""

    def __init__(self, me: bytes, seats: int, *, memory: int = 64, max_age: float = 60.0) -> None:
        self.me = me
        self.seats = seats
        self.memory = memory
        self.max_age = max_age
        self._by_key: collections.OrderedDict[bytes, Witness] = collections.OrderedDict()

    def __len__(self) -> int:
        return len(self._by_key)

    def fits(self, peer: Hello, refusal: Refuse) -> bool:
        """Whether a proven refusal from ``peer`` can count: a full table it sits at, not us."""
        seated = refusal.seated
        return (refusal.meaning is RefuseCode.TABLE_FULL and len(seated) == self.seats
                and peer.public in seated and self.me not in seated)

    def heard(self, peer: Hello, refusal: Refuse, address: Address | None, now: float) -> bool:
        """Keep a *proven* refusal (the caller checked its signature); whether it counts."""
        if not self.fits(peer, refusal):
            return False
        self._by_key.pop(peer.public, None)
        self._by_key[peer.public] = Witness(peer, refusal, address, now)
        while len(self._by_key) > self.memory:
            self._by_key.popitem(last=False)
        return True

    def verdict(self, around: Iterable[bytes], now: float) -> FullTable | None:
        """The table ``WITNESSES`` keys of it say formed without us, if we are alone.

        ``around`` is the keys of the peers we hold a live link with: one
        outside that table is someone to form with, so no verdict then.
        """
        for key in [k for k, w in self._by_key.items() if now - w.heard > self.max_age]:
            del self._by_key[key]
        tables: dict[tuple[bytes, ...], list[Witness]] = {}
        for witness in self._by_key.values():
            tables.setdefault(witness.refusal.seated, []).append(witness)
        around = set(around)
        for seated, witnesses in tables.items():
            if len(witnesses) >= WITNESSES and around <= set(seated):
                ordered = sorted(witnesses, key=lambda w: w.heard)
                return FullTable(seated, tuple(ordered))
        return None
