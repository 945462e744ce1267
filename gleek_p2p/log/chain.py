"""The hash chain of a session's events, and equivocation evidence.

Each event names the hash of the one before it, so every peer holding the
same head hash holds the same history. A seat that signs two different
events for the same position has equivocated: the two signatures are a proof
anyone can check, raised as ``Cheating``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from gleek_p2p.base.errors import Cheating, ProtocolError, ViolationCode
from gleek_p2p.log.envelope import (
    SESSION_ID_SIZE,
    ZERO_HASH,
    Envelope,
    decode_envelope,
    event_hash,
    signed_bytes,
    verify_envelope,
)
from gleek_p2p.log.keys import verify

PublicKeys = Sequence[bytes] | Mapping[int, bytes]
"""The roster: the public key of each seat, indexed by seat number."""


def _public_of(public_of_seat: PublicKeys, seat: int) -> bytes:
    try:
        public = public_of_seat[seat]
    except (IndexError, KeyError):
        raise ProtocolError(f"seat {seat} is not in the roster") from None
    return public


def check_equivocation(a: Envelope, b: Envelope, public_of_seat: PublicKeys) -> Cheating | None:
    """Return Cheating(seat, "equivocation", (a, b)) if ``a`` and ``b`` prove it.

    Proof means: same session, same seq, same seat, different encodings, and
    both validly signed by that seat's key. Anything less returns None (an
    unsigned or mis-signed copy proves nothing about its claimed author).
    """
    if (a.session_id, a.seq, a.seat) != (b.session_id, b.seq, b.seat):
        return None
    if a.encode() == b.encode():
        return None
    try:
        public = _public_of(public_of_seat, a.seat)
    except ProtocolError:
        return None
    if not (
        verify(public, signed_bytes(a), a.signature)
        and verify(public, signed_bytes(b), b.signature)
    ):
        return None
    return Cheating(a.seat, "equivocation", (a, b), code=ViolationCode.CHAIN_EQUIVOCATION)


class Chain:
    """The verified, hash-linked events of one session, in order."""

    __slots__ = ("_envelopes", "_head", "session_id")

    def __init__(self, session_id: bytes) -> None:
        if not isinstance(session_id, bytes) or len(session_id) != SESSION_ID_SIZE:
            raise ProtocolError(f"the session id must be {SESSION_ID_SIZE} bytes")
        self.session_id = session_id
        self._envelopes: list[Envelope] = []
        self._head = ZERO_HASH

    @property
    def envelopes(self) -> Sequence[Envelope]:
        """The events in order (do not mutate)."""
        return self._envelopes

    @property
    def head_hash(self) -> bytes:
        """``event_hash`` of the last event, or 32 zero bytes when empty."""
        return self._head

    def __len__(self) -> int:
        return len(self._envelopes)

    def append(self, env: Envelope, public_of_seat: PublicKeys) -> bool:
        """Verify ``env`` and add it at the end; return False for an exact duplicate.

        Checks: well-formed fields, this session, author in the roster with a
        safe key, seq == len(chain), prev == head_hash, valid signature, and
        the log version of the first event (one program writes a whole log).
        Raises ProtocolError on any failure, or Cheating if ``env`` and the
        event already held at its seq are a validly signed equivocation by
        one seat. The chain is unchanged whenever this raises.
        """
        # Re-parse so an Envelope built by hand gets the same checks as one
        # from the wire (types, sizes, version, seq-0 prev).
        decode_envelope(env.encode())
        if env.session_id != self.session_id:
            raise ProtocolError(f"event {env.seq} belongs to another session")
        public = _public_of(public_of_seat, env.seat)
        if env.seq < len(self._envelopes):
            held = self._envelopes[env.seq]
            if held.encode() == env.encode():
                return False
            verify_envelope(env, public)
            if held.seat == env.seat:
                raise Cheating(env.seat, "equivocation", (held, env),
                               code=ViolationCode.CHAIN_EQUIVOCATION)
            raise ProtocolError(
                f"event {env.seq} from seat {env.seat} conflicts with the event "
                f"already held from seat {held.seat}"
            )
        if env.seq > len(self._envelopes):
            raise ProtocolError(
                f"event {env.seq} arrived out of order (expected {len(self._envelopes)})"
            )
        if env.prev != self._head:
            raise ProtocolError(f"event {env.seq} does not follow the last event (wrong prev)")
        verify_envelope(env, public)
        if self._envelopes and env.version != self._envelopes[0].version:
            raise ProtocolError(
                f"event {env.seq} is of log version {env.version}, the log of version "
                f"{self._envelopes[0].version}", code=ViolationCode.FORM_LOG_VERSION)
        self._envelopes.append(env)
        self._head = event_hash(env)
        return True


def replay(session_id: bytes, records: Iterable[bytes], public_of_seat: PublicKeys) -> Chain:
    """Rebuild a chain from encoded envelopes (e.g. ``LogStore.records``).

    Raises ProtocolError (or Cheating) at the first record that does not
    extend the chain; a duplicate record is refused too, since a stored log
    never holds one.
    """
    chain = Chain(session_id)
    for index, record in enumerate(records):
        env = decode_envelope(record)
        if env.seq != index:
            raise ProtocolError(f"record {index} holds event {env.seq}")
        chain.append(env, public_of_seat)
    return chain
