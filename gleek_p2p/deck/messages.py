"""The deck protocol's messages and their wire form.

On the wire a message is a list whose first element names its kind, then the
sending seat, then its fields: ints, bytes, str and lists only, so any
canonical encoder (the log uses msgpack) carries it unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gleek_p2p.base.errors import ProtocolError, ViolationCode

from .group import POINT_BYTES, SCALAR_BYTES
from .kdf import DIGEST_BYTES, SEED_BYTES
from .proofs import LockProof, ShuffleProof, StripProof

#: No pack is larger: slots and passes are bounded by it on the wire.
MAX_SLOTS = 44

#: Deck protocol versions: 1 audits the deal after the hand from the seeds;
#: 2 proves every pass and key as it is sent (SPEC.md §2.8); 3 is 2 on
#: secp256k1 (33-byte points, big-endian scalars; SPEC.md §2.2); 4 drops the
#: lock passes and opens slots by proved strips of each seat's shuffle key
#: (SPEC.md §2.8b).
VERSIONS = (1, 2, 3, 4)
CURRENT_VERSION = 4

#: A point on the wire: 32 bytes (versions 1, 2) or 33 (versions 3, 4, compressed).
_POINT_SIZES = (POINT_BYTES, POINT_BYTES + 1)


@dataclass(frozen=True)
class Commit:
    """A seat's commitment to its per-hand seed, and the deck protocol version it runs."""

    seat: int
    digest: bytes
    version: int = 1

    def to_wire(self) -> list[Any]:
        if self.version == 1:
            return ["commit", self.seat, self.digest]
        return ["commit", self.seat, self.digest, self.version]


@dataclass(frozen=True)
class ShufflePass:
    """A seat's shuffle: every card encrypted and the deck permuted.

    Version 1: the last seat in the order also locks in this pass, and there
    is no proof. Version 2: ``key`` is ``E = e·G`` and ``proof`` shows the
    pass is a permutation of the previous deck under ``e``.
    """

    seat: int
    points: tuple[bytes, ...]
    key: bytes | None = None
    proof: ShuffleProof | None = None

    def to_wire(self) -> list[Any]:
        if self.proof is None:
            return ["shuffle", self.seat, list(self.points)]
        return ["shuffle", self.seat, list(self.points), self.key, self.proof.to_wire()]


@dataclass(frozen=True)
class LockPass:
    """A seat's lock: its shuffle key removed, a per-card key on every slot.

    Version 2: ``keys`` are the commitments ``K_j = k_j·G`` to the per-card
    keys, and ``proof`` shows every slot was locked under them.
    """

    seat: int
    points: tuple[bytes, ...]
    keys: tuple[bytes, ...] | None = None
    proof: LockProof | None = None

    def to_wire(self) -> list[Any]:
        if self.proof is None:
            return ["lock", self.seat, list(self.points)]
        assert self.keys is not None
        return ["lock", self.seat, list(self.points), list(self.keys), self.proof.to_wire()]


@dataclass(frozen=True)
class Keys:
    """A seat's per-card keys for some slots: ``((slot, scalar), ...)``.

    Used alike to deal a slot to another seat, to hand over the talon, and to
    show one of the seat's own cards to everyone. Version 4: each "key" is
    the slot's point with this seat's layer stripped off (33 bytes), and
    ``proof`` shows every strip was made with the seat's shuffle key.
    """

    seat: int
    keys: tuple[tuple[int, bytes], ...]
    proof: StripProof | None = None

    def to_wire(self) -> list[Any]:
        pairs = [[slot, key] for slot, key in self.keys]
        if self.proof is None:
            return ["keys", self.seat, pairs]
        return ["keys", self.seat, pairs, self.proof.to_wire()]


@dataclass(frozen=True)
class SeedReveal:
    """A seat's per-hand seed, opened after the hand (or early, on a dispute)."""

    seat: int
    seed: bytes

    def to_wire(self) -> list[Any]:
        return ["seed", self.seat, self.seed]


DeckMessage = Commit | ShufflePass | LockPass | Keys | SeedReveal


def _int(value: object, what: str) -> int:
    if type(value) is not int:
        raise ProtocolError(f"{what} must be an integer", code=ViolationCode.FORM_DECK_MESSAGE)
    if value < 0:
        raise ProtocolError(f"{what} must not be negative", code=ViolationCode.FORM_DECK_MESSAGE)
    return value


def _bytes(value: object, size: int, what: str,
           code: ViolationCode = ViolationCode.FORM_DECK_MESSAGE) -> bytes:
    if type(value) is not bytes or len(value) != size:
        raise ProtocolError(f"{what} must be {size} bytes", code=code)
    return value


def _digest(value: object) -> bytes:
    # The commitment's own code, as DeckProtocol gives it (protocol/violations.md).
    return _bytes(value, DIGEST_BYTES, "a commitment", ViolationCode.DECK_BAD_COMMITMENT)


def _list(value: object, what: str, max_len: int) -> list[Any]:
    if type(value) is not list:
        raise ProtocolError(f"{what} must be a list", code=ViolationCode.FORM_DECK_MESSAGE)
    if len(value) > max_len:
        raise ProtocolError(f"{what} has more than {max_len} elements",
                            code=ViolationCode.FORM_DECK_MESSAGE)
    return value


def _point(value: object, what: str) -> bytes:
    if type(value) is not bytes or len(value) not in _POINT_SIZES:
        raise ProtocolError(f"{what} must be 32 or 33 bytes", code=ViolationCode.FORM_DECK_MESSAGE)
    return value


def _points(value: object) -> tuple[bytes, ...]:
    # The size each version wants is the protocol's check (DeckProtocol.receive).
    items = _list(value, "a pass", MAX_SLOTS)
    points = tuple(_point(p, "a point") for p in items)
    if len({len(p) for p in points}) > 1:
        raise ProtocolError("the points of a list differ in size",
                            code=ViolationCode.FORM_DECK_MESSAGE)
    return points


def _scalars(value: object, what: str) -> tuple[bytes, ...]:
    items = _list(value, what, MAX_SLOTS)
    return tuple(_bytes(s, SCALAR_BYTES, "a scalar") for s in items)


def _shuffle_proof(value: object) -> ShuffleProof:
    items = _list(value, "a shuffle proof", 9)
    if len(items) != 9:
        raise ProtocolError("a shuffle proof has nine parts", code=ViolationCode.FORM_DECK_MESSAGE)
    return ShuffleProof(
        commitments=_points(items[0]),
        chain=_points(items[1]),
        challenge=_bytes(items[2], SCALAR_BYTES, "a scalar"),
        k_a=_bytes(items[3], SCALAR_BYTES, "a scalar"),
        k_b=_scalars(items[4], "the link responses"),
        k_c=_bytes(items[5], SCALAR_BYTES, "a scalar"),
        k_d=_bytes(items[6], SCALAR_BYTES, "a scalar"),
        k_v=_scalars(items[7], "the permutation responses"),
        k_f=_bytes(items[8], SCALAR_BYTES, "a scalar"),
    )


def _lock_proof(value: object) -> LockProof:
    items = _list(value, "a lock proof", 3)
    if len(items) != 3:
        raise ProtocolError("a lock proof has three parts", code=ViolationCode.FORM_DECK_MESSAGE)
    return LockProof(
        _bytes(items[0], SCALAR_BYTES, "a scalar"),
        _bytes(items[1], SCALAR_BYTES, "a scalar"),
        _scalars(items[2], "the key responses"),
    )


def _strip_proof(value: object) -> StripProof:
    items = _list(value, "a strip proof", 2)
    if len(items) != 2:
        raise ProtocolError("a strip proof has two parts", code=ViolationCode.FORM_DECK_MESSAGE)
    return StripProof(_bytes(items[0], SCALAR_BYTES, "a scalar"),
                      _bytes(items[1], SCALAR_BYTES, "a scalar"))


def _pairs(body: object, size: int, what: str) -> tuple[tuple[int, bytes], ...]:
    pairs: list[tuple[int, bytes]] = []
    for item in _list(body, "the keys", MAX_SLOTS):
        if type(item) is not list or len(item) != 2:
            raise ProtocolError(f"a key is {what}", code=ViolationCode.FORM_DECK_MESSAGE)
        pairs.append((_int(item[0], "a slot"), _bytes(item[1], size, "a key")))
    return tuple(pairs)


def message_from_wire(wire: object) -> DeckMessage:
    """Parse a wire list into a message; raise ProtocolError on anything malformed.

    Only the shape is checked here; whether the content is honest is the
    protocol's business (``DeckProtocol.receive``). Version 1 messages have
    three elements; version 2 adds a version to the commit and a key
    commitment and a proof to each pass; version 4 adds a proof to ``keys``.
    """
    if type(wire) is not list or len(wire) < 3:
        raise ProtocolError("a deck message is a list of three elements or more",
                            code=ViolationCode.FORM_DECK_MESSAGE)
    kind, seat_value, body, *extra = wire
    if type(kind) is not str:
        raise ProtocolError("a deck message starts with its kind",
                            code=ViolationCode.FORM_DECK_MESSAGE)
    seat = _int(seat_value, "the seat")
    if kind == "commit" and len(extra) == 1:
        version = _int(extra[0], "the deck protocol version")
        if version not in VERSIONS[1:]:
            raise ProtocolError(f"unknown deck protocol version {version}",
                                code=ViolationCode.DECK_WRONG_VERSION)
        return Commit(seat, _digest(body), version)
    if kind == "shuffle" and len(extra) == 2:
        key = _point(extra[0], "a key commitment")
        return ShufflePass(seat, _points(body), key, _shuffle_proof(extra[1]))
    if kind == "lock" and len(extra) == 2:
        return LockPass(seat, _points(body), _points(extra[0]), _lock_proof(extra[1]))
    if kind == "keys" and len(extra) == 1:
        return Keys(seat, _pairs(body, POINT_BYTES + 1, "a [slot, point] pair"),
                    _strip_proof(extra[0]))
    if extra:
        raise ProtocolError(f"a {kind} message has the wrong number of elements",
                            code=ViolationCode.FORM_DECK_MESSAGE)
    if kind == "commit":
        return Commit(seat, _digest(body))
    if kind == "shuffle":
        return ShufflePass(seat, _points(body))
    if kind == "lock":
        return LockPass(seat, _points(body))
    if kind == "keys":
        return Keys(seat, _pairs(body, SCALAR_BYTES, "a [slot, scalar] pair"))
    if kind == "seed":
        return SeedReveal(seat, _bytes(body, SEED_BYTES, "a seed"))
    raise ProtocolError(f"unknown deck message kind {kind!r}", code=ViolationCode.FORM_DECK_MESSAGE)
