"""Derivations from a seat's seed: deterministic, domain separated, well formed."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gleek_p2p.deck.group import is_valid_scalar
from gleek_p2p.deck.kdf import commitment, frame, lock_key, permutation, shuffle_key

seeds = st.binary(min_size=32, max_size=32)


@settings(max_examples=50)
@given(seeds, st.binary(min_size=1, max_size=20), st.integers(0, 2), st.integers(1, 44))
def test_permutation_is_a_permutation(seed: bytes, hand: bytes, seat: int, n: int) -> None:
    perm = permutation(seed, hand, seat, n)
    assert sorted(perm) == list(range(n))
    assert permutation(seed, hand, seat, n) == perm


@settings(max_examples=50)
@given(seeds, st.binary(min_size=1, max_size=20), st.integers(0, 2), st.integers(0, 43))
def test_keys_are_valid_scalars_and_deterministic(
    seed: bytes, hand: bytes, seat: int, slot: int
) -> None:
    assert is_valid_scalar(shuffle_key(seed, hand, seat))
    assert is_valid_scalar(lock_key(seed, hand, seat, slot))
    assert lock_key(seed, hand, seat, slot) == lock_key(seed, hand, seat, slot)


def test_every_input_separates_the_outputs() -> None:
    seed = bytes(32)
    base = lock_key(seed, b"h", 0, 0)
    assert lock_key(bytes([1]) + bytes(31), b"h", 0, 0) != base
    assert lock_key(seed, b"h2", 0, 0) != base
    assert lock_key(seed, b"h", 1, 0) != base
    assert lock_key(seed, b"h", 0, 1) != base
    assert shuffle_key(seed, b"h", 0) != base
    assert commitment(seed, b"h", 0) != commitment(seed, b"h", 1)
    assert commitment(seed, b"h", 0) != commitment(seed, b"h2", 0)
    assert permutation(seed, b"h", 0, 44) != permutation(seed, b"h", 1, 44)


def test_framing_is_unambiguous() -> None:
    assert frame(b"ab", b"c") != frame(b"a", b"bc")
    assert frame(b"ab") == b"\x00\x00\x00\x02ab"


def test_permutations_look_uniform_on_a_small_deck() -> None:
    # 3 cards, 6 permutations, 1200 seeds: each should turn up about 200 times.
    counts: dict[tuple[int, ...], int] = {}
    for i in range(1200):
        perm = permutation(i.to_bytes(32, "big"), b"h", 0, 3)
        counts[perm] = counts.get(perm, 0) + 1
    assert len(counts) == 6
    assert all(140 < c < 260 for c in counts.values())
