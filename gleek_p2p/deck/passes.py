"""The passes as pure functions of a seat's seed and the deck it receives.

A seat's own pass and the audit's recomputation of it are the same call, so
the audit checks exactly what an honest seat would have sent.
"""

from __future__ import annotations

from collections.abc import Sequence

from .group import mul, scalar_invert, scalar_mul, scalar_product
from .kdf import lock_key, permutation, shuffle_key


def lock_keys(seed: bytes, hand_id: bytes, seat: int, n_slots: int) -> tuple[bytes, ...]:
    """The seat's per-card keys for every slot."""
    return tuple(lock_key(seed, hand_id, seat, slot) for slot in range(n_slots))


def shuffle_pass(
    seed: bytes, hand_id: bytes, seat: int, deck: Sequence[bytes], *, lock: bool
) -> tuple[bytes, ...]:
    """Permute the deck and encrypt it.

    ``out[j] = e * deck[perm[j]]`` with the seat's shuffle key ``e``; with
    ``lock`` (the last shuffler) ``out[j] = k_j * deck[perm[j]]`` with its
    per-card keys instead, since a shuffle key put on and taken off at once
    is no key at all: this saves a sequential hop.
    """
    n = len(deck)
    perm = permutation(seed, hand_id, seat, n)
    if lock:
        keys = lock_keys(seed, hand_id, seat, n)
        return tuple(mul(keys[j], deck[perm[j]]) for j in range(n))
    e = shuffle_key(seed, hand_id, seat)
    return tuple(mul(e, deck[perm[j]]) for j in range(n))


def lock_pass(seed: bytes, hand_id: bytes, seat: int, deck: Sequence[bytes]) -> tuple[bytes, ...]:
    """Swap the shuffle key for per-card keys: ``out[j] = (k_j / e) * deck[j]``."""
    inv_e = scalar_invert(shuffle_key(seed, hand_id, seat))
    keys = lock_keys(seed, hand_id, seat, len(deck))
    return tuple(mul(scalar_mul(inv_e, keys[j]), deck[j]) for j in range(len(deck)))


def unlock(point: bytes, keys: Sequence[bytes]) -> bytes:
    """Remove every seat's per-card key from a locked slot: one multiplication."""
    return mul(scalar_invert(scalar_product(keys)), point)
