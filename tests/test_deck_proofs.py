"""The shuffle and lock proofs: honest proofs verify, every tampering is refused."""

from __future__ import annotations

import hashlib
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gleek_p2p.deck import proofs as P
from gleek_p2p.deck.group import card_point, mul, scalar_invert, scalar_mul
from gleek_p2p.deck.kdf import lock_key, permutation, shuffle_key

HAND = b"test hand"
N = 12


def _seed(label: str) -> bytes:
    return hashlib.sha256(label.encode()).digest()


def _shuffle(
    seed: bytes, n: int = N, hand: bytes = HAND
) -> tuple[list[bytes], list[bytes], bytes, tuple[int, ...]]:
    xs = [card_point(c) for c in range(n)]
    e = shuffle_key(seed, hand, 0)
    perm = permutation(seed, hand, 0, n)
    ys = [mul(e, xs[perm[j]]) for j in range(n)]
    return xs, ys, e, perm


def _flip(data: bytes, bit: int = 0) -> bytes:
    return bytes([data[0] ^ (1 << bit)]) + data[1:]


SEED = _seed("prover")
XS, YS, E, PERM = _shuffle(SEED)
BIG_E = P.public_key(E)
CTX = P.context(HAND, 0, 3)
PROOF = P.prove_shuffle(SEED, CTX, XS, YS, E, PERM)


def test_an_honest_shuffle_proof_verifies_and_is_deterministic() -> None:
    P.verify_shuffle(CTX, XS, YS, BIG_E, PROOF)
    assert P.prove_shuffle(SEED, CTX, XS, YS, E, PERM) == PROOF


@pytest.mark.parametrize(
    "other",
    [
        P.context(b"another hand", 0, 3),
        P.context(HAND, 1, 3),
        P.context(HAND, 0, 4),
    ],
    ids=["hand-or-session", "seat", "pass"],
)
def test_a_shuffle_proof_serves_no_other_context(other: bytes) -> None:
    with pytest.raises(P.ProofError):
        P.verify_shuffle(other, XS, YS, BIG_E, PROOF)


@pytest.mark.parametrize(
    "field",
    ["commitments", "chain", "challenge", "k_a", "k_b", "k_c", "k_d", "k_v", "k_f"],
)
def test_one_flipped_bit_anywhere_in_a_shuffle_proof_is_refused(field: str) -> None:
    value = getattr(PROOF, field)
    if isinstance(value, tuple):
        value = (value[0], _flip(value[1], 3), *value[2:])
    else:
        value = _flip(value, 3)
    with pytest.raises(P.ProofError):
        P.verify_shuffle(CTX, XS, YS, BIG_E, replace(PROOF, **{field: value}))


def test_a_shuffle_proof_does_not_cover_another_output_or_key() -> None:
    swapped = [YS[1], YS[0], *YS[2:]]
    with pytest.raises(P.ProofError):
        P.verify_shuffle(CTX, XS, swapped, BIG_E, PROOF)
    with pytest.raises(P.ProofError):
        P.verify_shuffle(CTX, XS, YS, P.public_key(shuffle_key(SEED, b"x", 0)), PROOF)


def test_a_reblinded_copy_cannot_be_proved() -> None:
    # The attack of issue 10: slot 0 holds r·(slot 5), a copy of a victim's card.
    r = shuffle_key(_seed("blinding"), HAND, 9)
    forged = list(YS)
    forged[0] = mul(r, YS[5])
    # The best a cheater can do is run the honest prover on the forged deck.
    proof = P.prove_shuffle(SEED, CTX, XS, forged, E, PERM)
    with pytest.raises(P.ProofError):
        P.verify_shuffle(CTX, XS, forged, BIG_E, proof)


def test_repeated_points_cannot_be_proved() -> None:
    forged = [YS[0], YS[0], *YS[2:]]
    not_a_perm = (PERM[0], PERM[0], *PERM[2:])
    proof = P.prove_shuffle(SEED, CTX, XS, forged, E, not_a_perm)
    with pytest.raises(P.ProofError):
        P.verify_shuffle(CTX, XS, forged, BIG_E, proof)


def test_a_shuffle_proof_with_the_wrong_number_of_parts_is_refused() -> None:
    with pytest.raises(P.ProofError):
        P.verify_shuffle(CTX, XS, YS, BIG_E, replace(PROOF, chain=PROOF.chain[:-1]))
    with pytest.raises(P.ProofError):
        P.verify_shuffle(CTX, XS, YS, BIG_E, replace(PROOF, k_v=PROOF.k_v[:-1]))


def test_a_zero_scalar_or_an_off_group_point_is_a_failed_proof_not_a_crash() -> None:
    with pytest.raises(P.ProofError):
        P.verify_shuffle(CTX, XS, YS, BIG_E, replace(PROOF, k_f=bytes(32)))
    junk = (b"\xff" * 32, *PROOF.commitments[1:])
    with pytest.raises(P.ProofError):
        P.verify_shuffle(CTX, XS, YS, BIG_E, replace(PROOF, commitments=junk))


# --------------------------------------------------------------------- lock


def _lock(seed: bytes, xs: list[bytes], e: bytes) -> tuple[list[bytes], list[bytes], list[bytes]]:
    keys = [lock_key(seed, HAND, 0, j) for j in range(len(xs))]
    inv = scalar_invert(e)
    ys = [mul(scalar_mul(inv, keys[j]), xs[j]) for j in range(len(xs))]
    return keys, ys, [P.public_key(k) for k in keys]


KEYS, LOCKED, BIG_K = _lock(SEED, YS, E)
LOCK_CTX = P.context(HAND, 0, 5)
LOCK_PROOF = P.prove_lock(SEED, LOCK_CTX, YS, LOCKED, E, KEYS, BIG_E, BIG_K)


def test_an_honest_lock_proof_verifies() -> None:
    P.verify_lock(LOCK_CTX, YS, LOCKED, BIG_E, BIG_K, LOCK_PROOF)
    assert all(P.key_matches(k, kk) for k, kk in zip(KEYS, BIG_K, strict=True))


def test_a_slot_under_a_key_other_than_its_commitment_is_refused() -> None:
    wrong = list(LOCKED)
    wrong[4] = mul(scalar_mul(scalar_invert(E), KEYS[5]), YS[4])
    proof = P.prove_lock(SEED, LOCK_CTX, YS, wrong, E, KEYS, BIG_E, BIG_K)
    with pytest.raises(P.ProofError):
        P.verify_lock(LOCK_CTX, YS, wrong, BIG_E, BIG_K, proof)


def test_a_lock_proof_serves_no_other_pass_and_no_flipped_bit() -> None:
    with pytest.raises(P.ProofError):
        P.verify_lock(P.context(HAND, 0, 6), YS, LOCKED, BIG_E, BIG_K, LOCK_PROOF)
    bad = (LOCK_PROOF.z_k[0], _flip(LOCK_PROOF.z_k[1]), *LOCK_PROOF.z_k[2:])
    with pytest.raises(P.ProofError):
        P.verify_lock(LOCK_CTX, YS, LOCKED, BIG_E, BIG_K, replace(LOCK_PROOF, z_k=bad))
    with pytest.raises(P.ProofError):
        P.verify_lock(
            LOCK_CTX, YS, LOCKED, BIG_E, BIG_K, replace(LOCK_PROOF, z_e=_flip(LOCK_PROOF.z_e))
        )


def test_a_published_key_not_matching_its_commitment_is_seen() -> None:
    assert not P.key_matches(KEYS[1], BIG_K[0])


@settings(max_examples=15, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32), n=st.integers(min_value=2, max_value=8))
def test_honest_proofs_always_verify(seed: bytes, n: int) -> None:
    xs, ys, e, perm = _shuffle(seed, n)
    ctx = P.context(HAND, 1, 0)
    big_e = P.public_key(e)
    P.verify_shuffle(ctx, xs, ys, big_e, P.prove_shuffle(seed, ctx, xs, ys, e, perm))
    keys, locked, big_k = _lock(seed, ys, e)
    P.verify_lock(
        ctx, ys, locked, big_e, big_k, P.prove_lock(seed, ctx, ys, locked, e, keys, big_e, big_k)
    )


def _plus_l(scalar: bytes) -> bytes:
    return (int.from_bytes(scalar, "little") + P.L).to_bytes(32, "little")


@pytest.mark.parametrize(
    "field", ["challenge", "k_a", "k_b", "k_c", "k_d", "k_v", "k_f"])
def test_a_shuffle_proof_scalar_plus_l_is_refused_as_unreduced(field: str) -> None:
    # k + L acts exactly as k in the group: only the range check refuses it.
    value = getattr(PROOF, field)
    value = (*value[:-1], _plus_l(value[-1])) if isinstance(value, tuple) else _plus_l(value)
    with pytest.raises(P.UnreducedScalar, match="not reduced below L") as caught:
        P.verify_shuffle(CTX, XS, YS, BIG_E, replace(PROOF, **{field: value}))
    assert str(caught.value).lower().startswith(field[:3])  # the part is named


@pytest.mark.parametrize("field", ["challenge", "z_e", "z_k"])
def test_a_lock_proof_scalar_plus_l_is_refused_as_unreduced(field: str) -> None:
    value = getattr(LOCK_PROOF, field)
    value = (_plus_l(value[0]), *value[1:]) if isinstance(value, tuple) else _plus_l(value)
    with pytest.raises(P.UnreducedScalar):
        P.verify_lock(LOCK_CTX, YS, LOCKED, BIG_E, BIG_K, replace(LOCK_PROOF, **{field: value}))


def test_a_response_plus_l_would_verify_without_the_range_check(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Why the check exists: the same proof, another byte form, same equations.
    P.V2.check_reduced("test", {"low": bytes(32), "high": [(P.L - 1).to_bytes(32, "little")]})
    malleable = replace(PROOF, k_f=_plus_l(PROOF.k_f))
    monkeypatch.setattr(P.V2, "check_reduced", lambda what, scalars: None)
    P.verify_shuffle(CTX, XS, YS, BIG_E, malleable)
