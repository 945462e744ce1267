"""Sans-IO table formation: n peers agree on one roster and seat order.

Each peer forms in numbered attempts of its own. For its attempt ``a`` a
peer draws a 32-byte nonce and puts ``nonce_commitment(nonce, a)`` and ``a``
in every Hello. Once it has ``n - 1`` authenticated peers it sends each of
them a signed ``Reveal``: its nonce, and the whole table as it saw it: the
sorted keys and, for every other peer, the Hello that peer sent it with that
peer's handshake Proof (the peer's own signature over both Hellos, so anyone
can check what that peer said). When every peer has revealed a nonce that
opens its commitment and a table that is exactly ours (same keys, and every
peer's name, commitment and attempt as we saw them), everyone computes:

* ``mix = nonce(k_0) || ... || nonce(k_{n-1})`` for the keys in sorted order;
* seat order: the keys sorted by ``sha256(mix || key)``;
* ``session_nonce = sha256(nonce(seat 0) || ... || nonce(seat n-1))``.

Nobody can choose the seat order alone: it depends on every nonce, and each
was committed before any was revealed. Since every Reveal must describe
exactly our table, two honest peers that complete have the same names,
keys and nonces: the same session. A peer that told two of us different
things (another name, another commitment, for one attempt) is caught by the
honest peers' Reveals, each carrying what it signed to one of them: two
Hellos it signed for one attempt that differ are proof (``Equivocation``),
and the table starts over without it (``Caught``).

Attempts belong to each peer (a fresh process draws its first at random, so
two runs of one key never sign one attempt twice) and only the peer itself
moves its own, by one, never past ``MAX_ATTEMPT``: nothing another peer says
makes us jump. A peer moves on (``StartOver``) only when its revealed nonce
can no longer complete: a peer of its revealed table comes back with a new
commitment (it restarted), reveals a different table, is caught, or has
not revealed within a deadline after all the others (the shell's clock,
``laggard``). A revealed nonce is never used again. Once revealed, a peer
whose link dropped is waited for and the Reveals sent again. A Reveal of an
attempt other than the one its sender's Hello names is stale and ignored;
so is a Reveal that names an older Hello of ours or another peer's.
"""

from __future__ import annotations

import contextlib
import enum
import hashlib
import struct
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from gleek_p2p.base.errors import ProtocolError
from gleek_p2p.log import keys

from .handshake import transcript, transcript_hash
from .messages import MAX_ATTEMPT, NONCE_SIZE, Hello, Reveal, decode_message, encode_message

__all__ = [
    "COMMIT_DOMAIN",
    "MAX_ATTEMPT",
    "TABLE_FULL",
    "Caught",
    "Equivocation",
    "Evidence",
    "Formation",
    "FormationError",
    "FormationFault",
    "KeptOut",
    "StartOver",
    "TableFormation",
    "form",
    "keep_connection",
    "nonce_commitment",
    "said",
]

TABLE_FULL = "table full"
COMMIT_DOMAIN = b"gleek-p2p/formation/v2\x00"


class FormationFault(enum.Enum):
    """What went wrong in a formation, as a code the shell words (the message is English,
    for the logs)."""

    NOT_ADMITTED = "not-admitted"
    """A peer ``admit`` refuses (the table is full) was offered to ``add_peer``."""
    BAD_SIGNATURE = "bad-signature"
    """A Reveal whose signature does not verify."""
    BAD_NONCE = "bad-nonce"
    """A revealed nonce that does not open its sender's commitment."""
    BAD_PEER_LIST = "bad-peer-list"
    """A Reveal's keys are not the table's number of distinct sorted keys."""
    NOT_LISTED = "not-listed"
    """A Reveal's keys lack its sender or us."""
    DIFFERENT_TABLE = "different-table"
    """A peer formed another table than ours."""
    NO_HELLOS = "no-hellos"
    """A Reveal without the Hellos its sender saw."""
    BAD_EVIDENCE = "bad-evidence"
    """A Reveal whose evidence (a Hello's Proof) does not verify."""
    NEW_COMMITMENT = "new-commitment"
    """A peer of our revealed table came back with a new commitment (it restarted)."""
    EQUIVOCATED = "equivocated"
    """A peer told two of us different things (``Caught``)."""
    NO_ATTEMPT_LEFT = "no-attempt-left"
    """A start-over was due, but no formation attempt is left (``cause`` says why)."""


class FormationError(ProtocolError):
    """A formation step refused, with what a screen words: ``fault`` and ``peer``.

    ``peer`` is the Hello of the peer at fault, when one is; for
    ``NO_ATTEMPT_LEFT``, ``cause`` is the fault that called for the start-over
    (None when the caller gave its own ``why``, kept in ``why``).
    """

    def __init__(self, message: str, fault: FormationFault, peer: Hello | None = None, *,
                 cause: FormationFault | None = None, why: str = "") -> None:
        super().__init__(message)
        self.fault = fault
        self.peer = peer
        self.cause = cause
        self.why = why


class StartOver(ProtocolError):
    """This attempt can no longer complete for anyone with us: move to ``attempt``.

    ``fault`` and ``peer`` say why for a screen when formation decided it;
    None when the caller of ``next_attempt`` gave its own words (``message``).
    """

    def __init__(self, message: str, attempt: int, fault: FormationFault | None = None,
                 peer: Hello | None = None) -> None:
        super().__init__(message)
        self.attempt = attempt
        self.fault = fault
        self.peer = peer


@dataclass(frozen=True)
class Evidence:
    """What a peer told us, and its signature over it.

    ``peer`` is the Hello it sent us, ``own`` the Hello we sent it on that
    connection, ``proof`` its handshake Proof: an Ed25519 signature over the
    handshake hash of the two Hellos, which anyone can recompute.
    """

    peer: Hello
    own: Hello
    proof: bytes

    def verifies(self) -> bool:
        """True if ``proof`` is the peer's signature over these two Hellos."""
        return keys.verify(self.peer.public, transcript(transcript_hash(self.peer, self.own)),
                           self.proof)


def said(hello: Hello) -> tuple[str, bytes, int]:
    """What formation takes from a Hello: the name, the commitment and its attempt."""
    return (hello.name, hello.nonce_commit, hello.attempt)


@dataclass(frozen=True)
class Equivocation:
    """Two Hellos one key signed for one formation attempt that say different things.

    An honest peer signs one name and one commitment per attempt, so anyone
    can check this proof without trusting whoever holds it.
    """

    public: bytes
    first: Evidence
    second: Evidence

    def holds(self) -> bool:
        """True if both are signed by ``public``, for one attempt, and differ."""
        a, b = self.first.peer, self.second.peer
        return (a.public == b.public == self.public and a.attempt == b.attempt
                and said(a) != said(b) and self.first.verifies() and self.second.verifies())


class Caught(StartOver):
    """A peer told two peers of this table different things: start over without it."""

    def __init__(self, message: str, attempt: int, public: bytes, proof: Equivocation,
                 detail: str = "") -> None:
        super().__init__(message, attempt, FormationFault.EQUIVOCATED, proof.first.peer)
        self.public = public
        self.proof = proof
        self.detail = detail
        """What differs, for people: e.g. "the name 'mal-a' and 'mal-b'"."""


class KeptOut:
    """Keys dropped from this table's formation, refused until their time is up.

    Bounded: past ``limit`` keys the one that expires first goes.
    """

    def __init__(self, seconds: float, limit: int = 64) -> None:
        self.seconds = seconds
        self.limit = limit
        self._until: dict[bytes, float] = {}

    def add(self, public: bytes, now: float) -> None:
        """Keep ``public`` out until ``now + seconds``."""
        self._until[public] = now + self.seconds
        while len(self._until) > self.limit:
            del self._until[min(self._until, key=self._until.__getitem__)]

    def holds(self, public: bytes, now: float) -> bool:
        """True while ``public`` is kept out."""
        until = self._until.get(public)
        if until is not None and until <= now:
            del self._until[public]
            return False
        return until is not None

    def __len__(self) -> int:
        return len(self._until)


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
            raise ProtocolError("that key has no seat at this table") from None  # a caller's bug


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


_STALE = "stale"


class TableFormation:
    """One peer's view of forming an ``seats``-seat table.

    The shell calls ``admit`` (pure: it may be asked on a Hello not yet
    authenticated) for each peer, ``add_peer`` once its handshake is done,
    ``remove_peer`` when a connection is lost, ``settle`` after our Reveal
    went out, and ``receive_reveal`` for each Reveal. Errors are
    ProtocolError and leave the state as it was; ``StartOver`` (and
    ``Caught``) say this attempt is over.
    """

    def __init__(
        self, public: bytes, name: str, nonce: bytes, seats: int, attempt: int = 0,
        sign: Callable[[bytes], bytes] | None = None,
        spent: frozenset[tuple[bytes, bytes]] = frozenset(),
    ) -> None:
        if len(nonce) != NONCE_SIZE:
            raise ValueError(f"the formation nonce must be {NONCE_SIZE} bytes")
        if seats < 2:
            raise ValueError("a table has at least two seats")
        if not 0 <= attempt <= MAX_ATTEMPT:
            raise ValueError(f"a formation attempt is 0 to {MAX_ATTEMPT}")
        self.public = public
        self.name = name
        self.nonce = nonce
        self.seats = seats
        self.attempt = attempt
        self.sign = sign
        self.spent = spent
        """(key, commitment) of peers whose nonce went out in an attempt we left:
        they are moving on too, so such a Hello is not counted (``add_peer``)."""
        self.commitment = nonce_commitment(nonce, attempt)
        self.peers: dict[bytes, Hello] = {}
        self.evidence: dict[bytes, Evidence] = {}
        self.reveals: dict[bytes, Reveal] = {}
        """Reveals taken, by sender; checked against our table once we revealed."""
        self.checked: set[bytes] = set()
        self.revealed = False
        self.formation: Formation | None = None

    def spent_now(self) -> frozenset[tuple[bytes, bytes]]:
        """What the next attempt must not count: peers whose Reveal we hold, and ``spent``."""
        now = {(p, h.nonce_commit) for p, h in self.peers.items() if p in self.reveals}
        # Two attempts back is enough: by then every such peer has moved on.
        return frozenset(now | {e for e in self.spent if e[0] not in self.peers})

    def next_attempt(self, why: str, fault: FormationFault | None = None,
                     peer: Hello | None = None) -> StartOver:
        """The StartOver to our next attempt (``FormationError`` if none is left).

        ``fault`` and ``peer`` say why, for a screen; without them ``why`` is
        the caller's own words.
        """
        if self.attempt >= MAX_ATTEMPT:
            raise FormationError(f"{why}, and no formation attempt is left",
                                 FormationFault.NO_ATTEMPT_LEFT, peer, cause=fault, why=why)
        return StartOver(why, self.attempt + 1, fault, peer)

    def admit(self, hello: Hello) -> str | None:
        """None if ``hello``'s peer may join, else the refusal reason to send.

        Pure: it changes nothing, so an unauthenticated Hello can do no more
        than be refused. A peer already counted is admitted again (a
        duplicate or replacement connection); ``add_peer`` then decides.
        """
        known = self.peers.get(hello.public)
        if self.formation is not None:
            return None if known is not None and said(known) == said(hello) else TABLE_FULL
        if known is not None:
            return None
        if len(self.peers) >= self.seats - 1:
            return TABLE_FULL
        # A peer that already revealed a table without this key has decided.
        for reveal in self.reveals.values():
            if hello.public not in reveal.peers:
                return TABLE_FULL
        return None

    def add_peer(self, hello: Hello, evidence: Evidence | None = None) -> Reveal | None:
        """Count an authenticated peer; return our Reveal (for every peer) once full.

        ``evidence`` is its handshake (what goes into our Reveal). A peer that
        comes back with a new commitment replaces its old Hello while our
        nonce is secret; after our reveal it moves us on (``StartOver``).
        ProtocolError if ``admit`` would refuse it.
        """
        reason = self.admit(hello)
        if reason is not None:
            raise FormationError(f"cannot add {hello.name!r}: {reason}",
                                 FormationFault.NOT_ADMITTED, hello)
        if (hello.public, hello.nonce_commit) in self.spent:
            # Not counted, but the link stays: on our new Hello it moves on
            # and comes back with a new one.
            return None
        old = self.peers.get(hello.public)
        if old is not None and said(old) != said(hello):
            if self.revealed:
                raise self.next_attempt(f"{_who(hello)} came back with a new commitment",
                                        FormationFault.NEW_COMMITMENT, hello)
            # It restarted before our reveal: what it revealed before is void.
            self.reveals.pop(hello.public, None)
        self.peers[hello.public] = hello
        if evidence is not None:
            self.evidence[hello.public] = evidence
        if old is not None or len(self.peers) < self.seats - 1:
            return None
        self.revealed = True
        return self._reveal()

    def _reveal(self) -> Reveal:
        everyone = tuple(sorted([self.public, *self.peers]))
        hellos, mine, proofs = [], [], []
        for public in everyone:
            ev = self.evidence.get(public)
            hellos.append(b"" if ev is None else encode_message(ev.peer))
            mine.append(b"" if ev is None else encode_message(ev.own))
            proofs.append(b"" if ev is None else ev.proof)
        unsigned = Reveal(self.public, self.nonce, self.attempt, everyone, tuple(hellos),
                          tuple(mine), tuple(proofs), bytes(64))
        signature = self.sign(unsigned.signed_bytes()) if self.sign is not None else bytes(64)
        return Reveal(self.public, self.nonce, self.attempt, everyone, tuple(hellos),
                      tuple(mine), tuple(proofs), signature)

    def remove_peer(self, public: bytes) -> None:
        """Forget a peer whose connection is gone, while our nonce is secret.

        After our reveal the peer stays counted: it is waited for, and the
        reveals go out again when it is back (see the module docstring).
        """
        if self.formation is not None or self.revealed or public not in self.peers:
            return
        del self.peers[public]
        self.evidence.pop(public, None)
        self.reveals.pop(public, None)
        self.checked.discard(public)

    def receive_reveal(
        self, via: bytes, reveal: Reveal, hello: Hello | None = None
    ) -> Formation | None:
        """Take a Reveal (from its sender, or relayed by ``via``); the Formation once complete.

        ``hello`` is the Hello of the connection it came on. A stale Reveal
        (from a key we do not count, of another attempt or commitment than
        the one counted for its sender, or naming an older Hello) is ignored. ProtocolError (state
        unchanged) if its signature or evidence
        does not verify, its nonce does not open its commitment, or it is not
        our table; ``Caught`` if it proves a peer of ours equivocated;
        ``StartOver`` if we both revealed different tables.
        """
        sender = reveal.sender
        known = self.peers.get(sender)
        if known is None:
            # Of an attempt one of us left, or relayed about a peer we do not
            # count (yet): nothing to take, nobody to name.
            return self.formation
        if reveal.attempt != known.attempt or (
            via == sender and hello is not None and said(hello) != said(known)
        ):
            return self.formation
        if self.formation is not None or sender in self.reveals:
            # A second Reveal of one sender and attempt opens the same
            # commitment: whatever else it says, the first one stands.
            return self.formation
        who = _who(known)
        if not keys.verify(sender, reveal.signed_bytes(), reveal.signature):
            raise FormationError(f"a Reveal of {who} whose signature does not verify",
                                 FormationFault.BAD_SIGNATURE, known)
        if nonce_commitment(reveal.nonce, reveal.attempt) != known.nonce_commit:
            raise FormationError(f"{who} revealed a nonce that does not open its commitment",
                                 FormationFault.BAD_NONCE, known)
        listed = reveal.peers
        if list(listed) != sorted(set(listed)) or len(listed) != self.seats:
            raise FormationError(
                f"{who} sent a peer list that is not {self.seats} distinct sorted keys",
                FormationFault.BAD_PEER_LIST, known)
        if self.public not in listed or sender not in listed:
            raise FormationError(f"{who} sent a peer list without itself or without us",
                                 FormationFault.NOT_LISTED, known)
        ours = set(self.peers) | {self.public}
        if not self.revealed and not ours <= set(listed):
            raise FormationError(f"{who} formed a different table: {_describe(listed, ours)}",
                                 FormationFault.DIFFERENT_TABLE, known)
        if self.revealed and self._check(reveal) is _STALE:
            return self.formation
        self.reveals[sender] = reveal
        if self.revealed:
            self.checked.add(sender)
        return self._maybe_complete()

    def settle(self) -> Formation | None:
        """Once our Reveal is out: check the Reveals taken before it; the Formation if complete.

        A Reveal that no longer fits is dropped (its sender will send a new
        one if it moves on); ``Caught``/``StartOver`` as ``receive_reveal``.
        """
        for sender, reveal in list(self.reveals.items()):
            if sender in self.checked:
                continue
            try:
                fits = self._check(reveal) is not _STALE
            except StartOver:
                raise
            except ProtocolError:
                fits = False
            if fits:
                self.checked.add(sender)
            else:
                del self.reveals[sender]
        return self._maybe_complete()

    def _check(self, reveal: Reveal) -> str | None:
        """Check a Reveal's table against ours, entry by entry (we have revealed)."""
        listed = set(reveal.peers)
        ours = set(self.peers) | {self.public}
        sender = self.peers[reveal.sender]
        who = _who(sender)
        if listed != ours:
            # We both revealed, different tables that hold us both: nobody
            # seated with either of us can complete this attempt.
            why = f"{who} formed a different table: {_describe(reveal.peers, ours)}"
            raise self.next_attempt(why, FormationFault.DIFFERENT_TABLE, sender)
        for i, public in enumerate(reveal.peers):
            if public == reveal.sender:
                continue
            seen: object = None
            own: object = None
            with contextlib.suppress(ProtocolError):
                seen, own = decode_message(reveal.hellos[i]), decode_message(reveal.mine[i])
            if not (isinstance(seen, Hello) and isinstance(own, Hello) and seen.public == public
                    and own.public == reveal.sender):
                raise FormationError(f"{who} sent a Reveal without the Hellos it saw",
                                     FormationFault.NO_HELLOS, sender)
            evidence = Evidence(seen, own, reveal.proofs[i])
            if not evidence.verifies():
                raise FormationError(f"{who} sent a Reveal whose evidence does not verify",
                                     FormationFault.BAD_EVIDENCE, sender)
            if public == self.public:
                if said(seen) != (self.name, self.commitment, self.attempt):
                    return _STALE  # it names an older Hello of ours
                continue
            ours_of = self.evidence.get(public)
            mine = self.peers[public]
            if said(seen) == said(mine):
                continue
            if seen.attempt != mine.attempt or ours_of is None:
                return _STALE  # one of us has an older Hello of that peer
            proof = Equivocation(public, ours_of, evidence)
            detail = _difference(mine, seen)
            raise Caught(f"{_who(mine)} told {who} and us different things for attempt "
                         f"{seen.attempt}: {detail}",
                         self.next_attempt("a peer equivocated", FormationFault.EQUIVOCATED,
                                           mine).attempt, public, proof, detail)
        return None

    def laggard(self) -> bytes | None:
        """The one peer whose Reveal is still missing once we and all the others revealed."""
        if self.formation is not None or not self.revealed:
            return None
        missing = [p for p in self.peers if p not in self.checked]
        return missing[0] if len(missing) == 1 else None

    def _maybe_complete(self) -> Formation | None:
        if self.formation is not None:
            return self.formation
        if not self.revealed or len(self.checked) != self.seats - 1:
            return None
        members = {p: (h.name, self.reveals[p].nonce) for p, h in self.peers.items()}
        members[self.public] = (self.name, self.nonce)
        self.formation = form(members)
        return self.formation


def _who(hello: Hello) -> str:
    return f"{hello.name} ({keys.fingerprint(hello.public)})"


def _difference(a: Hello, b: Hello) -> str:
    if a.name != b.name:
        return f"the name {a.name!r} and {b.name!r}"
    return "two nonce commitments"


def _describe(listed: tuple[bytes, ...], ours: set[bytes]) -> str:
    extra = sorted(set(listed) - ours)
    missing = sorted(ours - set(listed))
    parts = []
    if extra:
        parts.append("it lists " + ", ".join(keys.fingerprint(p) for p in extra))
    if missing:
        parts.append("it lacks " + ", ".join(keys.fingerprint(p) for p in missing))
    return "; ".join(parts) or "the lists differ"
