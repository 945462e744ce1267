"""Sans-IO mutual authentication of two peers and the keys of their channel.

Both sides send ``Hello`` at once; its ``challenge`` field is the sender's
fresh X25519 ephemeral public key for this connection. On the other's Hello
each side checks that it is for the same table (version, name, variant,
seats), that its key is a safe Ed25519 key and not our own, then runs the
Noise ``NN`` key agreement (channel.py): the Hellos, the lower identity key's
first, are mixed into the handshake hash ``h`` and ``DH(e, e')`` into the
chaining key. It then sends ``Proof``: an Ed25519 signature over
``DOMAIN || h``. ``h`` binds both identity keys, both ephemeral keys and the
table offer, so a valid Proof says "the holder of this identity key is the
one who holds the other end of this very key agreement": a relay in the
middle that swaps ephemerals makes the two sides' ``h`` differ and cannot
re-sign, and one that passes them through cannot compute the keys. Once the
peer's Proof verifies, ``channel`` holds the per-direction transport ciphers
and everything after is encrypted. A failed check produces
``Refuse(reason)`` to send and leaves the handshake failed with ``error`` set.
Once the peer's Hello is in, that Refuse is signed over ``h`` (another
domain than the Proof's): a received refusal whose signature verifies under
the key of the Hello we got is ``refusal_proven``, and only such a refusal
says who refused us; a plain one is anyone's word (wire.md §3.2).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from gleek_p2p.base.errors import ProtocolError
from gleek_p2p.log import canonical, keys

from .channel import PROLOGUE, Channel, CipherState, SymmetricState, ephemeral_public, x25519
from .messages import Hello, Message, Proof, Refuse, RefuseCode

__all__ = [
    "HANDSHAKE_DOMAIN",
    "WIRE_VERSION",
    "Handshake",
    "Offer",
    "RefuseWhy",
    "Signer",
    "State",
    "handshake_hash",
    "transcript",
    "transcript_hash",
]

HANDSHAKE_DOMAIN = b"gleek-p2p/handshake/v2\x00"

WIRE_VERSION = 3
"""The version of what peers say to each other, sent as ``Hello.version`` (and as
the ``v`` of a discovery record): two peers of different versions never form a
table, nor does a watcher watch one (wire.md §3, "The version").

Not the log's ``envelope.PROTOCOL_VERSION``: that one is signed into every
event, so it moves only when a log reader must tell an event apart, while this
one is raised whenever a peer of the previous release could misread anything a
peer of this one sends or signs at a table (a message, a code, an event body).
Version 1 was every release up to the coded abort and new Bye and Refuse codes,
which an older peer took as a malformed abort and blamed on an honest signer.
Version 2 was every release from those up to deck protocol version 4; version 3
starts with it (its commit names 4 and its ``keys`` carry proved strips, which a
version 2 peer refuses as ``deck.wrong-version`` and blames on the honest signer;
its logs are of log version 2).
There is no fallback: a peer never speaks an older version, so claiming one gains
nothing but a refusal."""


class Signer(Protocol):
    """What the handshake needs of an identity (``gleek_p2p.log.keys.Identity``)."""

    @property
    def public(self) -> bytes: ...

    def sign(self, data: bytes) -> bytes: ...


@dataclass(frozen=True)
class Offer:
    """The table this peer wants to sit at, and how it presents itself."""

    version: int
    table: str
    variant: tuple[int, ...]
    seats: int
    name: str
    listen_port: int = 0
    watcher: bool = False
    """Come to watch the table, not to sit at it (``Hello.watcher``)."""

    def hello(
        self, public: bytes, nonce_commit: bytes, challenge: bytes, attempt: int = 0
    ) -> Hello:
        """The Hello for this offer (ProtocolError if a field is out of bounds).

        ``challenge`` is the connection's X25519 ephemeral public key;
        ``attempt`` the formation attempt ``nonce_commit`` belongs to.
        """
        return Hello(
            self.version,
            self.table,
            tuple(self.variant),
            self.seats,
            public,
            self.name,
            nonce_commit,
            self.listen_port,
            challenge,
            attempt,
            self.watcher,
        )


def _ordered(a: Hello, b: Hello) -> tuple[Hello, Hello]:
    """The Hellos in Noise order: the lower identity key plays the initiator.

    Both sides send at once, so who dialled says nothing about who spoke
    first; the key order is one both ends agree on without a message.
    """
    return (a, b) if a.public < b.public else (b, a)


def _hashed(a: Hello, b: Hello) -> SymmetricState:
    state = SymmetricState()
    state.mix_hash(PROLOGUE)
    for hello in _ordered(a, b):
        state.mix_hash(canonical.encode(hello.to_wire()))
    return state


def handshake_hash(a: Hello, b: Hello, shared: bytes) -> tuple[bytes, bytes, bytes]:
    """``(h, k_initiator, k_responder)`` for two Hellos and their ``DH(e, e')``."""
    state = _hashed(a, b)
    state.mix_key(shared)
    k1, k2 = state.split()
    return state.h, k1, k2


def transcript_hash(a: Hello, b: Hello) -> bytes:
    """The handshake hash ``h`` of two Hellos: MixKey leaves ``h`` alone, so it
    depends on the Hellos only and anyone holding both can recompute it.

    That makes a peer's Proof a signature anyone can check over its Hello
    (and the other's): the formation's evidence of what a peer said.
    """
    return _hashed(a, b).h


def transcript(h: bytes) -> bytes:
    """The bytes each side signs over the handshake hash ``h``."""
    return HANDSHAKE_DOMAIN + h


class RefuseWhy(enum.Enum):
    """Why this side refused the peer: what the shell words (the Refuse's sentence is English,
    for the peer and the logs)."""

    NOT_HELLO = "not-hello"
    """The peer's first message was not a Hello."""
    VERSION = "version"
    """Another protocol version."""
    TABLE = "table"
    """Another table name."""
    VARIANT = "variant"
    """Another variant."""
    SEATS = "seats"
    """Another number of seats."""
    UNSAFE_KEY = "unsafe-key"
    """An identity key that is not a safe Ed25519 key."""
    OURSELVES = "ourselves"
    """A connection to ourselves (our own key)."""
    BAD_KEY_AGREEMENT = "bad-key-agreement"
    """An ephemeral key the key agreement cannot use."""
    NOT_PROOF = "not-proof"
    """A message other than the Proof after the Hellos."""
    BAD_PROOF = "bad-proof"
    """A Proof of identity that does not verify."""
    TABLE_FULL = "table-full"
    """Not admitted: every seat is taken (``RefuseCode.TABLE_FULL``)."""
    NO_WATCHERS = "no-watchers"
    """Not admitted as a watcher (``RefuseCode.NO_WATCHERS``)."""
    NOT_ADMITTED = "not-admitted"
    """Not admitted, for a reason of the program's own (``admit``'s sentence)."""


class State(enum.Enum):
    """Where the handshake stands."""

    AWAIT_HELLO = "await hello"
    AWAIT_PROOF = "await proof"
    DONE = "done"
    FAILED = "failed"


def _variant_text(variant: Sequence[int]) -> str:
    return "[" + ", ".join(str(v) for v in variant) + "]"


class Handshake:
    """One side of the handshake; feed it messages, send what it returns.

    ``admit`` says whether to take this peer (None) or not: a refusal reason,
    or a ``Refuse`` when the refusal carries a code (``RefuseCode``). It is
    asked on the peer's Hello, before our proof is sent, and again once the
    peer's proof verifies; it must be pure.
    """

    def __init__(
        self,
        identity: Signer,
        offer: Offer,
        nonce_commit: bytes,
        ephemeral: bytes,
        admit: Callable[[Hello], str | Refuse | None] | None = None,
        attempt: int = 0,
    ) -> None:
        """``ephemeral`` is this connection's fresh 32-byte X25519 private key."""
        self.identity = identity
        self.offer = offer
        self._ephemeral = ephemeral
        self.hello = offer.hello(
            identity.public, nonce_commit, ephemeral_public(ephemeral), attempt
        )
        self.admit = admit
        self.state = State.AWAIT_HELLO
        self.peer: Hello | None = None
        """The peer's Hello; authenticated only once ``state`` is DONE."""
        self.error: str | None = None
        """Why the handshake failed (for the user), once ``state`` is FAILED."""
        self.refused_by_peer = False
        self.refusal: Refuse | None = None
        """The Refuse that ended the handshake, sent or received (``refused_by_peer``)."""
        self.refused_for: RefuseWhy | None = None
        """Why we refused the peer, when we did (a code to word; ``error`` is English)."""
        self.refusal_proven = False
        """True if the peer's Refuse is signed over this handshake by the key of its
        Hello: then ``peer`` is who refused us (else anyone may have sent it)."""
        self.h: bytes | None = None
        """The handshake hash, once the peer's Hello is in."""
        self.channel: Channel | None = None
        """The transport ciphers, once the peer's Proof verifies: every later
        message (a Refuse from a second ``admit`` included) goes through it."""
        self._keys: tuple[bytes, bytes] | None = None
        self.peer_proof: bytes | None = None
        """The peer's verified Proof signature: with both Hellos, evidence of what it said."""

    @property
    def done(self) -> bool:
        """True once both sides are authenticated."""
        return self.state is State.DONE

    @property
    def failed(self) -> bool:
        """True once the handshake has failed (see ``error``)."""
        return self.state is State.FAILED

    def initial(self) -> list[Message]:
        """The messages to send first: our Hello."""
        return [self.hello]

    def receive(self, msg: Message) -> list[Message]:
        """Take one message from the peer; return the messages to send back.

        Raises ProtocolError if called after the handshake ended.
        """
        if self.state in (State.DONE, State.FAILED):
            raise ProtocolError(f"the handshake is over ({self.state.value})")
        if isinstance(msg, Refuse):
            self.state = State.FAILED
            self.refused_by_peer = True
            self.refusal = msg
            # Only a refusal signed over this handshake by the key of the
            # Hello we hold says who refused: anyone can send a plain one.
            self.refusal_proven = self.peer is not None and msg.signed and keys.verify(
                self.peer.public, msg.signed_bytes(transcript_hash(self.hello, self.peer)),
                msg.signature)
            self.error = f"the peer refused the connection: {msg.reason}"
            return []
        if self.state is State.AWAIT_HELLO:
            if not isinstance(msg, Hello):
                return self._refuse(f"expected Hello, got {type(msg).__name__}",
                                    RefuseWhy.NOT_HELLO)
            # Kept even if refused, to say whom (its key is not proven then).
            self.peer = msg
            checked = self._check_hello(msg)
            if checked is not None:
                return self._refuse(*checked)
            if self.admit is not None:
                # Asked before our proof goes out, so a refused peer never
                # believes it got in; asked again once the proof verifies.
                reason = self.admit(msg)
                if reason is not None:
                    return self._refuse(reason, _admit_why(reason))
            try:
                shared = x25519(self._ephemeral, msg.challenge)
            except ProtocolError as exc:
                return self._refuse(exc.message, RefuseWhy.BAD_KEY_AGREEMENT)
            self.h, k1, k2 = handshake_hash(self.hello, msg, shared)
            self._keys = (k1, k2) if self.hello.public < msg.public else (k2, k1)
            self.state = State.AWAIT_PROOF
            return [Proof(self.identity.sign(transcript(self.h)))]
        assert self.peer is not None and self.h is not None and self._keys is not None
        if not isinstance(msg, Proof):
            return self._refuse(f"expected Proof, got {type(msg).__name__}", RefuseWhy.NOT_PROOF)
        if not keys.verify(self.peer.public, transcript(self.h), msg.signature):
            return self._refuse("your proof of identity does not verify", RefuseWhy.BAD_PROOF)
        self.channel = Channel(CipherState(self._keys[0]), CipherState(self._keys[1]))
        self.peer_proof = msg.signature
        if self.admit is not None:
            reason = self.admit(self.peer)
            if reason is not None:
                return self._refuse(reason, _admit_why(reason))
        self.state = State.DONE
        return []

    def _refuse(self, reason: str | Refuse, why: RefuseWhy) -> list[Message]:
        """Fail, with the Refuse to send: signed over the handshake hash once
        the peer's Hello is in, so the peer can tell it from a stranger's."""
        refusal = reason if isinstance(reason, Refuse) else Refuse(reason)
        if self.peer is not None:
            h = transcript_hash(self.hello, self.peer)
            refusal = dataclasses.replace(
                refusal, signature=self.identity.sign(refusal.signed_bytes(h)))
        self.state = State.FAILED
        self.refusal = refusal
        self.refused_for = why
        self.error = f"refused the peer: {refusal.reason}"
        return [refusal]

    def _check_hello(self, peer: Hello) -> tuple[str, RefuseWhy] | None:
        ours = self.hello
        if peer.version != ours.version:
            return (f"you speak protocol version {peer.version}, this peer speaks "
                    f"{ours.version}", RefuseWhy.VERSION)
        if peer.table != ours.table:
            return (f"you want table {peer.table!r}, this peer is at table {ours.table!r}",
                    RefuseWhy.TABLE)
        if peer.variant != ours.variant:
            return (
                f"you play variant {_variant_text(peer.variant)}, "
                f"this table plays {_variant_text(ours.variant)}", RefuseWhy.VARIANT
            )
        if peer.seats != ours.seats:
            return f"you want {peer.seats} seats, this table has {ours.seats}", RefuseWhy.SEATS
        try:
            keys.check_public_key(peer.public)
        except ProtocolError as exc:
            return f"your public key is unsafe: {exc.message}", RefuseWhy.UNSAFE_KEY
        if peer.public == ours.public:
            return "this is a connection to ourselves (same public key)", RefuseWhy.OURSELVES
        return None


def _admit_why(reason: str | Refuse) -> RefuseWhy:
    """The code of an ``admit`` refusal: its ``RefuseCode`` when it has one."""
    if isinstance(reason, Refuse):
        if reason.meaning is RefuseCode.TABLE_FULL:
            return RefuseWhy.TABLE_FULL
        if reason.meaning is RefuseCode.NO_WATCHERS:
            return RefuseWhy.NO_WATCHERS
    return RefuseWhy.NOT_ADMITTED
