"""The proofs of deck protocol version 3: version 2's, on secp256k1 (SPEC.md §2.8).

The same two non-interactive proofs as ``proofs.py`` (a Terelius–Wikström
shuffle proof for a common-exponent shuffle, and the lock proof), made the
same way in compact form (challenge and responses), with three differences:
the group is secp256k1 (``group_v3``), every point stays decoded from the
moment it is read, and every scalar read from a proof must be canonical
(32 bytes big-endian below ``N``): anything else is a failed proof, never
reduced. Labels name version 3, so no proof serves both versions.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Sequence

from .group_v3 import G, N, Point, add, base, hash_to_point, mul, neg, scalar_bytes, scalar_int
from .kdf import frame
from .proofs import LockProof, ProofError, ShuffleProof, UnreducedScalar

LABEL_GENERATOR = b"gleek-p2p/deck/v3/generator"
LABEL_SHUFFLE = b"gleek-p2p/deck/v3/shuffle-proof"
LABEL_LOCK = b"gleek-p2p/deck/v3/lock-proof"
LABEL_NONCE = b"gleek-p2p/deck/v3/proof-nonce"


def _sub(p: Point, q: Point) -> Point:
    return add([p, neg(q)])


def _lincomb(scalars: Sequence[int], points: Sequence[Point]) -> Point:
    return add([mul(s, p) for s, p in zip(scalars, points, strict=True)])


def _enc(points: Sequence[Point]) -> bytes:
    return b"".join(p.encode() for p in points)


@functools.cache
def generator(index: int) -> Point:
    """Pedersen generator ``H_index``: nobody knows its logarithm to G or to another."""
    return hash_to_point(LABEL_GENERATOR, index.to_bytes(4, "big"))


@functools.cache
def _generators(n: int) -> tuple[Point, ...]:
    return tuple(generator(i + 1) for i in range(n))


@functools.cache
def _generator_sum(n: int) -> Point:
    return add(list(_generators(n)))


def _hash_scalar(*fields: bytes) -> int:
    # Reduced from 512 bits: the bias is below 2^-255.
    return int.from_bytes(hashlib.blake2b(frame(*fields), digest_size=64).digest(), "big") % N


def _nonces(seed: bytes, statement: bytes, count: int) -> list[int]:
    """Deterministic nonces: PRF(seed, label, statement, i) reduced, 0 -> 1."""
    out = []
    for i in range(count):
        data = frame(LABEL_NONCE, statement, i.to_bytes(4, "big"))
        n = int.from_bytes(hashlib.blake2b(data, digest_size=64, key=seed).digest(), "big")
        out.append(n % N or 1)
    return out


def _scalars(values: Sequence[bytes]) -> list[int]:
    try:
        return [scalar_int(v) for v in values]
    except ValueError as exc:
        # The same refusal, and code, as v2's: one byte form per proof.
        raise UnreducedScalar(f"a proof scalar is not canonical ({exc})") from None


def _points(values: Sequence[bytes]) -> list[Point]:
    try:
        return [Point.decode(v) for v in values]
    except ValueError as exc:
        raise ProofError(f"a proof point is not a point of the group ({exc})") from None


# ------------------------------------------------------------------ shuffle


def _u_vector(
    ctx: bytes, xs: Sequence[Point], ys: Sequence[Point], big_e: Point, cs: Sequence[Point]
) -> tuple[bytes, list[int]]:
    h1 = hashlib.blake2b(
        frame(LABEL_SHUFFLE, ctx, _enc(xs), _enc(ys), big_e.encode(), _enc(cs)),
        digest_size=64,
    ).digest()
    return h1, [_hash_scalar(h1, j.to_bytes(4, "big")) or 1 for j in range(len(xs))]


def _shuffle_challenge(h1: bytes, chain: Sequence[Point], firsts: Sequence[Point]) -> int:
    return _hash_scalar(LABEL_SHUFFLE, h1, _enc(chain), _enc(firsts))


def prove_shuffle(
    seed: bytes,
    ctx: bytes,
    xs: Sequence[Point],
    ys: Sequence[Point],
    e: int,
    perm: Sequence[int],
) -> ShuffleProof:
    """Prove ``ys[j] = e·xs[perm[j]]`` for the published ``E = e·G``."""
    n = len(xs)
    f = pow(e, -1, N)
    big_e = base(e)
    statement = frame(LABEL_SHUFFLE, ctx, _enc(xs), _enc(ys))
    w = _nonces(seed, statement, 4 * n + 4)
    r, b, w_b, w_v = w[:n], w[n : 2 * n], w[2 * n : 3 * n], w[3 * n : 4 * n]
    w_a, w_c, w_d, w_f = w[4 * n :]

    cs = [add([base(r[j]), generator(perm[j] + 1)]) for j in range(n)]
    h1, u = _u_vector(ctx, xs, ys, big_e, cs)
    inverse = [0] * n
    for j, i in enumerate(perm):
        inverse[i] = j
    v = [u[inverse[i]] for i in range(n)]  # v_i = u_{π^-1(i)}, indexed by input

    chain: list[Point] = []
    previous = generator(0)
    d = 0
    for i in range(n):
        previous = add([base(b[i]), mul(v[i], previous)])
        chain.append(previous)
        d = (b[i] + v[i] * d) % N

    firsts = [add([base(w_a), _lincomb(w_v, _generators(n))])]
    previous = generator(0)
    for i in range(n):
        firsts.append(add([base(w_b[i]), mul(w_v[i], previous)]))
        previous = chain[i]
    firsts.append(base(w_c))
    firsts.append(base(w_d))
    # Σ ω_i X_i − ω_f·Σ u_j Y_j with Σ u_j Y_j = e·Σ v_i X_i: one sum of N terms.
    firsts.append(_lincomb([(w_v[i] - w_f * e * v[i]) % N for i in range(n)], xs))
    firsts.append(mul(w_f, big_e))
    c = _shuffle_challenge(h1, chain, firsts)

    a_bar = sum(uj * rj for uj, rj in zip(u, r, strict=True))
    return ShuffleProof(
        commitments=tuple(p.encode() for p in cs),
        chain=tuple(p.encode() for p in chain),
        challenge=scalar_bytes(c),
        k_a=scalar_bytes(w_a + c * a_bar),
        k_b=tuple(scalar_bytes(w_b[i] + c * b[i]) for i in range(n)),
        k_c=scalar_bytes(w_c + c * sum(r)),
        k_d=scalar_bytes(w_d + c * d),
        k_v=tuple(scalar_bytes(w_v[i] + c * v[i]) for i in range(n)),
        k_f=scalar_bytes(w_f + c * f),
    )


def verify_shuffle(
    ctx: bytes,
    xs: Sequence[Point],
    ys: Sequence[Point],
    big_e: Point,
    proof: ShuffleProof,
) -> None:
    """Raise ``ProofError`` unless ``proof`` shows ``ys`` is ``xs`` permuted under ``E``'s key."""
    n = len(xs)
    if len(ys) != n or len(proof.commitments) != n or len(proof.chain) != n:
        raise ProofError("the shuffle proof does not hold one commitment and link per slot")
    if len(proof.k_b) != n or len(proof.k_v) != n:
        raise ProofError("the shuffle proof does not hold one response per slot")
    c, k_a, k_c, k_d, k_f = _scalars(
        [proof.challenge, proof.k_a, proof.k_c, proof.k_d, proof.k_f]
    )
    k_b = _scalars(proof.k_b)
    k_v = _scalars(proof.k_v)
    cs = _points(proof.commitments)
    chain = _points(proof.chain)
    try:
        h1, u = _u_vector(ctx, xs, ys, big_e, cs)
        # c·Σ u_j c_j folded into one sum: the challenge multiplies the weights.
        firsts = [
            add([base(k_a), _lincomb(k_v, _generators(n)),
                 _lincomb([(-c * uj) % N for uj in u], cs)])
        ]
        previous = generator(0)
        for i in range(n):
            firsts.append(add([base(k_b[i]), mul(k_v[i], previous), mul(N - c, chain[i])]))
            previous = chain[i]
        col_sum = _sub(add(cs), _generator_sum(n))
        firsts.append(_sub(base(k_c), mul(c, col_sum)))
        u_prod = 1
        for uj in u:
            u_prod = u_prod * uj % N
        d_point = _sub(chain[-1], mul(u_prod, generator(0)))
        firsts.append(_sub(base(k_d), mul(c, d_point)))
        firsts.append(add([_lincomb(k_v, xs), _lincomb([(-k_f * uj) % N for uj in u], ys)]))
        firsts.append(_sub(mul(k_f, big_e), base(c)))
    except ValueError as exc:
        # A zero scalar or a sum at the identity: an honest proof meets neither.
        raise ProofError(f"the shuffle proof holds an unusable value ({exc})") from None
    if _shuffle_challenge(h1, chain, firsts) != c:
        raise ProofError("the shuffle proof does not verify")


# --------------------------------------------------------------------- lock


def _lock_challenge(
    ctx: bytes,
    xs: Sequence[Point],
    ys: Sequence[Point],
    big_e: Point,
    big_k: Sequence[Point],
    firsts: Sequence[Point],
) -> int:
    return _hash_scalar(
        LABEL_LOCK, ctx, _enc(xs), _enc(ys), big_e.encode(), _enc(big_k), _enc(firsts)
    )


def prove_lock(
    seed: bytes,
    ctx: bytes,
    xs: Sequence[Point],
    ys: Sequence[Point],
    e: int,
    keys: Sequence[int],
    big_e: Point,
    big_k: Sequence[Point],
) -> LockProof:
    """Prove ``e·ys[j] = keys[j]·xs[j]`` for every slot, given ``E`` and the ``K_j``."""
    n = len(xs)
    w = _nonces(seed, frame(LABEL_LOCK, ctx, _enc(xs), _enc(ys)), n + 1)
    w_e, w_k = w[0], w[1:]
    firsts = [base(w_e)]
    firsts.extend(base(wk) for wk in w_k)
    inv_e = pow(e, -1, N)
    firsts.extend(mul((w_e * keys[j] * inv_e - w_k[j]) % N, xs[j]) for j in range(n))
    c = _lock_challenge(ctx, xs, ys, big_e, big_k, firsts)
    return LockProof(
        scalar_bytes(c),
        scalar_bytes(w_e + c * e),
        tuple(scalar_bytes(w_k[j] + c * keys[j]) for j in range(n)),
    )


def verify_lock(
    ctx: bytes,
    xs: Sequence[Point],
    ys: Sequence[Point],
    big_e: Point,
    big_k: Sequence[Point],
    proof: LockProof,
) -> None:
    """Raise ``ProofError`` unless each slot went from ``xs`` to ``ys`` by ``k_j / e``."""
    n = len(xs)
    if len(ys) != n or len(big_k) != n or len(proof.z_k) != n:
        raise ProofError("the lock proof does not hold one key commitment and response per slot")
    c, z_e = _scalars([proof.challenge, proof.z_e])
    z_k = _scalars(proof.z_k)
    minus_c = (-c) % N
    try:
        firsts = [add([base(z_e), mul(minus_c, big_e)])]
        firsts.extend(add([base(z_k[j]), mul(minus_c, big_k[j])]) for j in range(n))
        firsts.extend(add([mul(z_e, ys[j]), mul(N - z_k[j], xs[j])]) for j in range(n))
    except ValueError as exc:
        raise ProofError(f"the lock proof holds an unusable value ({exc})") from None
    if _lock_challenge(ctx, xs, ys, big_e, big_k, firsts) != c:
        raise ProofError("the lock proof does not verify")


def analytic_counts(n: int) -> dict[str, tuple[int, int]]:
    """Scalar multiplications (variable-base, base-point) of each operation, for N slots."""
    return {
        "shuffle_prove": (4 * n + 1, 3 * n + 4),
        "shuffle_verify": (6 * n + 5, n + 4),
        "lock_prove": (n, 2 * n + 1),
        "lock_verify": (3 * n + 1, n + 1),
    }


__all__ = ["G", "LockProof", "ProofError", "ShuffleProof", "generator", "prove_lock",
           "prove_shuffle", "verify_lock", "verify_shuffle"]
