"""The deck protocol's messages and their wire form.

On the wire a message is a list whose first element names its kind, then the
sending seat, then its fields: ints, bytes, str and lists only, so any
canonical encoder (the log uses msgpack) carries it unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gleek_p2p.errors import ProtocolError

from .group import POINT_BYTES, SCALAR_BYTES
from .kdf import DIGEST_BYTES, SEED_BYTES

#: No pack is larger: slots and passes are bounded by it on the wire.
MAX_SLOTS = 44


@dataclass(frozen=True)
class Commit:
    """A seat's commitment to its per-hand seed."""

    seat: int
    digest: bytes

    def to_wire(self) -> list[Any]:
        return ["commit", self.seat, self.digest]


@dataclass(frozen=True)
class ShufflePass:
    """A seat's shuffle: every card encrypted and the deck permuted.

    The last seat in the order also locks in this pass.
    """

    seat: int
    points: tuple[bytes, ...]

    def to_wire(self) -> list[Any]:
        return ["shuffle", self.seat, list(self.points)]


@dataclass(frozen=True)
class LockPass:
    """A seat's lock: its shuffle key removed, a per-card key on every slot."""

    seat: int
    points: tuple[bytes, ...]

    def to_wire(self) -> list[Any]:
        return ["lock", self.seat, list(self.points)]


@dataclass(frozen=True)
class Keys:
    """A seat's per-card keys for some slots: ``((slot, scalar), ...)``.

    Used alike to deal a slot to another seat, to hand over the talon, and to
    show one of the seat's own cards to everyone.
    """

    seat: int
    keys: tuple[tuple[int, bytes], ...]

    def to_wire(self) -> list[Any]:
        return ["keys", self.seat, [[slot, key] for slot, key in self.keys]]


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
        raise ProtocolError(f"{what} must be an integer")
    if value < 0:
        raise ProtocolError(f"{what} must not be negative")
    return value


def _bytes(value: object, size: int, what: str) -> bytes:
    if type(value) is not bytes or len(value) != size:
        raise ProtocolError(f"{what} must be {size} bytes")
    return value


def _list(value: object, what: str, max_len: int) -> list[Any]:
    if type(value) is not list:
        raise ProtocolError(f"{what} must be a list")
    if len(value) > max_len:
        raise ProtocolError(f"{what} has more than {max_len} elements")
    return value


def _points(value: object) -> tuple[bytes, ...]:
    items = _list(value, "a pass", MAX_SLOTS)
    return tuple(_bytes(p, POINT_BYTES, "a point") for p in items)


def message_from_wire(wire: object) -> DeckMessage:
    """Parse a wire list into a message; raise ProtocolError on anything malformed.

    Only the shape is checked here; whether the content is honest is the
    protocol's business (``DeckProtocol.receive``).
    """
    if type(wire) is not list or len(wire) != 3:
        raise ProtocolError("a deck message is a list of three elements")
    kind, seat_value, body = wire
    if type(kind) is not str:
        raise ProtocolError("a deck message starts with its kind")
    seat = _int(seat_value, "the seat")
    if kind == "commit":
        return Commit(seat, _bytes(body, DIGEST_BYTES, "a commitment"))
    if kind == "shuffle":
        return ShufflePass(seat, _points(body))
    if kind == "lock":
        return LockPass(seat, _points(body))
    if kind == "keys":
        pairs: list[tuple[int, bytes]] = []
        for item in _list(body, "the keys", MAX_SLOTS):
            if type(item) is not list or len(item) != 2:
                raise ProtocolError("a key is a [slot, scalar] pair")
            pairs.append((_int(item[0], "a slot"), _bytes(item[1], SCALAR_BYTES, "a key")))
        return Keys(seat, tuple(pairs))
    if kind == "seed":
        return SeedReveal(seat, _bytes(body, SEED_BYTES, "a seed"))
    raise ProtocolError(f"unknown deck message kind {kind!r}")
