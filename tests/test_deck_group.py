"""The group layer: card points, point and scalar checks, the libsodium self-test."""

from __future__ import annotations

import nacl
import nacl.bindings as b
import pytest

from gleek_p2p.deck import group
from gleek_p2p.deck.card_points import CARD_POINTS
from gleek_p2p.deck.group import (
    L,
    UnsafeLibsodium,
    derive_card_point,
    is_valid_point,
    is_valid_scalar,
    self_test,
)

P25519 = 2**255 - 19

# libsodium's small-order blocklist: the identity, order 2, 4 and 8 points.
SMALL_ORDER = [
    bytes(32),  # order 4
    (1).to_bytes(32, "little"),  # identity
    bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"),  # order 8
    bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"),  # order 8
    (P25519 - 1).to_bytes(32, "little"),  # order 2
]


def test_card_points_rederive_from_their_labels() -> None:
    assert len(CARD_POINTS) == 44
    for card, point in enumerate(CARD_POINTS):
        assert derive_card_point(card) == point


def test_card_points_are_distinct_valid_points() -> None:
    assert len(set(CARD_POINTS)) == 44
    assert all(is_valid_point(p) for p in CARD_POINTS)


def test_self_test_passes_on_this_build() -> None:
    self_test()


@pytest.mark.parametrize("small", SMALL_ORDER)
def test_small_order_points_and_their_sums_are_rejected(small: bytes) -> None:
    assert not is_valid_point(small)
    tainted = b.crypto_core_ed25519_add(CARD_POINTS[3], small)
    assert tainted != CARD_POINTS[3] or small == SMALL_ORDER[1]
    if small != SMALL_ORDER[1]:
        assert not is_valid_point(tainted)


def test_non_canonical_and_off_curve_encodings_are_rejected() -> None:
    assert not is_valid_point(P25519.to_bytes(32, "little"))  # y = p
    assert not is_valid_point((P25519 + 1).to_bytes(32, "little"))  # y = p + 1, i.e. 1
    off_curve = next(
        bytes([i]) + bytes(31)
        for i in range(2, 256)
        if not b.crypto_core_ed25519_is_valid_point(bytes([i]) + bytes(31))
    )
    assert not is_valid_point(off_curve)
    assert not is_valid_point(CARD_POINTS[0][:31])
    assert not is_valid_point("not bytes")


def test_scalars_must_be_reduced_and_non_zero() -> None:
    assert is_valid_scalar((1).to_bytes(32, "little"))
    assert is_valid_scalar((L - 1).to_bytes(32, "little"))
    assert not is_valid_scalar(bytes(32))
    assert not is_valid_scalar(L.to_bytes(32, "little"))
    assert not is_valid_scalar((2**256 - 1).to_bytes(32, "little"))
    assert not is_valid_scalar(bytes(31))
    assert not is_valid_scalar(7)


def test_self_test_refuses_a_build_that_accepts_a_tainted_point(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(b, "crypto_core_ed25519_is_valid_point", lambda p: True)
    group.self_test.cache_clear()
    try:
        with pytest.raises(UnsafeLibsodium, match="CVE-2025-69277"):
            group.self_test()
    finally:
        monkeypatch.undo()
        group.self_test.cache_clear()
    group.self_test()


def test_self_test_refuses_an_old_pynacl(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(nacl, "__version__", "1.5.0")
    group.self_test.cache_clear()
    try:
        with pytest.raises(UnsafeLibsodium, match=r"1\.6\.2"):
            group.self_test()
    finally:
        monkeypatch.undo()
        group.self_test.cache_clear()


def test_unlocking_inverts_locking() -> None:
    from gleek_p2p.deck.passes import unlock

    k1 = group.scalar_from_wide(bytes(range(64)))
    k2 = group.scalar_from_wide(bytes(range(1, 65)))
    locked = group.mul(k2, group.mul(k1, CARD_POINTS[5]))
    assert unlock(locked, [k1, k2]) == CARD_POINTS[5]
