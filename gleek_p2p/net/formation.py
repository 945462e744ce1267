"""Sans-IO table formation: n peers agree on one roster and seat order.

Formation runs in numbered attempts. For attempt ``a`` each peer draws a
32-byte nonce and puts ``nonce_commitment(nonce, a)`` and ``a`` in every
Hello. Once it has ``n - 1`` authenticated peers it sends each of them
``Reveal(nonce, peers, a)`` where ``peers`` is the sorted list of all ``n``
public keys of the table (its own included). When every peer has revealed a
nonce matching its commitment and the very same list, everyone computes:

* ``mix = nonce(k_0) || ... || nonce(k_{n-1})`` for the keys in sorted order;
* seat order: the keys sorted by ``sha256(mix || key)``;
* ``session_nonce = sha256(nonce(seat 0) || ... || nonce(seat n-1))``.

Nobody can choose the seat order alone: it depends on every nonce, and each
was committed before any was revealed. Once a peer has revealed its nonce it
must never reuse it with anyone else, so a revealed attempt is never given
up because a link dropped (the peer is waited for, and the reveals are sent
again on the new connection): giving up while another peer completes would
seat the two in different sessions. An attempt is left only for a higher
one, which every peer then follows (``start_over_for``): when a peer shows
a higher attempt, or when a peer of our revealed table comes back with a new
commitment for the same attempt (its process restarted). A Reveal of
another attempt is stale and ignored. None of this accuses anyone.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Mapping
from dataclasses import dataclass

from gleek_p2p.base.errors import ProtocolError
from gleek_p2p.log import keys

from .messages import NONCE_SIZE, Hello, Reveal

__all__ = [
    "COMMIT_DOMAIN",
    "TABLE_FULL",
    "Formation",
    "StartOver",
    "TableFormation",
    "form",
    "keep_connection",
    "nonce_commitment",
]

TABLE_FULL = "table full"
COMMIT_DOMAIN = b"gleek-p2p/formation/v2\x00"


class StartOver(ProtocolError):
    """This attempt can no longer complete for anyone with us: move to ``attempt``."""

    def __init__(self, message: str, attempt: int) -> None:
        super().__init__(message)
        self.attempt = attempt


def nonce_commitment(nonce: bytes, attempt: int = 0) -> bytes:
    """The commitment a Hello carries: ``sha256(DOMAIN || u32(attempt) || nonce)``.

    Binding the attempt means a nonce can only ever open the commitment of
    the attempt it was drawn for.
    """
    return hashlib.sha256(COMMIT_DOMAIN + struct.pack(">I", attempt) + nonce).digest()


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

    def __init__(
        self, public: bytes, name: str, nonce: bytes, seats: int, attempt: int = 0
    ) -> None:
        if len(nonce) != NONCE_SIZE:
            raise ValueError(f"the formation nonce must be {NONCE_SIZE} bytes")
        if seats < 2:
            raise ValueError("a table has at least two seats")
        self.public = public
        self.name = name
        self.nonce = nonce
        self.seats = seats
        self.attempt = attempt
        self.commitment = nonce_commitment(nonce, attempt)
        self.peers: dict[bytes, Hello] = {}
        self.reveals: dict[bytes, Reveal] = {}
        self.revealed = False
        self.formation: Formation | None = None

    def start_over_for(self, hello: Hello) -> int | None:
        """The attempt to start over at because of ``hello``, or None.

        A higher attempt is followed; a peer of our revealed table that comes
        back with a new commitment for this attempt restarted, and since our
        nonce is out everyone moves to the next attempt. A formed table never
        starts over.
        """
        if self.formation is not None:
            return None
        if hello.attempt > self.attempt:
            return hello.attempt
        known = self.peers.get(hello.public)
        if (self.revealed and hello.attempt == self.attempt and known is not None
                and known.nonce_commit != hello.nonce_commit):
            return self.attempt + 1
        return None

    def admit(self, hello: Hello) -> str | None:
        """None if ``hello``'s peer may join, else the refusal reason to send.

        A peer already counted is admitted again (a duplicate connection, see
        ``keep_connection``) if its commitment is unchanged, or with a new one
        while our nonce is still secret (it restarted: its old Hello is
        replaced). A peer on another attempt is refused without blame: a
        lower one will follow ours on seeing our Hello, a higher one we follow.
        """
        ahead = self.start_over_for(hello)
        if ahead is not None:
            return f"starting the table over at attempt {ahead}"
        if hello.attempt != self.attempt and self.formation is None:
            return f"this table is at formation attempt {self.attempt}, you at {hello.attempt}"
        known = self.peers.get(hello.public)
        if known is not None:
            if known.nonce_commit != hello.nonce_commit and self.formation is not None:
                return TABLE_FULL
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
        reason = self.admit(hello)
        if reason is not None:
            raise ProtocolError(f"cannot add {hello.name!r}: {reason}")
        if hello.public in self.peers:
            # Admitted again: the same commitment, or a new one before our reveal
            # (the peer restarted; what it revealed before is void).
            old = self.peers[hello.public]
            self.peers[hello.public] = hello
            if old.nonce_commit != hello.nonce_commit:
                self.reveals.pop(hello.public, None)
            return None
        self.peers[hello.public] = hello
        if len(self.peers) < self.seats - 1:
            return None
        self.revealed = True
        reveal = Reveal(self.nonce, tuple(sorted([self.public, *self.peers])), self.attempt)
        self._maybe_complete()
        return reveal

    def remove_peer(self, public: bytes) -> None:
        """Forget a peer whose connection is gone, while our nonce is secret.

        After our reveal the peer stays counted: it is waited for, and the
        reveals go out again when it is back (see the module docstring).
        """
        if self.formation is not None or self.revealed or public not in self.peers:
            return
        del self.peers[public]
        self.reveals.pop(public, None)

    def receive_reveal(
        self, sender: bytes, reveal: Reveal, hello: Hello | None = None
    ) -> Formation | None:
        """Take a peer's Reveal; return the Formation once everyone has revealed.

        ``hello`` is the Hello of the connection the Reveal came on (if the
        shell knows it). A Reveal of another attempt, or from a connection
        whose commitment is no longer the one counted, is stale: ignored
        (None). ProtocolError (state unchanged) if the sender is not a peer,
        reveals twice, reveals a nonce that does not open its commitment or a
        table other than ours.
        """
        known = self.peers.get(sender)
        if known is None:
            raise ProtocolError("a Reveal came from a peer that is not at this table")
        if reveal.attempt != self.attempt or (
            hello is not None and hello.nonce_commit != known.nonce_commit
        ):
            return self.formation
        who = f"{known.name} ({keys.fingerprint(sender)})"
        if sender in self.reveals:
            if self.reveals[sender] == reveal:
                return self.formation
            raise ProtocolError(f"{who} revealed twice, differently")
        if nonce_commitment(reveal.nonce, reveal.attempt) != known.nonce_commit:
            raise ProtocolError(f"{who} revealed a nonce that does not open its commitment")
        listed = reveal.peers
        if list(listed) != sorted(set(listed)) or len(listed) != self.seats:
            raise ProtocolError(
                f"{who} sent a peer list that is not {self.seats} distinct sorted keys"
            )
        if self.public not in listed or sender not in listed:
            raise ProtocolError(f"{who} sent a peer list without itself or without us")
        ours = set(self.peers) | {self.public}
        if (len(ours) == self.seats and set(listed) != ours) or not ours <= set(listed):
            why = f"{who} formed a different table: {_describe(listed, ours)}"
            if self.revealed:
                # We both revealed, different tables that hold us both: nobody
                # seated with either of us can complete this attempt.
                raise StartOver(why, self.attempt + 1)
            raise ProtocolError(why)
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
