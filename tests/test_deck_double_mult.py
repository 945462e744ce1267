"""The verifier's double multiplication ``a·P + b·G`` (deck version 3, SPEC.md §2.8 "Cost").

``group_v3.mul_base`` goes through ECDSA public-key recovery; it must equal
the three calls it stands for (``mul``, ``base``, ``add``), errors and their
words included, on every edge it can meet: a zero scalar, a result at the
identity, a point whose abscissa is not below N. A proof's verdict and its
reason must be the reference arithmetic's, whatever a forger sends.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import replace
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gleek_p2p.deck.group_v3 import Count, N, Point, add, base, lincomb, mul, mul_base
from gleek_p2p.deck.proofs import V3, LockProof, ProofError, ShuffleProof, analytic_counts_v3

SLOTS = 6
scalars = st.integers(min_value=1, max_value=N - 1)


def _outcome(fn: Callable[[], object]) -> object:
    """What a call gives: its value, or its exception's type and words."""
    try:
        return fn()
    except ValueError as exc:
        return ("ValueError", str(exc))


def _old(a: int, point: Point, b: int) -> object:
    return _outcome(lambda: add([mul(a, point), base(b)]))


def _new(a: int, point: Point, b: int) -> object:
    return _outcome(lambda: mul_base(a, point, b))


@cache
def _high_x_point() -> Point:
    """A point whose abscissa is at or above N (recovery cannot take it as r)."""
    for x in range(N, N + 1000):
        try:
            return Point.decode(b"\x03" + x.to_bytes(32, "big"))
        except ValueError:
            continue
    raise AssertionError("no point with x in [N, N + 1000)")  # pragma: no cover


@settings(max_examples=40, deadline=None)
@given(a=scalars, t=scalars, b=scalars)
def test_double_multiplication_equals_the_three_calls(a: int, t: int, b: int) -> None:
    point = base(t)
    Count.reset()
    got = _new(a, point, b)
    assert Count.double == 1 and Count.variable == Count.base == 0
    assert got == _old(a, point, b)  # the identity included (a·t + b = 0 mod N)
    # Scalars given unreduced mean the same.
    assert _new(a + N, point, b - N) == got


@settings(max_examples=20, deadline=None)
@given(a=scalars, b=scalars)
def test_a_point_with_x_at_or_above_n_takes_the_three_calls(a: int, b: int) -> None:
    point = _high_x_point()
    assert int.from_bytes(point.encode()[1:], "big") >= N
    Count.reset()
    got = mul_base(a, point, b)
    assert Count.double == 0 and Count.variable == Count.base == 1
    assert got == _old(a, point, b)


@settings(max_examples=20, deadline=None)
@given(a=scalars, t=scalars, b=scalars)
def test_zero_scalars_and_the_identity_fail_as_the_three_calls_do(a: int, t: int, b: int) -> None:
    point = base(t)
    for args in ((0, point, b), (a, point, 0), (N, point, b), (a, point, N), (0, point, 0)):
        assert _new(*args) == _old(*args) == ("ValueError", "multiplication by zero")
    # a·(t·G) + (−a·t)·G is the identity: recovery fails, and the words are the sum's.
    identity = (a, point, -a * t % N)
    assert _new(*identity) == _old(*identity) == ("ValueError", "the sum is the identity")
    high = _high_x_point()
    for args in ((0, high, b), (a, high, 0)):
        assert _new(*args) == _old(*args)


@settings(max_examples=20, deadline=None)
@given(ks=st.lists(scalars, min_size=1, max_size=6), ts=st.lists(scalars, min_size=6, max_size=6),
       zero_at=st.integers(min_value=-1, max_value=5))
def test_a_sum_of_products_in_one_array_is_the_reference_sum(
    ks: list[int], ts: list[int], zero_at: int
) -> None:
    points = [base(t) for t in ts[: len(ks)]]
    if 0 <= zero_at < len(ks):
        ks[zero_at] = 0
    reference = _outcome(lambda: add([mul(k, p) for k, p in zip(ks, points, strict=True)]))
    assert _outcome(lambda: lincomb(ks, points)) == reference
    # k·(t·G) + (−k·t)·G: the identity, refused with the sum's words.
    k, t = ks[0] or 1, ts[0]
    pair = ([k, -k * t % N], [base(t), base(1)])
    assert _outcome(lambda: lincomb(*pair)) == ("ValueError", "the sum is the identity")


def test_a_sum_of_products_fails_on_mismatched_lengths_with_the_reference_words() -> None:
    points = [base(3), base(4)]
    for ks in ([1], [1, 2, 3], [0, 2, 3]):
        reference = _outcome(
            lambda ks=ks: add([mul(k, p) for k, p in zip(ks, points, strict=True)]))
        assert _outcome(lambda ks=ks: lincomb(ks, points)) == reference
        assert isinstance(reference, tuple) and reference[0] == "ValueError"


def test_both_parities_and_a_small_abscissa() -> None:
    for t in range(1, 40):
        point = base(t)
        assert mul_base(7, point, 11) == add([mul(7, point), base(11)])
    parities = {base(t).encode()[0] for t in range(1, 40)}
    assert parities == {2, 3}


# ------------------------------------------------------------------ proofs


def _seed(label: bytes) -> bytes:
    return hashlib.sha256(label).digest()


def _scalar(label: bytes) -> int:
    return int.from_bytes(_seed(label), "big") % N


@cache
def _statement() -> tuple[list[Point], list[Point], int, Point, list[int], list[Point],
                          list[Point], bytes]:
    xs = [base(_scalar(b"x %d" % i)) for i in range(SLOTS)]
    e = _scalar(b"e")
    perm = [(5 * j + 1) % SLOTS for j in range(SLOTS)]  # gcd(5, SLOTS) = 1
    ys = [mul(e, xs[perm[j]]) for j in range(SLOTS)]
    keys = [_scalar(b"k %d" % j) for j in range(SLOTS)]
    inv_e = pow(e, -1, N)
    locked = [mul(inv_e * k % N, x) for k, x in zip(keys, xs, strict=True)]
    big_k = [base(k) for k in keys]
    return xs, ys, e, base(e), perm, locked, big_k, b"double-mult test ctx"


@cache
def _proofs() -> tuple[ShuffleProof, LockProof]:
    xs, ys, e, big_e, perm, locked, big_k, ctx = _statement()
    keys = [_scalar(b"k %d" % j) for j in range(SLOTS)]
    shuffle = V3.prove_shuffle(_seed(b"prover"), ctx, xs, ys, e, perm, big_e)
    lock = V3.prove_lock(_seed(b"prover"), ctx, xs, locked, e, keys, big_e, big_k)
    return shuffle, lock


def _verdict(check: Callable[[], None], double: bool) -> str:
    V3.double_base = double
    try:
        check()
    except ProofError as exc:
        return f"{type(exc).__name__}: {exc}"
    finally:
        V3.double_base = True
    return "accepted"


def _both(check: Callable[[], None]) -> str:
    fast, reference = _verdict(check, True), _verdict(check, False)
    assert fast == reference
    return fast


def _s(n: int) -> bytes:
    return (n % N).to_bytes(32, "big")


def _check_shuffle(proof: ShuffleProof) -> Callable[[], None]:
    xs, ys, _e, big_e, _perm, _locked, _big_k, ctx = _statement()
    return lambda: V3.verify_shuffle(ctx, xs, ys, big_e, proof)


def _check_lock(proof: LockProof) -> Callable[[], None]:
    xs, _ys, _e, big_e, _perm, locked, big_k, ctx = _statement()
    return lambda: V3.verify_lock(ctx, xs, locked, big_e, big_k, proof)


def test_honest_proofs_pass_with_the_counted_double_multiplications() -> None:
    shuffle, lock = _proofs()
    counts = analytic_counts_v3(SLOTS)
    Count.reset()
    _check_shuffle(shuffle)()
    assert (Count.variable, Count.base, Count.double) == counts["shuffle_verify"]
    Count.reset()
    _check_lock(lock)()
    assert (Count.variable, Count.base, Count.double) == counts["lock_verify"]
    assert _both(_check_shuffle(shuffle)) == _both(_check_lock(lock)) == "accepted"


def test_forged_identities_fail_with_the_reference_words() -> None:
    shuffle, lock = _proofs()
    _xs, _ys, e, _big_e, _perm, _locked, _big_k, _ctx = _statement()
    c = int.from_bytes(shuffle.challenge, "big")
    # T' = k_f·E − c·G is the identity when k_f = c/e.
    t_zero = replace(shuffle, k_f=_s(c * pow(e, -1, N)))
    assert "the sum is the identity" in _both(_check_shuffle(t_zero))
    c_lock = int.from_bytes(lock.challenge, "big")
    # R_E = z_e·G − c·E is the identity when z_e = c·e; R_0 likewise with k_0.
    r_zero = replace(lock, z_e=_s(c_lock * e))
    assert "the sum is the identity" in _both(_check_lock(r_zero))
    k_0 = _scalar(b"k 0")
    rj_zero = replace(lock, z_k=(_s(c_lock * k_0), *lock.z_k[1:]))
    assert "the sum is the identity" in _both(_check_lock(rj_zero))


def test_a_partial_identity_the_reference_never_forms_is_its_to_judge() -> None:
    shuffle, _lock = _proofs()
    # A forger's chain link B_1 = t·G: then k_v,1·B_1 + k_b,1·G is the identity
    # for k_b,1 = −k_v,1·t, a sum the reference never forms (its B'_2 also holds
    # −c·B_2): the double path falls back and the reference's verdict stands.
    t = _scalar(b"forged link")
    k_v1 = int.from_bytes(shuffle.k_v[1], "big")
    chain = (base(t).encode(), *shuffle.chain[1:])
    k_b = (shuffle.k_b[0], _s(-k_v1 * t), *shuffle.k_b[2:])
    forged = replace(shuffle, chain=chain, k_b=k_b)
    assert _both(_check_shuffle(forged)) == "ProofError: the shuffle proof does not verify"


@settings(max_examples=30, deadline=None)
@given(
    field=st.sampled_from(["challenge", "k_a", "k_b", "k_c", "k_d", "k_v", "k_f", "chain",
                           "commitments"]),
    index=st.integers(min_value=0, max_value=SLOTS - 1),
    value=st.one_of(st.just(0), st.just(1), st.just(N - 1), scalars),
    high_x=st.booleans(),
)
def test_a_tampered_shuffle_proof_gets_the_reference_verdict(
    field: str, index: int, value: int, high_x: bool
) -> None:
    shuffle, _lock = _proofs()
    current = getattr(shuffle, field)
    if field in ("chain", "commitments"):
        point = _high_x_point() if high_x else (base(value) if value else _high_x_point())
        new = (*current[:index], point.encode(), *current[index + 1:])
    elif isinstance(current, tuple):
        new = (*current[:index], _s(value), *current[index + 1:])
    else:
        new = _s(value)
    verdict = _both(_check_shuffle(replace(shuffle, **{field: new})))
    assert verdict != "accepted" or new == current


@settings(max_examples=30, deadline=None)
@given(
    field=st.sampled_from(["challenge", "z_e", "z_k"]),
    index=st.integers(min_value=0, max_value=SLOTS - 1),
    value=st.one_of(st.just(0), st.just(1), st.just(N - 1), scalars),
)
def test_a_tampered_lock_proof_gets_the_reference_verdict(
    field: str, index: int, value: int
) -> None:
    _shuffle, lock = _proofs()
    current = getattr(lock, field)
    new = (*current[:index], _s(value), *current[index + 1:]) if field == "z_k" else _s(value)
    verdict = _both(_check_lock(replace(lock, **{field: new})))
    assert verdict != "accepted" or new == current


def test_a_lock_commitment_with_x_at_or_above_n_is_checked_the_long_way() -> None:
    _shuffle, lock = _proofs()
    xs, _ys, _e, big_e, _perm, locked, big_k, ctx = _statement()
    forged = [_high_x_point(), *big_k[1:]]
    Count.reset()
    with pytest.raises(ProofError, match="does not verify"):
        V3.verify_lock(ctx, xs, locked, big_e, forged, lock)
    # The one commitment recovery cannot take costs a multiplication and a base one.
    assert (Count.double, Count.base) == (SLOTS, 1)
    assert _both(lambda: V3.verify_lock(ctx, xs, locked, big_e, forged, lock)) == (
        "ProofError: the lock proof does not verify")
