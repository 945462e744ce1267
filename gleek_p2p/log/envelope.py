"""Signed event envelopes: the unit of the hash-chained session log.

An envelope is the canonical list
``[version, session_id, seq, prev, seat, kind, body, signature]``. The
signature covers ``SIGNED_DOMAIN`` followed by the canonical encoding of the
first seven fields, so a signature made for an event can never be replayed
as a signature of anything else in the protocol. ``event_hash`` (SHA-256 of
the full encoding, signature included) is what the next event's ``prev``
holds.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from gleek_p2p.base.errors import ProtocolError, ViolationCode
from gleek_p2p.log import canonical
from gleek_p2p.log.keys import SIGNATURE_SIZE, Identity, check_public_key, verify

PROTOCOL_VERSION = 1
SIGNED_DOMAIN = b"gleek-p2p/event/v1\x00"
HASH_SIZE = 32
SESSION_ID_SIZE = 32
ZERO_HASH = bytes(HASH_SIZE)
MAX_SEAT = 255
MAX_KIND_LEN = 64
MAX_ENVELOPE_BYTES = 1 << 20
"""Largest encoded envelope accepted (1 MiB)."""
MAX_BODY_DEPTH = 16
MAX_ENVELOPE_ITEMS = 200_000
_FIELDS = 8


@dataclass(frozen=True, slots=True)
class Envelope:
    """One signed event. Build with ``sign_envelope``; parse with ``decode_envelope``."""

    version: int
    session_id: bytes
    seq: int
    prev: bytes
    seat: int
    kind: str
    body: list[Any]
    signature: bytes

    def unsigned_fields(self) -> list[Any]:
        """The seven fields the signature covers, in wire order."""
        return [
            self.version,
            self.session_id,
            self.seq,
            self.prev,
            self.seat,
            self.kind,
            self.body,
        ]

    def encode(self) -> bytes:
        """The canonical wire encoding (what is sent, stored and hashed)."""
        return canonical.encode([*self.unsigned_fields(), self.signature])


def _check_fields(
    version: object,
    session_id: object,
    seq: object,
    prev: object,
    seat: object,
    kind: object,
    body: object,
) -> None:
    """Raise ProtocolError unless the unsigned fields have their wire types and sizes."""
    if type(version) is not int or version != PROTOCOL_VERSION:
        raise ProtocolError(f"unsupported protocol version {version!r} (expected 1)")
    if not isinstance(session_id, bytes) or len(session_id) != SESSION_ID_SIZE:
        raise ProtocolError(f"the session id must be {SESSION_ID_SIZE} bytes")
    if type(seq) is not int or not 0 <= seq <= canonical.INT_MAX:
        raise ProtocolError(f"the sequence number {seq!r} is not a non-negative integer")
    if not isinstance(prev, bytes) or len(prev) != HASH_SIZE:
        raise ProtocolError(f"the previous-event hash must be {HASH_SIZE} bytes")
    if seq == 0 and prev != ZERO_HASH:
        raise ProtocolError("the first event (seq 0) must have an all-zero previous hash")
    if type(seat) is not int or not 0 <= seat <= MAX_SEAT:
        raise ProtocolError(f"the seat {seat!r} is not an integer in 0..{MAX_SEAT}")
    if not isinstance(kind, str) or not 0 < len(kind.encode("utf-8", "replace")) <= MAX_KIND_LEN:
        raise ProtocolError(f"the event kind must be a string of 1..{MAX_KIND_LEN} bytes")
    if not isinstance(body, list):
        raise ProtocolError("the event body must be a list")


def signed_bytes(env: Envelope) -> bytes:
    """The bytes the author signs: ``SIGNED_DOMAIN`` + canonical(first seven fields)."""
    return SIGNED_DOMAIN + canonical.encode(env.unsigned_fields())


def sign_envelope(
    identity: Identity,
    session_id: bytes,
    seq: int,
    prev: bytes,
    seat: int,
    kind: str,
    body: list[Any] | tuple[Any, ...],
) -> Envelope:
    """Build and sign an event.

    ``body`` must be a canonical value list (tuples allowed, stored as lists).
    Raises ProtocolError if a field is malformed or the envelope would be
    larger than the decoder accepts, so everything signed here decodes.
    """
    if not isinstance(body, list | tuple):
        raise ProtocolError("the event body must be a list")
    # Round-trip the body so the envelope holds exactly what a peer decodes.
    body_list = canonical.decode(
        canonical.encode(body, max_depth=MAX_BODY_DEPTH),
        max_len=MAX_ENVELOPE_BYTES,
        max_depth=MAX_BODY_DEPTH,
        max_items=MAX_ENVELOPE_ITEMS,
    )
    assert isinstance(body_list, list)
    _check_fields(PROTOCOL_VERSION, session_id, seq, prev, seat, kind, body_list)
    unsigned = Envelope(PROTOCOL_VERSION, session_id, seq, prev, seat, kind, body_list, b"")
    env = Envelope(
        PROTOCOL_VERSION,
        session_id,
        seq,
        prev,
        seat,
        kind,
        body_list,
        identity.sign(signed_bytes(unsigned)),
    )
    if len(env.encode()) > MAX_ENVELOPE_BYTES:
        raise ProtocolError(f"the event is larger than {MAX_ENVELOPE_BYTES} bytes")
    return env


def decode_envelope(data: bytes) -> Envelope:
    """Parse an encoded envelope from untrusted bytes (no signature check).

    Raises ProtocolError on non-canonical or malformed input. Call
    ``verify_envelope`` (or ``Chain.append``) before trusting it.
    """
    value = canonical.decode(
        data,
        max_len=MAX_ENVELOPE_BYTES,
        max_depth=MAX_BODY_DEPTH + 1,
        max_items=MAX_ENVELOPE_ITEMS,
    )
    if not isinstance(value, list) or len(value) != _FIELDS:
        raise ProtocolError(f"an envelope must be a list of {_FIELDS} fields")
    version, session_id, seq, prev, seat, kind, body, signature = value
    _check_fields(version, session_id, seq, prev, seat, kind, body)
    if not isinstance(signature, bytes) or len(signature) != SIGNATURE_SIZE:
        raise ProtocolError(f"the signature must be {SIGNATURE_SIZE} bytes")
    return Envelope(version, session_id, seq, prev, seat, kind, body, signature)


def verify_envelope(env: Envelope, public: bytes) -> None:
    """Raise ProtocolError unless ``env`` is validly signed by ``public``."""
    check_public_key(public)
    if not verify(public, signed_bytes(env), env.signature):
        raise ProtocolError(
            f"the signature on event {env.seq} ({env.kind}) from seat {env.seat} is invalid",
            code=ViolationCode.CHAIN_BAD_SIGNATURE,
        )


def event_hash(env: Envelope) -> bytes:
    """SHA-256 of the full encoding: the value the next event's ``prev`` holds."""
    return hashlib.sha256(env.encode()).digest()
