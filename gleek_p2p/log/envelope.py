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
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gleek_p2p.base.errors import ProtocolError, ViolationCode
from gleek_p2p.log import canonical
from gleek_p2p.log.keys import SIGNATURE_SIZE, Identity, check_public_key, verify

PROTOCOL_VERSION = 2
"""The newest log version, signed into every event: raised (with the wire version,
``net.handshake.WIRE_VERSION``) whenever an event's body changes so that a reader
of the previous version would refuse it (a new kind, a new body item, a value it
checks), so that such a reader says "written by a newer program" (``NewerLog``)
rather than blame the seat that signed it. Version 1: every log up to deck
protocol version 3 (its hands are of deck versions 1 to 3, and it verifies
forever). Version 2: deck protocol version 4 (its commit names 4, its ``keys``
carry proved strips); its hands are of deck version 4 only. Every event of a log
is of the version of its first (the roster): the table checks that."""
LOG_VERSIONS: tuple[int, ...] = (1, PROTOCOL_VERSION)
"""Every log version this program reads (and may sign, continuing such a log)."""
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
_KIND_FIELD = 5
_TAIL = 2 + SIGNATURE_SIZE
"""The signature's encoding (bin8 header ``c4 40``, 64 bytes) ends every envelope."""


class NewerLog(ProtocolError):
    """An event of a log version above ``PROTOCOL_VERSION``: a newer program wrote it.

    Nobody can be blamed for it: this program cannot tell a well-formed event of
    that version from a malformed one (code ``log.newer-version``).
    """

    def __init__(self, version: int) -> None:
        super().__init__(f"the event is of log version {version}, written by a newer program "
                         f"(this one reads version {PROTOCOL_VERSION})",
                         code=ViolationCode.LOG_NEWER_VERSION)
        self.version = version


@dataclass(frozen=True, slots=True)
class KindBound:
    """The most one event of a kind may cost to decode, as its declared schema allows.

    ``max_bytes``: the whole encoded envelope; ``max_values``: values in it
    (lists and scalars, counted as ``canonical.decode`` counts them);
    ``max_depth``: list nesting of the envelope (the envelope itself is 1).
    """

    max_bytes: int
    max_values: int
    max_depth: int


@dataclass(frozen=True, slots=True)
class KindBounds:
    """A ``KindBound`` for each event kind, and one for any kind not declared.

    The table layer makes them from its schema (``table.schema.KIND_BOUNDS``);
    the log layer only applies them, so it never needs to know the kinds.
    """

    kinds: Mapping[str, KindBound]
    other: KindBound
    """For a kind the schema does not declare (the table refuses it later, with blame)."""

    def of(self, kind: str) -> KindBound:
        """The bound for ``kind``."""
        return self.kinds.get(kind, self.other)


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
    encoded: bytes | None = field(default=None, init=False, repr=False, compare=False)
    """The wire bytes this envelope was decoded from or signed as (None if built by hand).

    Kept so that re-encoding it (to hash, store, relay or check its
    signature) costs nothing: decode once. Never set by the constructor, so
    ``dataclasses.replace`` and hand-built envelopes always re-encode. The
    body must not be changed in place once the envelope is built.
    """

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
        if self.encoded is not None:
            return self.encoded
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
    if type(version) is int and PROTOCOL_VERSION < version <= canonical.INT_MAX:
        raise NewerLog(version)
    if type(version) is not int or version not in LOG_VERSIONS:
        raise ProtocolError(f"unsupported protocol version {version!r} "
                            f"(expected 1 to {PROTOCOL_VERSION})")
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
    data = env.encoded
    if data is not None:
        # The canonical 8-list is 0x98, the seven fields, then the signature's
        # 66 bytes; the 7-list of the same fields is 0x97 and the same bytes.
        return SIGNED_DOMAIN + b"\x97" + data[1:-_TAIL]
    return SIGNED_DOMAIN + canonical.encode(env.unsigned_fields())


def _with_encoding(env: Envelope, data: bytes) -> Envelope:
    object.__setattr__(env, "encoded", data)
    return env


def sign_envelope(
    identity: Identity,
    session_id: bytes,
    seq: int,
    prev: bytes,
    seat: int,
    kind: str,
    body: list[Any] | tuple[Any, ...],
    *,
    version: int = PROTOCOL_VERSION,
) -> Envelope:
    """Build and sign an event.

    ``body`` must be a canonical value list (tuples allowed, stored as lists).
    ``version`` is the log's version (one of ``LOG_VERSIONS``): every event of a
    log carries its roster's, so a table continuing a log passes that one.
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
    if type(version) is not int or version not in LOG_VERSIONS:
        raise ProtocolError(f"cannot sign an event of log version {version!r}: this program "
                            f"writes versions 1 to {PROTOCOL_VERSION}",
                            code=ViolationCode.LOCAL_MISUSE)
    _check_fields(version, session_id, seq, prev, seat, kind, body_list)
    unsigned = Envelope(version, session_id, seq, prev, seat, kind, body_list, b"")
    env = Envelope(
        version,
        session_id,
        seq,
        prev,
        seat,
        kind,
        body_list,
        identity.sign(signed_bytes(unsigned)),
    )
    data = env.encode()
    if len(data) > MAX_ENVELOPE_BYTES:
        raise ProtocolError(f"the event is larger than {MAX_ENVELOPE_BYTES} bytes")
    return _with_encoding(env, data)


def _bound(data: bytes, bounds: KindBounds) -> KindBound:
    """The bound of the kind ``data`` names, read from its first bytes only.

    Refuses (before the body is decoded, so at a cost that does not grow
    with it) an envelope larger than its kind allows.
    """
    _length, head = canonical.list_head(data, _KIND_FIELD + 1, max_scalar=MAX_KIND_LEN)
    kind = head[_KIND_FIELD]
    if not isinstance(kind, str):
        raise ProtocolError(f"the event kind must be a string of 1..{MAX_KIND_LEN} bytes")
    bound = bounds.of(kind)
    if len(data) > bound.max_bytes:
        raise ProtocolError(
            f"a {kind!r} event is {len(data)} bytes, more than the {bound.max_bytes} "
            "its kind allows", code=ViolationCode.FORM_EVENT)
    return bound


def decode_envelope(data: bytes, bounds: KindBounds | None = None) -> Envelope:
    """Parse an encoded envelope from untrusted bytes (no signature check).

    Raises ProtocolError on non-canonical or malformed input. With
    ``bounds``, an envelope is first held to its kind's ``KindBound`` (size
    from its first bytes, then values and nesting while decoding), so what
    an event costs to decode is bounded by its kind's schema, not by
    ``MAX_ENVELOPE_BYTES``. Call ``verify_envelope`` (or ``Chain.append``)
    before trusting it.
    """
    max_len, max_depth, max_items = MAX_ENVELOPE_BYTES, MAX_BODY_DEPTH + 1, MAX_ENVELOPE_ITEMS
    if bounds is not None:
        bound = _bound(data, bounds)
        max_len = min(max_len, bound.max_bytes)
        max_depth = min(max_depth, bound.max_depth)
        max_items = min(max_items, bound.max_values)
    value = canonical.decode(data, max_len=max_len, max_depth=max_depth, max_items=max_items)
    if isinstance(value, list) and value and type(value[0]) is int \
            and PROTOCOL_VERSION < value[0] <= canonical.INT_MAX:
        # Before any other check: a newer version may have other fields.
        raise NewerLog(value[0])
    if not isinstance(value, list) or len(value) != _FIELDS:
        raise ProtocolError(f"an envelope must be a list of {_FIELDS} fields")
    version, session_id, seq, prev, seat, kind, body, signature = value
    _check_fields(version, session_id, seq, prev, seat, kind, body)
    if not isinstance(signature, bytes) or len(signature) != SIGNATURE_SIZE:
        raise ProtocolError(f"the signature must be {SIGNATURE_SIZE} bytes")
    env = Envelope(version, session_id, seq, prev, seat, kind, body, signature)
    return _with_encoding(env, bytes(data))


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
