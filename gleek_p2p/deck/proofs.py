"""Zero-knowledge proofs that a deck pass was done right (deck protocols v2 to v4, SPEC.md §2.8).

Non-interactive proofs, made with Fiat–Shamir over BLAKE2b, written once
for any prime-order group (``ProofGroup``; the instances are in
``proof_groups``: edwards25519 for version 2, secp256k1 for versions 3 and 4):

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
seeds give byte-identical proofs. Every scalar of a proof must be below the
group order (``UnreducedScalar``): the arithmetic reduces, so ``k + L`` would
otherwise verify too and one proof would have several byte forms. What
differs between the versions is only the group's: its labels (``v2``/``v3``),
the byte order of scalars and of hashes read as scalars, and its points.

The module-level ``prove_*``/``verify_*`` functions are version 2's, with
scalars as bytes (``V2``); ``V3`` and ``V4`` are versions 3 and 4, with scalars as ints.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, Literal, Protocol, TypeVar

from gleek_p2p.base.errors import GleekError

from .group import POINT_BYTES, SCALAR_BYTES, L
from .kdf import frame
from .proof_groups import ED25519, SECP256K1, SECP256K1_V4

PointT = TypeVar("PointT")


class ProofError(GleekError):
    """A proof does not verify (the reason says which part)."""


class UnreducedScalar(ProofError):
    """A scalar of a proof is not canonical: not its group's size, or not below its order.

    The group arithmetic reduces every scalar, so ``k + L`` would verify
    exactly as ``k`` does: refusing it gives each proof one byte form.
    """


class ProofGroup(Protocol[PointT]):
    """What the proofs need of a prime-order group (``proof_groups`` has the two)."""

    version: int
    order: int
    #: The reason given for a proof scalar out of range, from ``where``,
    #: ``proof`` and ``why`` (it is signed into logs: it never changes).
    scalar_refusal: str
    scalar_bytes: int
    endian: Literal["little", "big"]
    #: What the group's calls raise on an unusable value (a zero scalar, the identity...).
    unusable: tuple[type[Exception], ...]
    #: Whether ``mul_base`` is one double multiplication (then the verifier uses it).
    double_base: bool

    def mul(self, k: int, point: PointT) -> PointT: ...
    def base(self, k: int) -> PointT: ...
    #: ``a·point + b·G``, failing exactly as ``add([mul(a, point), base(b)])``;
    #: variable time, so for public scalars only.
    def mul_base(self, a: int, point: PointT, b: int) -> PointT: ...
    #: ``Σ scalars[i]·points[i]``, failing exactly as ``add([mul(k, p) ...])``.
    def lincomb(self, scalars: Sequence[int], points: Sequence[PointT]) -> PointT: ...
    def add(self, points: Sequence[PointT]) -> PointT: ...
    def sub(self, p: PointT, q: PointT) -> PointT: ...
    def encode(self, point: PointT) -> bytes: ...
    def decode(self, data: bytes) -> PointT: ...
    def hash_to_point(self, label: bytes, data: bytes) -> PointT: ...


def context(hand_id: bytes, seat: int, pass_index: int) -> bytes:
    """What every challenge binds besides the decks: hand (with session), seat, pass."""
    return frame(hand_id, seat.to_bytes(4, "big"), pass_index.to_bytes(4, "big"))


# ------------------------------------------------------------------ proofs


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


@dataclass(frozen=True)
class StripProof:
    """Version 4: the challenge and the one response of a batched Chaum–Pedersen proof."""

    challenge: bytes
    z: bytes

    def to_wire(self) -> list[object]:
        return [self.challenge, self.z]

    @property
    def size(self) -> int:
        return 2 * SCALAR_BYTES


class ProofSystem(Generic[PointT]):
    """The shuffle and lock proofs in one group: scalars are ints, points the group's."""

    def __init__(self, group: ProofGroup[PointT]) -> None:
        self.group = group
        label = b"gleek-p2p/deck/v%d/" % group.version
        self.label_generator = label + b"generator"
        self.label_shuffle = label + b"shuffle-proof"
        self.label_lock = label + b"lock-proof"
        self.label_nonce = label + b"proof-nonce"
        self.label_strip = label + b"strip-proof"
        self._generators: list[PointT] = []
        self._generator_lock = threading.Lock()
        self._generator_sums: dict[int, PointT] = {}
        #: Check with the group's double multiplication (SPEC.md §2.8, "Cost");
        #: off, every check takes the reference arithmetic (the benchmark compares).
        self.double_base = group.double_base

    # ------------------------------------------------------------ helpers

    def scalar(self, n: int) -> bytes:
        """A scalar's wire form: reduced, the group's size and byte order."""
        g = self.group
        return (n % g.order).to_bytes(g.scalar_bytes, g.endian)

    def check_reduced(self, proof: str, parts: Mapping[str, bytes | Sequence[bytes]]) -> None:
        """Raise ``UnreducedScalar`` unless every scalar is the group's size and below its order.

        ``parts`` names each scalar (or list of scalars) of the proof, for the
        reason. Zero is not refused here: a zero response is possible (with
        probability 1/order) and then fails in the group like any unusable value.
        """
        g = self.group
        for name, value in parts.items():
            scalars = (value,) if isinstance(value, bytes) else value
            for index, scalar in enumerate(scalars):
                if type(scalar) is not bytes or len(scalar) != g.scalar_bytes:
                    why = f"a scalar is {g.scalar_bytes} bytes"
                elif int.from_bytes(scalar, g.endian) >= g.order:
                    why = "a scalar is not below the group order"
                else:
                    continue
                where = name if isinstance(value, bytes) else f"{name}[{index}]"
                # The reason is signed into an abort event: each version keeps its words.
                raise UnreducedScalar(g.scalar_refusal.format(where=where, proof=proof, why=why))

    def _ints(self, scalars: Sequence[bytes]) -> list[int]:
        return [int.from_bytes(s, self.group.endian) for s in scalars]

    def _points(self, values: Sequence[bytes]) -> list[PointT]:
        try:
            return [self.group.decode(v) for v in values]
        except ValueError as exc:
            raise ProofError(f"a proof point is not a point of the group ({exc})") from None

    def _enc(self, points: Sequence[PointT]) -> bytes:
        return b"".join(self.group.encode(p) for p in points)

    def _lincomb(self, scalars: Sequence[int], points: Sequence[PointT]) -> PointT:
        return self.group.lincomb(scalars, points)

    def generator(self, index: int) -> PointT:
        """Pedersen generator ``H_index``: nobody knows its logarithm to G or to another.

        Derived on first use, under a lock: a seat's check and its next pass
        made beside it (``DeckProtocol.precheck``) may both ask first, and
        two threads extending the list at once would each append ``H_i``
        for the same ``i`` (a list where ``H_(i+1)`` is ``H_i``: wrong proofs
        made, honest ones refused).
        """
        if index < len(self._generators):
            return self._generators[index]
        with self._generator_lock:
            while len(self._generators) <= index:
                i = len(self._generators)
                self._generators.append(
                    self.group.hash_to_point(self.label_generator, i.to_bytes(4, "big")))
        return self._generators[index]

    def _generator_list(self, n: int) -> list[PointT]:
        self.generator(n)
        return self._generators[1 : n + 1]

    def _generator_sum(self, n: int) -> PointT:
        if n not in self._generator_sums:
            self._generator_sums[n] = self.group.add(self._generator_list(n))
        return self._generator_sums[n]

    def _hash_scalar(self, *fields: bytes) -> int:
        # Reduced from 512 bits: the bias is below 2^-255.
        digest = hashlib.blake2b(frame(*fields), digest_size=64).digest()
        return int.from_bytes(digest, self.group.endian) % self.group.order

    def _nonces(self, seed: bytes, statement: bytes, count: int) -> list[int]:
        """Deterministic nonces: PRF(seed, label, statement, i) reduced, 0 -> 1."""
        out = []
        g = self.group
        # frame(label, statement, u32(i)) differs between the nonces only in its
        # last 4 bytes: the keyed state after the common prefix (the statement
        # holds both decks, kilobytes) is hashed once and copied per nonce.
        prefix = hashlib.blake2b(digest_size=64, key=seed)
        prefix.update(frame(self.label_nonce, statement)
                      + (4).to_bytes(4, "big"))
        for i in range(count):
            h = prefix.copy()
            h.update(i.to_bytes(4, "big"))
            n = int.from_bytes(h.digest(), g.endian)
            out.append(n % g.order or 1)
        return out

    # ------------------------------------------------------------ shuffle

    def _u_vector(
        self, ctx: bytes, xs: Sequence[PointT], ys: Sequence[PointT], big_e: PointT,
        cs: Sequence[PointT],
    ) -> tuple[bytes, list[int]]:
        h1 = hashlib.blake2b(
            frame(self.label_shuffle, ctx, self._enc(xs), self._enc(ys), self.group.encode(big_e),
                  self._enc(cs)),
            digest_size=64,
        ).digest()
        return h1, [self._hash_scalar(h1, j.to_bytes(4, "big")) or 1 for j in range(len(xs))]

    def _shuffle_challenge(
        self, h1: bytes, chain: Sequence[PointT], firsts: Sequence[PointT]
    ) -> int:
        return self._hash_scalar(self.label_shuffle, h1, self._enc(chain), self._enc(firsts))

    def prove_shuffle(
        self, seed: bytes, ctx: bytes, xs: Sequence[PointT], ys: Sequence[PointT], e: int,
        perm: Sequence[int], big_e: PointT | None = None,
    ) -> ShuffleProof:
        """Prove ``ys[j] = e·xs[perm[j]]`` for the published ``E = e·G`` (made if not given)."""
        g, q = self.group, self.group.order
        n = len(xs)
        f = pow(e, -1, q)
        if big_e is None:
            big_e = g.base(e)
        statement = frame(self.label_shuffle, ctx, self._enc(xs), self._enc(ys))
        w = self._nonces(seed, statement, 4 * n + 4)
        r, b, w_b, w_v = w[:n], w[n : 2 * n], w[2 * n : 3 * n], w[3 * n : 4 * n]
        w_a, w_c, w_d, w_f = w[4 * n :]

        cs = [g.add([g.base(r[j]), self.generator(perm[j] + 1)]) for j in range(n)]
        h1, u = self._u_vector(ctx, xs, ys, big_e, cs)
        inverse = [0] * n
        for j, i in enumerate(perm):
            inverse[i] = j
        v = [u[inverse[i]] for i in range(n)]  # v_i = u_{π^-1(i)}, indexed by input

        chain: list[PointT] = []
        previous = self.generator(0)
        d = 0
        for i in range(n):
            previous = g.add([g.base(b[i]), g.mul(v[i], previous)])
            chain.append(previous)
            d = (b[i] + v[i] * d) % q

        firsts = [g.add([g.base(w_a), self._lincomb(w_v, self._generator_list(n))])]
        previous = self.generator(0)
        for i in range(n):
            firsts.append(g.add([g.base(w_b[i]), g.mul(w_v[i], previous)]))
            previous = chain[i]
        firsts.append(g.base(w_c))
        firsts.append(g.base(w_d))
        # F' = Σ ω_i X_i − ω_f·Σ u_j Y_j, and Σ u_j Y_j = e·Σ v_i X_i: the prover,
        # knowing e and v, folds both sums into one (N multiplications, not 2N+1).
        firsts.append(self._lincomb([(w_v[i] - w_f * e * v[i]) % q for i in range(n)], xs))
        # T' = ω_f·E = (ω_f·e)·G: the prover knows e, so a base-point multiplication
        # (cheaper, and constant-time for this secret nonce) makes the same point.
        firsts.append(g.base(w_f * e % q))
        c = self._shuffle_challenge(h1, chain, firsts)

        a_bar = sum(uj * rj for uj, rj in zip(u, r, strict=True))
        s = self.scalar
        return ShuffleProof(
            commitments=tuple(g.encode(p) for p in cs),
            chain=tuple(g.encode(p) for p in chain),
            challenge=s(c),
            k_a=s(w_a + c * a_bar),
            k_b=tuple(s(w_b[i] + c * b[i]) for i in range(n)),
            k_c=s(w_c + c * sum(r)),
            k_d=s(w_d + c * d),
            k_v=tuple(s(w_v[i] + c * v[i]) for i in range(n)),
            k_f=s(w_f + c * f),
        )

    def verify_shuffle(
        self, ctx: bytes, xs: Sequence[PointT], ys: Sequence[PointT], big_e: PointT,
        proof: ShuffleProof,
    ) -> None:
        """Raise ``ProofError`` unless ``proof`` shows ``ys`` is ``xs`` permuted under ``E``."""
        g = self.group
        n = len(xs)
        if len(ys) != n or len(proof.commitments) != n or len(proof.chain) != n:
            raise ProofError("the shuffle proof does not hold one commitment and link per slot")
        if len(proof.k_b) != n or len(proof.k_v) != n:
            raise ProofError("the shuffle proof does not hold one response per slot")
        self.check_reduced("shuffle proof", {
            "challenge": proof.challenge, "k_A": proof.k_a, "k_B": proof.k_b, "k_C": proof.k_c,
            "k_D": proof.k_d, "k_v": proof.k_v, "k_f": proof.k_f})
        c, k_a, k_c, k_d, k_f = self._ints(
            [proof.challenge, proof.k_a, proof.k_c, proof.k_d, proof.k_f])
        k_b = self._ints(proof.k_b)
        k_v = self._ints(proof.k_v)
        cs = self._points(proof.commitments)
        chain = self._points(proof.chain)
        try:
            h1, u = self._u_vector(ctx, xs, ys, big_e, cs)
            scalars = (c, k_a, k_b, k_c, k_d, k_v, k_f)
            firsts = self._fast(self._shuffle_firsts_double, scalars, u, xs, ys, big_e, cs, chain)
            if firsts is None:
                firsts = self._shuffle_firsts(scalars, u, xs, ys, big_e, cs, chain)
        except g.unusable as exc:
            # A zero scalar, the identity, a point off the group: an honest proof meets none.
            raise ProofError(f"the shuffle proof holds an unusable value ({exc})") from None
        if self._shuffle_challenge(h1, chain, firsts) != c:
            raise ProofError("the shuffle proof does not verify")

    def _fast(self, firsts: Callable[..., list[PointT]], *args: object) -> list[PointT] | None:
        """The first messages by the double multiplication, or None for the reference to decide.

        Each of its sums is the reference's, or the reference's with ``b·G``
        and ``a·P`` joined into one double multiplication; so where it raises
        nothing, the reference raises nothing and makes the same points. Where
        it raises (a zero scalar, an identity, also a partial one the reference
        never forms), the reference runs and fails, with its words, or passes:
        a proof's verdict and reason are the reference's, byte for byte.
        """
        if not self.double_base:
            return None
        try:
            return firsts(*args)
        except self.group.unusable:
            return None

    def _shuffle_firsts(
        self, scalars: tuple[int, int, list[int], int, int, list[int], int], u: list[int],
        xs: Sequence[PointT], ys: Sequence[PointT], big_e: PointT, cs: Sequence[PointT],
        chain: Sequence[PointT],
    ) -> list[PointT]:
        """The reference: the verification equations, one call per multiplication."""
        g, q = self.group, self.group.order
        c, k_a, k_b, k_c, k_d, k_v, k_f = scalars
        n = len(xs)
        # c·Σ u_j c_j folded into one sum: the challenge multiplies the weights.
        firsts = [
            g.add([g.base(k_a), self._lincomb(k_v, self._generator_list(n)),
                   self._lincomb([(-c * uj) % q for uj in u], cs)])
        ]
        previous = self.generator(0)
        for i in range(n):
            firsts.append(g.add([g.base(k_b[i]), g.mul(k_v[i], previous),
                                 g.mul(q - c, chain[i])]))
            previous = chain[i]
        col_sum = g.sub(g.add(cs), self._generator_sum(n))
        firsts.append(g.sub(g.base(k_c), g.mul(c, col_sum)))
        d_point = g.sub(chain[-1], g.mul(self._product(u), self.generator(0)))
        firsts.append(g.sub(g.base(k_d), g.mul(c, d_point)))
        firsts.append(g.add([self._lincomb(k_v, xs),
                             self._lincomb([(-k_f * uj) % q for uj in u], ys)]))
        firsts.append(g.sub(g.mul(k_f, big_e), g.base(c)))
        return firsts

    def _shuffle_firsts_double(
        self, scalars: tuple[int, int, list[int], int, int, list[int], int], u: list[int],
        xs: Sequence[PointT], ys: Sequence[PointT], big_e: PointT, cs: Sequence[PointT],
        chain: Sequence[PointT],
    ) -> list[PointT]:
        """The reference's points with ``a·P + b·G`` in one call where a sum holds both."""
        g, q = self.group, self.group.order
        c, k_a, k_b, k_c, k_d, k_v, k_f = scalars
        n = len(xs)
        minus_c = q - c
        firsts = [
            g.add([g.base(k_a), self._lincomb(k_v, self._generator_list(n)),
                   self._lincomb([(-c * uj) % q for uj in u], cs)])
        ]
        previous = self.generator(0)
        for i in range(n):
            firsts.append(g.add([g.mul_base(k_v[i], previous, k_b[i]),
                                 g.mul(minus_c, chain[i])]))
            previous = chain[i]
        col_sum = g.sub(g.add(cs), self._generator_sum(n))
        firsts.append(g.mul_base(minus_c, col_sum, k_c))
        d_point = g.sub(chain[-1], g.mul(self._product(u), self.generator(0)))
        firsts.append(g.mul_base(minus_c, d_point, k_d))
        firsts.append(g.add([self._lincomb(k_v, xs),
                             self._lincomb([(-k_f * uj) % q for uj in u], ys)]))
        firsts.append(g.mul_base(k_f, big_e, minus_c))
        return firsts

    def _product(self, values: Sequence[int]) -> int:
        q = self.group.order
        out = 1
        for v in values:
            out = out * v % q
        return out

    # --------------------------------------------------------------- lock

    def _lock_challenge(
        self, ctx: bytes, xs: Sequence[PointT], ys: Sequence[PointT], big_e: PointT,
        big_k: Sequence[PointT], firsts: Sequence[PointT],
    ) -> int:
        return self._hash_scalar(
            self.label_lock, ctx, self._enc(xs), self._enc(ys), self.group.encode(big_e),
            self._enc(big_k), self._enc(firsts),
        )

    def prove_lock(
        self, seed: bytes, ctx: bytes, xs: Sequence[PointT], ys: Sequence[PointT], e: int,
        keys: Sequence[int], big_e: PointT, big_k: Sequence[PointT],
    ) -> LockProof:
        """Prove ``e·ys[j] = keys[j]·xs[j]`` for every slot, given ``E`` and the ``K_j``."""
        g, q = self.group, self.group.order
        n = len(xs)
        w = self._nonces(seed, frame(self.label_lock, ctx, self._enc(xs), self._enc(ys)), n + 1)
        w_e, w_k = w[0], w[1:]
        firsts = [g.base(w_e)]
        firsts.extend(g.base(wk) for wk in w_k)
        # T_j = w_e·Y_j − w_j·X_j with Y_j = (k_j/e)·X_j: one multiplication, not two.
        inv_e = pow(e, -1, q)
        firsts.extend(g.mul((w_e * keys[j] * inv_e - w_k[j]) % q, xs[j]) for j in range(n))
        c = self._lock_challenge(ctx, xs, ys, big_e, big_k, firsts)
        return LockProof(
            self.scalar(c),
            self.scalar(w_e + c * e),
            tuple(self.scalar(w_k[j] + c * keys[j]) for j in range(n)),
        )

    def verify_lock(
        self, ctx: bytes, xs: Sequence[PointT], ys: Sequence[PointT], big_e: PointT,
        big_k: Sequence[PointT], proof: LockProof,
    ) -> None:
        """Raise ``ProofError`` unless each slot went from ``xs`` to ``ys`` by ``k_j / e``."""
        g = self.group
        n = len(xs)
        if len(ys) != n or len(big_k) != n or len(proof.z_k) != n:
            raise ProofError(
                "the lock proof does not hold one key commitment and response per slot")
        self.check_reduced("lock proof", {"challenge": proof.challenge, "z_e": proof.z_e,
                                          "z_k": proof.z_k})
        c, z_e = self._ints([proof.challenge, proof.z_e])
        z_k = self._ints(proof.z_k)
        try:
            firsts = self._fast(self._lock_firsts_double, c, z_e, z_k, xs, ys, big_e, big_k)
            if firsts is None:
                firsts = self._lock_firsts(c, z_e, z_k, xs, ys, big_e, big_k)
        except g.unusable as exc:
            raise ProofError(f"the lock proof holds an unusable value ({exc})") from None
        if self._lock_challenge(ctx, xs, ys, big_e, big_k, firsts) != c:
            raise ProofError("the lock proof does not verify")

    def _lock_firsts(
        self, c: int, z_e: int, z_k: Sequence[int], xs: Sequence[PointT], ys: Sequence[PointT],
        big_e: PointT, big_k: Sequence[PointT],
    ) -> list[PointT]:
        """The reference: the verification equations, one call per multiplication."""
        g, q = self.group, self.group.order
        n = len(xs)
        minus_c = (-c) % q
        firsts = [g.add([g.base(z_e), g.mul(minus_c, big_e)])]
        firsts.extend(g.add([g.base(z_k[j]), g.mul(minus_c, big_k[j])]) for j in range(n))
        firsts.extend(g.add([g.mul(z_e, ys[j]), g.mul(q - z_k[j], xs[j])]) for j in range(n))
        return firsts

    def _lock_firsts_double(
        self, c: int, z_e: int, z_k: Sequence[int], xs: Sequence[PointT], ys: Sequence[PointT],
        big_e: PointT, big_k: Sequence[PointT],
    ) -> list[PointT]:
        """The reference's points, ``z·G − c·P`` in one call each."""
        g, q = self.group, self.group.order
        n = len(xs)
        minus_c = (-c) % q
        firsts = [g.mul_base(minus_c, big_e, z_e)]
        firsts.extend(g.mul_base(minus_c, big_k[j], z_k[j]) for j in range(n))
        firsts.extend(g.lincomb((z_e, q - z_k[j]), (ys[j], xs[j])) for j in range(n))
        return firsts

    # -------------------------------------------------------------- strip

    def _strip_weights(
        self, ctx: bytes, big_e: PointT, ins: Sequence[PointT], outs: Sequence[PointT]
    ) -> tuple[bytes, list[int]]:
        h = hashlib.blake2b(
            frame(self.label_strip, ctx, self.group.encode(big_e), self._enc(ins),
                  self._enc(outs)),
            digest_size=64,
        ).digest()
        return h, [self._hash_scalar(h, j.to_bytes(4, "big")) or 1 for j in range(len(ins))]

    def _strip_challenge(self, h: bytes, a1: PointT, a2: PointT) -> int:
        return self._hash_scalar(self.label_strip, h, self._enc([a1, a2]))

    def prove_strip(
        self, seed: bytes, ctx: bytes, e: int, big_e: PointT, ins: Sequence[PointT],
        outs: Sequence[PointT], inv_e: int | None = None,
    ) -> StripProof:
        """Prove ``ins[j] = e·outs[j]`` for every j, given ``E = e·G`` (version 4's keys).

        One Chaum–Pedersen proof for the whole message: with weights ``ρ_j``
        hashed from everything it states, ``log_G E = log_Ô Î`` for ``Î = Σ ρ_j
        ins[j]`` and ``Ô = Σ ρ_j outs[j]`` (SPEC.md §2.8b).
        """
        g, q = self.group, self.group.order
        h, rho = self._strip_weights(ctx, big_e, ins, outs)
        (w,) = self._nonces(seed, frame(self.label_strip, ctx, self._enc(ins), self._enc(outs)), 1)
        # A2 = w·Ô, and Ô = e^-1·Î: one sum over the inputs and one multiplication.
        if inv_e is None:
            inv_e = pow(e, -1, q)
        a2 = g.mul(w * inv_e % q, self._lincomb(rho, ins))
        c = self._strip_challenge(h, g.base(w), a2)
        return StripProof(self.scalar(c), self.scalar(w + c * e))

    def verify_strip(
        self, ctx: bytes, big_e: PointT, ins: Sequence[PointT], outs: Sequence[PointT],
        proof: StripProof,
    ) -> None:
        """Raise ``ProofError`` unless every ``outs[j]`` is ``ins[j]`` with ``E``'s key removed."""
        g, q = self.group, self.group.order
        if not ins or len(ins) != len(outs):
            raise ProofError("the strip proof does not hold one output per input")
        self.check_reduced("strip proof", {"challenge": proof.challenge, "z": proof.z})
        c, z = self._ints([proof.challenge, proof.z])
        h, rho = self._strip_weights(ctx, big_e, ins, outs)
        minus_c = (-c) % q
        try:
            a1 = (g.mul_base(minus_c, big_e, z) if self.double_base
                  else g.add([g.base(z), g.mul(minus_c, big_e)]))
            a2 = self._lincomb([z * r % q for r in rho] + [minus_c * r % q for r in rho],
                               [*outs, *ins])
        except g.unusable as exc:
            raise ProofError(f"the strip proof holds an unusable value ({exc})") from None
        if self._strip_challenge(h, a1, a2) != c:
            raise ProofError("the strip proof does not verify")


#: Deck version 2's proofs (edwards25519), version 3's and version 4's (secp256k1).
V2 = ProofSystem(ED25519)
V3 = ProofSystem(SECP256K1)
V4 = ProofSystem(SECP256K1_V4)


def analytic_counts(n: int) -> dict[str, tuple[int, int]]:
    """Scalar multiplications (variable-base, base-point) of each proof, for N slots.

    Not counted here: a pass's own N multiplications, a shuffle's ``E`` and a
    lock's N key commitments ``K_j`` (base-point), which the proofs take as given.
    """
    return {
        "shuffle_prove": (4 * n, 3 * n + 4),
        "shuffle_verify": (6 * n + 4, n + 4),
        "lock_prove": (n, n + 1),
        "lock_verify": (3 * n + 1, n + 1),
    }


def analytic_counts_v3(n: int) -> dict[str, tuple[int, int, int]]:
    """Version 3's calls per proof, for N slots: (variable-base, base-point, double).

    A double is one ``a·P + b·G`` (``mul_base``): the verifier makes one
    where the reference makes a variable-base and a base-point multiplication
    (SPEC.md §2.8, "Cost"); the prover's counts are ``analytic_counts``'.
    """
    counts = analytic_counts(n)
    return {
        "shuffle_prove": (*counts["shuffle_prove"], 0),
        "shuffle_verify": (5 * n + 1, 1, n + 3),
        "lock_prove": (*counts["lock_prove"], 0),
        "lock_verify": (2 * n, 0, n + 1),
    }


# ------------------------------------------- version 2 with scalars as bytes


def _i(scalar: bytes) -> int:
    return int.from_bytes(scalar, "little")


def prove_shuffle(
    seed: bytes, ctx: bytes, xs: Sequence[bytes], ys: Sequence[bytes], e: bytes,
    perm: Sequence[int],
) -> ShuffleProof:
    """Version 2: prove ``ys[j] = e·xs[perm[j]]`` for the published ``E = e·G``."""
    return V2.prove_shuffle(seed, ctx, xs, ys, _i(e), perm)


def verify_shuffle(
    ctx: bytes, xs: Sequence[bytes], ys: Sequence[bytes], big_e: bytes, proof: ShuffleProof
) -> None:
    """Version 2: raise ``ProofError`` unless ``ys`` is ``xs`` permuted under ``E``'s key."""
    V2.verify_shuffle(ctx, xs, ys, big_e, proof)


def prove_lock(
    seed: bytes, ctx: bytes, xs: Sequence[bytes], ys: Sequence[bytes], e: bytes,
    keys: Sequence[bytes], big_e: bytes, big_k: Sequence[bytes],
) -> LockProof:
    """Version 2: prove ``e·ys[j] = keys[j]·xs[j]`` for every slot."""
    return V2.prove_lock(seed, ctx, xs, ys, _i(e), [_i(k) for k in keys], big_e, big_k)


def verify_lock(
    ctx: bytes, xs: Sequence[bytes], ys: Sequence[bytes], big_e: bytes, big_k: Sequence[bytes],
    proof: LockProof,
) -> None:
    """Version 2: raise ``ProofError`` unless each slot went from ``xs`` to ``ys`` by k_j/e."""
    V2.verify_lock(ctx, xs, ys, big_e, big_k, proof)


def key_matches(key: bytes, commitment: bytes) -> bool:
    """Version 2: a published per-card key against its commitment (one base multiplication)."""
    return ED25519.base(_i(key)) == commitment


def public_key(scalar: bytes) -> bytes:
    """Version 2: ``scalar·G`` (the published commitment ``E`` or ``K_j``)."""
    return ED25519.base(_i(scalar))


__all__ = [
    "V2",
    "V3",
    "V4",
    "L",
    "LockProof",
    "ProofError",
    "ProofGroup",
    "ProofSystem",
    "ShuffleProof",
    "StripProof",
    "UnreducedScalar",
    "analytic_counts",
    "analytic_counts_v3",
    "context",
    "key_matches",
    "prove_lock",
    "prove_shuffle",
    "public_key",
    "verify_lock",
    "verify_shuffle",
]
