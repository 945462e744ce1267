"""Zero-knowledge proofs that a deck pass was done right (deck protocol v2, SPEC.md §2.8).

Two non-interactive proofs, made with Fiat–Shamir over BLAKE2b:

* ``prove_shuffle`` / ``verify_shuffle``: the output deck is a permutation of
  the input deck under one secret scalar ``e`` with ``E = e·G`` published,
  ``Y_j = e·X_π(j)``. A Terelius–Wikström proof of a shuffle (the one
  Verificatum implements) adapted to a common-exponent shuffle: Pedersen
  commitments ``c_j = r_j·G + H_π(j)`` to the permutation matrix, a challenge
  vector ``u``, and one Sigma protocol proving that the matrix is a
  permutation matrix (column sum, and a chain of commitments for the product
  of the permuted ``u``) and, linearly in ``f = e^-1``, that
  ``f·Σ u_j Y_j = Σ u'_i X_i`` and ``f·E = G``.
* ``prove_lock`` / ``verify_lock``: for every slot ``e·Y_j = k_j·X_j`` with
  ``E = e·G`` and ``K_j = k_j·G`` published (one Schnorr commitment for
  ``e`` shared by the slots, one per slot for ``k_j``, one challenge).

Proofs are in the compact form (challenge and responses): the verifier
recomputes the prover's first messages and checks that they hash to the
challenge. Nonces derive from the prover's seed and the statement, so fixed
seeds give byte-identical proofs. Every scalar of a proof must be below L
(``UnreducedScalar``): the arithmetic reduces mod L, so ``k + L`` would
otherwise verify too and one proof would have several byte forms. No
verifier ever sees a zero scalar or a point outside the prime-order
subgroup: libsodium's ``noclamp`` multiplication refuses both, and any such
refusal is a failed proof.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import nacl.bindings as _b

from gleek_p2p.base.errors import GleekError

from .group import POINT_BYTES, SCALAR_BYTES, L
from .kdf import frame

LABEL_GENERATOR = b"gleek-p2p/deck/v2/generator"
LABEL_SHUFFLE = b"gleek-p2p/deck/v2/shuffle-proof"
LABEL_LOCK = b"gleek-p2p/deck/v2/lock-proof"
LABEL_NONCE = b"gleek-p2p/deck/v2/proof-nonce"

#: The ed25519 base point G.
BASE = bytes(_b.crypto_scalarmult_ed25519_base_noclamp((1).to_bytes(32, "little")))


class ProofError(GleekError):
    """A proof does not verify (the reason says which part)."""


class UnreducedScalar(ProofError):
    """A scalar of a proof is not below L.

    The group arithmetic reduces every scalar mod L, so ``k + L`` would
    verify exactly as ``k`` does: refusing it gives each proof one byte form.
    """


def check_reduced(proof: str, parts: Mapping[str, bytes | Sequence[bytes]]) -> None:
    """Raise ``UnreducedScalar`` unless every scalar is 32 bytes encoding a value below L.

    ``parts`` names each scalar (or list of scalars) of the proof, for the
    reason. Zero is not refused here: a zero response is possible (with
    probability 1/L) and then fails in the multiplication like any unusable value.
    """
    for name, value in parts.items():
        scalars = (value,) if isinstance(value, bytes) else value
        for index, scalar in enumerate(scalars):
            if len(scalar) != SCALAR_BYTES or _i(scalar) >= L:
                where = name if isinstance(value, bytes) else f"{name}[{index}]"
                raise UnreducedScalar(f"{where} of its {proof} is not reduced below L")


# ------------------------------------------------------------ group helpers


class _Counter:
    """Counts scalar multiplications, for the benchmark's made-vs-analytic ratio."""

    variable = 0
    base = 0


COUNT = _Counter()


def _s(n: int) -> bytes:
    return (n % L).to_bytes(SCALAR_BYTES, "little")


def _i(scalar: bytes) -> int:
    return int.from_bytes(scalar, "little")


def _mul(n: int, point: bytes) -> bytes:
    COUNT.variable += 1
    return bytes(_b.crypto_scalarmult_ed25519_noclamp(_s(n), point))


def _base(n: int) -> bytes:
    COUNT.base += 1
    return bytes(_b.crypto_scalarmult_ed25519_base_noclamp(_s(n)))


def _add(p: bytes, q: bytes) -> bytes:
    return bytes(_b.crypto_core_ed25519_add(p, q))


def _sub(p: bytes, q: bytes) -> bytes:
    return bytes(_b.crypto_core_ed25519_sub(p, q))


def _sum(points: Sequence[bytes]) -> bytes:
    acc = points[0]
    for p in points[1:]:
        acc = _add(acc, p)
    return acc


def _lincomb(scalars: Sequence[int], points: Sequence[bytes]) -> bytes:
    return _sum([_mul(s, p) for s, p in zip(scalars, points, strict=True)])


@functools.cache
def generator(index: int) -> bytes:
    """Pedersen generator ``H_index``: nobody knows its logarithm to G or to another."""
    uniform = hashlib.sha512(frame(LABEL_GENERATOR, index.to_bytes(4, "big"))).digest()[:32]
    return bytes(_b.crypto_core_ed25519_from_uniform(uniform))


@functools.cache
def _generator_sum(n: int) -> bytes:
    return _sum([generator(i) for i in range(1, n + 1)])


def _hash_scalar(*fields: bytes) -> int:
    # Reduced from 512 bits: the bias is below 2^-259.
    return int.from_bytes(hashlib.blake2b(frame(*fields), digest_size=64).digest(), "little") % L


def _nonces(seed: bytes, statement: bytes, count: int) -> list[int]:
    """Deterministic nonces: PRF(seed, label, statement, i) reduced, as the KDF does."""
    out = []
    for i in range(count):
        data = frame(LABEL_NONCE, statement, i.to_bytes(4, "big"))
        n = int.from_bytes(hashlib.blake2b(data, digest_size=64, key=seed).digest(), "little")
        out.append(n % L or 1)
    return out


def context(hand_id: bytes, seat: int, pass_index: int) -> bytes:
    """What every challenge binds besides the decks: hand (with session), seat, pass."""
    return frame(hand_id, seat.to_bytes(4, "big"), pass_index.to_bytes(4, "big"))


# ------------------------------------------------------------------ shuffle


@dataclass(frozen=True)
class ShuffleProof:
    """Commitments ``c`` (N points), chain ``b`` (N points), challenge and responses."""

    commitments: tuple[bytes, ...]
    chain: tuple[bytes, ...]
    challenge: bytes
    k_a: bytes
    k_b: tuple[bytes, ...]
    k_c: bytes
    k_d: bytes
    k_v: tuple[bytes, ...]
    k_f: bytes

    def to_wire(self) -> list[object]:
        return [
            list(self.commitments),
            list(self.chain),
            self.challenge,
            self.k_a,
            list(self.k_b),
            self.k_c,
            self.k_d,
            list(self.k_v),
            self.k_f,
        ]

    @property
    def size(self) -> int:
        """Bytes of points and scalars (the wire adds a few bytes of framing)."""
        n = len(self.commitments)
        return 2 * n * POINT_BYTES + (2 * n + 5) * SCALAR_BYTES


def _u_vector(
    ctx: bytes, xs: Sequence[bytes], ys: Sequence[bytes], big_e: bytes, cs: Sequence[bytes]
) -> tuple[bytes, list[int]]:
    h1 = hashlib.blake2b(
        frame(LABEL_SHUFFLE, ctx, b"".join(xs), b"".join(ys), big_e, b"".join(cs)),
        digest_size=64,
    ).digest()
    return h1, [_hash_scalar(h1, j.to_bytes(4, "big")) or 1 for j in range(len(xs))]


def _shuffle_challenge(h1: bytes, chain: Sequence[bytes], firsts: Sequence[bytes]) -> int:
    return _hash_scalar(LABEL_SHUFFLE, h1, b"".join(chain), b"".join(firsts))


def prove_shuffle(
    seed: bytes,
    ctx: bytes,
    xs: Sequence[bytes],
    ys: Sequence[bytes],
    e: bytes,
    perm: Sequence[int],
) -> ShuffleProof:
    """Prove ``ys[j] = e·xs[perm[j]]`` for the published ``E = e·G``."""
    n = len(xs)
    e_int = _i(e)
    f = pow(e_int, -1, L)
    big_e = _base(e_int)
    statement = frame(LABEL_SHUFFLE, ctx, b"".join(xs), b"".join(ys))
    w = _nonces(seed, statement, 4 * n + 4)
    r, b, w_b, w_v = w[:n], w[n : 2 * n], w[2 * n : 3 * n], w[3 * n : 4 * n]
    w_a, w_c, w_d, w_f = w[4 * n :]

    cs = [_add(_base(r[j]), generator(perm[j] + 1)) for j in range(n)]
    h1, u = _u_vector(ctx, xs, ys, big_e, cs)
    inverse = [0] * n
    for j, i in enumerate(perm):
        inverse[i] = j
    v = [u[inverse[i]] for i in range(n)]  # v_i = u_{π^-1(i)}, indexed by input

    chain: list[bytes] = []
    previous = generator(0)
    d = 0
    for i in range(n):
        previous = _add(_base(b[i]), _mul(v[i], previous))
        chain.append(previous)
        d = (b[i] + v[i] * d) % L

    firsts = [_add(_base(w_a), _lincomb(w_v, [generator(i + 1) for i in range(n)]))]
    previous = generator(0)
    for i in range(n):
        firsts.append(_add(_base(w_b[i]), _mul(w_v[i], previous)))
        previous = chain[i]
    firsts.append(_base(w_c))
    firsts.append(_base(w_d))
    # F' = Σ ω_i X_i − ω_f·Σ u_j Y_j, and Σ u_j Y_j = e·Σ v_i X_i: the prover,
    # knowing e and v, folds both sums into one (N multiplications, not 2N+1).
    firsts.append(_lincomb([(w_v[i] - w_f * e_int * v[i]) % L for i in range(n)], xs))
    firsts.append(_mul(w_f, big_e))
    c = _shuffle_challenge(h1, chain, firsts)

    a_bar = sum(uj * rj for uj, rj in zip(u, r, strict=True))
    return ShuffleProof(
        commitments=tuple(cs),
        chain=tuple(chain),
        challenge=_s(c),
        k_a=_s(w_a + c * a_bar),
        k_b=tuple(_s(w_b[i] + c * b[i]) for i in range(n)),
        k_c=_s(w_c + c * sum(r)),
        k_d=_s(w_d + c * d),
        k_v=tuple(_s(w_v[i] + c * v[i]) for i in range(n)),
        k_f=_s(w_f + c * f),
    )


def verify_shuffle(
    ctx: bytes,
    xs: Sequence[bytes],
    ys: Sequence[bytes],
    big_e: bytes,
    proof: ShuffleProof,
) -> None:
    """Raise ``ProofError`` unless ``proof`` shows ``ys`` is ``xs`` permuted under ``E``'s key."""
    n = len(xs)
    if len(ys) != n or len(proof.commitments) != n or len(proof.chain) != n:
        raise ProofError("the shuffle proof does not hold one commitment and link per slot")
    if len(proof.k_b) != n or len(proof.k_v) != n:
        raise ProofError("the shuffle proof does not hold one response per slot")
    check_reduced("shuffle proof", {
        "challenge": proof.challenge, "k_A": proof.k_a, "k_B": proof.k_b, "k_C": proof.k_c,
        "k_D": proof.k_d, "k_v": proof.k_v, "k_f": proof.k_f})
    try:
        h1, u = _u_vector(ctx, xs, ys, big_e, proof.commitments)
        c = _i(proof.challenge)
        k_v = [_i(k) for k in proof.k_v]
        a = _lincomb(u, proof.commitments)
        firsts = [
            _sub(
                _add(_base(_i(proof.k_a)), _lincomb(k_v, [generator(i + 1) for i in range(n)])),
                _mul(c, a),
            )
        ]
        previous = generator(0)
        for i in range(n):
            link = _add(_base(_i(proof.k_b[i])), _mul(k_v[i], previous))
            firsts.append(_sub(link, _mul(c, proof.chain[i])))
            previous = proof.chain[i]
        col_sum = _sub(_sum(proof.commitments), _generator_sum(n))
        firsts.append(_sub(_base(_i(proof.k_c)), _mul(c, col_sum)))
        u_prod = 1
        for uj in u:
            u_prod = u_prod * uj % L
        d_point = _sub(proof.chain[-1], _mul(u_prod, generator(0)))
        firsts.append(_sub(_base(_i(proof.k_d)), _mul(c, d_point)))
        k_f = _i(proof.k_f)
        f_y = _lincomb(u, ys)
        firsts.append(_sub(_lincomb(k_v, xs), _mul(k_f, f_y)))
        firsts.append(_sub(_mul(k_f, big_e), _base(c)))
    except (RuntimeError, ValueError, TypeError) as exc:
        # libsodium refuses a zero scalar, an identity result or a point off
        # the subgroup: an honest proof meets none of them.
        raise ProofError(f"the shuffle proof holds an unusable value ({exc})") from None
    if _shuffle_challenge(h1, proof.chain, firsts) != c:
        raise ProofError("the shuffle proof does not verify")


# --------------------------------------------------------------------- lock


@dataclass(frozen=True)
class LockProof:
    """Challenge, the response for ``e`` and one response per slot's key."""

    challenge: bytes
    z_e: bytes
    z_k: tuple[bytes, ...]

    def to_wire(self) -> list[object]:
        return [self.challenge, self.z_e, list(self.z_k)]

    @property
    def size(self) -> int:
        return (len(self.z_k) + 2) * SCALAR_BYTES


def _lock_challenge(
    ctx: bytes,
    xs: Sequence[bytes],
    ys: Sequence[bytes],
    big_e: bytes,
    big_k: Sequence[bytes],
    firsts: Sequence[bytes],
) -> int:
    return _hash_scalar(
        LABEL_LOCK,
        ctx,
        b"".join(xs),
        b"".join(ys),
        big_e,
        b"".join(big_k),
        b"".join(firsts),
    )


def prove_lock(
    seed: bytes,
    ctx: bytes,
    xs: Sequence[bytes],
    ys: Sequence[bytes],
    e: bytes,
    keys: Sequence[bytes],
    big_e: bytes,
    big_k: Sequence[bytes],
) -> LockProof:
    """Prove ``e·ys[j] = keys[j]·xs[j]`` for every slot, given ``E`` and the ``K_j``."""
    n = len(xs)
    w = _nonces(seed, frame(LABEL_LOCK, ctx, b"".join(xs), b"".join(ys)), n + 1)
    w_e, w_k = w[0], w[1:]
    firsts = [_base(w_e)]
    firsts.extend(_base(wk) for wk in w_k)
    # T_j = w_e·Y_j − w_j·X_j with Y_j = (k_j/e)·X_j: one multiplication, not two.
    inv_e = pow(_i(e), -1, L)
    firsts.extend(_mul((w_e * _i(keys[j]) * inv_e - w_k[j]) % L, xs[j]) for j in range(n))
    c = _lock_challenge(ctx, xs, ys, big_e, big_k, firsts)
    return LockProof(
        _s(c),
        _s(w_e + c * _i(e)),
        tuple(_s(w_k[j] + c * _i(keys[j])) for j in range(n)),
    )


def verify_lock(
    ctx: bytes,
    xs: Sequence[bytes],
    ys: Sequence[bytes],
    big_e: bytes,
    big_k: Sequence[bytes],
    proof: LockProof,
) -> None:
    """Raise ``ProofError`` unless each slot went from ``xs`` to ``ys`` by ``k_j / e``."""
    n = len(xs)
    if len(ys) != n or len(big_k) != n or len(proof.z_k) != n:
        raise ProofError("the lock proof does not hold one key commitment and response per slot")
    check_reduced("lock proof", {"challenge": proof.challenge, "z_e": proof.z_e,
                                 "z_k": proof.z_k})
    try:
        c = _i(proof.challenge)
        z_e = _i(proof.z_e)
        z_k = [_i(z) for z in proof.z_k]
        firsts = [_sub(_base(z_e), _mul(c, big_e))]
        firsts.extend(_sub(_base(z_k[j]), _mul(c, big_k[j])) for j in range(n))
        firsts.extend(_sub(_mul(z_e, ys[j]), _mul(z_k[j], xs[j])) for j in range(n))
    except (RuntimeError, ValueError, TypeError) as exc:
        raise ProofError(f"the lock proof holds an unusable value ({exc})") from None
    if _lock_challenge(ctx, xs, ys, big_e, big_k, firsts) != c:
        raise ProofError("the lock proof does not verify")


def key_matches(key: bytes, commitment: bytes) -> bool:
    """A published per-card key against its commitment: one base-point multiplication."""
    return _base(_i(key)) == commitment


def public_key(scalar: bytes) -> bytes:
    """``scalar·G`` (the published commitment ``E`` or ``K_j``)."""
    return _base(_i(scalar))


def analytic_counts(n: int) -> dict[str, tuple[int, int]]:
    """Scalar multiplications (variable-base, base-point) of each operation, for N slots."""
    return {
        "shuffle_prove": (4 * n + 1, 3 * n + 4),
        "shuffle_verify": (6 * n + 6, n + 4),
        "lock_prove": (n, 2 * n + 1),
        "lock_verify": (3 * n + 1, n + 1),
    }
