"""The two groups the deck proofs run in, as instances of ``proofs.ProofGroup``.

``ED25519`` is deck version 2 (edwards25519 through libsodium, a point is its
32-byte encoding, scalars little-endian); ``SECP256K1`` is version 3
(secp256k1 through libsecp256k1, a point stays decoded as ``group_v3.Point``,
scalars big-endian); ``SECP256K1_V4`` is version 4, the same group under version 4's
labels. Everything else about the proofs is the same code
(``proofs.ProofSystem``), SPEC.md §2.8.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Literal

import nacl.bindings as _b

from . import group_v3
from .group import SCALAR_BYTES, L
from .group_v3 import N, Point
from .kdf import frame


class Ed25519Group:
    """edwards25519's prime-order subgroup; points are their canonical 32 bytes."""

    version = 2
    order = L
    scalar_refusal = "{where} of its {proof} is not reduced below L"
    scalar_bytes = SCALAR_BYTES
    endian: Literal["little", "big"] = "little"
    # libsodium refuses a zero scalar, an identity result or a point off the
    # subgroup (RuntimeError), and a point of the wrong size (ValueError, TypeError).
    unusable: tuple[type[Exception], ...] = (RuntimeError, ValueError, TypeError)
    # libsodium has no double multiplication: version 2 checks with mul, base and add.
    double_base = False

    def _s(self, k: int) -> bytes:
        return (k % L).to_bytes(SCALAR_BYTES, "little")

    def mul(self, k: int, point: bytes) -> bytes:
        return bytes(_b.crypto_scalarmult_ed25519_noclamp(self._s(k), point))

    def base(self, k: int) -> bytes:
        return bytes(_b.crypto_scalarmult_ed25519_base_noclamp(self._s(k)))

    def mul_base(self, a: int, point: bytes, b: int) -> bytes:
        return self.add([self.mul(a, point), self.base(b)])

    def lincomb(self, scalars: Sequence[int], points: Sequence[bytes]) -> bytes:
        return self.add([self.mul(k, p) for k, p in zip(scalars, points, strict=True)])

    def add(self, points: Sequence[bytes]) -> bytes:
        acc = points[0]
        for p in points[1:]:
            acc = bytes(_b.crypto_core_ed25519_add(acc, p))
        return acc

    def sub(self, p: bytes, q: bytes) -> bytes:
        return bytes(_b.crypto_core_ed25519_sub(p, q))

    def encode(self, point: bytes) -> bytes:
        return point

    def decode(self, data: bytes) -> bytes:
        # Checked where it is used: every multiplication refuses a bad point.
        return data

    def hash_to_point(self, label: bytes, data: bytes) -> bytes:
        uniform = hashlib.sha512(frame(label, data)).digest()[:32]
        return bytes(_b.crypto_core_ed25519_from_uniform(uniform))


class Secp256k1Group:
    """secp256k1 (prime order, cofactor 1); points stay decoded (``group_v3.Point``).

    Versions 3 and 4 run in it; the version only names the labels.
    """

    order = N
    scalar_refusal = "a proof scalar is not canonical ({why})"
    scalar_bytes = group_v3.SCALAR_BYTES
    endian: Literal["little", "big"] = "big"
    # A zero scalar or a sum at the identity (which has no encoding).
    unusable: tuple[type[Exception], ...] = (ValueError,)
    # ``a·P + b·G`` in one variable-time call, for the verifier's public scalars.
    double_base = True

    def __init__(self, version: int = 3) -> None:
        self.version = version

    def mul(self, k: int, point: Point) -> Point:
        return group_v3.mul(k, point)

    def base(self, k: int) -> Point:
        return group_v3.base(k)

    def mul_base(self, a: int, point: Point, b: int) -> Point:
        return group_v3.mul_base(a, point, b)

    def lincomb(self, scalars: Sequence[int], points: Sequence[Point]) -> Point:
        return group_v3.lincomb(scalars, points)

    def add(self, points: Sequence[Point]) -> Point:
        return group_v3.add(points)

    def sub(self, p: Point, q: Point) -> Point:
        return group_v3.add([p, group_v3.neg(q)])

    def encode(self, point: Point) -> bytes:
        return point.encode()

    def decode(self, data: bytes) -> Point:
        return Point.decode(data)

    def hash_to_point(self, label: bytes, data: bytes) -> Point:
        return group_v3.hash_to_point(label, data)


ED25519 = Ed25519Group()
SECP256K1 = Secp256k1Group(3)
SECP256K1_V4 = Secp256k1Group(4)
