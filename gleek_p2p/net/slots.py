"""Handshake slots shared fairly across addresses (sans-IO, time passed in as ``now``).

A listener runs a bounded number of handshakes at once. When a connection
arrives and every slot is taken, one handshake must go; which one decides
whether a flood can keep an honest peer out. Each address carries *blame*:
one point for every handshake of it that was pushed out, refused or failed
(no Hello, no Proof in time, a protocol error), decaying by half every
``half_life`` seconds and halved by a completed handshake. The handshake to
drop is the one of the address with the most blame, then the one holding
the most slots, then the oldest; the newcomer itself is turned away when it
is the worst. An honest peer finishes in milliseconds and is never blamed,
so a flood from any number of addresses blames itself out of the way within
a few arrivals, however fast it comes. Blame is kept for at most ``memory``
addresses (least recently blamed forgotten first).
"""

from __future__ import annotations

import collections
import math
from collections.abc import Hashable
from typing import Generic, TypeVar

__all__ = ["HandshakeSlots"]

T = TypeVar("T", bound=Hashable)


class HandshakeSlots(Generic[T]):
    """Who handshakes now: at most ``total`` at once and ``per_address`` from one address.

    A ticket (any hashable: the listener uses its handshake tasks) is
    handed in by ``arrive`` and given back by ``leave``.
    """

    def __init__(self, total: int, per_address: int, *, memory: int = 1024,
                 half_life: float = 30.0) -> None:
        self.total = max(1, total)
        self.per_address = max(1, per_address)
        self.memory = memory
        self.half_life = half_life
        self.held: dict[T, str] = {}
        """Tickets handshaking now, oldest first, with their address."""
        self._blame: collections.OrderedDict[str, tuple[float, float]] = (
            collections.OrderedDict())
        """address -> (blame, when it was that much)."""

    def __len__(self) -> int:
        return len(self.held)

    def blame(self, address: str, now: float) -> float:
        """``address``'s blame at ``now`` (0 for an address never blamed)."""
        value, at = self._blame.get(address, (0.0, now))
        if value <= 0.0:
            return 0.0
        return value * math.pow(0.5, max(0.0, now - at) / self.half_life)

    def _add_blame(self, address: str, points: float, now: float) -> None:
        value = max(0.0, self.blame(address, now) + points)
        self._blame[address] = (value, now)
        self._blame.move_to_end(address)
        while len(self._blame) > self.memory:
            self._blame.popitem(last=False)

    def arrive(self, ticket: T, address: str, now: float) -> list[tuple[T, str]]:
        """Make room for ``ticket`` from ``address``: the tickets to drop, each with why.

        If ``ticket`` itself is among them it was turned away (and is not
        held); the others were pushed out and are no longer held.
        """
        out: list[tuple[T, str]] = []
        mine = [t for t, a in self.held.items() if a == address]
        if len(mine) >= self.per_address:
            out.append((mine[0], f"too many connections from {address} are handshaking; "
                                 "the oldest was dropped"))
            self._push_out(mine[0], now)
        if len(self.held) >= self.total:
            victim = self._worst(ticket, address, now)
            if victim == ticket:
                self._add_blame(address, 1.0, now)
                return [*out, (ticket, f"too many connections are handshaking at once; "
                                       f"one more from {address} was turned away")]
            out.append((victim, "too many connections are handshaking at once; "
                                f"one from {self.held[victim]} was dropped"))
            self._push_out(victim, now)
        self.held[ticket] = address
        return out

    def _worst(self, ticket: T, address: str, now: float) -> T:
        counts = collections.Counter(self.held.values())
        counts[address] += 1
        blame = {a: self.blame(a, now) for a in counts}
        # Age: the newcomer is the youngest (0); held tickets older the earlier they came.
        ranked = [(blame[address], counts[address], 0, ticket)]
        n = len(self.held)
        ranked += [(blame[a], counts[a], n - i, t) for i, (t, a) in enumerate(self.held.items())]
        return max(ranked, key=lambda r: r[:3])[3]

    def _push_out(self, ticket: T, now: float) -> None:
        address = self.held.pop(ticket)
        self._add_blame(address, 1.0, now)

    def leave(self, ticket: T, now: float, *, completed: bool) -> None:
        """``ticket``'s handshake ended (``completed``: it authenticated the peer)."""
        address = self.held.pop(ticket, None)
        if address is None:
            return  # already pushed out, and blamed for it
        if completed:
            if address in self._blame:
                self._add_blame(address, -self.blame(address, now) / 2, now)
        else:
            self._add_blame(address, 1.0, now)
