"""What a deck protocol version needs from its group, behind one interface.

``DeckProtocol`` speaks bytes (messages carry wire forms); a suite turns
them into group operations. ``Ed25519Suite`` is versions 1 and 2 (the
functions of ``group``, ``passes`` and ``proofs``, unchanged); ``Secp256k1Suite``
is version 3 (``group_v3``, ``proofs.V3``): it keeps every point it has
read or made decoded, keyed by its encoding, for the life of one hand's
protocol object, so a point is parsed once and serialized once.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import group, passes, proofs
from .card_points import CARD_POINTS
from .group_v3 import CARD_POINTS_V3, N, Point, base, mul, scalar_bytes, scalar_int
from .kdf import permutation, prf_scalar
from .proofs import V3, V4, LockProof, ProofError, ProofSystem, ShuffleProof, StripProof

LABEL_SHUFFLE_KEY_V3 = b"gleek-p2p/deck/v3/shuffle-key"
LABEL_LOCK_KEY_V3 = b"gleek-p2p/deck/v3/lock-key"
LABEL_SHUFFLE_KEY_V4 = b"gleek-p2p/deck/v4/shuffle-key"


class Ed25519Suite:
    """Deck versions 1 and 2: edwards25519 through PyNaCl (SPEC.md §2.2)."""

    point_bytes = group.POINT_BYTES
    card_points = CARD_POINTS

    def is_valid_point(self, point: object) -> bool:
        return group.is_valid_point(point)

    def is_valid_scalar(self, scalar: object) -> bool:
        return group.is_valid_scalar(scalar)

    def shuffle_pass(
        self, seed: bytes, hand_id: bytes, seat: int, deck: Sequence[bytes], *, lock: bool
    ) -> tuple[bytes, ...]:
        return passes.shuffle_pass(seed, hand_id, seat, deck, lock=lock)

    def lock_pass(
        self, seed: bytes, hand_id: bytes, seat: int, deck: Sequence[bytes]
    ) -> tuple[bytes, ...]:
        return passes.lock_pass(seed, hand_id, seat, deck)

    def lock_keys(self, seed: bytes, hand_id: bytes, seat: int, n: int) -> tuple[bytes, ...]:
        return passes.lock_keys(seed, hand_id, seat, n)

    def unlock(self, point: bytes, keys: Sequence[bytes]) -> bytes:
        return passes.unlock(point, keys)

    def prove_shuffle(
        self, seed: bytes, hand_id: bytes, seat: int, ctx: bytes, deck: Sequence[bytes]
    ) -> tuple[tuple[bytes, ...], bytes, ShuffleProof]:
        """This seat's shuffle of ``deck``: (points, E, proof)."""
        from .kdf import shuffle_key

        points = passes.shuffle_pass(seed, hand_id, seat, deck, lock=False)
        e = shuffle_key(seed, hand_id, seat)
        perm = permutation(seed, hand_id, seat, len(deck))
        big_e = proofs.public_key(e)
        proof = proofs.V2.prove_shuffle(
            seed, ctx, deck, points, int.from_bytes(e, "little"), perm, big_e)
        return points, big_e, proof

    def prove_lock(
        self, seed: bytes, hand_id: bytes, seat: int, ctx: bytes, deck: Sequence[bytes],
        big_e: bytes,
    ) -> tuple[tuple[bytes, ...], tuple[bytes, ...], LockProof]:
        """This seat's lock of ``deck``: (points, K, proof)."""
        from .kdf import shuffle_key

        points = passes.lock_pass(seed, hand_id, seat, deck)
        keys = passes.lock_keys(seed, hand_id, seat, len(deck))
        big_k = tuple(proofs.public_key(k) for k in keys)
        e = shuffle_key(seed, hand_id, seat)
        proof = proofs.prove_lock(seed, ctx, deck, points, e, keys, big_e, big_k)
        return points, big_k, proof

    def verify_shuffle(
        self, ctx: bytes, deck: Sequence[bytes], points: Sequence[bytes], big_e: bytes,
        proof: ShuffleProof,
    ) -> None:
        if type(big_e) is not bytes or not group.is_valid_point(big_e):
            raise ProofError("its shuffle key commitment is not a valid point")
        proofs.verify_shuffle(ctx, deck, points, big_e, proof)

    def verify_lock(
        self, ctx: bytes, deck: Sequence[bytes], points: Sequence[bytes], big_e: bytes,
        big_k: Sequence[bytes], proof: LockProof,
    ) -> None:
        proofs.verify_lock(ctx, deck, points, big_e, big_k, proof)

    def key_matches(self, key: bytes, commitment: bytes) -> bool:
        return proofs.key_matches(key, commitment)


def _prf_scalar(seed: bytes, label: bytes, hand_id: bytes, seat: int, index: int) -> int:
    # BLAKE2b-512 keyed with the seed, read big-endian, mod N.
    return prf_scalar(seed, label, hand_id, seat, index,
                      lambda wide: int.from_bytes(wide, "big") % N, lambda s: s == 0)


def shuffle_key_v3(seed: bytes, hand_id: bytes, seat: int) -> int:
    """A version 3 seat's shuffle key ``e`` (1..N-1)."""
    return _prf_scalar(seed, LABEL_SHUFFLE_KEY_V3, hand_id, seat, 0)


def shuffle_key_v4(seed: bytes, hand_id: bytes, seat: int) -> int:
    """A version 4 seat's shuffle key ``e`` (1..N-1): its one layer on every slot."""
    return _prf_scalar(seed, LABEL_SHUFFLE_KEY_V4, hand_id, seat, 0)


def lock_key_v3(seed: bytes, hand_id: bytes, seat: int, slot: int) -> int:
    """A version 3 seat's per-card key for one slot (1..N-1)."""
    return _prf_scalar(seed, LABEL_LOCK_KEY_V3, hand_id, seat, slot)


#: The 44 card points decoded, once per process (a ``Point`` never changes, so
#: every hand's suite may share them): each seat's first shuffle and the
#: checks of it start from them.
_DECODED_CARDS: dict[bytes, Point] = {}


class Secp256k1Suite:
    """Deck versions 3 and 4: secp256k1 through coincurve, points kept decoded (SPEC.md §2.2).

    Version 4 has no lock pass: its shuffle key is a seat's one layer on every
    slot, stripped off one slot at a time with a proof (``strip``).
    """

    point_bytes = 33
    card_points = CARD_POINTS_V3

    def __init__(self, version: int = 3) -> None:
        self.version = version
        self._shuffle_key = shuffle_key_v4 if version == 4 else shuffle_key_v3
        self._layers: dict[tuple[bytes, bytes, int], tuple[int, int]] = {}
        if not _DECODED_CARDS:
            _DECODED_CARDS.update((p, Point.decode(p)) for p in CARD_POINTS_V3)
        self._points: dict[bytes, Point] = dict(_DECODED_CARDS)

    @property
    def _proofs(self) -> ProofSystem[Point]:
        # Looked up, not held: a suite is copied and pickled with its hand.
        return V4 if self.version == 4 else V3

    def point(self, data: bytes) -> Point:
        """The decoded point of an encoding (parsed once per protocol object)."""
        p = self._points.get(data)
        if p is None:
            p = Point.decode(data)
            self._points[data] = p
        return p

    def _decoded(self, points: Sequence[bytes]) -> list[Point]:
        try:
            return [self.point(p) for p in points]
        except ValueError as exc:
            raise ProofError(f"a point is not a point of the group ({exc})") from None

    def _wire(self, points: Sequence[Point]) -> tuple[bytes, ...]:
        out = []
        for p in points:
            enc = p.encode()
            self._points.setdefault(enc, p)
            out.append(enc)
        return tuple(out)

    def is_valid_point(self, point: object) -> bool:
        if type(point) is not bytes:
            return False
        try:
            self.point(point)
        except ValueError:
            return False
        return True

    def is_valid_scalar(self, scalar: object) -> bool:
        try:
            return scalar_int(scalar) != 0
        except ValueError:
            return False

    def _keys(self, seed: bytes, hand_id: bytes, seat: int, n: int) -> list[int]:
        return [lock_key_v3(seed, hand_id, seat, j) for j in range(n)]

    def _shuffled(
        self, seed: bytes, hand_id: bytes, seat: int, deck: Sequence[bytes]
    ) -> tuple[list[Point], list[Point], int, tuple[int, ...]]:
        xs = self._decoded(deck)
        e = self._shuffle_key(seed, hand_id, seat)
        perm = permutation(seed, hand_id, seat, len(deck))
        return xs, [mul(e, xs[perm[j]]) for j in range(len(xs))], e, perm

    def _locked(
        self, seed: bytes, hand_id: bytes, seat: int, deck: Sequence[bytes]
    ) -> tuple[list[Point], list[Point], int, list[int]]:
        xs = self._decoded(deck)
        e = self._shuffle_key(seed, hand_id, seat)
        keys = self._keys(seed, hand_id, seat, len(deck))
        inv_e = pow(e, -1, N)
        return xs, [mul(inv_e * k % N, x) for k, x in zip(keys, xs, strict=True)], e, keys

    def shuffle_pass(
        self, seed: bytes, hand_id: bytes, seat: int, deck: Sequence[bytes], *, lock: bool
    ) -> tuple[bytes, ...]:
        # Version 3 never locks in a shuffle (that is version 1 only).
        return self._wire(self._shuffled(seed, hand_id, seat, deck)[1])

    def lock_pass(
        self, seed: bytes, hand_id: bytes, seat: int, deck: Sequence[bytes]
    ) -> tuple[bytes, ...]:
        return self._wire(self._locked(seed, hand_id, seat, deck)[1])

    def lock_keys(self, seed: bytes, hand_id: bytes, seat: int, n: int) -> tuple[bytes, ...]:
        return tuple(scalar_bytes(k) for k in self._keys(seed, hand_id, seat, n))

    def unlock(self, point: bytes, keys: Sequence[bytes]) -> bytes:
        product = 1
        for k in keys:
            product = product * scalar_int(k) % N
        return mul(pow(product, -1, N), self.point(point)).encode()

    def prove_shuffle(
        self, seed: bytes, hand_id: bytes, seat: int, ctx: bytes, deck: Sequence[bytes]
    ) -> tuple[tuple[bytes, ...], bytes, ShuffleProof]:
        xs, ys, e, perm = self._shuffled(seed, hand_id, seat, deck)
        big_e = base(e)
        proof = self._proofs.prove_shuffle(seed, ctx, xs, ys, e, perm, big_e)
        return self._wire(ys), self._wire([big_e])[0], proof

    def prove_lock(
        self, seed: bytes, hand_id: bytes, seat: int, ctx: bytes, deck: Sequence[bytes],
        big_e: bytes,
    ) -> tuple[tuple[bytes, ...], tuple[bytes, ...], LockProof]:
        xs, ys, e, keys = self._locked(seed, hand_id, seat, deck)
        big_k = [base(k) for k in keys]
        proof = V3.prove_lock(seed, ctx, xs, ys, e, keys, self.point(big_e), big_k)
        return self._wire(ys), self._wire(big_k), proof

    def verify_shuffle(
        self, ctx: bytes, deck: Sequence[bytes], points: Sequence[bytes], big_e: bytes,
        proof: ShuffleProof,
    ) -> None:
        if type(big_e) is not bytes or not self.is_valid_point(big_e):
            raise ProofError("its shuffle key commitment is not a valid point")
        self._proofs.verify_shuffle(
            ctx, self._decoded(deck), self._decoded(points), self.point(big_e), proof
        )

    def verify_lock(
        self, ctx: bytes, deck: Sequence[bytes], points: Sequence[bytes], big_e: bytes,
        big_k: Sequence[bytes], proof: LockProof,
    ) -> None:
        V3.verify_lock(
            ctx, self._decoded(deck), self._decoded(points), self.point(big_e),
            self._decoded(big_k), proof,
        )

    def key_matches(self, key: bytes, commitment: bytes) -> bool:
        return base(scalar_int(key)).encode() == commitment

    # ------------------------------------------------------------ version 4

    def strip(
        self, seed: bytes, hand_id: bytes, seat: int, ctx: bytes, big_e: bytes,
        points: Sequence[bytes],
    ) -> tuple[tuple[bytes, ...], StripProof]:
        """This seat's layer taken off each point, and the proof of it (version 4's keys).

        ``big_e`` is the seat's ``E`` as its accepted shuffle published it.
        """
        e, inv_e = self._layer(seed, hand_id, seat)
        ins = self._decoded(points)
        outs = [mul(inv_e, p) for p in ins]
        proof = self._proofs.prove_strip(seed, ctx, e, self.point(big_e), ins, outs, inv_e)
        return self._wire(outs), proof

    def verify_strip(
        self, ctx: bytes, big_e: bytes, ins: Sequence[bytes], outs: Sequence[bytes],
        proof: StripProof,
    ) -> None:
        """Raise ``ProofError`` unless each of ``outs`` is its input with ``E``'s key removed."""
        self._proofs.verify_strip(
            ctx, self.point(big_e), self._decoded(ins), self._decoded(outs), proof)

    def open_own(self, seed: bytes, hand_id: bytes, seat: int, point: bytes) -> bytes:
        """This seat's own layer taken off a point it alone may open (no proof: kept)."""
        return mul(self._layer(seed, hand_id, seat)[1], self.point(point)).encode()

    def _layer(self, seed: bytes, hand_id: bytes, seat: int) -> tuple[int, int]:
        """A seat's shuffle key and its inverse, derived once a hand (an inverse costs
        about a multiplication, and a seat takes its layer off dozens of slots)."""
        key = (seed, hand_id, seat)
        if self._layers.get(key) is None:
            e = self._shuffle_key(seed, hand_id, seat)
            self._layers = {key: (e, pow(e, -1, N))}
        return self._layers[key]

    def unstrip_all(self, point: bytes, keys: Sequence[int]) -> bytes:
        """A point with every given shuffle key removed (the audit's)."""
        product = 1
        for k in keys:
            product = product * k % N
        return mul(pow(product, -1, N), self.point(point)).encode()

    def shuffle_scalar(self, seed: bytes, hand_id: bytes, seat: int) -> int:
        """A seat's shuffle key from its seed (the audit's)."""
        return self._shuffle_key(seed, hand_id, seat)


ED25519 = Ed25519Suite()
