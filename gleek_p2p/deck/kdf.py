"""Everything a seat draws for a hand, derived from its per-hand seed.

All hashing is BLAKE2b over *framed* fields: each field is its 4-byte
big-endian length followed by its bytes, so no two field lists share an
encoding. Labels are ASCII and name their use; the hand id and the seat are
in every input, so nothing derived for one hand or seat serves another.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import TypeVar

from .group import scalar_from_wide

T = TypeVar("T")

SEED_BYTES = 32
DIGEST_BYTES = 32

LABEL_COMMIT = b"gleek-p2p/deck/v1/commit"
LABEL_SHUFFLE_KEY = b"gleek-p2p/deck/v1/shuffle-key"
LABEL_LOCK_KEY = b"gleek-p2p/deck/v1/lock-key"
LABEL_PERMUTATION = b"gleek-p2p/deck/v1/permutation"


def frame(*fields: bytes) -> bytes:
    """Length-prefix every field (4-byte big-endian) and concatenate."""
    return b"".join(len(f).to_bytes(4, "big") + f for f in fields)


def _u32(n: int) -> bytes:
    return n.to_bytes(4, "big")


def commitment(seed: bytes, hand_id: bytes, seat: int) -> bytes:
    """The 32-byte digest a seat publishes before the shuffle: BLAKE2b-256(frame(...))."""
    data = frame(LABEL_COMMIT, hand_id, _u32(seat), seed)
    return hashlib.blake2b(data, digest_size=DIGEST_BYTES).digest()


def _prf(seed: bytes, *fields: bytes) -> bytes:
    """BLAKE2b-512 keyed with the seed: 64 bytes."""
    return hashlib.blake2b(frame(*fields), digest_size=64, key=seed).digest()


def prf_scalar(
    seed: bytes, label: bytes, hand_id: bytes, seat: int, index: int,
    reduce: Callable[[bytes], T], is_zero: Callable[[T], bool],
) -> T:
    """The first non-zero ``reduce(PRF(seed, label, hand_id, seat, index, ctr))``, ctr = 0, 1...

    Each version reduces the 64 bytes its own way (version 1 and 2: libsodium,
    little-endian mod L; version 3: big-endian mod N). A zero scalar has
    probability about 2^-252; the counter makes the rule total.
    """
    counter = 0
    while True:
        s = reduce(_prf(seed, label, hand_id, _u32(seat), _u32(index), _u32(counter)))
        if not is_zero(s):
            return s
        counter += 1  # pragma: no cover


def _scalar(seed: bytes, label: bytes, hand_id: bytes, seat: int, index: int) -> bytes:
    return prf_scalar(seed, label, hand_id, seat, index, scalar_from_wide,
                      lambda s: not any(s))


def shuffle_key(seed: bytes, hand_id: bytes, seat: int) -> bytes:
    """The one key a (non-last) shuffler encrypts the whole deck with."""
    return _scalar(seed, LABEL_SHUFFLE_KEY, hand_id, seat, 0)


def lock_key(seed: bytes, hand_id: bytes, seat: int, slot: int) -> bytes:
    """The seat's per-card key for one slot."""
    return _scalar(seed, LABEL_LOCK_KEY, hand_id, seat, slot)


def permutation(seed: bytes, hand_id: bytes, seat: int, n: int) -> tuple[int, ...]:
    """A uniform permutation of range(n): Fisher-Yates driven by the seed.

    Output slot ``j`` of the seat's shuffle takes input slot ``perm[j]``.
    Random words are 8-byte big-endian chunks of the blocks
    BLAKE2b-512(key=seed, frame(label, hand_id, seat, block)); a word ``w``
    gives ``w % m`` unless ``w >= 2**64 - 2**64 % m`` (rejected, take the next).
    """
    words: list[int] = []
    block = 0

    def next_word() -> int:
        nonlocal block
        if not words:
            data = _prf(seed, LABEL_PERMUTATION, hand_id, _u32(seat), _u32(block))
            block += 1
            words.extend(int.from_bytes(data[i : i + 8], "big") for i in range(56, -1, -8))
        return words.pop()

    perm = list(range(n))
    for i in range(n - 1, 0, -1):
        m = i + 1
        limit = 2**64 - (2**64 % m)
        while True:
            w = next_word()
            if w < limit:
                break
        j = w % m
        perm[i], perm[j] = perm[j], perm[i]
    return tuple(perm)
