"""The group of deck protocol version 3: secp256k1, through libsecp256k1 (coincurve).

secp256k1 has prime order ``N`` and cofactor 1: every point a 33-byte
compressed encoding parses to is a group element, so no multiplication
repeats a subgroup check (SPEC.md §2.2). Points stay decoded
(:class:`Point`, libsecp256k1's parsed form) from the moment they are read
until they are written: a point is parsed once and serialized once.
Scalars are Python ints below ``N``; on the wire, 32 bytes big-endian, and
a value at or above ``N`` is refused (never reduced).

libsecp256k1 is called through coincurve's compiled cffi module, which
releases the GIL during each call.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from coincurve._libsecp256k1 import ffi, lib
from coincurve.context import GLOBAL_CONTEXT

from .kdf import frame

#: The order of secp256k1 (prime; the cofactor is 1).
N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
#: The field prime.
P = 2**256 - 2**32 - 977

POINT_BYTES = 33
SCALAR_BYTES = 32

#: Label hashed with the card id to pick each card's point (SPEC.md §2.2).
CARD_LABEL = b"gleek-p2p/deck/v3/card"

_CTX = GLOBAL_CONTEXT.ctx
_COMPRESSED = lib.SECP256K1_EC_COMPRESSED


class Count:
    """Operations made, for the benchmark's counted-vs-analytic figures."""

    variable = 0
    base = 0
    #: ``a·P + b·G`` in one call (``mul_base``, the verifier's double multiplication).
    double = 0
    decode = 0
    encode = 0
    add = 0

    @classmethod
    def reset(cls) -> None:
        cls.variable = cls.base = cls.double = cls.decode = cls.encode = cls.add = 0

    @classmethod
    def snapshot(cls) -> dict[str, int]:
        return {"variable": cls.variable, "base": cls.base, "double": cls.double,
                "decode": cls.decode, "encode": cls.encode, "add": cls.add}


class Point:
    """A decoded group element (never the identity: secp256k1's encoding has none).

    Equality and hashing go through the 33-byte encoding, made once.
    """

    __slots__ = ("_enc", "_pk")

    def __init__(self, pk: Any, enc: bytes | None = None) -> None:
        self._pk = pk
        self._enc = enc

    @classmethod
    def decode(cls, data: object) -> Point:
        """Parse a canonical compressed point; ``ValueError`` for anything else."""
        if type(data) is not bytes or len(data) != POINT_BYTES or data[0] not in (2, 3):
            raise ValueError("a point is 33 bytes, compressed")
        pk = ffi.new("secp256k1_pubkey *")
        Count.decode += 1
        # Refuses x >= p and an x with no point: what parses is in the group.
        if not lib.secp256k1_ec_pubkey_parse(_CTX, pk, data, POINT_BYTES):
            raise ValueError("not a point of secp256k1")
        return cls(pk, data)

    def encode(self) -> bytes:
        """The 33-byte compressed encoding (made once, then kept)."""
        if self._enc is None:
            buf = ffi.new("unsigned char[33]")
            size = ffi.new("size_t *", POINT_BYTES)
            lib.secp256k1_ec_pubkey_serialize(_CTX, buf, size, self._pk, _COMPRESSED)
            Count.encode += 1
            self._enc = bytes(ffi.buffer(buf, POINT_BYTES))
        return self._enc

    # A point never changes once made: a copy of a table (a snapshot, a rollback)
    # may share it; pickling goes through its encoding (the library's handle cannot).
    def __copy__(self) -> Point:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Point:
        return self

    def __reduce__(self) -> tuple[Any, tuple[bytes]]:
        return (Point.decode, (self.encode(),))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Point) and self.encode() == other.encode()

    def __hash__(self) -> int:
        return hash(self.encode())

    def __repr__(self) -> str:
        return f"Point({self.encode().hex()})"


def is_valid_point(data: object) -> bool:
    """33 bytes that parse to a point of secp256k1 (so of the prime-order group)."""
    try:
        Point.decode(data)
    except ValueError:
        return False
    return True


def scalar_bytes(n: int) -> bytes:
    """A scalar in 0..N-1 as 32 bytes big-endian."""
    return (n % N).to_bytes(SCALAR_BYTES, "big")


def scalar_int(data: object) -> int:
    """A canonical scalar from the wire; ``ValueError`` if not 32 bytes or not below N."""
    if type(data) is not bytes or len(data) != SCALAR_BYTES:
        raise ValueError("a scalar is 32 bytes")
    value = int.from_bytes(data, "big")
    if value >= N:
        raise ValueError("a scalar is not below the group order")
    return value


def is_valid_scalar(data: object) -> bool:
    """A canonical non-zero scalar: 32 bytes big-endian in 1..N-1 (a key)."""
    try:
        return scalar_int(data) != 0
    except ValueError:
        return False


def mul(k: int, point: Point) -> Point:
    """``k·point`` for k in 1..N-1 (``ValueError`` for 0: the identity has no encoding)."""
    out = ffi.new("secp256k1_pubkey *", point._pk[0])
    Count.variable += 1
    if not lib.secp256k1_ec_pubkey_tweak_mul(_CTX, out, (k % N).to_bytes(32, "big")):
        raise ValueError("multiplication by zero")
    return Point(out)


def base(k: int) -> Point:
    """``k·G`` for k in 1..N-1."""
    out = ffi.new("secp256k1_pubkey *")
    Count.base += 1
    if not lib.secp256k1_ec_pubkey_create(_CTX, out, (k % N).to_bytes(32, "big")):
        raise ValueError("multiplication by zero")
    return Point(out)


def mul_base(a: int, point: Point, b: int) -> Point:
    """``a·point + b·G`` in one call, **for public scalars only** (a verifier's).

    Exactly ``add([mul(a, point), base(b)])``, errors included (``ValueError``:
    "multiplication by zero" if ``a`` or ``b`` is 0 mod N, "the sum is the
    identity" if the result is), for about 1.4 ``mul`` where the three cost
    about 1.75 (SPEC.md §2.8). libsecp256k1 exposes its double multiplication
    ``secp256k1_ecmult`` (variable time: Strauss wNAF for ``point``, ``G``'s
    precomputed tables) only through ECDSA public-key recovery, which returns
    ``Q = r^-1·(s·R − m·G)`` with ``R`` the point of abscissa ``r`` and the
    y-parity of the recovery id: with ``r = x(point)``, the parity of
    ``point``'s y, ``s = a·r`` and ``m = −b·r`` (mod N), ``Q = a·point + b·G``.
    Its running time depends on the scalars, so a prover's secret scalars never
    come here. Recovery takes only ``r`` below N (a point with x >= N, one in
    about 2^128 at random but easy to choose, takes the three calls instead).
    """
    a %= N
    b %= N
    if a == 0 or b == 0:
        raise ValueError("multiplication by zero")
    enc = point.encode()
    x = enc[1:]
    r = int.from_bytes(x, "big")
    if r >= N:
        return add([mul(a, point), base(b)])
    sig = ffi.new("secp256k1_ecdsa_recoverable_signature *")
    # r < N and s = a·r != 0 (N is prime, a is not 0, and no point has x = 0:
    # 7 is not a square mod p): parsing cannot fail.
    if not lib.secp256k1_ecdsa_recoverable_signature_parse_compact(
            _CTX, sig, x + (a * r % N).to_bytes(32, "big"), enc[0] - 2):
        raise ValueError("not a recoverable form")  # pragma: no cover - unreachable
    out = ffi.new("secp256k1_pubkey *")
    Count.double += 1
    # Recovery refuses only a zero r or s (excluded above), an r that is not an
    # abscissa (it is point's) and a result at infinity: that is the identity.
    if not lib.secp256k1_ecdsa_recover(_CTX, out, sig, (-b * r % N).to_bytes(32, "big")):
        raise ValueError("the sum is the identity")
    return Point(out)


def lincomb(scalars: Sequence[int], points: Sequence[Point]) -> Point:
    """``Σ scalars[i]·points[i]``: exactly ``add([mul(k, p) ...])``, errors included.

    The same calls (one ``tweak_mul`` a term, one ``combine``) into one array,
    without a ``Point`` per product: a sum of 44 terms costs about 7% less.
    """
    n = len(points)
    products = ffi.new("secp256k1_pubkey[]", [p._pk[0] for p in points])
    terms = [products + i for i in range(n)]
    tweak_mul = lib.secp256k1_ec_pubkey_tweak_mul
    # In the reference's order: a zero scalar, or lengths that differ (zip's
    # ValueError), fail where its list of products would.
    for k, term in zip(scalars, terms, strict=True):
        Count.variable += 1
        if not tweak_mul(_CTX, term, (k % N).to_bytes(32, "big")):
            raise ValueError("multiplication by zero")
    out = ffi.new("secp256k1_pubkey *")
    Count.add += n - 1
    if not lib.secp256k1_ec_pubkey_combine(_CTX, out, terms, n):
        raise ValueError("the sum is the identity")
    return Point(out)


def add(points: Sequence[Point]) -> Point:
    """The sum of one or more points, in one call (``ValueError`` if it is the identity)."""
    out = ffi.new("secp256k1_pubkey *")
    Count.add += len(points) - 1
    if not lib.secp256k1_ec_pubkey_combine(_CTX, out, [p._pk for p in points], len(points)):
        raise ValueError("the sum is the identity")
    return Point(out)


def neg(point: Point) -> Point:
    """``-point``."""
    out = ffi.new("secp256k1_pubkey *", point._pk[0])
    lib.secp256k1_ec_pubkey_negate(_CTX, out)
    return Point(out)


def hash_to_point(label: bytes, data: bytes) -> Point:
    """A point nobody knows a logarithm of: try-and-increment on the x coordinate.

    x = SHA-256(frame(label, data, u32(ctr))) for ctr = 0, 1, ...; the first
    x below p that is the abscissa of a point gives the point with even y
    (about two tries on average; the inputs are public, so timing leaks nothing).
    """
    ctr = 0
    while True:
        x = hashlib.sha256(frame(label, data, ctr.to_bytes(4, "big"))).digest()
        try:
            return Point.decode(b"\x02" + x)
        except ValueError:
            ctr += 1


def derive_card_point(card: int) -> bytes:
    """Card ``card``'s point, the slow way (the shipped table is checked against it)."""
    if not 0 <= card < 44:
        raise ValueError(f"no card {card}")
    return hash_to_point(CARD_LABEL, bytes([card])).encode()


#: The generator G.
G = base(1)

#: SHA-256 of the 44 card points' encodings in card order: the derivation is
#: pinned, so a change to it cannot pass unnoticed (SPEC.md §2.2).
CARD_POINTS_SHA256 = "0584f04fac585eab7fbed44dbc8c4764b638bf8fe9eb2765f06cb8e6a1f81c3c"


def _card_points() -> tuple[bytes, ...]:
    # Derived at import (about a millisecond) rather than shipped: SHA-256 and
    # a point parse are stable, unlike the ed25519 hash of version 2's cards.
    points = tuple(derive_card_point(card) for card in range(44))
    if hashlib.sha256(b"".join(points)).hexdigest() != CARD_POINTS_SHA256:
        raise RuntimeError("the version 3 card points do not derive as pinned")
    return points


#: The 44 card points of version 3, card id = suit * 11 + rank as in version 2.
CARD_POINTS_V3: tuple[bytes, ...] = _card_points()
