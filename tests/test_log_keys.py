"""Identities, public-key checks (small order refused), the key file."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from hypothesis import given
from hypothesis import strategies as st

from gleek_p2p.base.errors import GleekError, ProtocolError
from gleek_p2p.log.keys import (
    IDENTITY_FILE_NAME,
    Identity,
    check_public_key,
    fingerprint,
    load_or_create_identity,
    verify,
)

# Pure-Python Edwards arithmetic, independent of libsodium, to derive the
# points the checks must refuse.
P = 2**255 - 19
D = -121665 * pow(121666, -1, P) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)
L = 2**252 + 27742317777372353535851937790883648493
Point = tuple[int, int]
IDENTITY: Point = (0, 1)


def decompress(data: bytes) -> Point:
    n = int.from_bytes(data, "little")
    sign, y = n >> 255, n & ((1 << 255) - 1)
    assert y < P
    u = (y * y - 1) * pow(D * y * y + 1, -1, P) % P
    x = pow(u, (P + 3) // 8, P)
    if x * x % P != u:
        x = x * SQRT_M1 % P
    assert x * x % P == u
    if x & 1 != sign:
        x = P - x
    return x, y


def compress(pt: Point) -> bytes:
    x, y = pt
    return (y | (x & 1) << 255).to_bytes(32, "little")


def add(a: Point, b: Point) -> Point:
    (x1, y1), (x2, y2) = a, b
    t = D * x1 * x2 * y1 * y2 % P
    return (
        (x1 * y2 + x2 * y1) * pow(1 + t, -1, P) % P,
        (y1 * y2 + x1 * x2) * pow(1 - t, -1, P) % P,
    )


def mul(k: int, pt: Point) -> Point:
    result = IDENTITY
    while k:
        if k & 1:
            result = add(result, pt)
        pt = add(pt, pt)
        k >>= 1
    return result


ORDER_8 = decompress(
    bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05")
)
SMALL_ORDER = [compress(mul(k, ORDER_8)) for k in range(8)]


def test_the_eight_small_order_points() -> None:
    assert mul(8, ORDER_8) == IDENTITY and mul(4, ORDER_8) != IDENTITY
    assert len(set(SMALL_ORDER)) == 8
    assert bytes([1]) + bytes(31) in SMALL_ORDER  # the neutral point
    assert bytes(32) in SMALL_ORDER  # an order-4 point


@pytest.mark.parametrize("public", SMALL_ORDER, ids=[p.hex()[:8] for p in SMALL_ORDER])
def test_small_order_keys_refused(public: bytes) -> None:
    with pytest.raises(ProtocolError, match="small-order"):
        check_public_key(public)


def test_trivial_signature_accepted_by_openssl_but_not_by_us() -> None:
    neutral = bytes([1]) + bytes(31)
    trivial = neutral + bytes(32)  # R = neutral point, S = 0
    # The reason for the check: pyca/OpenSSL alone accepts this on any message.
    Ed25519PublicKey.from_public_bytes(neutral).verify(trivial, b"any message at all")
    assert not verify(neutral, b"any message at all", trivial)


@pytest.mark.parametrize(
    "public",
    [
        P.to_bytes(32, "little"),  # y = p (non-canonical 0)
        (P + 1).to_bytes(32, "little"),  # y = p + 1 (non-canonical neutral)
        (2**255 - 1).to_bytes(32, "little"),  # y = 2^255 - 1
        (1 | 1 << 255).to_bytes(32, "little"),  # neutral point with x sign bit set
        (2).to_bytes(32, "little"),  # y = 2 is not on the curve
    ],
)
def test_non_canonical_and_off_curve_keys_refused(public: bytes) -> None:
    with pytest.raises(ProtocolError):
        check_public_key(public)


@given(st.binary(min_size=32, max_size=32))
def test_honest_keys_accepted_and_mixed_order_refused(seed: bytes) -> None:
    public = Identity.generate(seed).public
    check_public_key(public)
    mixed = compress(add(decompress(public), ORDER_8))
    with pytest.raises(ProtocolError):
        check_public_key(mixed)


@pytest.mark.parametrize("bad", [b"", bytes(31), bytes(33), "0" * 32])
def test_wrong_length_or_type_refused(bad: bytes) -> None:
    with pytest.raises(ProtocolError):
        check_public_key(bad)
    assert not verify(bad, b"m", bytes(64))


def test_sign_and_verify() -> None:
    ident = Identity.generate(bytes(range(32)))
    sig = ident.sign(b"hello")
    assert len(sig) == 64 and sig == ident.sign(b"hello")
    assert verify(ident.public, b"hello", sig)
    assert not verify(ident.public, b"hellp", sig)
    assert not verify(ident.public, b"hello", sig[:-1] + bytes([sig[-1] ^ 1]))
    assert not verify(ident.public, b"hello", sig[:63])
    other = Identity.generate(bytes(32))
    assert not verify(other.public, b"hello", sig)


def test_high_s_signature_refused() -> None:
    # S + L verifies in a lax verifier; the strict one must refuse it.
    ident = Identity.generate(bytes(32))
    sig = ident.sign(b"m")
    s = int.from_bytes(sig[32:], "little") + L
    assert s < 2**256
    assert not verify(ident.public, b"m", sig[:32] + s.to_bytes(32, "little"))


def test_generate_needs_32_bytes() -> None:
    with pytest.raises(ValueError):
        Identity.generate(bytes(31))


def test_fingerprint_format() -> None:
    ident = Identity.generate(bytes(32))
    fp = fingerprint(ident.public)
    assert re.fullmatch(r"[0-9a-f]{4}(-[0-9a-f]{4}){3}", fp)
    assert ident.fingerprint == fp and fp in repr(ident)
    assert fingerprint(Identity.generate(bytes([1]) * 32).public) != fp
    assert ident.seed.hex() not in repr(ident)


def test_identity_file_created_private_and_reloaded(tmp_path: Path) -> None:
    data_dir = tmp_path / "data" / "gleek"
    calls: list[int] = []

    def random(n: int) -> bytes:
        calls.append(n)
        return bytes([7]) * n

    first = load_or_create_identity(data_dir, random)
    assert calls == [32]
    assert first.public == Identity.generate(bytes([7]) * 32).public
    key_file = data_dir / IDENTITY_FILE_NAME
    assert stat.S_IMODE(os.stat(key_file).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(data_dir).st_mode) == 0o700
    assert [p.name for p in data_dir.iterdir()] == [IDENTITY_FILE_NAME]  # no temp left

    again = load_or_create_identity(data_dir, lambda n: pytest.fail("must not draw"))
    assert again.public == first.public


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o660])
def test_identity_file_readable_by_others_refused(tmp_path: Path, mode: int) -> None:
    ident = load_or_create_identity(tmp_path / "d", os.urandom)
    key_file = tmp_path / "d" / IDENTITY_FILE_NAME
    os.chmod(key_file, mode)
    with pytest.raises(GleekError, match="chmod 600"):
        load_or_create_identity(tmp_path / "d", os.urandom)
    os.chmod(key_file, 0o600)
    assert load_or_create_identity(tmp_path / "d", os.urandom).public == ident.public


def test_damaged_identity_file_refused(tmp_path: Path) -> None:
    load_or_create_identity(tmp_path, os.urandom)
    key_file = tmp_path / IDENTITY_FILE_NAME
    key_file.write_bytes(key_file.read_bytes()[:-1])
    with pytest.raises(GleekError, match="damaged"):
        load_or_create_identity(tmp_path, os.urandom)


def test_data_dir_writable_by_others_refused(tmp_path: Path) -> None:
    data_dir = tmp_path / "shared"
    data_dir.mkdir()
    os.chmod(data_dir, 0o777)
    with pytest.raises(GleekError, match="writable by other users"):
        load_or_create_identity(data_dir, os.urandom)
    assert not (data_dir / IDENTITY_FILE_NAME).exists()


def test_a_signature_checked_once_is_not_taken_for_another_message_key_or_signature() -> None:
    # verify keeps the triples that verified (a peer's lobby and its table check
    # each event): a kept answer must never stand for a triple that differs.
    from gleek_p2p.log.keys import Identity, verify

    alice, bob = Identity.generate(b"\x01" * 32), Identity.generate(b"\x02" * 32)
    data = b"an event's signed bytes"
    signature = alice.sign(data)
    for _ in range(2):  # the second time from what was kept
        assert verify(alice.public, data, signature)
    assert not verify(alice.public, data + b"!", signature)
    assert not verify(alice.public, data[:-1], signature)
    assert not verify(bob.public, data, signature)
    assert not verify(alice.public, data, bytes([signature[0] ^ 1]) + signature[1:])
    # The key and signature have fixed sizes: moving bytes between them and the
    # message is another triple.
    assert not verify(alice.public, signature[-1:] + data, signature[:-1] + data[:1])
    # An unsafe key stays unsafe however often it is asked about.
    small_order = bytes([1]) + bytes(31)
    for _ in range(2):
        assert not verify(small_order, data, signature)
