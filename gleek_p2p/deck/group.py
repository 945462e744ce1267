"""The group: the prime-order subgroup of edwards25519, through libsodium.

Points are 32-byte canonical encodings, scalars 32-byte little-endian integers
reduced modulo the group order ``L`` and never zero: ``noclamp`` multiplication
silently drops the top bit of a scalar, so only reduced scalars are passed.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable

import nacl
import nacl.bindings as _b

from gleek_p2p.base.errors import GleekError

from .card_points import CARD_POINTS

#: The order of the prime-order subgroup of edwards25519.
L = 2**252 + 27742317777372353535851937790883648493

POINT_BYTES = 32
SCALAR_BYTES = 32

#: Label hashed with the card id to pick each card's point (see SPEC.md §2).
CARD_LABEL = b"gleek-p2p/deck/v1/card"

# The order-2 point (0, -1): adding it to a main-subgroup point gives the
# tag that libsodium before 1.0.20-stable (PyNaCl < 1.6.2) still accepted.
_ORDER_TWO = ((2**255 - 19) - 1).to_bytes(32, "little")


class UnsafeLibsodium(GleekError):
    """The libsodium build accepts points outside the prime-order subgroup."""


def _version_tuple(text: str) -> tuple[int, ...]:
    parts: list[int] = []
    for piece in text.split("."):
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


@functools.cache
def self_test() -> None:
    """Refuse to run on a libsodium that accepts a point plus the order-2 point.

    CVE-2025-69277: such a point passes ``is_valid_point`` on affected builds,
    and it is exactly the tag that would mark a card through encryption.
    """
    if _version_tuple(nacl.__version__) < (1, 6, 2):
        raise UnsafeLibsodium(f"PyNaCl {nacl.__version__} is too old: 1.6.2 or newer is required")
    tainted = _b.crypto_core_ed25519_add(card_point(0), _ORDER_TWO)
    if _b.crypto_core_ed25519_is_valid_point(tainted):
        raise UnsafeLibsodium(
            "this libsodium accepts points outside the prime-order subgroup (CVE-2025-69277)"
        )


def derive_card_point(card: int) -> bytes:
    """Hash a card id to the group (the slow way; the shipped table is checked against it)."""
    if not 0 <= card < len(CARD_POINTS):
        raise ValueError(f"no card {card}")
    uniform = hashlib.sha512(CARD_LABEL + bytes([card])).digest()[:32]
    return bytes(_b.crypto_core_ed25519_from_uniform(uniform))


def card_point(card: int) -> bytes:
    """The public point of a card id (0..43)."""
    return CARD_POINTS[card]


#: Point -> card id, for all 44 cards.
POINT_TO_CARD: dict[bytes, int] = {point: card for card, point in enumerate(CARD_POINTS)}


def is_valid_point(point: object) -> bool:
    """Canonical, in the prime-order subgroup, not the identity nor of small order."""
    return (
        isinstance(point, bytes)
        and len(point) == POINT_BYTES
        and bool(_b.crypto_core_ed25519_is_valid_point(point))
    )


def is_valid_scalar(scalar: object) -> bool:
    """A 32-byte little-endian integer in 1..L-1."""
    return (
        isinstance(scalar, bytes)
        and len(scalar) == SCALAR_BYTES
        and 0 < int.from_bytes(scalar, "little") < L
    )


def scalar_from_wide(wide: bytes) -> bytes:
    """Reduce 64 uniform bytes modulo L."""
    return bytes(_b.crypto_core_ed25519_scalar_reduce(wide))


def scalar_mul(a: bytes, b: bytes) -> bytes:
    """a * b mod L."""
    return bytes(_b.crypto_core_ed25519_scalar_mul(a, b))


def scalar_invert(a: bytes) -> bytes:
    """1 / a mod L (a must be non-zero)."""
    return bytes(_b.crypto_core_ed25519_scalar_invert(a))


def scalar_product(scalars: Iterable[bytes]) -> bytes:
    """The product of the scalars mod L (1 for none)."""
    acc = (1).to_bytes(SCALAR_BYTES, "little")
    for s in scalars:
        acc = scalar_mul(acc, s)
    return acc


def mul(scalar: bytes, point: bytes) -> bytes:
    """scalar * point: the one group operation the protocol spends its time on."""
    return bytes(_b.crypto_scalarmult_ed25519_noclamp(scalar, point))
