"""Sans-IO table formation: n peers agree on one roster and seat order.

Each peer draws a 32-byte nonce and puts ``sha256(nonce)`` in every Hello as
``nonce_commit``. Once it has ``n - 1`` authenticated peers it sends each of
them ``Reveal(nonce, peers)`` where ``peers`` is the sorted list of all ``n``
public keys of the table (its own included). When every peer has revealed a
nonce matching its commitment and the very same list, everyone computes:

* ``mix = nonce(k_0) || ... || nonce(k_{n-1})`` for the keys in sorted order;
* seat order: the keys sorted by ``sha256(mix || key)``;
* ``session_nonce = sha256(nonce(seat 0) || ... || nonce(seat n-1))``.

Nobody can choose the seat order alone: it depends on every nonce, and each
was committed before any was revealed. Once a peer has revealed its nonce it
must never reuse it: if the formation then fails it starts again with a new
nonce (``TableFormation.aborted``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass

from gleek_p2p.errors import ProtocolError
from gleek_p2p.log import keys

from .messages import NONCE_SIZE, Hello, Reveal

__all__ = [
    "TABLE_FULL",
    "Formation",
    "TableFormation",
    "form",
    "keep_connection",
    "nonce_commitment",
]

TABLE_FULL = "table full"


def nonce_commitment(nonce: bytes) -> bytes:
    """The commitment a Hello carries for a formation nonce: ``sha256(nonce)``."""
    return hashlib.sha256(nonce).digest()


def keep_connection(local_public: bytes, remote_public: bytes, we_dialled: bool) -> bool:
    """Of two connections between the same pair, keep the one the lower key dialled.

    Both ends apply this to each of their connections to the other and reach
    the same verdict, so exactly one connection survives.
    """
    dialler = local_public if we_dialled else remote_public
    return dialler == min(local_public, remote_public)


@dataclass(frozen=True)
class Formation:
    """The agreed table: public keys and names in seat order, and the session nonce."""

    publics: tuple[bytes, ...]
    names: tuple[str, ...]
    session_nonce: bytes

    def seat_of(self, public: bytes) -> int:
        """The seat of ``public``; ProtocolError if it is not at this table."""
        try:
            return self.publics.index(public)
        except ValueError:
            raise ProtocolError("that key has no seat at this table") from None


def form(members: Mapping[bytes, tuple[str, bytes]]) -> Formation:
    """Seat the members (public key -> (name, nonce)) as every peer will.

    Pure: the same members give the same Formation, whatever order they
    arrived in.
    """
    ordered = sorted(members)
    mix = b"".join(members[p][1] for p in ordered)
    seats = sorted(ordered, key=lambda p: (hashlib.sha256(mix + p).digest(), p))
    session_nonce = hashlib.sha256(b"".join(members[p][1] for p in seats)).digest()
    return Formation(
        publics=tuple(seats),
        names=tuple(members[p][0] for p in seats),
        session_nonce=session_nonce,
    )


class TableFormation:
    """One peer's view of forming an ``seats``-seat table.

    The shell calls ``admit`` (from the handshake) for each authenticated
    peer, ``add_peer`` once it is connected, ``remove_peer`` when a connection
    is lost and ``receive_reveal`` for each Reveal. Errors are ProtocolError
    and leave the state as it was, except that losing or refusing a peer after
    our nonce is revealed aborts the formation for good.
    """

    def __init__(self, public: bytes, name: str, nonce: bytes, seats: int) -> None:
        if len(nonce) != NONCE_SIZE:
            raise ValueError(f"the formation nonce must be {NONCE_SIZE} bytes")
        if seats < 2:
            raise ValueError("a table has at least two seats")
        self.public = public
        self.name = name
        self.nonce = nonce
        self.seats = seats
        self.commitment = nonce_commitment(nonce)
        self.peers: dict[bytes, Hello] = {}
        self.reveals: dict[bytes, Reveal] = {}
        self.revealed = False
        self.formation: Formation | None = None
        self.aborted: str | None = None
        """Why the formation can no longer complete (start again with a new nonce)."""

    def _check_live(self) -> None:
        if self.aborted is not None:
            raise ProtocolError(f"the table formation was aborted: {self.aborted}")

    def admit(self, hello: Hello) -> str | None:
        """None if ``hello``'s peer may join, else the refusal reason to send.

        A peer already counted is admitted again (a duplicate connection, see
        ``keep_connection``) if its commitment is unchanged.
        """
        if self.aborted is not None:
            return f"this peer is starting over ({self.aborted})"
        known = self.peers.get(hello.public)
        if known is not None:
            if known.nonce_commit != hello.nonce_commit:
                return "you changed your nonce commitment during formation"
            return None
        if self.formation is not None or len(self.peers) >= self.seats - 1:
            return TABLE_FULL
        # A peer that already revealed a table without this key has decided.
        for reveal in self.reveals.values():
            if hello.public not in reveal.peers:
                return TABLE_FULL
        return None

    def add_peer(self, hello: Hello) -> Reveal | None:
        """Count an authenticated peer; return our Reveal (for every peer) once full.

        ProtocolError if ``admit`` would refuse it.
        """
        self._check_live()
        reason = self.admit(hello)
        if reason is not None:
            raise ProtocolError(f"cannot add {hello.name!r}: {reason}")
        if hello.public in self.peers:
            return None
        self.peers[hello.public] = hello
        if len(self.peers) < self.seats - 1:
            return None
        self.revealed = True
        reveal = Reveal(self.nonce, tuple(sorted([self.public, *self.peers])))
        self._maybe_complete()
        return reveal

    def remove_peer(self, public: bytes, reason: str = "a peer left") -> None:
        """Forget a peer whose connection is gone or who was refused.

        After our nonce is out this aborts the formation (see ``aborted``);
        after the formation is complete it changes nothing.
        """
        if self.formation is not None or public not in self.peers:
            return
        del self.peers[public]
        self.reveals.pop(public, None)
        if self.revealed and self.aborted is None:
            self.aborted = reason

    def receive_reveal(self, sender: bytes, reveal: Reveal) -> Formation | None:
        """Take a peer's Reveal; return the Formation once everyone has revealed.

        ProtocolError (state unchanged) if the sender is not a peer, reveals
        twice, reveals a nonce that does not match its commitment or a table
        other than ours.
        """
        self._check_live()
        hello = self.peers.get(sender)
        if hello is None:
            raise ProtocolError("a Reveal came from a peer that is not at this table")
        who = f"{hello.name} ({keys.fingerprint(sender)})"
        if sender in self.reveals:
            if self.reveals[sender] == reveal:
                return self.formation
            raise ProtocolError(f"{who} revealed twice, differently")
        if nonce_commitment(reveal.nonce) != hello.nonce_commit:
            raise ProtocolError(f"{who} revealed a nonce that does not match its commitment")
        listed = reveal.peers
        if list(listed) != sorted(set(listed)) or len(listed) != self.seats:
            raise ProtocolError(
                f"{who} sent a peer list that is not {self.seats} distinct sorted keys"
            )
        if self.public not in listed or sender not in listed:
            raise ProtocolError(f"{who} sent a peer list without itself or without us")
        ours = set(self.peers) | {self.public}
        if len(ours) == self.seats and set(listed) != ours:
            raise ProtocolError(f"{who} formed a different table: {_describe(listed, ours)}")
        if not ours <= set(listed):
            raise ProtocolError(f"{who} formed a different table: {_describe(listed, ours)}")
        self.reveals[sender] = reveal
        return self._maybe_complete()

    def _maybe_complete(self) -> Formation | None:
        if self.formation is not None:
            return self.formation
        if not self.revealed or len(self.reveals) != self.seats - 1:
            return None
        members = {p: (h.name, self.reveals[p].nonce) for p, h in self.peers.items()}
        members[self.public] = (self.name, self.nonce)
        self.formation = form(members)
        return self.formation


def _describe(listed: tuple[bytes, ...], ours: set[bytes]) -> str:
    extra = sorted(set(listed) - ours)
    missing = sorted(ours - set(listed))
    parts = []
    if extra:
        parts.append("it lists " + ", ".join(keys.fingerprint(p) for p in extra))
    if missing:
        parts.append("it lacks " + ", ".join(keys.fingerprint(p) for p in missing))
    return "; ".join(parts) or "the lists differ"
